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
