"""LLM raters with one interface: ``rate(problem) -> RatingResult``.

``TransformersRater(model_dir)`` loads any local Hugging Face causal-LM directory (nothing is
downloaded: ``local_files_only``). The rating distribution is read from the next-token probabilities
of the digits 1..7 after a fixed, versioned prompt (PROMPT_VERSION), not from sampling: for each
digit the probabilities of its single-token spellings ("4" and " 4") are summed, then the seven are
renormalised. Each rationale's probability is P(yes) / (P(yes) + P(no)) after a yes/no question,
summing the spellings of "yes"/"Yes" and "no"/"No" the same way; a rationale is chosen when it is
above one half. Models with a chat template get the prompt through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.interestingness.problems import RATIONALES, Problem
from core.interestingness.safety import redact

PROMPT_VERSION = "v1"
QUESTIONS = {
    "interestingness": "On a scale from 1 (not at all interesting) to 7 (extremely interesting), how interesting "
                       "is this problem?",
    "difficulty": "On a scale from 1 (trivial) to 7 (extremely hard), how difficult is this problem?",
}


def rating_prompt(problem: Problem, question: str) -> str:
    return (f"You are helping a study of how interesting mathematics problems are.\n\nProblem:\n{problem.statement}"
            f"\n\n{question} Answer with a single digit.\nAnswer:")


def rationale_prompt(problem: Problem, rationale: str) -> str:
    return (f"You are helping a study of how interesting mathematics problems are.\n\nProblem:\n{problem.statement}"
            f"\n\nIs \"{rationale}\" a reason this problem is interesting? Answer yes or no.\nAnswer:")


@dataclass
class RatingResult:
    rater: str
    model: str
    prompt_version: str
    interestingness: np.ndarray                 # probabilities over 1..7
    difficulty: np.ndarray | None = None
    rationales: dict = field(default_factory=dict)   # rationale -> probability
    raw: dict = field(default_factory=dict)

    @property
    def chosen(self) -> list:
        return [r for r, p in self.rationales.items() if p > 0.5]

    @property
    def expected_interestingness(self) -> float:
        return float(np.arange(1, 8) @ self.interestingness)


class TransformersRater:
    name = "transformers"

    def __init__(self, model_dir: str | Path, device: str = "cpu", rationales: bool = True):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model_dir = Path(model_dir)
        if not (model_dir / "config.json").is_file():
            raise ValueError(f"model_dir: {model_dir} holds no config.json; allowed a local Hugging Face causal-LM "
                             "directory (save_pretrained output)")
        self.model_dir = model_dir
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True).to(device).eval()
        self.device, self.with_rationales = device, rationales
        self.digits = [self._spellings(str(d)) for d in range(1, 8)]
        self.yes = self._spellings("yes") + self._spellings("Yes")
        self.no = self._spellings("no") + self._spellings("No")
        missing = [str(d + 1) for d, ids in enumerate(self.digits) if not ids]
        if missing:
            raise ValueError(f"model_dir: the tokenizer has no single token for {', '.join(missing)}; allowed "
                             "tokenizers that spell each digit 1..7 as one token")

    def _spellings(self, word: str) -> list[int]:
        ids = set()
        for text in (word, " " + word):
            encoded = self.tokenizer.encode(text, add_special_tokens=False)
            if len(encoded) == 1 and self.tokenizer.decode(encoded).strip() == word:
                ids.add(encoded[0])
        return sorted(ids)

    def _next_token_probs(self, prompt: str) -> np.ndarray:
        import torch

        if getattr(self.tokenizer, "chat_template", None):
            prompt = self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                        add_generation_prompt=True)
        ids = self.tokenizer(prompt, return_tensors="pt").input_ids.to(self.device)
        with torch.no_grad():
            logits = self.model(input_ids=ids).logits[0, -1].float()
        return torch.softmax(logits, -1).cpu().numpy().astype(np.float64)

    def _scale(self, problem: Problem, question: str) -> np.ndarray:
        probs = self._next_token_probs(rating_prompt(problem, question))
        mass = np.array([probs[ids].sum() for ids in self.digits])
        return mass / mass.sum()

    def rate(self, problem: Problem) -> RatingResult:
        interest = self._scale(problem, QUESTIONS["interestingness"])
        difficulty = self._scale(problem, QUESTIONS["difficulty"])
        reasons = {}
        if self.with_rationales:
            for rationale in RATIONALES[:-1]:   # "other" is not a reason a model can judge
                probs = self._next_token_probs(rationale_prompt(problem, rationale))
                yes, no = probs[self.yes].sum(), probs[self.no].sum()
                reasons[rationale] = float(yes / (yes + no)) if yes + no > 0 else 0.5
        return RatingResult(self.name, self.model_dir.name, PROMPT_VERSION, interest, difficulty, reasons,
                            raw={"interestingness": interest.tolist(), "difficulty": difficulty.tolist()})


class RaterError(RuntimeError):
    """A rater could not produce a rating; the message says why (never with credentials)."""


class OpenAICompatibleRater:
    """Any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp's server, hosted APIs).

    Asks for one token with ``logprobs``/``top_logprobs``; when the server returns them the
    distribution is the digits' probabilities among the top tokens, renormalised. Otherwise it draws
    ``samples`` replies at ``temperature`` and uses their empirical distribution. Timeouts and 429/5xx
    replies are retried with exponential backoff; a malformed reply raises RaterError naming what
    was missing. The API key is sent in the Authorization header only: it is never logged, stored or
    shown (``repr`` hides it).
    """

    name = "openai-compatible"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 30.0,
                 retries: int = 3, backoff: float = 0.5, samples: int = 10, temperature: float = 1.0,
                 rationales: bool = True):
        if not str(base_url).startswith(("http://", "https://")):
            raise ValueError(f"base_url: {base_url!r}; allowed an http(s) URL such as http://127.0.0.1:8000/v1")
        self.base_url, self.model = str(base_url).rstrip("/"), str(model)
        self.__key = api_key
        self.timeout, self.retries, self.backoff = float(timeout), int(retries), float(backoff)
        self.samples, self.temperature, self.with_rationales = int(samples), float(temperature), rationales

    def __repr__(self) -> str:
        return f"OpenAICompatibleRater(base_url={self.base_url!r}, model={self.model!r}, api_key={'***' if self.__key else None})"

    def _post(self, payload: dict) -> dict:
        import json
        import time
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/json"}
        if self.__key:
            headers["Authorization"] = f"Bearer {self.__key}"
        body = json.dumps(payload).encode()
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    # a misbehaving endpoint may echo the request: the key never goes further than here
                    text = redact(response.read().decode("utf-8", "replace"), self.__key)
            except urllib.error.HTTPError as error:
                last = f"HTTP {error.code}"
                if error.code == 429 or error.code >= 500:
                    continue
                raise RaterError(redact(f"endpoint: {self.base_url} answered HTTP {error.code}; allowed a 200 "
                                        "reply (check the model name and the key)", self.__key)) from None
            except (TimeoutError, OSError) as error:
                last = f"no reply within {self.timeout:g} s" if "timed out" in str(error) else type(error).__name__
                continue
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise RaterError(f"reply: not JSON ({text[:80]!r}); allowed a chat-completion JSON object") from None
        raise RaterError(redact(f"endpoint: {self.base_url} failed {self.retries + 1} times ({last}); allowed a "
                                "reachable OpenAI-compatible server", self.__key))

    @staticmethod
    def _choices(reply: dict) -> list:
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices:
            raise RaterError("reply: no 'choices' list; allowed a chat completion with choices[0].message.content")
        return choices

    def _distribution(self, prompt: str, options: list[str]) -> tuple[np.ndarray, dict]:
        """Probabilities over ``options`` (single words) for the first token of the reply."""
        messages = [{"role": "user", "content": prompt}]
        reply = self._post({"model": self.model, "messages": messages, "max_tokens": 1, "temperature": 0,
                            "logprobs": True, "top_logprobs": 20})
        choice = self._choices(reply)[0]
        top = (((choice.get("logprobs") or {}).get("content") or [{}])[0] or {}).get("top_logprobs")
        if top:
            mass = np.zeros(len(options))
            for entry in top:
                token = str(entry.get("token", "")).strip().lower()
                if token in options:
                    mass[options.index(token)] += np.exp(float(entry["logprob"]))
            if mass.sum() > 0:
                return mass / mass.sum(), {"mode": "logprobs", "top_logprobs": top}
        counts = np.zeros(len(options))
        replies = []
        for _ in range(self.samples):
            reply = self._post({"model": self.model, "messages": messages, "max_tokens": 3,
                                "temperature": self.temperature})
            content = self._choices(reply)[0].get("message", {}).get("content")
            if not isinstance(content, str):
                raise RaterError("reply: choices[0].message.content is missing; allowed a text reply")
            replies.append(content)
            word = content.strip().split()[0].strip(".").lower() if content.strip() else ""
            if word in options:
                counts[options.index(word)] += 1
        if counts.sum() == 0:
            raise RaterError(f"reply: none of {len(replies)} samples was one of {', '.join(options)} "
                             f"(first: {replies[0][:40]!r}); allowed replies starting with one of them")
        return counts / counts.sum(), {"mode": "samples", "replies": replies}

    def rate(self, problem: Problem) -> RatingResult:
        digits = [str(d) for d in range(1, 8)]
        interest, raw_i = self._distribution(rating_prompt(problem, QUESTIONS["interestingness"]), digits)
        difficulty, raw_d = self._distribution(rating_prompt(problem, QUESTIONS["difficulty"]), digits)
        reasons = {}
        if self.with_rationales:
            for rationale in RATIONALES[:-1]:
                p, _ = self._distribution(rationale_prompt(problem, rationale), ["yes", "no"])
                reasons[rationale] = float(p[0])
        return RatingResult(self.name, self.model, PROMPT_VERSION, interest, difficulty, reasons,
                            raw={"interestingness": raw_i, "difficulty": raw_d})
