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

Measures that depend on the concepts' *names* (issue 24: geometry alone cannot tell a decomposition
from the same codes under shuffled names):

- object concept recall: a scene's true words are its main object's four values and its clutter
  objects' shapes and colours; with K the number of distinct true words, the share of each object's
  words among the scene's K largest codes (main object and clutter reported apart), and the precision
  of those K (the share that are some object's true word);
- concept retrieval precision@k: for each attribute-value word, rank the scenes by that word's code
  and take the share of the top k whose main object has that value; averaged over the words (our
  choice: relevance is the main object's value, since size, position and motion are named for the
  main object only);
- unnamed-concept neighbourhoods: the share of each scene's 10 nearest code neighbours (cosine) that
  share its texture (solid or striped, a concept the vocabulary does not name; chance 0.5).

Top concepts are the largest code values (not the largest magnitudes): a negative TextSpan
coefficient on "red" says the scene is *not* red.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr
from sklearn.manifold import trustworthiness as _trustworthiness

from core.common.seeding import make_rng
from core.grace.scenes import ALL_ATTRIBUTES, ATTRIBUTES, VIDEO_ATTRIBUTES, caption

RETRIEVAL_K = 50

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


def match_sparsity(fit, codes_of, target_l0: float, low: float, high: float, iters: int) -> tuple:
    """Bisection in log w of a sparsity weight w (larger w, fewer active codes) for the fit whose mean L0 is closest
    to ``target_l0``.

    Parameters
    ----------
    fit : callable
        ``fit(w)`` returns a fitted decomposition.
    codes_of : callable
        ``codes_of(fitted)`` returns the codes whose mean L0 is matched.
    target_l0 : float
        The mean number of active codes wanted.
    low, high : float
        The bracket for w, 0 < low < high.
    iters : int
        Fits made (one per bisection step).

    Returns
    -------
    tuple
        ``(w, fitted)``: the weight and the fit whose L0 came closest.
    """
    best = None
    for _ in range(iters):
        mid = float(np.sqrt(low * high))
        fitted = fit(mid)
        l0 = sparsity(codes_of(fitted))
        if best is None or abs(l0 - target_l0) < abs(best[2] - target_l0):
            best = (mid, fitted, l0)
        if l0 > target_l0:
            low = mid
        else:
            high = mid
    return best[0], best[1]


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


def scene_words(attributes: dict, clutter: list) -> tuple[set, set]:
    """(the main object's words, the clutter objects' shape and colour words) of one scene."""
    return set(attributes.values()), {v for c in clutter for v in (c["shape"], c["colour"])}


def object_concept_recall(codes: np.ndarray, vocabulary, attributes: list, clutter: list) -> dict:
    """Per-object agreement of each scene's top-K concepts with its true words (see the module docstring).

    Parameters
    ----------
    codes : array [n, k]
    vocabulary : list of str
        The codes' names.
    attributes, clutter : list
        Per scene, the main object's {attribute: value} and its clutter objects.

    Returns
    -------
    dict
        ``{"main": array [n], "clutter": array [n], "precision": array [n]}``: per scene, the share of
        the main object's words (of its clutter's words; NaN without clutter) among the top K, and the
        share of the top K that are true words.
    """
    index = {w: i for i, w in enumerate(vocabulary)}
    order = np.argsort(-codes, axis=1, kind="stable")
    main, other, precision = (np.full(len(codes), np.nan) for _ in range(3))
    for i, (attrs, objects) in enumerate(zip(attributes, clutter)):
        own, rest = scene_words(attrs, objects)
        own, rest = {w for w in own if w in index}, {w for w in rest if w in index}
        truth = own | rest
        top = {vocabulary[j] for j in order[i, : len(truth)] if codes[i, j] > EPS}
        main[i] = len(own & top) / max(len(own), 1)
        if rest:
            other[i] = len(rest & top) / len(rest)
        precision[i] = len(truth & top) / max(len(truth), 1)
    return {"main": main, "clutter": other, "precision": precision}


def concept_retrieval(codes: np.ndarray, vocabulary, attributes: list, k: int = RETRIEVAL_K) -> dict:
    """Precision@k of retrieving scenes by one word's code, for every attribute-value word in ``vocabulary``.

    Returns
    -------
    dict
        ``{word: precision}``: the share of the ``k`` scenes with the largest code for ``word`` whose main
        object has that value (ties are broken by scene order, which is random for seeded scenes).
    """
    out = {}
    for name in attributes[0]:
        truth = np.array([a[name] for a in attributes])
        for value in ALL_ATTRIBUTES[name]:
            if value in vocabulary:
                top = np.argsort(-codes[:, list(vocabulary).index(value)], kind="stable")[:k]
                out[value] = float(np.mean(truth[top] == value))
    return out


def neighbour_label_agreement(codes: np.ndarray, labels, n_neighbors: int = 10) -> np.ndarray:
    """Per sample, the share of its ``n_neighbors`` nearest rows (cosine, itself excluded) with its label."""
    from sklearn.neighbors import NearestNeighbors

    labels = np.asarray(labels)
    unit = _unit_rows(codes)
    _, idx = NearestNeighbors(n_neighbors=n_neighbors + 1).fit(unit).kneighbors(unit)
    return (labels[idx[:, 1:]] == labels[:, None]).mean(1)


def attribute_hits(codes: np.ndarray, vocabulary, attributes: list) -> np.ndarray:
    """Per scene, the share of its attributes whose largest code among that attribute's words is the true value."""
    index = {w: i for i, w in enumerate(vocabulary)}
    hits = []
    for name in attributes[0]:
        values = [v for v in ALL_ATTRIBUTES[name] if v in index]
        block = codes[:, [index[v] for v in values]]
        pred = block.argmax(1)
        hits.append([values[p] == a[name] and block[i, p] > EPS for i, (p, a) in enumerate(zip(pred, attributes))])
    return np.mean(hits, axis=0)
