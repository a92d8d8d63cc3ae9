"""The rate experiment: each policy's average excess loss over a sweep of the predictor's RMSE eta.

For every noise level (geometrically spaced) and replicate we draw a fresh setting, fit the
predictor, measure eta on the test split and evaluate every policy. Each (noise level, replicate)
cell has its own child seed, so any cell can be recomputed alone (:func:`rate_cell`; the test of
the shipped asset does that). Slopes are ordinary least squares fits of log(loss) on log(eta)
over all points, with a 95% t-interval from the fit's standard error (scipy.stats.linregress).
Where following the prediction is brittle its loss does not vanish as eta -> 0: its slope is
near 0 and we also report each policy's floor, the mean loss at the smallest eta.

Two bounds are evaluated on the same instances: the abstract's, 1.5 c^(2/3) (2B)^(1/3) eta^(2/3)
(``bound``, at each level's mean eta), and, for posted pricing, our Cantelli bound on the best
reserves of RIC-h's clusters (``ric_bound``, per cell, :func:`.ric.cluster_bound` on the test split;
Medina & Vassilvitskii's own bound was not available to us).

The defaults (10 noise levels from 0.001 to 0.3, 5 replicates, 50,000 test contexts, the searched
worst-case law) are the bench's scale; the page ships that run for seed 0 (:mod:`.ship`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.robust_decisions.contextual import (ERROR_LAWS, MODELS, POLICY_LABELS, SettingConfig, average_excess,
                                              fit_ric, make_setting, policies_for)
from core.robust_decisions.problems import PROBLEMS, TIE_BREAKS, problem_for


@dataclass(frozen=True)
class RateConfig(Config):
    """The rate experiment: which problem and error law, the sweep of noise levels and the split sizes.

    Examples
    --------
    >>> RateConfig(n_points=3, eta_min=0.01, eta_max=0.1).n_points
    3
    """

    problem: str = choice("posted_pricing", tuple(PROBLEMS), doc="which decision problem")
    error_law: str = choice("worst_case", ERROR_LAWS, doc="law of the state noise (see core.robust_decisions.laws)")
    tie_break: str = choice("earliest_buy", TIE_BREAKS, doc="ski rental's optimal action for a season < b")
    model: str = choice("linear", MODELS, doc="the scikit-learn predictor")
    eta_min: float = param(0.001, low=1e-5, high=1.0, doc="the smallest noise RMSE of the sweep")
    eta_max: float = param(0.3, low=1e-4, high=3.0, doc="the largest noise RMSE (above eta_min)")
    n_points: int = param(10, low=3, high=40, integer=True, doc="noise levels, geometric from eta_min to eta_max")
    replicates: int = param(5, low=1, high=20, integer=True, doc="fresh settings per noise level")
    n_train: int = param(2000, low=50, high=200_000, integer=True, doc="training contexts per setting")
    n_val: int = param(2000, low=50, high=200_000, integer=True, doc="validation contexts per setting")
    n_test: int = param(50_000, low=100, high=1_000_000, integer=True, doc="test contexts per setting")
    eps: float = param(0.3, low=0.0, high=10.0, doc="radius of the fixed-eps robust policy")

    def validate(self) -> None:
        if self.eta_max <= self.eta_min:
            raise ValueError(f"eta_max: {self.eta_max:g} must exceed eta_min; allowed ({self.eta_min:g}, 3]")


@dataclass
class Slope:
    """An OLS slope of log(loss) on log(eta) with its 95% t-interval.

    Attributes
    ----------
    slope : float
        The fitted exponent (NaN with fewer than three usable points).
    low : float
        The interval's lower end.
    high : float
        Its upper end.
    intercept : float
        The fit's intercept, log(loss) at eta = 1.

    Examples
    --------
    >>> s = Slope(0.66, 0.6, 0.72, -1.0)
    >>> s.low < s.slope < s.high
    True
    """

    slope: float
    low: float
    high: float
    intercept: float


@dataclass
class RateResult:
    """Every policy's average excess loss over the sweep, with slopes, floors and the theory bound.

    Attributes
    ----------
    config : RateConfig
        The experiment.
    noise : ndarray of shape (n_points,)
        The noise levels (RMSE of the state noise).
    eta : ndarray of shape (n_points, replicates)
        The predictor's RMSE measured on each test split (NaN where not reached).
    losses : dict
        Policy -> (n_points, replicates) average test excess losses.
    slopes : dict
        Policy -> :class:`Slope` of log(loss) on log(eta).
    floor : dict
        Policy -> the mean loss at the smallest eta.
    bound : ndarray of shape (n_points,)
        The theory bound 1.5 c^(2/3) (2B)^(1/3) eta^(2/3) at each level's mean eta.
    points_done : int
        Noise levels with at least one finished replicate.
    loss_bound_B : float
        B of the bound (the last setting's).
    ric_bound : ndarray of shape (n_points, replicates), optional
        Posted pricing: the Cantelli bound on the best reserves of RIC-h's clusters in each cell (see
        :func:`.ric.cluster_bound`); NaN for the other problems and cells not run.

    Examples
    --------
    >>> result = rate_experiment(RateConfig(problem="house_flipping", n_points=3, replicates=1, n_train=100,
    ...                                     n_val=100, n_test=500, error_law="gaussian"), seed=0)
    >>> result.eta.shape, sorted(result.slopes)[:2]
    ((3, 1), ['follow', 'robust'])
    """

    config: RateConfig
    noise: np.ndarray
    eta: np.ndarray
    losses: dict
    slopes: dict
    floor: dict
    bound: np.ndarray
    points_done: int
    loss_bound_B: float = np.nan
    ric_bound: np.ndarray | None = None

    def ric_bound_curve(self) -> np.ndarray:
        """The mean of ``ric_bound`` over each level's finished replicates (NaN where there is none)."""
        if self.ric_bound is None:
            return np.full(len(self.noise), np.nan)
        ok = np.isfinite(self.ric_bound)
        total = np.where(ok, self.ric_bound, 0.0).sum(axis=1)
        count = ok.sum(axis=1)
        return np.divide(total, count, out=np.full(len(self.noise), np.nan), where=count > 0)

    def bound_at(self, eta):
        """The abstract's bound 1.5 c^(2/3) (2B)^(1/3) eta^(2/3) at each ``eta``."""
        return problem_for(self.config.problem, self.config.tie_break).bound_value(eta, self.loss_bound_B)

    def to_frame(self):
        """One row per noise level, replicate and policy (pandas)."""
        import pandas as pd

        rows = [{"noise": self.noise[i], "replicate": r, "eta": self.eta[i, r], "policy": p, "loss": self.losses[p][i, r]}
                for p in self.losses for i in range(self.points_done) for r in range(self.eta.shape[1])
                if np.isfinite(self.eta[i, r])]
        return pd.DataFrame(rows)


