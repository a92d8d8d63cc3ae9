"""What the page's main figure draws: 2-D score maps of MKS and the ellipsoid over residual space."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.kernel_conformal.data import make_regression
from core.kernel_conformal.experiment import CompareConfig, fit_models


@dataclass
class RegionView:
    """Grid scores (MKS and ellipsoid) with their thresholds, and the residuals drawn over them.

    ``mapie_*`` hold MAPIE's ellipse at the first test input (its region moves with x), if fitted.
    """

    grid_x: np.ndarray
    grid_y: np.ndarray
    mks_grid: np.ndarray
    ellipsoid_grid: np.ndarray
    mks_threshold: float
    ellipsoid_threshold: float
    cal_residuals: np.ndarray
    test_residuals: np.ndarray
    mks_inside: np.ndarray
    ellipsoid_inside: np.ndarray
    mapie_ellipse: np.ndarray
    alpha: float


def region_view(config: CompareConfig | None = None, seed: int = 0, grid: int = 90, n_test_shown: int = 300,
                progress=None) -> RegionView:
    """The 2-D view (``config.dim`` must be 2); MAPIE's network is trained only if ``config.mapie``."""
    config = config or CompareConfig()
    if config.dim != 2:
        raise ValueError(f"dim: {config.dim} cannot be drawn; allowed 2")
    data = make_regression(config.law, 2, config.n_fit, config.n_cal, n_test_shown, seed)
    models = fit_models(config.replace(n_test=n_test_shown), seed, data)
    mks, ell = models["mks"], models["ellipsoid"]
    R = np.vstack([mks.fit_residuals_, mks.cal_residuals_])
    lo, hi = R.min(axis=0), R.max(axis=0)
    pad = 0.25 * (hi - lo)
    gx, gy = (np.linspace(lo[k] - pad[k], hi[k] + pad[k], grid) for k in range(2))
    P = np.column_stack([a.ravel() for a in np.meshgrid(gx, gy)])
    test_res = data.Y_test - mks.predict(data.X_test)
    a = config.alpha
    ellipse = np.zeros((0, 2))
    if "mapie" in models:
        m = models["mapie"]
        S, mu = m.score.shapes(data.X_test[:1])[0], m.score.centres(data.X_test[:1])[0]
        t = np.linspace(0, 2 * np.pi, 121)
        ellipse = mu + m.threshold(a) * np.column_stack([np.cos(t), np.sin(t)]) @ np.linalg.cholesky(S).T
    return RegionView(gx, gy, mks.score.score(P).reshape(grid, grid), ell.score.score(P).reshape(grid, grid),
                      mks.threshold(a), ell.threshold(a), mks.cal_residuals_, test_res,
                      mks.contains(data.X_test, data.Y_test, a), ell.contains(data.X_test, data.Y_test, a), ellipse, a)
