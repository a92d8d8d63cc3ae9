"""Metrics for concept decompositions, all on held-out scenes whose true attributes are known.

- reconstruction cosine between an embedding and its reconstruction from the codes;
- sparsity: mean number of nonzero codes (L0) per sample;
- trustworthiness of the codes as a map of the embeddings (scikit-learn, 10 neighbours, cosine);
- concept–attribute agreement: within each attribute's words, the largest code is the true value;
- triplet agreement: for random triplets (a, b, c) whose true attributes say b is nearer to a than c
  is (fewer differing attributes), the fraction where the codes' cosine agrees;
- similarity Spearman: over random pairs, the rank correlation between the codes' cosine and the
  number of attributes the two scenes share (a graded version of the triplet test);
- distractor share: the fraction of code mass on vocabulary words that name no attribute value
  ("purple", "dog": words no caption used), which a person would not use to describe the scene;
- zero-shot accuracy per attribute from prompts such as "a red object", on embeddings or on their
  reconstructions.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr
from sklearn.manifold import trustworthiness as _trustworthiness

from core.common.seeding import make_rng
from core.grace.scenes import ALL_ATTRIBUTES, ATTRIBUTES, VIDEO_ATTRIBUTES, caption

EPS = 1e-6


def zero_shot_prompts(video: bool = False) -> dict:
    """{attribute: [prompt for each value]}: the caption template naming only that attribute."""
    names = VIDEO_ATTRIBUTES if video else ATTRIBUTES
    return {name: [caption({"shape": "object", name: v} if name != "shape" else {name: v}, mention={name})
                   for v in values] for name, values in names.items()}


def zero_shot_accuracy(embeddings: np.ndarray, attributes: list, prompt_embeddings: dict) -> dict:
    """{attribute: accuracy} of picking the value whose prompt embedding is nearest (cosine)."""
    emb = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True).clip(EPS)
    out = {}
    for name, text in prompt_embeddings.items():
        values = ALL_ATTRIBUTES[name]
        pred = (emb @ text.T).argmax(1)
        out[name] = float(np.mean([values[p] == a[name] for p, a in zip(pred, attributes)]))
    return out


def reconstruction_cosine(embeddings: np.ndarray, reconstructions: np.ndarray) -> float:
    num = (embeddings * reconstructions).sum(1)
    den = np.linalg.norm(embeddings, axis=1) * np.linalg.norm(reconstructions, axis=1)
    return float(np.mean(num / den.clip(EPS)))


def sparsity(codes: np.ndarray) -> float:
    return float(np.mean((np.abs(codes) > EPS).sum(1)))


def _unit_rows(x: np.ndarray) -> np.ndarray:
    # An all-zero code has no direction; give it a tiny constant so cosine stays defined.
    x = np.where(np.abs(x).sum(1, keepdims=True) > EPS, x, EPS)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def trustworthiness(embeddings: np.ndarray, codes: np.ndarray, n_neighbors: int = 10) -> float:
    """scikit-learn's trustworthiness with cosine neighbourhoods on both sides: sklearn ranks the
    embedded side by Euclidean distance, which on unit rows orders exactly as cosine does."""
    return float(_trustworthiness(_unit_rows(embeddings), _unit_rows(codes), n_neighbors=n_neighbors))


def concept_attribute_agreement(codes: np.ndarray, vocabulary, attributes: list) -> dict:
    """{attribute: fraction of samples whose largest code among that attribute's words is the true value}."""
    index = {w: i for i, w in enumerate(vocabulary)}
    out = {}
    for name in attributes[0]:
        values = [v for v in ALL_ATTRIBUTES[name] if v in index]
        cols = [index[v] for v in values]
        block = codes[:, cols]
        pred = block.argmax(1)
        hit = [values[p] == a[name] and block[i, p] > EPS for i, (p, a) in enumerate(zip(pred, attributes))]
        out[name] = float(np.mean(hit))
    return out


def triplet_agreement(codes: np.ndarray, attributes: list, n_triplets: int = 20000, seed: int = 0) -> float:
    return float(np.mean(triplet_outcomes(codes, attributes, n_triplets, seed)))


def triplet_outcomes(codes: np.ndarray, attributes: list, n_triplets: int = 20000, seed: int = 0) -> np.ndarray:
    """One boolean per triplet (the same triplets for any codes with the same seed): codes agree with truth."""
    names = list(attributes[0])
    table = np.array([[a[k] for k in names] for a in attributes])
    rng = make_rng(seed)
    a, b, c = rng.integers(0, len(table), (3, n_triplets * 3))
    d_ab = (table[a] != table[b]).sum(1)
    d_ac = (table[a] != table[c]).sum(1)
    keep = np.flatnonzero(d_ab != d_ac)[:n_triplets]
    a, b, c = a[keep], b[keep], c[keep]
    unit = codes / np.linalg.norm(codes, axis=1, keepdims=True).clip(EPS)
    s_ab, s_ac = (unit[a] * unit[b]).sum(1), (unit[a] * unit[c]).sum(1)
    return (s_ab > s_ac) == (d_ab[keep] < d_ac[keep])


def similarity_spearman(codes: np.ndarray, attributes: list, n_pairs: int = 20000, seed: int = 0) -> float:
    names = list(attributes[0])
    table = np.array([[a[k] for k in names] for a in attributes])
    i, j = make_rng(seed).integers(0, len(table), (2, n_pairs))
    keep = i != j
    i, j = i[keep], j[keep]
    unit = _unit_rows(codes)
    return float(spearmanr((unit[i] * unit[j]).sum(1), (table[i] == table[j]).sum(1))[0])


def distractor_share(codes: np.ndarray, vocabulary) -> float:
    values = {v for values in ALL_ATTRIBUTES.values() for v in values}
    mask = np.array([w not in values for w in vocabulary])
    mass = np.abs(codes)
    return float(mass[:, mask].sum() / max(mass.sum(), EPS))
