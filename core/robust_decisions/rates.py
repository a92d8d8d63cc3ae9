"""The rate experiment: each policy's average excess loss over a sweep of the predictor's RMSE eta.

For every noise level (geometrically spaced) and replicate we draw a fresh setting, fit the
predictor, measure eta on the test split and evaluate every policy. Each (noise level, replicate)
cell has its own child seed, so any cell can be recomputed alone (:func:`rate_cell`; the test of
the shipped asset does that). Slopes are ordinary least squares fits of log(loss) on log(eta)
over all points, with a 95% t-interval from the fit's standard error (scipy.stats.linregress).
Where following the prediction is brittle its loss does not vanish as eta -> 0: its slope is
near 0 and we also report each policy's floor, the mean loss at the smallest eta.

The defaults (10 noise levels from 0.001 to 0.3, 5 replicates, 50,000 test contexts, the searched
worst-case law) are the bench's scale; the page ships that run for seed 0 (:mod:`.assets`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import derive_seed
from core.robust_decisions.contextual import (ERROR_LAWS, MODELS, POLICY_LABELS, SettingConfig, average_excess,
                                              make_setting, policies_for)
from core.robust_decisions.problems import PROBLEMS, TIE_BREAKS, problem_for


@dataclass(frozen=True)
class RateConfig(Config):
    problem: str = choice("posted_pricing", tuple(PROBLEMS))
    error_law: str = choice("worst_case", ERROR_LAWS)
    tie_break: str = choice("earliest_buy", TIE_BREAKS, doc="ski rental's optimal action for a season < b")
    model: str = choice("linear", MODELS)
    eta_min: float = param(0.001, low=1e-5, high=1.0)
    eta_max: float = param(0.3, low=1e-4, high=3.0)
    n_points: int = param(10, low=3, high=40, integer=True)
    replicates: int = param(5, low=1, high=20, integer=True)
    n_train: int = param(2000, low=50, high=200_000, integer=True)
    n_val: int = param(2000, low=50, high=200_000, integer=True)
    n_test: int = param(50_000, low=100, high=1_000_000, integer=True)
    eps: float = param(0.3, low=0.0, high=10.0, doc="radius of the fixed-eps robust policy")

    def validate(self) -> None:
        if self.eta_max <= self.eta_min:
            raise ValueError(f"eta_max: {self.eta_max:g} must exceed eta_min; allowed ({self.eta_min:g}, 3]")


@dataclass
class Slope:
    slope: float
    low: float
    high: float
    intercept: float


@dataclass
class RateResult:
    config: RateConfig
    noise: np.ndarray                # (n_points,)
    eta: np.ndarray                  # (n_points, replicates) measured on the test split
    losses: dict                     # policy -> (n_points, replicates)
    slopes: dict                     # policy -> Slope
    floor: dict                      # policy -> mean loss at the smallest eta
    bound: np.ndarray                # the theory bound at each mean eta
    points_done: int                 # noise levels with at least one finished replicate
    loss_bound_B: float = np.nan     # B of the bound (the last setting's)

    def bound_at(self, eta):
        """The abstract's bound 1.5 c^(2/3) (2B)^(1/3) eta^(2/3) at each ``eta``."""
        return problem_for(self.config.problem, self.config.tie_break).bound_value(eta, self.loss_bound_B)

    def to_frame(self):
        import pandas as pd

        rows = [{"noise": self.noise[i], "replicate": r, "eta": self.eta[i, r], "policy": p, "loss": self.losses[p][i, r]}
                for p in self.losses for i in range(self.points_done) for r in range(self.eta.shape[1])
                if np.isfinite(self.eta[i, r])]
        return pd.DataFrame(rows)


def fit_slope(eta: np.ndarray, loss: np.ndarray) -> Slope:
    ok = (eta > 0) & (loss > 0) & np.isfinite(loss)
    x, y = np.log(eta[ok]), np.log(loss[ok])
    if x.size < 3:
        return Slope(np.nan, np.nan, np.nan, np.nan)
    fit = stats.linregress(x, y)
    half = stats.t.ppf(0.975, x.size - 2) * fit.stderr
    return Slope(float(fit.slope), float(fit.slope - half), float(fit.slope + half), float(fit.intercept))


def noise_levels(config: RateConfig) -> np.ndarray:
    return np.geomspace(config.eta_min, config.eta_max, config.n_points)


def rate_cell(config: RateConfig, seed: int, i: int, r: int) -> tuple[float, dict, float]:
    """One cell of the experiment: noise level ``i``, replicate ``r``.

    Returns (eta on the test split, {policy: average test excess loss}, the setting's B).
    """
    problem = problem_for(config.problem, config.tie_break)
    setting = make_setting(SettingConfig(problem=config.problem, noise=float(noise_levels(config)[i]),
                                         error_law=config.error_law, tie_break=config.tie_break, model=config.model,
                                         n_train=config.n_train, n_val=config.n_val, n_test=config.n_test),
                           seed=derive_seed(seed, i, r), problem=problem)
    return setting.eta_test, {p: average_excess(setting, p, config.eps)[0] for p in policies_for(problem)}, setting.bound


def rate_experiment(config: RateConfig | None = None, seed: int = 0, progress=None) -> RateResult:
    """Every policy's average excess loss on a grid of noise levels x replicates; slopes and floors."""
    config = config or RateConfig()
    problem = problem_for(config.problem, config.tie_break)
    policies = policies_for(problem)
    noise = noise_levels(config)
    eta = np.full((config.n_points, config.replicates), np.nan)
    losses = {p: np.full_like(eta, np.nan) for p in policies}
    total, done, bound_b = config.n_points * config.replicates, 0, np.nan
    for i in range(config.n_points):
        for r in range(config.replicates):
            eta[i, r], cell, bound_b = rate_cell(config, seed, i, r)
            for p in policies:
                losses[p][i, r] = cell[p]
            done += 1
            metrics = {f"loss {POLICY_LABELS[p]}": losses[p][i, r] for p in ("follow", "robust_theory")}
            if not report(progress, done, total, {"eta": eta[i, r], **metrics}):
                return _result(config, noise, eta, losses, i + 1, problem, bound_b)
    return _result(config, noise, eta, losses, config.n_points, problem, bound_b)


def _result(config, noise, eta, losses, points_done, problem, bound_b) -> RateResult:
    slopes = {p: fit_slope(eta.ravel(), loss.ravel()) for p, loss in losses.items()}
    floor = {p: float(np.nanmean(loss[0])) for p, loss in losses.items()}
    bound = np.full(len(noise), np.nan)
    seen = np.isfinite(eta).any(axis=1)
    if seen.any():
        mean_eta = np.array([np.mean(row[np.isfinite(row)]) for row in eta[seen]])
        bound[seen] = problem.bound_value(mean_eta, bound_b)
    return RateResult(config, noise, eta, losses, slopes, floor, bound, points_done, float(bound_b))
