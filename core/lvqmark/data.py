"""Offline multivariate series: statsmodels' macrodata, SP500 and Victoria's electricity demand, and seeded
simulations (ETT-like load, fMRI from a DCM with a haemodynamic response).

Every series is min-max scaled to [-1, 1] per variable (as LVQMark's data protocol does) and cut into
sliding windows of ``WINDOW`` = 24 steps with stride 1. Files read from a package's test folder are
checked against a SHA-256 recorded here, so a changed statsmodels release cannot silently change the data.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.config import check_choice, check_range
from core.common.seeding import check_seed, derive_rng

WINDOW = 24
DATASETS = ("energy", "finance", "macro", "ett", "fmri")
DATASET_LABELS = {
    "energy": "Energy: Victoria demand",
    "finance": "Finance: S&P 500",
    "macro": "Finance: US macrodata",
    "ett": "Energy: ETT-like (simulated)",
    "fmri": "fMRI: DCM + HRF (simulated)",
}
# SHA-256 of the files read from statsmodels' test folders (statsmodels 0.15.0).
HASHES = {
    "tsa/stl/tests/results/mstl_elec_vic.csv": "e772d225333d969376ce7429e518c6a3b6b69d620c73c6c4959b806d3e947a23",
    "tsa/tests/results/SP500.csv": "07fd46e5e47e968aaaf1d459679dc8d19d0407c5ff7060e48f23d6012d6f0349",
}


@dataclass
class Series:
    """One multivariate series, scaled to [-1, 1] per variable.

    Attributes
    ----------
    name : str
        The dataset key (one of ``DATASETS``).
    values : numpy.ndarray
        ``(n_steps, n_vars)`` scaled values.
    columns : list of str
        The variables' names.
    source : str
        Where the numbers come from.
    """

    name: str
    values: np.ndarray
    columns: list
    source: str


def _package_file(relative: str) -> Path:
    import statsmodels

    path = Path(statsmodels.__file__).parent / relative
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != HASHES[relative]:
        raise ValueError(f"data: {relative} has SHA-256 {digest[:12]}…; allowed the file of statsmodels 0.15.0 "
                         f"({HASHES[relative][:12]}…)")
    return path


def _scale(values: np.ndarray) -> np.ndarray:
    lo, hi = values.min(0), values.max(0)
    return 2.0 * (values - lo) / np.where(hi > lo, hi - lo, 1.0) - 1.0


def _energy() -> tuple[np.ndarray, list, str]:
    y = np.loadtxt(_package_file("tsa/stl/tests/results/mstl_elec_vic.csv"), delimiter=",", skiprows=1,
                   usecols=1)
    # The file is univariate: the second variable is the hour-on-hour change (what a load model forecasts).
    return np.column_stack([y[1:], np.diff(y)]), ["demand", "hourly change"], "statsmodels mstl_elec_vic.csv"


def _finance() -> tuple[np.ndarray, list, str]:
    level = np.loadtxt(_package_file("tsa/tests/results/SP500.csv"), skiprows=1)
    return (np.column_stack([np.log(level[1:]), 100 * np.diff(np.log(level))]), ["log level", "log return %"],
            "statsmodels SP500.csv (Schwert)")


def _macro() -> tuple[np.ndarray, list, str]:
    from statsmodels.datasets import macrodata

    df = macrodata.load_pandas().data
    growth = ["realgdp", "realcons", "realinv", "realgovt", "realdpi", "cpi", "m1"]
    values = np.column_stack([100 * np.diff(np.log(df[c].to_numpy(float))) for c in growth]
                             + [df["unemp"].to_numpy(float)[1:]])
    return values, [f"{c} growth %" for c in growth] + ["unemp"], "statsmodels macrodata"


def _ett(seed: int, n_steps: int = 2000) -> tuple[np.ndarray, list, str]:
    rng = derive_rng(seed, "ett")
    t = np.arange(n_steps)
    base = np.column_stack([np.sin(2 * np.pi * t / 24 + p) for p in rng.uniform(0, 2 * np.pi, 3)]
                           + [np.sin(2 * np.pi * t / 168 + p) for p in rng.uniform(0, 2 * np.pi, 2)])
    ar = np.zeros((n_steps, 7))
    eps = rng.standard_normal((n_steps, 7)) * 0.3
    for i in range(1, n_steps):
        ar[i] = 0.9 * ar[i - 1] + eps[i]
    mix = rng.normal(size=(5, 7))
    return base @ mix + ar, ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"], "simulated (seeded)"


def hrf(times: np.ndarray) -> np.ndarray:
    """The canonical double-gamma haemodynamic response (SPM's: peak at 6 s, undershoot at 16 s, ratio 1/6).

    Parameters
    ----------
    times : numpy.ndarray
        Seconds after the neural event.

    Returns
    -------
    numpy.ndarray
        The response at ``times``, normalised to unit sum.

    Examples
    --------
    >>> h = hrf(np.arange(0, 32, 0.5))
    >>> int(np.argmax(h) * 0.5), bool(h.min() < 0)
    (5, True)
    """
    from scipy.stats import gamma

    h = gamma.pdf(times, 6) - gamma.pdf(times, 16) / 6.0
    return h / h.sum()


def _fmri(seed: int, n_nodes: int = 5, n_scans: int = 1200, tr: float = 3.0, dt: float = 0.1):
    rng = derive_rng(seed, "fmri")
    A = -np.eye(n_nodes)
    mask = rng.random((n_nodes, n_nodes)) < 0.3
    np.fill_diagonal(mask, False)
    A[mask] = rng.uniform(0.3, 0.6, mask.sum())
    per_scan = int(round(tr / dt))
    steps = n_scans * per_scan
    u = (rng.random((steps, n_nodes)) < 0.002).astype(float)    # sparse events held for 2 s
    u = np.stack([np.convolve(u[:, i], np.ones(int(2 / dt)))[:steps] for i in range(n_nodes)], 1)
    z = np.zeros((steps, n_nodes))
    for k in range(1, steps):   # neural state dz/dt = sigma * A z + C u with sigma = 1, C = I
        z[k] = z[k - 1] + dt * (A @ z[k - 1] + u[k - 1])
    h = hrf(np.arange(0, 32, dt))
    bold = np.stack([np.convolve(z[:, i], h)[:steps] for i in range(n_nodes)], 1)[::per_scan]
    bold = bold + 0.1 * bold.std(0) * rng.standard_normal(bold.shape)
    return bold, [f"region {i + 1}" for i in range(n_nodes)], "simulated DCM, TR 3 s, double-gamma HRF (seeded)"


def load_series(name: str, seed: int = 0) -> Series:
    """One of ``DATASETS``, scaled to [-1, 1] per variable.

    Parameters
    ----------
    name : str
        The dataset key.
    seed : int
        Seed of the simulated datasets (``ett``, ``fmri``); the real ones ignore it.

    Returns
    -------
    Series
        The scaled series and where it comes from.

    Examples
    --------
    >>> s = load_series("finance")
    >>> s.values.shape, float(s.values.min()), float(s.values.max())
    ((467, 2), -1.0, 1.0)
    """
    check_choice("dataset", name, DATASETS)
    seed = check_seed(seed)
    if name == "energy":
        values, cols, src = _energy()
    elif name == "finance":
        values, cols, src = _finance()
    elif name == "macro":
        values, cols, src = _macro()
    elif name == "ett":
        values, cols, src = _ett(seed)
    else:
        values, cols, src = _fmri(seed)
    return Series(name, _scale(np.asarray(values, float)).astype(np.float32), cols, src)


@dataclass
class WindowSplit:
    """Sliding windows of a series, split into train and test.

    Attributes
    ----------
    train : numpy.ndarray
        ``(n_train, WINDOW, n_vars)`` windows.
    test : numpy.ndarray
        ``(n_test, WINDOW, n_vars)`` windows.
    """

    train: np.ndarray
    test: np.ndarray


def make_windows(series: Series, seed: int = 123, train_fraction: float = 0.8, window: int = WINDOW) -> WindowSplit:
    """Sliding windows of ``window`` steps (stride 1), shuffled and split into train and test.

    Parameters
    ----------
    series : Series
        From :func:`load_series`.
    seed : int
        Seed of the shuffle (LVQMark's protocol uses 123).
    train_fraction : float
        Share of windows for training, in (0, 1).
    window : int
        Steps per window T (default ``WINDOW`` = 24; even, 6 to half the series).

    Returns
    -------
    WindowSplit
        The train and test windows (float32).

    Examples
    --------
    >>> split = make_windows(load_series("finance"))
    >>> split.train.shape, split.test.shape
    ((355, 24, 2), (89, 24, 2))
    """
    check_range("train_fraction", train_fraction, 0.0, 1.0, low_open=True, high_open=True)
    window = check_range("window", window, 6, max(6, len(series.values) // 2), integer=True)
    if window % 2:
        raise ValueError(f"window: {window} is odd; allowed even lengths (tokens cover 4 steps with stride 2)")
    x = np.lib.stride_tricks.sliding_window_view(series.values, window, axis=0).transpose(0, 2, 1)
    order = derive_rng(seed, "windows").permutation(len(x))
    cut = int(round(train_fraction * len(x)))
    return WindowSplit(np.ascontiguousarray(x[order[:cut]]), np.ascontiguousarray(x[order[cut:]]))
