"""LVQMark end to end: a tokenizer, a prior and a robust encoder, generation, and detection under attacks.

:func:`detect` generates three sets of windows from the prior: watermarked (delta > 0), non-watermarked
for calibration (delta = 0: gives mu_0, sigma_0 on clean series) and non-watermarked for scoring
(split-half, as the reference's null row). Each set is attacked, re-encoded by the robust encoder,
and scored: the null drift Δμ₀ = mean g(attacked NoWM) - mean g(clean NoWM) on the same windows
(a paired 95% interval), the empirical z of disjoint chunks against the *clean* null (its standard
error counting the null's own: a two-sample z, :func:`core.lvqmark.watermark.chunk_z`), and the share
of chunks above Φ⁻¹(1 - 1e-3) for watermarked (TPR) and non-watermarked (FPR) series, with Wilson
intervals over chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.config import Config, check_range, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed
from core.lvqmark.attacks import ATTACKS, attack
from core.lvqmark.watermark import (THRESHOLD, analytic_z, chunk_z, empirical_null, green_counts, paired_interval,
                                   wilson_interval)


@dataclass
class Watermarker:
    """A trained LVQMark system: tokenizer, prior and robust re-encoder of one encoder kind.

    Attributes
    ----------
    tokenizer : TrainedTokenizer
        Codes and decoder.
    prior : TrainedPrior
        The code prior that generates.
    robust : TrainedRobust
        The attack-time re-encoder.
    dataset : str
        What it was trained on.
    """

    tokenizer: object
    prior: object
    robust: object
    dataset: str = ""

    @property
    def encoder(self) -> str:
        return self.tokenizer.config.encoder

    @property
    def codebook_size(self) -> int:
        return self.tokenizer.config.codebook_size

    def generate(self, n: int, delta: float, key: int, seed: int) -> "Generated":
        from core.lvqmark.training import sample_tokens

        ids = sample_tokens(self.prior, n, delta, key, seed=seed)
        return Generated(ids, self.tokenizer.decode(ids), float(delta), int(key))

    def fractions(self, series: np.ndarray, key: int) -> np.ndarray:
        return green_counts(self.robust.predict(series), self.codebook_size, key).fraction


@dataclass
class Generated:
    """Generated windows and the codes they were decoded from.

    Attributes
    ----------
    tokens : numpy.ndarray
        ``(n, N)`` sampled codes.
    series : numpy.ndarray
        ``(n, T, D)`` decoded windows.
    delta : float
        The logit bias used.
    key : int
        The watermark key used.
    """

    tokens: np.ndarray
    series: np.ndarray
    delta: float
    key: int


@dataclass(frozen=True)
class DetectConfig(Config):
    """How many windows, the watermark and the detection's chunk size."""

    n_windows: int = param(2000, low=20, high=200000, integer=True, doc="windows per set (WM, NoWM-calibration, NoWM)")
    chunk: int = param(100, low=1, high=10000, integer=True, doc="windows per detection (the empirical z's n)")
    delta: float = param(4.0, low=0.0, high=20.0, doc="logit bias on green codes")
    key: int = param(12345, low=0, high=2**32 - 1, integer=True, doc="the watermark key")
    detect_key: int = param(-1, low=-1, high=2**32 - 1, integer=True,
                            doc="the key the detector uses; -1: the watermark key (another value: wrong-key control)")

    def validate(self) -> None:
        if self.chunk > self.n_windows:
            raise ValueError(f"chunk: {self.chunk} is more than n_windows = {self.n_windows}; allowed at most n_windows")