def fit_slope(eta: np.ndarray, loss: np.ndarray) -> Slope:
    """The exponent of loss ~ eta^slope: OLS of log(loss) on log(eta) with a 95% t-interval.

    .. math:: \\log \\mathrm{loss} = \\alpha + \\beta \\log \\eta,
              \\quad \\beta \\pm t_{0.975, m-2}\\, \\mathrm{se}(\\beta)

    Parameters
    ----------
    eta : array_like
        The RMSEs; points with eta <= 0, loss <= 0 or a non-finite loss are left out.
    loss : array_like
        The losses, the same shape.

    Returns
    -------
    Slope
        NaN everywhere with fewer than three usable points.

    References
    ----------
    .. [1] Robust decisions around predictions (NeurIPS 2026, ``docs/PAPERS.md``):
       "a general bound gives O(eta^(2/3)) excess loss".

    Examples
    --------
    >>> eta = np.geomspace(0.01, 1.0, 5)
    >>> round(fit_slope(eta, 3 * eta ** (2 / 3)).slope, 3)
    0.667
    """
    eta, loss = np.asarray(eta, dtype=float), np.asarray(loss, dtype=float)
    if eta.shape != loss.shape:
        raise ValueError(f"loss: shape {loss.shape} differs from eta's {eta.shape}; allowed the same shape")
    ok = (eta > 0) & (loss > 0) & np.isfinite(loss)
    x, y = np.log(eta[ok]), np.log(loss[ok])
    if x.size < 3:
        return Slope(np.nan, np.nan, np.nan, np.nan)
    fit = stats.linregress(x, y)
    half = stats.t.ppf(0.975, x.size - 2) * fit.stderr
    return Slope(float(fit.slope), float(fit.slope - half), float(fit.slope + half), float(fit.intercept))


def noise_levels(config: RateConfig) -> np.ndarray:
    return np.geomspace(config.eta_min, config.eta_max, config.n_points)


@dataclass
class RateCell:
    """One (noise level, replicate) cell of the rate experiment.

    Attributes
    ----------
    eta : float
        The predictor's RMSE on the test split.
    losses : dict
        Policy -> its average test excess loss.
    bound_B : float
        The setting's B (the bound's excess loss outside the ball).
    ric_bound : float
        Posted pricing: :func:`.ric.cluster_bound` of the test split in RIC-h's clusters (NaN otherwise).
    """

    eta: float
    losses: dict
    bound_B: float
    ric_bound: float = np.nan


