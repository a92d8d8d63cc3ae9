"""The shared MiniLM embedder against transformers' own forward pass, mean-pooled by hand."""

import numpy as np
import pytest

from core.common.text_embedding import DIMENSION, embed_sentences, model_dir

TEXTS = ["Prove that there are infinitely many prime numbers.",
         "Show that the set of primes is infinite.",
         "A fair die is rolled twice; find the probability the sum is seven."]


def by_hand(texts, pooling="mean"):
    """Independent reference: transformers' BertModel on the shipped weights, pooled and normalised here."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(model_dir()), AutoModel.from_pretrained(model_dir()).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.no_grad():
        states = model(**batch).last_hidden_state
    if pooling == "mean":
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (states * mask).sum(1) / mask.sum(1)
    else:                                   # the [CLS] token: a plausible but wrong reading of "MiniLM embedding"
        pooled = states[:, 0]
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


def test_embeddings_are_mean_pooled_unit_minilm_states_and_not_cls_states():
    got = embed_sentences(TEXTS)
    assert got.shape == (3, DIMENSION) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert np.abs(got - by_hand(TEXTS)).max() < 1e-4
    assert np.abs(got - by_hand(TEXTS, pooling="cls")).max() > 0.05      # the control pooling does not match


def test_a_paraphrase_is_nearer_than_another_topic_and_order_is_kept():
    e = embed_sentences(TEXTS)
    assert e[0] @ e[1] > e[0] @ e[2] + 0.2
    assert np.allclose(embed_sentences(TEXTS[::-1]), e[::-1], atol=1e-5)      # one row per text, in order
    assert np.allclose(embed_sentences(t for t in TEXTS), e, atol=1e-6)        # any iterable
    assert embed_sentences([]).shape == (0, DIMENSION)


@pytest.mark.parametrize("bad, message", [("one text", "^texts: a single string; allowed"),
                                          (["ok", 3], "^texts: entry 1 is a int; allowed strings"),
                                          ([None], "^texts: entry 0 is a NoneType; allowed")])
def test_bad_texts_are_refused_naming_the_field(bad, message):
    with pytest.raises(ValueError, match=message):
        embed_sentences(bad)
