"""TransformersRater through the real loading path: a tiny randomly initialised GPT-2 and a word-level
tokenizer saved with transformers to a temporary directory (nothing is downloaded)."""

import re

import numpy as np
import pytest

from core.interestingness import load_problem_bank
from core.interestingness.problems import RATIONALES
from core.interestingness.raters import PROMPT_VERSION, QUESTIONS, TransformersRater, rating_prompt, rationale_prompt


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bank = load_problem_bank()[:3]
    text = " ".join(rating_prompt(p, "q") + rationale_prompt(p, r) for p in bank for r in RATIONALES)
    words = sorted(set(re.findall(r"\w+|[^\w\s]+", text)) | {str(d) for d in range(1, 8)} | {"yes", "no", "Yes", "No"})
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]", "[EOS]", *words])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=1024, n_embd=32, n_layer=1, n_head=2))
    directory = tmp_path_factory.mktemp("tiny-lm")
    tokenizer.save_pretrained(directory)
    model.save_pretrained(directory)
    return directory


def test_distributions_are_valid_and_deterministic(tiny_model_dir):
    rater = TransformersRater(tiny_model_dir)
    problem = load_problem_bank()[0]
    result = rater.rate(problem)
    for dist in (result.interestingness, result.difficulty):
        assert dist.shape == (7,) and (dist >= 0).all() and dist.sum() == pytest.approx(1.0)
    assert set(result.rationales) == set(RATIONALES[:-1]) and all(0 <= p <= 1 for p in result.rationales.values())
    assert result.prompt_version == PROMPT_VERSION and 1 <= result.expected_interestingness <= 7
    again = TransformersRater(tiny_model_dir).rate(problem)
    assert np.allclose(again.interestingness, result.interestingness)     # read from probabilities, not sampled


def test_the_distribution_is_the_models_digit_probabilities(tiny_model_dir):
    """Independent recomputation: softmax of the last logits, digit tokens picked out by the tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    problem = load_problem_bank()[1]
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    ids = tokenizer(rating_prompt(problem, QUESTIONS["interestingness"]), return_tensors="pt").input_ids
    with torch.no_grad():
        probs = torch.softmax(model(input_ids=ids).logits[0, -1], -1).numpy()
    digits = np.array([probs[tokenizer.convert_tokens_to_ids(str(d))] for d in range(1, 8)])
    assert np.allclose(TransformersRater(tiny_model_dir).rate(problem).interestingness, digits / digits.sum(), atol=1e-6)


def test_ratings_are_stored_next_to_human_ones(tiny_model_dir, tmp_path):
    from core.interestingness import StudyStore

    store = StudyStore(f"sqlite:///{tmp_path / 's.sqlite'}")
    problem = load_problem_bank()[0]
    store.add_problems([problem])
    result = TransformersRater(tiny_model_dir, rationales=False).rate(problem)
    store.add_llm_rating(problem.id, result)
    (row,) = store.llm_ratings()
    assert row["rater"] == "transformers" and row["prompt_version"] == PROMPT_VERSION
    assert np.allclose(row["interestingness"], result.interestingness)
    with pytest.raises(ValueError, match="^problem_id: 'nope' is not a loaded problem"):
        store.add_llm_rating("nope", result)
    store.close()


def test_a_directory_without_a_model_is_refused(tmp_path):
    with pytest.raises(ValueError, match="^model_dir: .* holds no config.json"):
        TransformersRater(tmp_path)
