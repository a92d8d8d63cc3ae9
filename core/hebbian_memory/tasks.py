"""Rank-recall episodes: a sequence of items in chunks, a delay, then probes by (chunk, position).

Our own generator (neurogym cannot be installed with the project's pins). One episode presents
``L = n_chunks * chunk_size`` items, one per step, then ``delay`` empty steps, then ``probes`` distinct
ranks in a random order. A probe is two steps: a cue step gives the rank as two one-hots (chunk rank,
within-chunk rank), and at the response step that follows (no input but the recall flag) the target is the item shown at that rank (``task="recall"``) or at the next rank
(``task="successor"``, the transfer task). Items are novel per episode (random ±1/√D vectors, so
only a binding made within the episode can recall them) or syllables of a fixed lexicon of
recurring "words" (``items="lexicon"``), for the predictive module.

Input layout per step, ``input_dim = item_dim + 1 + n_chunks + chunk_size + 1``::

    [ item (item_dim) | chunk cue (1) | probe chunk one-hot | probe position one-hot | recall flag (1) ]

The chunk cue is 1 at the first item of every chunk when ``cues="explicit"``, 0 throughout for
``cues="none"``, and the predictive module's boundary estimate for ``cues="predicted"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import Config, choice, param
from core.common.seeding import derive_rng

CUES = ("explicit", "none", "predicted")
TASKS = ("recall", "successor")
ITEMS = ("novel", "lexicon")


@dataclass(frozen=True)
class TaskConfig(Config):
    """The rank-recall task: sequence shape, items, chunk cues and what a probe asks for.

    Examples
    --------
    >>> TaskConfig().length, TaskConfig().input_dim
    (9, 40)
    """

    n_chunks: int = param(3, low=2, high=4, integer=True, doc="chunks per sequence (global rank axis)")
    chunk_size: int = param(3, low=2, high=4, integer=True, doc="items per chunk (local rank axis)")
    item_dim: int = param(32, low=8, high=128, integer=True, doc="dimension of an item vector")
    delay: int = param(1, low=0, high=8, integer=True, doc="empty steps between the sequence and the probes")
    cues: str = choice("explicit", CUES, doc="chunk-boundary signal: explicit cue, none, or the predictive module's")
    task: str = choice("recall", TASKS, doc="a probe asks for the item at its rank, or at the next rank")
    items: str = choice("novel", ITEMS, doc="novel random items per episode, or syllables of a fixed lexicon")
    lexicon_words: int = param(8, low=4, high=16, integer=True, doc="words in the lexicon (items='lexicon')")
    probes: int = param(4, low=1, high=16, integer=True, doc="ranks probed per episode (distinct, random order)")

    def validate(self) -> None:
        if self.cues == "predicted" and self.items != "lexicon":
            raise ValueError("cues: 'predicted' needs recurring words to predict; allowed with items='lexicon'")
        if self.items == "lexicon" and self.lexicon_words < self.n_chunks:
            raise ValueError(f"lexicon_words: {self.lexicon_words} is fewer than the {self.n_chunks} chunks of a "
                             f"sequence; allowed integers >= n_chunks")
        if self.probes > self.probe_ranks:
            raise ValueError(f"probes: {self.probes} is more than the {self.probe_ranks} ranks a probe can ask for; "
                             f"allowed integers in [1, {self.probe_ranks}]")

    @property
    def length(self) -> int:
        return self.n_chunks * self.chunk_size

    @property
    def input_dim(self) -> int:
        return self.item_dim + 1 + self.n_chunks + self.chunk_size + 1

    @property
    def probe_ranks(self) -> int:
        return self.length - 1 if self.task == "successor" else self.length

    @property
    def steps(self) -> int:
        return self.length + self.delay + 2 * self.probes


@dataclass
class Lexicon:
    """A fixed vocabulary of recurring words: each word is ``chunk_size`` syllables, each syllable a vector.

    Attributes
    ----------
    words : ndarray of int, shape (n_words, chunk_size)
        Syllable ids of each word; every syllable belongs to exactly one word.
    embeddings : ndarray, shape (n_words * chunk_size, item_dim)
        The syllables' fixed ±1/√D vectors (the "real-world encodings").
    """

    words: np.ndarray
    embeddings: np.ndarray

    @property
    def n_tokens(self) -> int:
        return int(self.embeddings.shape[0])


def make_lexicon(config: TaskConfig, seed: int) -> Lexicon:
    """The lexicon of ``config.lexicon_words`` words of ``config.chunk_size`` distinct syllables.

    Parameters
    ----------
    config : TaskConfig
        Gives the number of words, their length and the item dimension.
    seed : int
        The lexicon's seed (the same seed, the same words and vectors).

    Returns
    -------
    Lexicon
        Words as syllable ids and the syllables' vectors.

    Examples
    --------
    >>> lex = make_lexicon(TaskConfig(items="lexicon"), seed=0)
    >>> lex.words.shape, lex.embeddings.shape
    ((8, 3), (24, 32))
    """
    rng = derive_rng(seed, "lexicon")
    n = config.lexicon_words * config.chunk_size
    words = rng.permutation(n).reshape(config.lexicon_words, config.chunk_size)
    emb = rng.choice([-1.0, 1.0], size=(n, config.item_dim)) / np.sqrt(config.item_dim)
    return Lexicon(words, emb.astype(np.float32))


def word_stream(lexicon: Lexicon, n_words: int, seed: int) -> np.ndarray:
    """A stream of syllable ids made of ``n_words`` words drawn uniformly at random from the lexicon.

    Parameters
    ----------
    lexicon : Lexicon
        The words.
    n_words : int
        How many words in the stream.
    seed : int
        Seed of the draw.

    Returns
    -------
    ndarray of int
        ``n_words * chunk_size`` syllable ids.

    Examples
    --------
    >>> lex = make_lexicon(TaskConfig(items="lexicon"), seed=0)
    >>> word_stream(lex, 4, seed=1).shape
    (12,)
    """
    rng = derive_rng(seed, "stream")
    return lexicon.words[rng.integers(0, lexicon.words.shape[0], size=n_words)].reshape(-1)


@dataclass
class Episodes:
    """A batch of rank-recall episodes as arrays.

    Attributes
    ----------
    inputs : ndarray, shape (batch, steps, input_dim)
        The network's input at every step (layout in the module docstring).
    targets : ndarray of int, shape (batch, steps)
        At probe steps the index (into ``items``) of the item asked for; -1 elsewhere.
    items : ndarray, shape (batch, length, item_dim)
        The items of each episode in presentation order (the recall softmax is over these).
    chunk : ndarray of int, shape (length,)
        Chunk rank of each presentation step.
    position : ndarray of int, shape (length,)
        Within-chunk rank of each presentation step.
    boundaries : ndarray, shape (batch, length)
        The true chunk starts (1 at the first item of every chunk).
    cue : ndarray, shape (batch, length)
        The chunk cue the network was given at each presentation step.
    tokens : ndarray of int, shape (batch, length)
        Lexicon syllable ids of the items; -1 for novel items.
    """

    inputs: np.ndarray
    targets: np.ndarray
    items: np.ndarray
    chunk: np.ndarray
    position: np.ndarray
    boundaries: np.ndarray
    cue: np.ndarray
    tokens: np.ndarray


def rank_recall_episodes(config: TaskConfig, batch: int, seed: int, lexicon: Lexicon | None = None,
                         predictor=None) -> Episodes:
    """Draw ``batch`` rank-recall episodes.

    Parameters
    ----------
    config : TaskConfig
        The task.
    batch : int
        Number of episodes, 1 to 100000.
    seed : int
        Seed of the items, the word order and the probe order.
    lexicon : Lexicon or None
        The words for ``items="lexicon"`` (made from ``seed`` when None).
    predictor : NextItemPredictor or None
        For ``cues="predicted"``: its boundary estimate on each episode's syllables is the cue.

    Returns
    -------
    Episodes
        Inputs, targets, items and the rank labels.

    Raises
    ------
    ValueError
        ``batch`` out of range, or ``cues="predicted"`` without a predictor.

    Examples
    --------
    >>> ep = rank_recall_episodes(TaskConfig(), batch=4, seed=0)
    >>> ep.inputs.shape, ep.targets.shape, int((ep.targets >= 0).sum())
    ((4, 18, 40), (4, 18), 16)
    """
    from core.common.config import check_range

    batch = check_range("batch", batch, 1, 100_000, integer=True)
    if config.cues == "predicted" and predictor is None:
        raise ValueError("predictor: cues='predicted' needs a trained NextItemPredictor; allowed a predictor")
    rng = derive_rng(seed, "episodes")
    C, J, D, L = config.n_chunks, config.chunk_size, config.item_dim, config.length
    chunk, position = np.repeat(np.arange(C), J), np.tile(np.arange(J), C)
    boundaries = np.tile((position == 0).astype(np.float32), (batch, 1))
    if config.items == "lexicon":
        lexicon = lexicon if lexicon is not None else make_lexicon(config, seed)
        order = np.argsort(rng.random((batch, lexicon.words.shape[0])), axis=1)[:, :C]   # C distinct words
        tokens = lexicon.words[order].reshape(batch, L)
        items = lexicon.embeddings[tokens]
    else:
        tokens = np.full((batch, L), -1)
        items = (rng.choice([-1.0, 1.0], size=(batch, L, D)) / np.sqrt(D)).astype(np.float32)
    if config.cues == "explicit":
        cue = boundaries.copy()
    elif config.cues == "none":
        cue = np.zeros_like(boundaries)
    else:
        cue = predictor.boundaries(tokens).astype(np.float32)
    # distinct ranks probed, in a random order
    probes = np.argsort(rng.random((batch, config.probe_ranks)), axis=1)[:, :config.probes]
    x = np.zeros((batch, config.steps, config.input_dim), dtype=np.float32)
    x[:, :L, :D] = items * np.sqrt(D)      # entries ±1 in the input; unit vectors in the recall softmax
    x[:, :L, D] = cue
    start = L + config.delay
    rows = np.arange(batch)[:, None]
    cue_steps = start + 2 * np.arange(config.probes)[None, :]        # a cue step, then a response step
    x[rows, cue_steps, D + 1 + chunk[probes]] = 1.0
    x[rows, cue_steps, D + 1 + C + position[probes]] = 1.0
    x[:, start:, -1] = 1.0
    targets = np.full((batch, config.steps), -1, dtype=np.int64)
    targets[rows, cue_steps + 1] = probes + (1 if config.task == "successor" else 0)
    return Episodes(x, targets, items, chunk, position, boundaries, cue, tokens)