def rate_cell(config: RateConfig, seed: int, i: int, r: int) -> RateCell:
    """One cell of the experiment: noise level ``i``, replicate ``r``, with its own child seed.

    Parameters
    ----------
    config : RateConfig
        The experiment.
    seed : int
        The experiment's seed; the cell draws with ``derive_seed(seed, i, r)``.
    i : int
        The noise level, in [0, n_points).
    r : int
        The replicate, in [0, replicates).

    Returns
    -------
    RateCell
        eta on the test split, every policy's average excess loss, and B.

    Examples
    --------
    >>> cfg = RateConfig(problem="house_flipping", n_points=3, replicates=1, n_train=100, n_val=100, n_test=500,
    ...                  error_law="gaussian")
    >>> cell = rate_cell(cfg, seed=0, i=2, r=0)
    >>> round(cell.eta, 1), sorted(cell.losses)
    (0.3, ['follow', 'robust', 'robust_theory', 'robust_tuned'])
    """
    from core.common.config import check_range

    i = check_range("i", i, 0, config.n_points - 1, integer=True)
    r = check_range("r", r, 0, config.replicates - 1, integer=True)
    problem = problem_for(config.problem, config.tie_break)
    setting = make_setting(SettingConfig(problem=config.problem, noise=float(noise_levels(config)[i]),
                                         error_law=config.error_law, tie_break=config.tie_break, model=config.model,
                                         n_train=config.n_train, n_val=config.n_val, n_test=config.n_test),
                           seed=derive_seed(seed, i, r), problem=problem)
    policies = policies_for(problem)
    losses = {p: average_excess(setting, p, config.eps).mean for p in policies if p != "ric_h"}
    ric_bound = np.nan
    if "ric_h" in policies:  # one fit for the policy's loss and its bound (the same as average_excess's)
        ric = fit_ric(setting)
        losses["ric_h"] = float(problem.excess_loss(ric.predict(setting.pred_test), setting.s_test).mean())
        ric_bound = ric.bound(setting.pred_test, setting.s_test)
    return RateCell(eta=setting.eta_test, losses={p: losses[p] for p in policies}, bound_B=setting.bound,
                    ric_bound=float(ric_bound))


def rate_experiment(config: RateConfig | None = None, seed: int = 0, progress=None) -> RateResult:
    """Every policy's average excess loss on a grid of noise levels x replicates; slopes and floors.

    Parameters
    ----------
    config : RateConfig, optional
        The experiment (default: the bench's scale, which is the shipped run's).
    seed : int
        Every cell draws from ``derive_seed(seed, i, r)``.
    progress : callable, optional
        ``progress(cell, cells, {"eta": ..., "loss <policy>": ...})`` after each cell; returning False
        stops, and the levels reached so far are returned.

    Returns
    -------
    RateResult
        Losses per policy and cell, the slopes of log(loss) on log(eta), the floors and the bound.

    References
    ----------
    .. [1] Robust decisions around predictions (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> cfg = RateConfig(problem="ski_rental", n_points=3, replicates=1, n_train=100, n_val=100, n_test=500,
    ...                  error_law="gaussian")
    >>> result = rate_experiment(cfg, seed=0)
    >>> result.points_done, sorted(result.losses)
    (3, ['follow', 'robust', 'robust_theory', 'robust_tuned'])
    """
    from core.common.seeding import check_seed

    config = config or RateConfig()
    seed = check_seed(seed)
    problem = problem_for(config.problem, config.tie_break)
    policies = policies_for(problem)
    noise = noise_levels(config)
    eta = np.full((config.n_points, config.replicates), np.nan)
    losses = {p: np.full_like(eta, np.nan) for p in policies}
    ric_bound = np.full_like(eta, np.nan)
    total, done, bound_b = config.n_points * config.replicates, 0, np.nan
    for i in range(config.n_points):
        for r in range(config.replicates):
            cell = rate_cell(config, seed, i, r)
            eta[i, r], bound_b, ric_bound[i, r] = cell.eta, cell.bound_B, cell.ric_bound
            for p in policies:
                losses[p][i, r] = cell.losses[p]
            done += 1
            metrics = {f"loss {POLICY_LABELS[p]}": losses[p][i, r] for p in ("follow", "robust_theory")}
            if not report(progress, done, total, {"eta": eta[i, r], **metrics}):
                return _result(config, noise, eta, losses, i + 1, problem, bound_b, ric_bound)
    return _result(config, noise, eta, losses, config.n_points, problem, bound_b, ric_bound)


def _result(config, noise, eta, losses, points_done, problem, bound_b, ric_bound=None) -> RateResult:
    slopes = {p: fit_slope(eta.ravel(), loss.ravel()) for p, loss in losses.items()}
    floor = {p: float(np.nanmean(loss[0])) for p, loss in losses.items()}
    bound = np.full(len(noise), np.nan)
    seen = np.isfinite(eta).any(axis=1)
    if seen.any():
        mean_eta = np.array([np.mean(row[np.isfinite(row)]) for row in eta[seen]])
        bound[seen] = problem.bound_value(mean_eta, bound_b)
    return RateResult(config, noise, eta, losses, slopes, floor, bound, points_done, float(bound_b), ric_bound)
