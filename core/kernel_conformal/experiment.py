"""Experiments: one comparison of the scores, sweeps over dimension and alpha, coverage over seeds.

Volumes are in residual space: MKS, the global ellipsoid and the box have one region for every
x; the local ellipsoid's and MAPIE's change with x, and their volume is the mean over the test
inputs of the exact ellipsoid volumes. Coverage is the share of test points inside their region.
The volume ratio MKS / ellipsoid is reported with a normal interval from the Monte Carlo error
(one seed) or, over seeds, as the geometric mean with a t interval on the log-ratios.
Real data (:func:`real_data_check`): repeated seeded random fit / calibration / test splits of
linnerud or the macrodata VAR, the same comparison on each split.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.kernel_conformal.conformal import SplitConformalRegressor, conformal_rank
from core.kernel_conformal.data import LAWS, RealData, RegressionData, make_regression, split_real
from core.kernel_conformal.kernels import KERNELS, effective_dimension, effective_rank
from core.kernel_conformal.scores import SCORES, make_score
from core.kernel_conformal.volume import box_volume, ellipsoid_volume, monte_carlo_volume

if TYPE_CHECKING:   # scikit-learn is imported where a regressor is made, not with the package
    from sklearn.base import RegressorMixin

REGRESSORS = ("linear", "knn", "random_forest")
BASE_SCORES = ("mks", "ellipsoid", "local_ellipsoid", "coordinate_max")


def make_regressor(name: str, seed: int = 0) -> RegressorMixin:
    """A fresh multi-output scikit-learn regressor by name.

    Parameters
    ----------
    name : {"linear", "knn", "random_forest"}
        LinearRegression, KNeighborsRegressor (20 neighbours) or RandomForestRegressor (50 trees,
        leaves of at least 5; ours).
    seed : int
        The forest's ``random_state`` (``derive_seed(seed, "forest")``); the others ignore it.

    Returns
    -------
    sklearn.base.RegressorMixin
        Unfitted; every one of them accepts 2-D targets.

    Examples
    --------
    >>> type(make_regressor("knn")).__name__
    'KNeighborsRegressor'
    """
    if name not in REGRESSORS:
        raise ValueError(f"regressor: {name!r} is not an option; allowed {', '.join(map(repr, REGRESSORS))}")
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.neighbors import KNeighborsRegressor

    if name == "linear":
        return LinearRegression()
    if name == "knn":
        return KNeighborsRegressor(n_neighbors=20)
    if name == "random_forest":
        return RandomForestRegressor(n_estimators=50, min_samples_leaf=5, random_state=derive_seed(seed, "forest"))
    raise ValueError(f"regressor: {name!r} is not an option; allowed {', '.join(map(repr, REGRESSORS))}")


@dataclass(frozen=True)
class CompareConfig(Config):
    """One comparison of the scores: the data, MKS's settings, the level and the volume estimate.

    ``n_cal`` must be large enough for ``alpha`` (``ceil((n_cal + 1)(1 - alpha)) <= n_cal``).

    Examples
    --------
    >>> config = CompareConfig(dim=3, mapie=True)
    >>> config.scores()
    ('mks', 'ellipsoid', 'local_ellipsoid', 'coordinate_max', 'mapie')
    """

    law: str = choice("banana", LAWS, doc="residual law")
    dim: int = param(2, low=2, high=10, integer=True, doc="output dimension d")
    alpha: float = param(0.1, low=0.01, high=0.5, doc="miscoverage level")
    kernel: str = choice("rbf", KERNELS, doc="MKS's kernel")
    bandwidth_scale: float = param(0.5, low=0.05, high=10.0, doc="bandwidth as a multiple of the median distance")
    lam: float = param(0.01, low=1e-5, high=10.0, doc="ridge on the kernel covariance operator")
    centred: bool = choice(True, (True, False), doc="centre MKS's embedding (False: the GP-variance form)")
    n_fit: int = param(400, low=20, high=5000, integer=True, doc="rows of the fit split")
    n_cal: int = param(400, low=20, high=5000, integer=True, doc="rows of the calibration split")
    n_test: int = param(1000, low=20, high=20000, integer=True, doc="rows of the test split")
    mc_samples: int = param(20000, low=1000, high=200000, integer=True, doc="importance samples of MKS's volume")
    regressor: str = choice("linear", REGRESSORS, doc="the multi-output regressor")
    mapie: bool = choice(False, (True, False), doc="add MAPIE's learned-Sigma(x) score (trains a torch network)")
    mapie_epochs: int = param(60, low=1, high=1000, integer=True, doc="epochs of MAPIE's network")

    def validate(self) -> None:
        if conformal_rank(self.n_cal, self.alpha) > self.n_cal:
            raise ValueError(f"n_cal: {self.n_cal} calibration points cannot give level {self.alpha}; allowed "
                             f"n_cal >= {int(np.ceil(1 / self.alpha)) - 1}")

    def scores(self) -> tuple[str, ...]:
        """The scores compared: MKS, the global and local ellipsoids, the box, and MAPIE if asked."""
        return BASE_SCORES + (("mapie",) if self.mapie else ())


@dataclass
class Comparison:
    """One seed: each score's coverage, threshold and region volume (with MC error for MKS).

    Attributes
    ----------
    config : CompareConfig
        The comparison's configuration.
    seed : int
        The data's seed.
    scores : list of str
        The scores, MKS first and the global ellipsoid second.
    coverage : numpy.ndarray
        ``(S,)`` share of test points inside their region.
    threshold : numpy.ndarray
        ``(S,)`` each score's conformal threshold.
    volume : numpy.ndarray
        ``(S,)`` region volume in residual space (the mean over test inputs for x-dependent ones).
    volume_se : numpy.ndarray
        ``(S,)`` its standard error (Monte Carlo for MKS, over test inputs for x-dependent ones).
    ratio_mks_ellipsoid : float
        vol(MKS) / vol(global ellipsoid).
    ratio_low, ratio_high : float
        Its 95% normal interval from the Monte Carlo error.
    effective_rank : float
        Of MKS's empirical covariance operator.
    effective_dimension : float
        Its λ-effective dimension.
    plateau : float
        MKS's limit far from the data.
    eigenvalues : numpy.ndarray
        The operator's eigenvalues, descending.
    """

    config: CompareConfig
    seed: int
    scores: list
    coverage: np.ndarray
    threshold: np.ndarray
    volume: np.ndarray
    volume_se: np.ndarray
    ratio_mks_ellipsoid: float
    ratio_low: float
    ratio_high: float
    effective_rank: float
    effective_dimension: float
    plateau: float
    eigenvalues: np.ndarray = field(repr=False, default=None)

    def get(self, name: str, what: str = "volume") -> float:
        """One score's value of one per-score field (``volume``, ``coverage``, ...)."""
        return float(getattr(self, what)[self.scores.index(name)])


