"""OpenAICompatibleRater against a local OpenAI-compatible server started by the test on 127.0.0.1."""

import json
import logging
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from core.interestingness import load_problem_bank
from core.interestingness.raters import OpenAICompatibleRater, RaterError

KEY = "sk-test-secret-key-123"
SEEN = {"auth": [], "calls": {}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output quiet
        pass

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        model = payload["model"]
        SEEN["auth"].append(self.headers.get("Authorization"))
        SEEN["calls"][model] = SEEN["calls"].get(model, 0) + 1
        if model == "slow":
            time.sleep(1.0)
        if model == "flaky" and SEEN["calls"][model] == 1:
            return self.reply(503, {"error": "busy"})
        if model == "denied":
            return self.reply(401, {"error": "bad key"})
        if model == "garbage":
            return self.reply(200, raw=b"<html>oops</html>")
        if model == "echo":        # a misbehaving endpoint that quotes the request's headers back
            return self.reply(200, raw=f"bad request from {self.headers.get('Authorization')}".encode())
        if model == "echo-chatty":
            return self.reply(200, {"choices": [{"message": {"content": f"{self.headers.get('Authorization')}"}}]})
        if model == "empty":
            return self.reply(200, {"choices": []})
        if model == "chatty":
            return self.reply(200, {"choices": [{"message": {"content": "I think it is quite nice"}}]})
        if model in ("logprobs", "flaky", "slow"):
            options = ["1", "2", "3", "4", "5", "6", "7"] if "digit" in payload["messages"][0]["content"] else \
                ["yes", "no"]
            probs = dict(zip(options, [0.1, 0.2, 0.4, 0.2, 0.05, 0.03, 0.02] if len(options) == 7 else [0.8, 0.2]))
            top = [{"token": f" {t}", "logprob": math.log(p)} for t, p in probs.items()]
            top.append({"token": "Sure", "logprob": math.log(0.5)})
            return self.reply(200, {"choices": [{"message": {"content": " 3"},
                                                 "logprobs": {"content": [{"token": " 3", "top_logprobs": top}]}}]})
        # "samples": no logprobs; content cycles through 6, 6, 7, 6, ...
        n = SEEN["calls"][model]
        return self.reply(200, {"choices": [{"message": {"content": ("7" if n % 4 == 3 else "6") if "digit" in
                                                         payload["messages"][0]["content"] else "yes"}}]})

    def reply(self, code, body=None, raw=None):
        data = raw if raw is not None else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


PROBLEM = load_problem_bank()[0]


def test_logprobs_give_the_renormalised_digit_distribution(server):
    result = OpenAICompatibleRater(server, "logprobs", api_key=KEY).rate(PROBLEM)
    assert np.allclose(result.interestingness, [0.1, 0.2, 0.4, 0.2, 0.05, 0.03, 0.02])
    assert result.rationales["elegant solution"] == pytest.approx(0.8) and "elegant solution" in result.chosen
    assert result.raw["interestingness"]["mode"] == "logprobs" and f"Bearer {KEY}" in SEEN["auth"]


def test_without_logprobs_it_samples(server):
    result = OpenAICompatibleRater(server, "samples", samples=8, rationales=False).rate(PROBLEM)
    assert result.interestingness.sum() == pytest.approx(1.0) and result.interestingness[5] > result.interestingness[6] > 0
    assert result.raw["interestingness"]["mode"] == "samples"


def test_retries_a_busy_server(server):
    result = OpenAICompatibleRater(server, "flaky", backoff=0.01, rationales=False).rate(PROBLEM)
    assert result.interestingness[2] == pytest.approx(0.4) and SEEN["calls"]["flaky"] >= 2


@pytest.mark.parametrize("model, message", [
    ("garbage", "^reply: not JSON"),
    ("empty", "^reply: no 'choices' list"),
    ("chatty", "^reply: none of 3 samples was one of 1, 2"),
    ("denied", "^endpoint: .* answered HTTP 401"),
    ("echo", r"^reply: not JSON \('bad request from Bearer \*\*\*'\)"),
    ("echo-chatty", r"^reply: none of 3 samples .*\(first: 'Bearer \*\*\*'\)"),
    ("slow", r"^endpoint: .* failed 2 times \(no reply within 0.2 s\)"),
])
def test_errors_are_clear_and_never_show_the_key(server, model, message, caplog):
    caplog.set_level(logging.DEBUG)
    rater = OpenAICompatibleRater(server, model, api_key=KEY, timeout=0.2, retries=1, backoff=0.01, samples=3,
                                  rationales=False)
    with pytest.raises(RaterError, match=message) as error:
        rater.rate(PROBLEM)
    assert KEY not in str(error.value) and KEY not in caplog.text and KEY not in repr(rater)


def test_bad_base_url_is_refused():
    with pytest.raises(ValueError, match="^base_url: 'localhost:8000'; allowed an http"):
        OpenAICompatibleRater("localhost:8000", "m")