@dataclass
class Detection:
    """Detection under each attack condition (rows), against the clean-calibrated null.

    Attributes
    ----------
    attacks : list of str
        Attack per row (``none`` first).
    strengths : numpy.ndarray
        Strength per row.
    mu0 : float
        Clean null mean green fraction (calibration set).
    sigma0 : float
        Clean null standard deviation.
    g_wm : numpy.ndarray
        Mean green fraction of the attacked watermarked windows.
    g_nowm : numpy.ndarray
        Mean green fraction of the attacked non-watermarked windows.
    drift : numpy.ndarray
        Δμ₀: g_nowm(attacked) - g_nowm(clean), paired on the same windows.
    drift_low, drift_high : numpy.ndarray
        Its 95% interval.
    tpr, fpr : numpy.ndarray
        Share of watermarked / non-watermarked chunks with z > Φ⁻¹(1 - 1e-3).
    tpr_low, tpr_high, fpr_low, fpr_high : numpy.ndarray
        Wilson 95% intervals over chunks.
    z_wm, z_nowm : numpy.ndarray
        ``(rows, chunks)`` empirical z of each chunk.
    analytic_wm, analytic_nowm : numpy.ndarray
        ``(rows, chunks)`` analytic z of each chunk's pooled counts.
    config : dict
        The DetectConfig and the system it ran on.
    """

    attacks: list
    strengths: np.ndarray
    mu0: float
    sigma0: float
    g_wm: np.ndarray
    g_nowm: np.ndarray
    drift: np.ndarray
    drift_low: np.ndarray
    drift_high: np.ndarray
    tpr: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    fpr: np.ndarray
    fpr_low: np.ndarray
    fpr_high: np.ndarray
    z_wm: np.ndarray
    z_nowm: np.ndarray
    analytic_wm: np.ndarray
    analytic_nowm: np.ndarray
    config: dict = field(default_factory=dict)


def _pooled_analytic(green: np.ndarray, scored: np.ndarray, chunk: int) -> np.ndarray:
    k = len(green) // chunk
    return analytic_z(green[:k * chunk].reshape(k, chunk).sum(1), scored[:k * chunk].reshape(k, chunk).sum(1))


def detect(system: Watermarker, config: DetectConfig = DetectConfig(), attacks: tuple = ATTACKS[1:],
           strengths: tuple = (0.05, 0.3), seed: int = 0, progress=None) -> Detection:
    """Watermark, attack, re-encode and score: TPR, FPR and the null drift for each attack and strength.

    Parameters
    ----------
    system : Watermarker
        The trained system.
    config : DetectConfig
        Sizes, delta and keys.
    attacks : tuple of str
        Attacks (``none`` is always the first row).
    strengths : tuple of float
        Strengths in [0, 1] for every attack.
    seed : int
        Seeds generation and attacks.
    progress : callable or None
        ``progress(step, total, metrics)`` after each condition; False stops after the rows done.

    Returns
    -------
    Detection
        One row per (attack, strength), plus the clean row.

    Examples
    --------
    >>> import core.lvqmark as lvq
    >>> d = lvq.detect(lvq.load_watermarker("finance"), DetectConfig(n_windows=200, chunk=50), ("crop",), (0.3,))
    >>> d.attacks, d.z_wm.shape, bool(d.tpr[0] == 1.0)
    (['none', 'crop'], (2, 4), True)
    """
    seed = check_seed(seed)
    for name in attacks:
        if name not in ATTACKS:
            raise ValueError(f"attacks: {name!r} is not an attack; allowed {', '.join(ATTACKS)}")
    for s in strengths:
        check_range("strengths", s, 0.0, 1.0)
    n, key = config.n_windows, config.key
    dkey = key if config.detect_key < 0 else config.detect_key
    wm = system.generate(n, config.delta, key, derive_seed(seed, "wm"))
    calib = system.generate(n, 0.0, key, derive_seed(seed, "calibration"))
    nowm = system.generate(n, 0.0, key, derive_seed(seed, "nowm"))
    null = empirical_null(system.fractions(calib.series, dkey))
    g_clean_nowm = system.fractions(nowm.series, dkey)
    rows = [("none", 0.0)] + [(a, float(s)) for a in attacks if a != "none" for s in strengths]
    out = {k: [] for k in ("g_wm", "g_nowm", "drift", "drift_low", "drift_high", "tpr", "tpr_low", "tpr_high",
                           "fpr", "fpr_low", "fpr_high", "z_wm", "z_nowm", "analytic_wm", "analytic_nowm")}
    done = []
    K = system.codebook_size
    for i, (name, s) in enumerate(rows, start=1):
        aseed = derive_seed(seed, "attack", name, str(s))
        cw = green_counts(system.robust.predict(attack(wm.series, name, s, aseed)), K, dkey)
        cn = green_counts(system.robust.predict(attack(nowm.series, name, s, derive_seed(aseed, "nowm"))), K, dkey)
        drift, drift_low, drift_high = paired_interval(cn.fraction - g_clean_nowm)
        zw, zn = chunk_z(cw.fraction, null, config.chunk), chunk_z(cn.fraction, null, config.chunk)
        tw, tn = wilson_interval(int((zw > THRESHOLD).sum()), len(zw)), wilson_interval(int((zn > THRESHOLD).sum()), len(zn))
        for k, v in (("g_wm", cw.fraction.mean()), ("g_nowm", cn.fraction.mean()), ("drift", drift),
                     ("drift_low", drift_low), ("drift_high", drift_high),
                     ("tpr", (zw > THRESHOLD).mean()), ("tpr_low", tw[0]), ("tpr_high", tw[1]),
                     ("fpr", (zn > THRESHOLD).mean()), ("fpr_low", tn[0]), ("fpr_high", tn[1]),
                     ("z_wm", zw), ("z_nowm", zn), ("analytic_wm", _pooled_analytic(cw.green, cw.scored, config.chunk)),
                     ("analytic_nowm", _pooled_analytic(cn.green, cn.scored, config.chunk))):
            out[k].append(v)
        done.append((name, s))
        if not report(progress, i, len(rows), {"TPR": float(out["tpr"][-1]), "FPR": float(out["fpr"][-1]),
                                               "drift": float(out["drift"][-1])}):
            break
    arrays = {k: np.array(v, dtype=float) for k, v in out.items()}
    return Detection([a for a, _ in done], np.array([s for _, s in done]), null.mu, null.sigma,
                     config={**config.to_dict(), "encoder": system.encoder, "dataset": system.dataset}, **arrays)


