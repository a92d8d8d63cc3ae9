"""LLM-generated problems and the validity filter that decides which join a study's pool.

A text model is anything with ``complete(prompt, max_tokens, temperature) -> str``: ``ChatModel``
wraps an OpenAI-compatible endpoint, ``LocalModel`` a local Hugging Face causal LM. The generator is
asked (prompt version GENERATION_PROMPT_VERSION) for one JSON object {"statement", "answer",
"check"}; "check" is an optional arithmetic expression whose value should equal the answer.

The filter keeps a problem only if every test passes, and records the first failure as the reason:
1. the reply is a JSON object with a statement of 20..1000 characters;
2. SymPy: where the answer is a closed form (numbers, + − × ÷ ^, parentheses, sqrt, pi, E, factorial,
   binomial; a whitelist checked before parsing, so no reply is ever evaluated as code) it must parse
   to a finite number, and a "check" in the same grammar must simplify to the same value;
3. an LLM judge (any text model) answers "yes" to "is this well-posed with a unique answer?".
Kept problems join the pool with source "generated"; participants never see the source.

A generated problem's id is ``<prefix>-<topic>-<difficulty>-<first 12 hex of the SHA-256 of its statement>``
(our choice): a second run can never reuse the id of an earlier problem with another text, and the
same text generated twice is the same problem.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from core.common.progress import report
from core.interestingness.problems import TOPICS, Problem

GENERATION_PROMPT_VERSION = "gen-v1"
CLOSED_FORM = re.compile(r"^[0-9\s+\-*/^().,]*(?:(?:sqrt|pi|E|factorial|binomial)[0-9\s+\-*/^().,]*)*$")


@dataclass(frozen=True)
class Verdict:
    problem: Problem | None
    kept: bool
    reason: str
    raw: str


def generation_prompt(topic: str, difficulty: int) -> str:
    return (f"Write one original {topic} problem of difficulty {difficulty} on a 1-5 scale (1 = routine, 5 = "
            "olympiad). Reply with only a JSON object with keys \"statement\" (Markdown, LaTeX in $...$), "
            "\"answer\" (the final answer; a plain arithmetic expression when it is a number) and \"check\" (an "
            "arithmetic expression that computes the answer independently, or null).")


def judge_prompt(statement: str) -> str:
    return (f"Problem:\n{statement}\n\nIs this problem well-posed, with all needed information and a unique "
            "answer? Answer yes or no.\nAnswer:")


def sympy_value(text: str):
    """A finite SymPy number for a whitelisted closed form, None if ``text`` is not a closed form."""
    import sympy

    cleaned = str(text).strip().strip("$").replace("\\cdot", "*").replace("^", "**")
    cleaned = re.sub(r"(?<=\d),(?=\d{3}\b)", "", cleaned)          # 1,000 -> 1000
    if not cleaned or not CLOSED_FORM.match(cleaned.replace("**", "^")):
        return None
    value = sympy.sympify(cleaned, locals={"sqrt": sympy.sqrt, "pi": sympy.pi, "E": sympy.E,
                                           "factorial": sympy.factorial, "binomial": sympy.binomial})
    if not value.is_number or not value.is_finite:
        raise ValueError(f"sympy: {text!r} is not a finite number")
    return value


def check_reply(raw: str, topic: str, difficulty: int, problem_id: str) -> Problem:
    """The problem in a generator's reply, or ValueError saying what is wrong with it."""
    import sympy

    text = raw.strip()
    match = re.search(r"\{.*\}", text, re.S)
    try:
        data = json.loads(match.group(0) if match else text)
    except json.JSONDecodeError:
        raise ValueError("reply: not a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("reply: not a JSON object")
    statement = str(data.get("statement") or "").strip()
    if not 20 <= len(statement) <= 1000:
        raise ValueError(f"statement: {len(statement)} characters; allowed 20..1000")
    answer = data.get("answer")
    answer = None if answer is None else str(answer).strip()
    value = sympy_value(answer) if answer else None
    check = data.get("check")
    if value is not None and check not in (None, ""):
        computed = sympy_value(str(check))
        if computed is None:
            raise ValueError(f"check: {check!r} is not a closed form")
        if sympy.simplify(computed - value) != 0:
            raise ValueError(f"sympy: the check gives {computed}, the answer claims {value}")
    return Problem(problem_id, statement, topic, int(difficulty), "generated", answer)


def generate(model, topic: str, difficulty: int, n: int = 1, judge=None, prefix: str = "gen",
             temperature: float = 0.8, progress=None) -> list[Verdict]:
    """Ask ``model`` for ``n`` problems and filter each; returns a verdict per reply (fewer if stopped)."""
    if topic not in TOPICS:
        raise ValueError(f"topic: {topic!r} is not allowed; allowed {', '.join(TOPICS)}")
    if not isinstance(difficulty, int) or not 1 <= difficulty <= 5:
        raise ValueError(f"difficulty: {difficulty!r}; allowed integers 1..5")
    verdicts = []
    for i in range(n):
        verdicts.append(_one(model, judge, topic, difficulty, f"{prefix}-{topic.replace(' ', '_')}-{difficulty}",
                             temperature))
        if not report(progress, i + 1, n, {"kept": sum(v.kept for v in verdicts)}):
            break
    return verdicts


def content_id(prefix: str, statement: str) -> str:
    """``prefix`` and the first 12 hex digits of the statement's SHA-256: unique per text."""
    return f"{prefix[:50]}-{hashlib.sha256(statement.encode('utf-8')).hexdigest()[:12]}"


def _one(model, judge, topic: str, difficulty: int, prefix: str, temperature: float) -> Verdict:
    raw = model.complete(generation_prompt(topic, difficulty), max_tokens=400, temperature=temperature)
    try:
        problem = check_reply(raw, topic, difficulty, prefix)
        problem = Problem(content_id(prefix, problem.statement), problem.statement, problem.topic, problem.difficulty,
                          problem.source, problem.answer)
    except ValueError as error:
        return Verdict(None, False, str(error), raw)
    if judge is not None:
        said = judge.complete(judge_prompt(problem.statement), max_tokens=2, temperature=0.0).strip().lower()
        if not said.startswith("yes"):
            return Verdict(problem, False, f"judge: answered {said[:20]!r} to well-posedness", raw)
    return Verdict(problem, True, "kept", raw)


def generate_with(backend: str, settings: dict, topic: str, difficulty: int, n: int = 1, progress=None
                  ) -> list[Verdict]:
    """:func:`generate` with the model that ``backend`` names also as the judge.

    Parameters
    ----------
    backend : {"endpoint", "local"}
        An OpenAI-compatible endpoint (``settings``: ``base_url``, ``model``, optional ``api_key``) or a
        local Hugging Face causal-LM directory (``settings``: ``model_dir``).
    """
    if backend == "local":
        model = LocalModel(settings.get("model_dir", ""))
    elif backend == "endpoint":
        model = ChatModel(settings.get("base_url", ""), settings.get("model", ""), settings.get("api_key") or None)
    else:
        raise ValueError(f"backend: {backend!r} is not an option; allowed 'endpoint', 'local'")
    return generate(model, topic, int(difficulty), int(n), judge=model, progress=progress)


class ChatModel:
    """``complete`` through an OpenAI-compatible chat endpoint (shares the rater's retries and errors)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, **kwargs):
        from core.interestingness.raters import OpenAICompatibleRater

        self._rater = OpenAICompatibleRater(base_url, model, api_key, **kwargs)

    def complete(self, prompt: str, max_tokens: int = 400, temperature: float = 0.8) -> str:
        from core.interestingness.raters import RaterError

        reply = self._rater._post({"model": self._rater.model, "messages": [{"role": "user", "content": prompt}],
                                   "max_tokens": max_tokens, "temperature": temperature})
        content = self._rater._choices(reply)[0].get("message", {}).get("content")
        if not isinstance(content, str):
            raise RaterError("reply: choices[0].message.content is missing; allowed a text reply")
        return content


class LocalModel:
    """``complete`` with a local Hugging Face causal LM (greedy when temperature is 0)."""

    def __init__(self, model_dir):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True).eval()

    def complete(self, prompt: str, max_tokens: int = 400, temperature: float = 0.8) -> str:
        import torch

        ids = self.tokenizer(prompt, return_tensors="pt").input_ids
        with torch.no_grad():
            out = self.model.generate(ids, max_new_tokens=max_tokens, do_sample=temperature > 0,
                                      temperature=temperature if temperature > 0 else None,
                                      pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id)
        return self.tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
