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

    Attributes
    ----------
    grid_x, grid_y : numpy.ndarray
        ``(G,)`` the grid's axes in residual space.
    mks_grid, ellipsoid_grid : numpy.ndarray
        ``(G, G)`` MKS's and the global ellipsoid's score on the grid (rows along ``grid_y``).
    mks_threshold, ellipsoid_threshold : float
        Their conformal thresholds at ``alpha``.
    cal_residuals : numpy.ndarray
        ``(n_cal, 2)`` the calibration residuals.
    test_residuals : numpy.ndarray
        ``(n_test_shown, 2)`` the test residuals.
    mks_inside, ellipsoid_inside : numpy.ndarray
        ``(n_test_shown,)`` bool: whether each test point is in the region.
    mapie_ellipse : numpy.ndarray
        ``(121, 2)`` MAPIE's region boundary at the first test input, or ``(0, 2)`` without MAPIE.
    alpha : float
        The level.
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
    """The 2-D view (``config.dim`` must be 2); MAPIE's network is trained only if ``config.mapie``.

    Parameters
    ----------
    config : CompareConfig, optional
        With ``dim = 2``; default ``CompareConfig()``.
    seed : int
        The data (and MAPIE's network).
    grid : int
        Grid points per axis, 10 to 400.
    n_test_shown : int
        Test points drawn, 1 to 5000.
    progress : callable, optional
        Accepted for the live panel; the view is one step and reports nothing.

    Returns
    -------
    RegionView
        The two score maps with their thresholds and the residuals drawn over them.

    Examples
    --------
    >>> view = region_view(CompareConfig(n_fit=40, n_cal=40), seed=0, grid=12, n_test_shown=30)
    >>> view.mks_grid.shape, view.test_residuals.shape, view.mapie_ellipse.shape
    ((12, 12), (30, 2), (0, 2))
    """
    config = CompareConfig() if config is None else config
    if not isinstance(config, CompareConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a CompareConfig")
    if config.dim != 2:
        raise ValueError(f"dim: {config.dim} cannot be drawn; allowed 2")
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)) or not 10 <= grid <= 400:
        raise ValueError(f"grid: {grid!r} is out of range; allowed an integer in [10, 400]")
    if isinstance(n_test_shown, bool) or not isinstance(n_test_shown, (int, np.integer)) or not 1 <= n_test_shown <= 5000:
        raise ValueError(f"n_test_shown: {n_test_shown!r} is out of range; allowed an integer in [1, 5000]")
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