@dataclass
class LocalityMap:
    """Which tokens change when one time step is edited.

    Attributes
    ----------
    changed : numpy.ndarray
        ``(T, N)`` booleans: token j's code changed after editing step t.
    shift : numpy.ndarray
        ``(T, N)`` norm of the change of token j's continuous encoding.
    window : numpy.ndarray
        ``(T, N)`` booleans: step t lies in token j's window (2j <= t < 2j + 4).
    """

    changed: np.ndarray
    shift: np.ndarray
    window: np.ndarray


def locality_map(tokenizer, x: np.ndarray, bump: float = 1.0) -> LocalityMap:
    """Edit each time step of one window in turn (add ``bump`` to every variable) and see which tokens move.

    Parameters
    ----------
    tokenizer : TrainedTokenizer
        The tokenizer to probe (local or global encoder).
    x : numpy.ndarray
        One window ``(T, D)``.
    bump : float
        The edit added at the step.

    Returns
    -------
    LocalityMap
        Code changes, encoding shifts and the windows each step belongs to.

    Examples
    --------
    >>> import core.lvqmark as lvq
    >>> tok = lvq.load_watermarker("finance").tokenizer
    >>> m = locality_map(tok, np.zeros((24, 2), dtype=np.float32))
    >>> m.changed.shape, bool((m.shift[~m.window] == 0).all())
    ((24, 11), True)
    """
    from core.lvqmark.model import RF, STRIDE

    x = np.asarray(x, np.float32)
    if x.ndim != 2:
        raise ValueError(f"x: shape {x.shape}; allowed one window (T, D)")
    bump = check_range("bump", bump, -100.0, 100.0)
    T = x.shape[0]
    edited = np.repeat(x[None], T, 0)
    edited[np.arange(T), np.arange(T)] += bump
    batch = np.concatenate([x[None], edited])
    ids, z = tokenizer.encode(batch), tokenizer.embed(batch)
    changed = ids[1:] != ids[0]
    shift = np.linalg.norm(z[1:] - z[0], axis=-1)
    N = ids.shape[1]
    j = np.arange(N)
    window = (np.arange(T)[:, None] >= STRIDE * j) & (np.arange(T)[:, None] < STRIDE * j + RF)
    return LocalityMap(changed, shift, window)
