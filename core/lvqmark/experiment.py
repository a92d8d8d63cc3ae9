"""The page's live runs: train a tokenizer and probe its locality; detect with a shipped system on a new seed.

Torch is imported inside the functions, so importing this module stays light.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_choice
from core.common.seeding import check_seed, derive_seed
from core.lvqmark.attacks import ATTACKS
from core.lvqmark.data import DATASETS, load_series, make_windows
from core.lvqmark.detection import Detection


@dataclass
class TokenizerRun:
    """A tokenizer trained live and what it shows.

    Attributes
    ----------
    encoder : str
        ``local`` or ``global``.
    loss : numpy.ndarray
        Reconstruction loss per step.
    usage : numpy.ndarray
        Share of codes used per stage-1 batch.
    stage : numpy.ndarray
        1 or 2 per step.
    test_mse : float
        Reconstruction error (decode(encode(x)) against x) on the test windows.
    idempotence : float
        Share of test codes kept by encode(decode(encode(x))).
    changed : numpy.ndarray
        ``(T, N)`` codes changed by editing each step of the first test window.
    window : numpy.ndarray
        ``(T, N)`` the steps each token's window holds.
    """

    encoder: str
    loss: np.ndarray
    usage: np.ndarray
    stage: np.ndarray
    test_mse: float
    idempotence: float
    changed: np.ndarray
    window: np.ndarray


def tokenizer_run(dataset: str = "energy", encoder: str = "local", steps: int = 400, seed: int = 0,
                  progress=None) -> TokenizerRun:
    """Train a tokenizer on ``dataset`` and measure its reconstruction, idempotence and locality.

    Parameters
    ----------
    dataset : str
        One of ``DATASETS``.
    encoder : str
        ``local`` or ``global``.
    steps : int
        Training steps.
    seed : int
        Seed of the training.
    progress : callable or None
        ``progress(step, total, metrics)``; False stops (the model so far is measured).

    Returns
    -------
    TokenizerRun
        Curves and measurements.

    Examples
    --------
    >>> r = tokenizer_run("finance", "local", steps=4, seed=0)
    >>> r.changed.shape, bool((r.changed[~r.window] == 0).all())
    ((24, 11), True)
    """
    from core.lvqmark.detection import locality_map
    from core.lvqmark.training import TokenizerConfig, train_tokenizer

    check_choice("dataset", dataset, DATASETS)
    split = make_windows(load_series(dataset))
    tok = train_tokenizer(split.train, TokenizerConfig(encoder=encoder, steps=steps), seed=check_seed(seed),
                          progress=progress)
    ids = tok.encode(split.test)
    recon = tok.decode(ids)
    m = locality_map(tok, split.test[0])
    return TokenizerRun(encoder, tok.loss, tok.usage, tok.stage, float(((recon - split.test) ** 2).mean()),
                        float((tok.encode(recon) == ids).mean()), m.changed, m.window)


def detection_run(dataset: str = "energy", encoder: str = "local", attack_name: str = "crop",
                  strengths: tuple = (0.05, 0.3), n_windows: int = 1000, chunk: int = 100, seed: int = 1,
                  progress=None) -> Detection:
    """Detect with the shipped system of ``dataset`` and ``encoder`` on a fresh seed, for one attack.

    Parameters
    ----------
    dataset : str
        One of ``DATASETS``.
    encoder : str
        ``local`` or ``global``.
    attack_name : str
        One of ``ATTACKS``.
    strengths : tuple of float
        Strengths of the attack.
    n_windows : int
        Windows per set.
    chunk : int
        Windows per detection.
    seed : int
        Seed of generation and attacks.
    progress : callable or None
        ``progress(step, total, metrics)``; False stops.

    Returns
    -------
    Detection
        The clean row and one row per strength.

    Examples
    --------
    >>> d = detection_run("finance", "local", "crop", (0.3,), n_windows=100, chunk=50)
    >>> d.attacks
    ['none', 'crop']
    """
    from core.lvqmark.detection import DetectConfig, detect  # noqa: F811
    from core.lvqmark.store import load_watermarker

    check_choice("attack_name", attack_name, ATTACKS)
    system = load_watermarker(dataset, encoder)
    return detect(system, DetectConfig(n_windows=n_windows, chunk=chunk), (attack_name,), tuple(strengths),
                  seed=derive_seed(check_seed(seed), "live"), progress=progress)
