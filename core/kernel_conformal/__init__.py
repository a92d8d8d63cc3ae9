"""Multivariate kernel score (MKS) for conformal prediction regions, against ellipsoids and MAPIE.

The paper's claim: a nonconformity score for residual vectors built from a kernel mean embedding
and a regularised kernel covariance operator, MKS(r) = <phi(r) - mu, (Sigma_c + lam I)^-1
(phi(r) - mu)>, gives split-conformal regions that follow the residuals' geometry; it resembles the
Gaussian-process posterior variance, decomposes into an anisotropic MMD between KDE and a
covariance-weighted distance, keeps finite-sample coverage, has rates in the effective rank of
the kernel covariance operator, and shrinks region volume against ellipsoids, more so in higher
dimension and at tighter levels.

What is ours (only the abstract was available), each documented where it lives:

- the score's finite form through Woodbury, the bandwidth as a multiple of the median heuristic
  (default 0.5), lam = 0.01 on the operator's scale, the kernels offered (:mod:`.kernels`);
- the baselines' details: Messoudi et al.'s global ellipsoid with np.cov, a k-NN local ellipsoid
  (k = n/10, mix 0.9), a per-coordinate box, MAPIE's learned-Sigma(x) network trained for 60
  epochs on the fit split's residuals (:mod:`.scores`);
- the volume estimator: importance sampling from a KDE/Student-t defensive mixture, with its
  standard error; a threshold at or above the bounded kernel's plateau is an unbounded region
  (:mod:`.volume`);
- the data: our residual laws (banana, bimodal, heteroscedastic, Gaussian) on a linear regression
  in 3 inputs, linnerud, and a VAR(2) of statsmodels' macrodata (:mod:`.data`);
- the coverage check: one test point per seed so that hits are exactly binomial (:mod:`.experiment`).
The paper's rate in the effective rank is not checked (its form was not available): we report the
effective rank against the dimension only.
"""

from core.kernel_conformal.conformal import (Region, SplitConformalRegressor, conformal_quantile, conformal_rank)
from core.kernel_conformal.data import (LAW_LABELS, LAWS, RealData, RegressionData, linnerud, macro_var,
                                        make_regression, split_real)
from core.kernel_conformal.experiment import (CompareConfig, Comparison, CoverageCheck, RealDataCheck, Sweep,
                                              compare_scores, coverage_check, make_regressor, real_data_check, sweep)
from core.kernel_conformal.kernels import (KERNEL_LABELS, KERNELS, MultivariateKernelScore, effective_dimension,
                                           effective_rank, kernel_matrix, median_distance)
from core.kernel_conformal.scores import (SCORE_LABELS, SCORES, CoordinateMax, GlobalEllipsoid, KernelScore,
                                          LocalEllipsoid, MapieScore, make_score)
from core.kernel_conformal.views import RegionView, region_view
from core.kernel_conformal.volume import MonteCarloVolume, ellipsoid_volume, monte_carlo_volume

from core.kernel_conformal.claims import CLAIMS  # noqa: E402

__all__ = [
    "CLAIMS", "MultivariateKernelScore", "KERNELS", "KERNEL_LABELS", "kernel_matrix", "median_distance",
    "effective_rank", "effective_dimension", "GlobalEllipsoid", "LocalEllipsoid", "CoordinateMax", "MapieScore",
    "KernelScore", "make_score", "SCORES", "SCORE_LABELS", "SplitConformalRegressor", "Region",
    "conformal_quantile", "conformal_rank", "LAWS", "LAW_LABELS", "RegressionData", "RealData", "make_regression",
    "linnerud", "split_real", "RealDataCheck", "real_data_check",
    "macro_var", "CompareConfig", "Comparison", "compare_scores", "Sweep", "sweep", "CoverageCheck",
    "coverage_check", "make_regressor", "MonteCarloVolume", "ellipsoid_volume", "monte_carlo_volume",
    "RegionView", "region_view",
]
