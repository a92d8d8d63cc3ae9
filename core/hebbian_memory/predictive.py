"""The predictive module: next-syllable prediction whose surprise marks word (chunk) boundaries.

Our choice (the abstract does not give the module): a softmax next-item predictor over the lexicon's
syllables, ``p(x_t = k | x_{t-1}) = softmax(A[x_{t-1}])_k`` with a start row for the first item,
trained online by SGD on a stream of words in random order. Within a word the next syllable is
certain; across a boundary any of the words can follow, so the surprise ``s_t = -log p(x_t | x_{t-1})``
peaks at word starts (Saffran-style transitional-probability dips). The boundary estimate is
``b_t = 1[s_t > threshold]`` and replaces the explicit chunk cue. The fully trained predictor's
probabilities converge to the stream's transition frequencies, the test's closed-form oracle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, param
from core.common.progress import report
from core.hebbian_memory.tasks import Lexicon, word_stream


@dataclass(frozen=True)
class PredictorConfig(Config):
    """Online training of the next-item predictor.

    Examples
    --------
    >>> PredictorConfig().threshold
    1.0
    """

    n_words: int = param(3000, low=10, high=200_000, integer=True, doc="words in the training stream")
    lr: float = param(0.5, low=0.0, high=10.0, low_open=True, doc="SGD step on the logits")
    threshold: float = param(1.0, low=0.0, high=10.0, doc="surprise (nats) above which a step is a boundary")


@dataclass
class NextItemPredictor:
    """A trained next-syllable predictor and its boundary rule.

    Attributes
    ----------
    logits : ndarray, shape (n_tokens + 1, n_tokens)
        Row k: the logits of the next syllable after syllable k; the last row is the start of a sequence.
    threshold : float
        Surprise (nats) above which a step is called a boundary.
    loss : ndarray
        Mean surprise per block of the training stream (the learning curve).
    """

    logits: np.ndarray
    threshold: float
    loss: np.ndarray

    def probabilities(self) -> np.ndarray:
        z = self.logits - self.logits.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def surprise(self, tokens: np.ndarray) -> np.ndarray:
        """``-log p(x_t | x_{t-1})`` for every step of each row of ``tokens`` (the first step given the start)."""
        tokens = np.atleast_2d(tokens)
        prev = np.concatenate([np.full((tokens.shape[0], 1), self.logits.shape[0] - 1), tokens[:, :-1]], axis=1)
        logp = np.log(self.probabilities() + 1e-12)
        return -logp[prev, tokens]

    def boundaries(self, tokens: np.ndarray) -> np.ndarray:
        """``1[s_t > threshold]``; the first step of a sequence is always a boundary."""
        b = (self.surprise(tokens) > self.threshold).astype(np.int64)
        b[:, 0] = 1
        return b


def untrained_predictor(lexicon: Lexicon, threshold: float = 1.0) -> NextItemPredictor:
    """The control: uniform predictions, so surprise is flat at log(n_tokens) and marks nothing.

    Parameters
    ----------
    lexicon : Lexicon
        Gives the vocabulary size.
    threshold : float
        The boundary rule's threshold (nats).

    Returns
    -------
    NextItemPredictor
        All-zero logits.

    Examples
    --------
    >>> from core.hebbian_memory.tasks import TaskConfig, make_lexicon
    >>> p = untrained_predictor(make_lexicon(TaskConfig(items="lexicon"), 0))
    >>> round(float(p.surprise(np.array([[0, 1]]))[0, 1]), 3)
    3.178
    """
    n = lexicon.n_tokens
    return NextItemPredictor(np.zeros((n + 1, n)), float(threshold), np.zeros(0))


def train_predictor(lexicon: Lexicon, config: PredictorConfig, seed: int, progress=None) -> NextItemPredictor:
    """Train the next-syllable predictor online (one SGD step on the cross-entropy per syllable).

    The gradient of ``-log softmax(A[prev])[x]`` with respect to the row ``A[prev]`` is
    ``softmax(A[prev]) - onehot(x)``; each sequence of words starts from the start row.

    Parameters
    ----------
    lexicon : Lexicon
        The words of the stream.
    config : PredictorConfig
        Stream length, step size, boundary threshold.
    seed : int
        Seed of the stream.
    progress : callable or None
        ``progress(step, total, metrics)`` after each block of 100 words; returning False stops.

    Returns
    -------
    NextItemPredictor
        The trained logits and the learning curve (mean surprise per block).

    Examples
    --------
    >>> from core.hebbian_memory.tasks import TaskConfig, make_lexicon
    >>> lex = make_lexicon(TaskConfig(items="lexicon"), 0)
    >>> p = train_predictor(lex, PredictorConfig(n_words=500), seed=0)
    >>> bool(p.loss[-1] < p.loss[0])
    True
    """
    n = lexicon.n_tokens
    A = np.zeros((n + 1, n))
    stream = word_stream(lexicon, config.n_words, seed)
    block, losses = 100 * lexicon.words.shape[1], []
    blocks = int(np.ceil(len(stream) / block))
    prev = n
    for b in range(blocks):
        total = 0.0
        chunk = stream[b * block:(b + 1) * block]
        for x in chunk:
            z = A[prev] - A[prev].max()
            p = np.exp(z) / np.exp(z).sum()
            total -= np.log(p[x] + 1e-12)
            p[x] -= 1.0
            A[prev] -= config.lr * p
            prev = x
        losses.append(total / len(chunk))
        if not report(progress, b + 1, blocks, {"surprise": losses[-1]}):
            break
    return NextItemPredictor(A, config.threshold, np.asarray(losses))


@dataclass
class BoundaryScore:
    """How well surprise-based boundaries match the true word starts.

    Attributes
    ----------
    precision, recall, f1 : float
        Over every step but each sequence's first (always a boundary, so uninformative).
    surprise_at_boundary, surprise_within : float
        Mean surprise at true word starts and inside words.
    """

    precision: float
    recall: float
    f1: float
    surprise_at_boundary: float
    surprise_within: float


def boundary_score(predictor: NextItemPredictor, tokens: np.ndarray, truth: np.ndarray) -> BoundaryScore:
    """Precision, recall and F1 of ``predictor.boundaries(tokens)`` against ``truth``.

    Parameters
    ----------
    predictor : NextItemPredictor
        The module to score.
    tokens : ndarray of int, shape (batch, length)
        Syllable sequences.
    truth : ndarray, shape (batch, length)
        1 at true word starts.

    Returns
    -------
    BoundaryScore
        The scores, first steps excluded.

    Examples
    --------
    >>> from core.hebbian_memory.tasks import TaskConfig, make_lexicon, rank_recall_episodes
    >>> cfg = TaskConfig(items="lexicon")
    >>> lex = make_lexicon(cfg, 0)
    >>> ep = rank_recall_episodes(cfg, 50, seed=1, lexicon=lex)
    >>> boundary_score(untrained_predictor(lex), ep.tokens, ep.boundaries).precision < 0.5
    True
    """
    pred = predictor.boundaries(tokens)[:, 1:].astype(bool)
    true = np.asarray(truth)[:, 1:].astype(bool)
    tp = float((pred & true).sum())
    precision = tp / max(pred.sum(), 1)
    recall = tp / max(true.sum(), 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    s = predictor.surprise(tokens)[:, 1:]
    return BoundaryScore(float(precision), float(recall), float(f1), float(s[true].mean()), float(s[~true].mean()))