def _check_config(config) -> CompareConfig:
    config = CompareConfig() if config is None else config
    if not isinstance(config, CompareConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a CompareConfig")
    return config


def fit_models(config: CompareConfig, seed: int, data=None) -> dict:
    """{score name: fitted SplitConformalRegressor} on the seed's generated data."""
    data = data if data is not None else make_regression(config.law, config.dim, config.n_fit, config.n_cal,
                                                         config.n_test, seed)
    models = {}
    for name in config.scores():
        score = make_score(name, kernel=config.kernel, bandwidth_scale=config.bandwidth_scale, lam=config.lam,
                           centred=config.centred, mapie_epochs=config.mapie_epochs, seed=derive_seed(seed, "mapie"))
        models[name] = SplitConformalRegressor(make_regressor(config.regressor, seed), score).fit_split(
            data.X_fit, data.Y_fit, data.X_cal, data.Y_cal)
    return models


def region_volume(name: str, model: SplitConformalRegressor, q: float, X_test, mc_samples: int, seed: int):
    """(volume, its standard error) of a fitted model's region at threshold q."""
    s = model.score
    if name == "mks":
        mc = monte_carlo_volume(s.mks.score, q, model.fit_residuals_, mc_samples, seed, plateau=s.mks.plateau())
        return mc.volume, mc.std_error
    if name == "coordinate_max":
        return box_volume(q * s.sd_), 0.0
    if name == "ellipsoid":
        return float(ellipsoid_volume(s.Sigma_, q)), 0.0
    vols = ellipsoid_volume(s.shapes(X_test), q)
    return float(np.mean(vols)), float(np.std(vols, ddof=1) / np.sqrt(len(vols)))


def compare_scores(config: CompareConfig | None = None, seed: int = 0, progress=None, data=None) -> Comparison:
    """Fit every score on one seed's data and measure coverage and volume at ``config.alpha``.

    Parameters
    ----------
    config : CompareConfig, optional
        The data, the scores' settings and the level; default ``CompareConfig()``.
    seed : int
        The data, MAPIE's network and the Monte Carlo draws.
    progress : callable, optional
        ``progress(i, n_scores, {"coverage"})`` after each score; returning False stops (the
        remaining scores are NaN).
    data : RegressionData, optional
        Use these splits instead of ``make_regression(config..., seed)``.

    Returns
    -------
    Comparison
        ``ratio_mks_ellipsoid`` = vol(MKS) / vol(global ellipsoid) with a 95% normal interval from
        the Monte Carlo standard error.

    References
    ----------
    .. [1] "Multivariate kernel score for conformal prediction" (MKS), NeurIPS 2026, ``docs/PAPERS.md``.

    Examples
    --------
    >>> config = CompareConfig(n_fit=40, n_cal=40, n_test=40, mc_samples=1000)
    >>> result = compare_scores(config, seed=0)
    >>> result.scores, bool(result.ratio_mks_ellipsoid > 0)
    (['mks', 'ellipsoid', 'local_ellipsoid', 'coordinate_max'], True)
    """
    config = _check_config(config)
    if data is not None and not isinstance(data, RegressionData):
        raise ValueError(f"data: a {type(data).__name__}; allowed a RegressionData or None")
    data = data if data is not None else make_regression(config.law, config.dim, config.n_fit, config.n_cal,
                                                         config.n_test, seed)
    models = fit_models(config, seed, data)
    names = list(models)
    cov, thr, vol, se = (np.full(len(names), np.nan) for _ in range(4))
    for i, name in enumerate(names):
        m = models[name]
        thr[i] = m.threshold(config.alpha)
        cov[i] = float(np.mean(m.contains(data.X_test, data.Y_test, config.alpha)))
        vol[i], se[i] = region_volume(name, m, thr[i], data.X_test, config.mc_samples, derive_seed(seed, "mc", name))
        if not report(progress, i + 1, len(names), {"coverage": cov[i]}):
            break
    mks = models["mks"].score.mks
    ev = mks.operator_eigenvalues()
    v_m, s_m, v_e = vol[0], se[0], vol[1]
    ratio = v_m / v_e
    low, high = (v_m - 1.96 * s_m) / v_e, (v_m + 1.96 * s_m) / v_e
    return Comparison(config, int(seed), names, cov, thr, vol, se, float(ratio), float(low), float(high),
                      effective_rank(ev), effective_dimension(ev, config.lam), mks.plateau(), ev)


@dataclass
class Sweep:
    """Comparisons over a list of values of one config field, each over several seeds.

    ``coverage`` and ``volume`` have shape (values, seeds, scores); ``log_ratio`` (values, seeds) is
    log(vol MKS / vol ellipsoid); ``ratio`` its geometric mean over seeds with a 95% t interval.

    Attributes
    ----------
    field : str
        The swept field, "dim" or "alpha".
    values : numpy.ndarray
        ``(V,)`` its values.
    seeds : numpy.ndarray
        ``(N,)`` the seeds (derived from the sweep's seed).
    scores : list of str
        The scores, MKS first and the global ellipsoid second.
    coverage : numpy.ndarray
        ``(V, N, S)`` coverage (NaN where not run).
    volume : numpy.ndarray
        ``(V, N, S)`` region volume.
    log_ratio : numpy.ndarray
        ``(V, N)`` log(vol MKS / vol ellipsoid).
    ratio : numpy.ndarray
        ``(V,)`` geometric mean of the ratio over seeds.
    ratio_low, ratio_high : numpy.ndarray
        ``(V,)`` its 95% t interval (NaN with one seed).
    effective_rank : numpy.ndarray
        ``(V, N)`` of MKS's covariance operator.
    done : int
        Comparisons run (fewer than V N when stopped).
    config : CompareConfig
        The base configuration.
    """

    field: str
    values: np.ndarray
    seeds: np.ndarray
    scores: list
    coverage: np.ndarray
    volume: np.ndarray
    log_ratio: np.ndarray
    ratio: np.ndarray
    ratio_low: np.ndarray
    ratio_high: np.ndarray
    effective_rank: np.ndarray
    done: int
    config: CompareConfig


def sweep(config: CompareConfig | None = None, field_name: str = "dim", values=(2, 4, 6, 8, 10), n_seeds: int = 3,
          seed: int = 0, progress=None) -> Sweep:
    """``compare_scores`` for each value of ``field_name`` (``"dim"`` or ``"alpha"``) and each seed.

    Parameters
    ----------
    config : CompareConfig, optional
        The base configuration; default ``CompareConfig()``.
    field_name : {"dim", "alpha"}
        The field swept.
    values : sequence of float
        Its values, each valid for ``config`` (checked before anything runs).
    n_seeds : int
        Seeds per value, >= 1.
    seed : int
        The sweep's seed (each comparison's seed is derived from it).
    progress : callable, optional
        ``progress(step, total, {field_name, "ratio"})`` after each comparison; False stops.

    Returns
    -------
    Sweep
        Coverage and volume per value, seed and score, and the volume ratio MKS / ellipsoid.

    Examples
    --------
    >>> small = CompareConfig(n_fit=40, n_cal=40, n_test=40, mc_samples=1000)
    >>> result = sweep(small, "alpha", values=(0.1, 0.2), n_seeds=1)
    >>> result.coverage.shape, result.done
    ((2, 1, 4), 2)
    """
    from scipy.stats import t as student_t

    config = _check_config(config)
    if field_name not in ("dim", "alpha"):
        raise ValueError(f"field_name: {field_name!r} is not an option; allowed 'dim', 'alpha'")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds: {n_seeds!r} is out of range; allowed an integer >= 1")
    try:
        values = np.asarray(values, float)
    except (TypeError, ValueError):
        raise ValueError(f"values: {values!r} is not a list of numbers; allowed numbers valid for {field_name}") from None
    if values.ndim != 1 or values.size < 1:
        raise ValueError(f"values: {values.tolist()} is not a list of numbers; allowed at least one value")
    for v in values:   # every value is checked before the first comparison runs
        config.replace(**{field_name: int(v) if field_name == "dim" and float(v).is_integer() else float(v)})
    seeds = np.array([derive_seed(seed, "sweep", s) for s in range(int(n_seeds))])
    names = list(config.scores())
    shape = (len(values), len(seeds), len(names))
    coverage, volume = np.full(shape, np.nan), np.full(shape, np.nan)
    eff = np.full((len(values), len(seeds)), np.nan)
    total, step = len(values) * len(seeds), 0
    stopped = False
    for i, v in enumerate(values):
        cfg = config.replace(**{field_name: int(v) if field_name == "dim" else float(v)})
        for j, s in enumerate(seeds):
            c = compare_scores(cfg, int(s))
            coverage[i, j], volume[i, j], eff[i, j] = c.coverage, c.volume, c.effective_rank
            step += 1
            if not report(progress, step, total, {field_name: float(v), "ratio": c.ratio_mks_ellipsoid}):
                stopped = True
                break
        if stopped:
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(volume[:, :, 0] / volume[:, :, 1])
    ratio, low, high = (np.full(len(values), np.nan) for _ in range(3))
    for i in range(len(values)):
        lr = log_ratio[i][np.isfinite(log_ratio[i])]
        if lr.size:
            ratio[i] = np.exp(lr.mean())
            half = student_t.ppf(0.975, lr.size - 1) * lr.std(ddof=1) / np.sqrt(lr.size) if lr.size > 1 else np.nan
            low[i], high[i] = np.exp(lr.mean() - half), np.exp(lr.mean() + half)
    return Sweep(field_name, values, seeds, names, coverage, volume, log_ratio, ratio, low, high, eff, step, config)


@dataclass
class CoverageCheck:
    """Coverage over many seeds, one test point per seed, so hits ~ Binomial(n_seeds, p) exactly.

    For continuous scores p = ceil((n_cal + 1)(1 - alpha)) / (n_cal + 1); ``band_low``/``band_high``
    is the central 99.9% binomial interval of the hit count, as a share.

    Attributes
    ----------
    alphas : numpy.ndarray
        ``(A,)`` the levels.
    hits : numpy.ndarray
        ``(A, S)`` test points inside their region, per level and score.
    n_seeds : int
        Seeds run (one test point each).
    exact : numpy.ndarray
        ``(A,)`` the exact coverage p for continuous scores.
    band_low, band_high : numpy.ndarray
        ``(A,)`` the central 99.9% binomial interval of hits / n_seeds.
    scores : list of str
        The scores checked.
    """

    alphas: np.ndarray
    hits: np.ndarray          # (alphas, scores)
    n_seeds: int
    exact: np.ndarray         # p for each alpha
    band_low: np.ndarray
    band_high: np.ndarray
    scores: list


def coverage_check(alphas=(0.05, 0.1, 0.2), n_seeds: int = 300, law: str = "banana", dim: int = 2, n_fit: int = 60,
                   n_cal: int = 39, scores=("mks", "ellipsoid"), seed: int = 0, calibrate_on_fit: bool = False,
                   regressor: str = "linear", progress=None) -> CoverageCheck:
    """Coverage of the scores' regions on one fresh test point per seed, at each alpha.

    ``calibrate_on_fit=True`` is the control: the threshold comes from the fit split's own
    (in-sample) residuals instead of a held-out calibration split.

    Parameters
    ----------
    alphas : sequence of float
        Levels, each in (0, 1).
    n_seeds : int
        Seeds (one fresh test point each), >= 1.
    law : str
        The residual law (:func:`make_regression`).
    dim : int
        The output dimension, 1 to 20.
    n_fit : int
        Rows of the fit split, >= 2.
    n_cal : int
        Rows of the calibration split, >= 1.
    scores : sequence of str
        Among ``SCORES``.
    seed : int
        The seeds' root.
    calibrate_on_fit : bool
        The control: calibrate on the fit residuals (coverage then falls below 1 − α).
    regressor : str
        The regressor (:func:`make_regressor`).
    progress : callable, optional
        ``progress(s, n_seeds, {})`` after each seed; False stops.

    Returns
    -------
    CoverageCheck
        The hit counts with their exact binomial band: split conformal's coverage

        .. math:: 1 - \\alpha \\le P(Y \\in C(X)) \\le 1 - \\alpha + \\frac{1}{n_{cal} + 1}.

    Examples
    --------
    >>> check = coverage_check(alphas=(0.2,), n_seeds=3, n_fit=20, n_cal=9, scores=("ellipsoid",))
    >>> check.hits.shape, check.n_seeds, check.exact.round(3)
    ((1, 1), 3, array([0.8]))
    """
    from scipy.stats import binom

    cfg = CompareConfig()   # the default kernel, bandwidth and lam
    try:
        alphas = np.asarray(alphas, float)
    except (TypeError, ValueError):
        alphas = np.asarray([np.nan])
    if alphas.ndim != 1 or alphas.size < 1 or not np.all((alphas > 0) & (alphas < 1)):
        raise ValueError(f"alphas: {np.ravel(alphas).tolist()} is not a list of levels; allowed numbers in (0, 1)")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds: {n_seeds!r} is out of range; allowed an integer >= 1")
    for name in scores:
        if name not in SCORES:
            raise ValueError(f"scores: {name!r} is not an option; allowed {', '.join(map(repr, SCORES))}")
    if regressor not in REGRESSORS:
        raise ValueError(f"regressor: {regressor!r} is not an option; allowed {', '.join(map(repr, REGRESSORS))}")
    make_regression(law, dim, n_fit, n_cal, 1, seed)   # checks law, dim and the sizes before the loop
    hits = np.zeros((len(alphas), len(scores)), int)
    for s in range(int(n_seeds)):
        data = make_regression(law, dim, n_fit, n_cal, 1, derive_seed(seed, "coverage", s))
        for k, name in enumerate(scores):
            model = SplitConformalRegressor(make_regressor(regressor, s), make_score(name, lam=cfg.lam,
                                            bandwidth_scale=cfg.bandwidth_scale)).fit_split(
                data.X_fit, data.Y_fit, data.X_cal, data.Y_cal)
            if calibrate_on_fit:
                model.cal_scores_ = model.test_scores(data.X_fit, data.Y_fit)
            test = model.test_scores(data.X_test, data.Y_test)
            for i, a in enumerate(alphas):
                hits[i, k] += int(test[0] <= model.threshold(a))
        if not report(progress, s + 1, int(n_seeds), {}):
            n_seeds = s + 1
            break
    n_ref = n_fit if calibrate_on_fit else n_cal
    exact = np.array([min(conformal_rank(n_ref, a), n_ref + 1) / (n_ref + 1) for a in alphas])
    low = np.array([binom.ppf(0.0005, n_seeds, p) for p in exact]) / n_seeds
    high = np.array([binom.ppf(0.9995, n_seeds, p) for p in exact]) / n_seeds
    return CoverageCheck(alphas, hits, int(n_seeds), exact, low, high, list(scores))


def geometric_interval(log_ratio: np.ndarray) -> tuple[float, float, float]:
    """(geometric mean, low, high) of exp(log_ratio) with a 95% t interval on the finite log-ratios."""
    from scipy.stats import t as student_t

    lr = np.asarray(log_ratio, float)
    lr = lr[np.isfinite(lr)]
    if not lr.size:
        return float("nan"), float("nan"), float("nan")
    if lr.size == 1:
        return float(np.exp(lr[0])), float("nan"), float("nan")
    half = student_t.ppf(0.975, lr.size - 1) * lr.std(ddof=1) / np.sqrt(lr.size)
    return float(np.exp(lr.mean())), float(np.exp(lr.mean() - half)), float(np.exp(lr.mean() + half))


@dataclass
class RealDataCheck:
    """The scores on a real regression over repeated random splits.

    Attributes
    ----------
    name : str
        The data set.
    alpha : float
        The level.
    n_fit, n_cal, n_test : int
        Rows of each split.
    scores : list of str
        The scores, MKS first and the global ellipsoid second.
    coverage : numpy.ndarray
        ``(N, S)`` share of each split's test rows inside their region.
    volume : numpy.ndarray
        ``(N, S)`` region volume in residual space.
    log_ratio : numpy.ndarray
        ``(N,)`` log(vol MKS / vol ellipsoid).
    ratio, ratio_low, ratio_high : float
        Geometric mean of the ratio over splits and its 95% t interval.
    exact : float
        ceil((n_cal + 1)(1 - alpha)) / (n_cal + 1), the mean coverage of continuous scores.
    effective_rank : float
        Mean over splits of MKS's operator's effective rank.
    unbounded : int
        Splits where MKS's region is unbounded (threshold at its plateau: infinite volume, left out of
        the geometric mean).
    done : int
        Splits run (fewer than N when stopped).
    """

    name: str
    alpha: float
    n_fit: int
    n_cal: int
    n_test: int
    scores: list
    coverage: np.ndarray
    volume: np.ndarray
    log_ratio: np.ndarray
    ratio: float
    ratio_low: float
    ratio_high: float
    exact: float
    effective_rank: float
    unbounded: int
    done: int


def real_data_check(data: RealData, config: CompareConfig | None = None, n_fit: int = 100, n_cal: int = 60,
                    n_splits: int = 50, seed: int = 0, name: str = "real", progress=None) -> RealDataCheck:
    """:func:`compare_scores` on ``n_splits`` seeded random splits of a real regression.

    Parameters
    ----------
    data : RealData
        :func:`~core.kernel_conformal.data.linnerud` or :func:`~core.kernel_conformal.data.macro_var`.
    config : CompareConfig, optional
        The scores' settings, the level and the regressor (its sizes and law are not used); default
        ``CompareConfig()``.
    n_fit, n_cal : int
        Rows of the fit and calibration splits; the rest is the test split.
    n_splits : int
        Random splits, >= 1 (split s uses ``derive_seed(seed, "real", s)``).
    seed : int
        The splits' root seed.
    name : str
        The data set's name (reported).
    progress : callable, optional
        ``progress(s, n_splits, {"ratio"})`` after each split; False stops.

    Returns
    -------
    RealDataCheck
        Coverage and volume per split and score, and the volume ratio MKS / ellipsoid over splits.

    Examples
    --------
    >>> from core.kernel_conformal.data import linnerud
    >>> small = CompareConfig(alpha=0.2, mc_samples=1000)
    >>> check = real_data_check(linnerud(), small, n_fit=8, n_cal=9, n_splits=2, name="linnerud")
    >>> check.coverage.shape, check.n_test, round(check.exact, 3)
    ((2, 4), 3, 0.8)
    """
    config = _check_config(config)
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 1:
        raise ValueError(f"n_splits: {n_splits!r} is out of range; allowed an integer >= 1")
    split_real(data, n_fit, n_cal, seed, name)   # checks the data and the sizes before the loop
    names = list(config.scores())
    coverage, volume = np.full((n_splits, len(names)), np.nan), np.full((n_splits, len(names)), np.nan)
    eff, done = np.full(n_splits, np.nan), 0
    for s in range(int(n_splits)):
        split = split_real(data, n_fit, n_cal, derive_seed(seed, "real", s), name)
        c = compare_scores(config, derive_seed(seed, "real-compare", s), data=split)
        coverage[s], volume[s], eff[s] = c.coverage, c.volume, c.effective_rank
        done = s + 1
        if not report(progress, done, int(n_splits), {"ratio": c.ratio_mks_ellipsoid}):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(volume[:, 0] / volume[:, 1])
    ratio, low, high = geometric_interval(log_ratio)
    n_test = len(data.X) - n_fit - n_cal
    exact = min(conformal_rank(n_cal, config.alpha), n_cal + 1) / (n_cal + 1)
    return RealDataCheck(name, float(config.alpha), int(n_fit), int(n_cal), int(n_test), names, coverage, volume,
                         log_ratio, ratio, low, high, float(exact), float(np.nanmean(eff)),
                         int(np.sum(np.isinf(volume[:done, 0]))), done)
