r"""The three entropy games and their attributions: marginal, chain (ours) and joint.

For a coalition S of input features, with the features outside S integrated out under the
features' law (:class:`~core.uncertainty_shapley.models.FeatureLaw`), each game is a sum over the
D ordered output components of a conditional entropy term:

- marginal: :math:`v_\mathrm{marg}(S) = \sum_j H(Y_j \mid X_S)`;
- chain of lag L (our intermediate game): :math:`v_\mathrm{chain}(S) = \sum_j H(Y_j \mid Y_{j-L..j-1}, X_S)`,
  which is the marginal game at L = 0 and the joint game at L >= D - 1;
- joint: :math:`v_\mathrm{joint}(S) = H(Y \mid X_S) = \sum_j H(Y_j \mid Y_{<j}, X_S)` (chain rule).

The difference :math:`v_\mathrm{marg}(S) - v_\mathrm{joint}(S) = TC(Y \mid X_S)` is the conditional
total correlation, so the cross-component term :math:`c_i = \phi_i^\mathrm{marg} - \phi_i^\mathrm{joint}`
is the Shapley value of :math:`S \mapsto TC(Y\mid X_S)`, and efficiency gives
:math:`\sum_i c_i = TC(Y\mid X) - TC(Y)`. A feature that explains dependence away (a shared input)
has :math:`c_i < 0`; the dependence it accounts for is :math:`-c_i`, summing to :math:`TC(Y) - TC(Y\mid X)`.

Entropies are global: :math:`H(Y\mid X_S) = E_{x_S}\,H(p(\cdot\mid x_S))`, with :math:`x_S` from the
model's background rows and :math:`p(y\mid x_S) = E[p(y\mid x_S, X_{\bar S})\mid x_S]` a mixture over
the left-out features. Estimators of each term:

- ``closed_form``: the linear-Gaussian model's exact predictive covariance;
- ``moment_matching``: the mixture replaced by the Gaussian with its mean and covariance (exact for
  the linear-Gaussian model as the inner samples grow; an upper bound otherwise);
- ``knn``: Kozachenko–Leonenko entropies of samples from the mixture;
- ``mean_imputation``: the left-out features set to their conditional mean (no mixture), the
  plug-in that SHAP-style explanations often use; a control that ignores the features'
  uncertainty and so underestimates every entropy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.common.config import Config, check_range, choice, param
from core.common.seeding import derive_rng
from core.uncertainty_shapley.entropy import LOG_2PIE, knn_entropy, moment_matched_cov
from core.uncertainty_shapley.models import psd_sqrt
from core.uncertainty_shapley.shapley import MAX_EXACT_PLAYERS, exact_shapley, permutation_shapley

if TYPE_CHECKING:
    import pandas as pd

GAMES = ("marginal", "chain", "joint")
GAME_LABELS = {"marginal": "marginal Σ_j H(Y_j | X_S)", "chain": "chain Σ_j H(Y_j | Y_{j−L..j−1}, X_S)",
               "joint": "joint H(Y | X_S)"}
ESTIMATORS = ("closed_form", "moment_matching", "knn", "mean_imputation")
ESTIMATOR_LABELS = {"closed_form": "closed form (linear-Gaussian)", "moment_matching": "moment matching",
                    "knn": "k-NN (Kozachenko–Leonenko)", "mean_imputation": "mean imputation (control)"}
METHODS = ("auto", "exact", "permutation")


@dataclass(frozen=True)
class AttributionConfig(Config):
    """How the three entropy games are estimated and how their Shapley values are computed.

    ``knn_k`` must be smaller than ``n_inner`` for the k-NN estimator.

    Examples
    --------
    >>> AttributionConfig(estimator="moment_matching", n_inner=64).method
    'auto'
    >>> AttributionConfig(estimator="knn", knn_k=9, n_inner=9)
    Traceback (most recent call last):
    ...
    ValueError: knn_k: 9 needs more than that many inner samples (9); allowed knn_k < n_inner
    """

    estimator: str = choice("closed_form", ESTIMATORS, doc="how each coalition's entropies are computed")
    method: str = choice("auto", METHODS, doc="exact enumeration (d <= 12) or permutation sampling; auto picks")
    n_permutations: int = param(200, low=2, high=20000, integer=True, doc="orderings for permutation sampling")
    chain_lag: int = param(1, low=1, high=16, integer=True, doc="L of the chain game")
    n_outer: int = param(16, low=1, high=2000, integer=True, doc="background rows x_S averaged over")
    n_inner: int = param(256, low=2, high=20000, integer=True, doc="samples of the left-out features per row")
    knn_k: int = param(3, low=1, high=50, integer=True, doc="neighbour order of the k-NN estimator")

    def validate(self) -> None:
        if self.estimator == "knn" and self.knn_k >= self.n_inner:
            raise ValueError(f"knn_k: {self.knn_k} needs more than that many inner samples ({self.n_inner}); "
                             f"allowed knn_k < n_inner")


def entropy_terms_from_cov(cov, lag: int = 1) -> np.ndarray:
    r"""The three games' per-component terms from Gaussian covariances.

    Parameters
    ----------
    cov : array_like, shape (..., D, D)
        Positive-definite covariances of Y (one per coalition, row, ...).
    lag : int
        L of the chain game, >= 1.

    Returns
    -------
    ndarray, shape (..., 3, D)
        Rows: :math:`\tfrac12\log(2\pi e\,\Sigma_{jj})`; :math:`\tfrac12\log(2\pi e\,\sigma^2_{j\mid j-L..j-1})`;
        :math:`\tfrac12\log(2\pi e\,L_{jj}^2)` with :math:`L` the Cholesky factor (the chain rule's
        :math:`H(Y_j\mid Y_{<j})`). Conditional variances are Schur complements, read off Cholesky factors.

    Examples
    --------
    Two unit-variance components with correlation 0.6: the marginal and joint rows differ, in the
    second component only, by :math:`-\tfrac12\log(1-0.36)`, the total correlation.

    >>> t = entropy_terms_from_cov(np.array([[1.0, 0.6], [0.6, 1.0]]))
    >>> t.shape, round(float(t[0].sum() - t[2].sum()), 4), bool(np.allclose(t[1], t[2]))
    ((3, 2), 0.2231, True)
    """
    lag = check_range("lag", lag, 1, integer=True)
    cov = np.asarray(cov, dtype=float)
    D = cov.shape[-1]
    marg = np.log(np.diagonal(cov, axis1=-2, axis2=-1))
    joint = 2 * np.log(np.diagonal(np.linalg.cholesky(cov), axis1=-2, axis2=-1))
    chain = np.empty_like(marg)
    for j in range(D):
        a = max(0, j - lag)
        sub = cov[..., a:j + 1, a:j + 1]
        chain[..., j] = 2 * np.log(np.linalg.cholesky(sub)[..., -1, -1])
    return 0.5 * (LOG_2PIE + np.stack([marg, chain, joint], axis=-2))


def entropy_terms_from_samples(samples, lag: int = 1, k: int = 3) -> np.ndarray:
    r"""The three games' per-component terms from samples, as differences of k-NN entropies of index windows.

    Row 0 is :math:`\hat H(Y_j)`, row 1 :math:`\hat H(Y_{j-L..j}) - \hat H(Y_{j-L..j-1})`, row 2
    :math:`\hat H(Y_{\le j}) - \hat H(Y_{<j})` (:func:`~core.uncertainty_shapley.entropy.knn_entropy`).

    Parameters
    ----------
    samples : array_like, shape (M, D)
        Draws of Y.
    lag : int
        L of the chain game, >= 1.
    k : int
        The k-NN neighbour order, ``1 <= k < M``.

    Returns
    -------
    ndarray, shape (3, D)
        The same layout as :func:`entropy_terms_from_cov`.

    Examples
    --------
    >>> cov = np.array([[1.0, 0.6], [0.6, 1.0]])
    >>> y = np.random.default_rng(0).multivariate_normal([0, 0], cov, size=3000)
    >>> bool(np.abs(entropy_terms_from_samples(y) - entropy_terms_from_cov(cov)).max() < 0.06)
    True
    """
    lag = check_range("lag", lag, 1, integer=True)
    y = np.asarray(samples, dtype=float)
    D = y.shape[1]
    memo: dict[tuple[int, int], float] = {(0, 0): 0.0}

    def h(a: int, b: int) -> float:      # entropy of components a..b-1
        if a == b:
            return 0.0
        if (a, b) not in memo:
            memo[(a, b)] = knn_entropy(y[:, a:b], k)
        return memo[(a, b)]

    out = np.empty((3, D))
    for j in range(D):
        a = max(0, j - lag)
        out[0, j] = h(j, j + 1)
        out[1, j] = h(a, j + 1) - h(a, j)
        out[2, j] = h(0, j + 1) - h(0, j)
    return out


class EntropyGame:
    """The three games of ``model`` as one callable over coalitions: ``game(masks) -> (k, 3, D)``.

    Sample-based estimators use common random numbers: the same background rows and the same
    standard-normal draws for every coalition, so coalition values differ by the coalition, not
    by the noise (this reduces the variance of every marginal contribution).

    Parameters
    ----------
    model : LinearGaussian or GaussianForecaster
        Anything with ``predict``, ``law``, ``background``, ``n_features``, ``n_outputs``, ``name``
        (and ``closed_form_cov`` for the closed-form estimator).
    config : AttributionConfig, optional
        The estimator and its sample sizes (defaults if None).
    seed : int
        Seeds the background rows and the inner draws.

    Examples
    --------
    >>> from core.uncertainty_shapley.models import linear_gaussian
    >>> game = EntropyGame(linear_gaussian([[1.0, 0.0]], [[1.0]], n_background=4))
    >>> values = game(all_coalitions(2)).sum(-1)       # (4 coalitions, 3 games)
    >>> np.round(values[:, 2] - 0.5 * np.log(2 * np.pi * np.e), 4)    # ½ log Var(Y | X_S) - ½ log 1
    array([0.3466, 0.    , 0.3466, 0.    ])
    """

    def __init__(self, model, config: AttributionConfig | None = None, seed: int = 0) -> None:
        self.model, self.config = model, config or AttributionConfig()
        c = self.config
        if c.estimator == "closed_form" and not hasattr(model, "closed_form_cov"):
            raise ValueError(f"estimator: 'closed_form' needs a linear-Gaussian model, not {model.name}; allowed "
                             "moment_matching, knn, mean_imputation")
        d, D = model.n_features, model.n_outputs
        bg = np.asarray(model.background, dtype=float)
        rows = derive_rng(seed, "outer").choice(len(bg), size=min(c.n_outer, len(bg)), replace=False)
        self.outer = bg[np.sort(rows)]
        n_inner = 1 if c.estimator == "mean_imputation" else c.n_inner
        self.z_features = derive_rng(seed, "inner").standard_normal((len(self.outer), n_inner, d))
        self.z_outputs = derive_rng(seed, "outputs").standard_normal((len(self.outer), n_inner, D))
        self.evaluations = 0

    @property
    def n_features(self) -> int:
        return self.model.n_features

    def composed_features(self, mask) -> np.ndarray:
        """(N, M, d): each outer row's kept features with the others drawn from their conditional law."""
        mask = np.asarray(mask, dtype=bool)
        law = self.model.law
        K, cond = law.conditional(mask)
        N, M, d = self.z_features.shape
        X = np.broadcast_to(self.outer[:, None, :], (N, M, d)).copy()
        r = np.flatnonzero(~mask)
        if len(r):
            s = np.flatnonzero(mask)
            centre = law.mean[r] + (self.outer[:, s] - law.mean[s]) @ K.T        # (N, |r|)
            noise = 0.0 if self.config.estimator == "mean_imputation" else self.z_features[:, :, :len(r)] @ psd_sqrt(cond).T
            X[:, :, r] = centre[:, None, :] + noise
        return X

    def terms(self, mask) -> np.ndarray:
        """(3, D): one coalition's per-component entropy terms of the three games."""
        c, lag = self.config, self.config.chain_lag
        self.evaluations += 1
        if c.estimator == "closed_form":
            return entropy_terms_from_cov(self.model.closed_form_cov(mask), lag)
        X = self.composed_features(mask)
        N, M, d = X.shape
        mean, cov = self.model.predict(X.reshape(N * M, d))
        D = mean.shape[-1]
        mean, cov = mean.reshape(N, M, D), np.asarray(cov).reshape(N, M, D, D)
        if c.estimator in ("moment_matching", "mean_imputation"):
            return entropy_terms_from_cov(moment_matched_cov(mean, cov), lag).mean(0)
        y = mean + np.einsum("nmij,nmj->nmi", np.linalg.cholesky(cov), self.z_outputs)
        return np.mean([entropy_terms_from_samples(y[n], lag, c.knn_k) for n in range(N)], axis=0)

    def __call__(self, masks) -> np.ndarray:
        return np.stack([self.terms(m) for m in np.atleast_2d(np.asarray(masks, dtype=bool))])


@dataclass
class Attribution:
    """Per-feature Shapley values of the three games, the cross-component term and the chain-rule split.

    Efficiency: ``phi.sum(1) == full - empty`` and ``cross.sum() == tc_conditional - tc_prior``.

    Attributes
    ----------
    model : str
        The model's name.
    feature_names : list of str
        The players, one per feature.
    output_names : list of str
        The ordered output components.
    phi : ndarray, shape (3, d)
        ``phi[g, i]``: feature i's value in game g (order :data:`GAMES`), in nats; negative when the
        feature reduces uncertainty.
    se : ndarray, shape (3, d)
        Standard errors of ``phi`` (zero when exact).
    components : ndarray, shape (3, d, D)
        ``components[g, i, j]``: feature i's value in component j's term of game g, so
        ``components[2]`` is the chain-rule decomposition of the joint attribution
        (``components.sum(-1) == phi``).
    cross : ndarray, shape (d,)
        ``phi[0] - phi[2]``, the Shapley value of S -> TC(Y | X_S).
    cross_se : ndarray, shape (d,)
        Its standard error (zero when exact).
    empty : ndarray, shape (3,)
        v_g(∅) for each game.
    full : ndarray, shape (3,)
        v_g(all features) for each game.
    tc_prior : float
        TC(Y), the dependence between components before any feature is known.
    tc_conditional : float
        TC(Y | X), the dependence left given all features.
    estimator : str
        One of :data:`ESTIMATORS`.
    method : str
        ``"exact"`` or ``"permutation"``.
    chain_lag : int
        L of the chain game.
    n_evaluations : int
        Coalitions evaluated.
    seed : int
        The seed of the background rows, inner draws and orderings.

    Examples
    --------
    >>> from core.uncertainty_shapley.models import random_linear_gaussian
    >>> a = attribute(random_linear_gaussian(3, 2, seed=0))
    >>> a.phi.shape, a.components.shape, bool(np.isclose(a.cross.sum(), a.tc_conditional - a.tc_prior))
    ((3, 3), (3, 3, 2), True)
    """

    model: str
    feature_names: list
    output_names: list
    phi: np.ndarray
    se: np.ndarray
    components: np.ndarray
    cross: np.ndarray
    cross_se: np.ndarray
    empty: np.ndarray
    full: np.ndarray
    tc_prior: float
    tc_conditional: float
    estimator: str
    method: str
    chain_lag: int
    n_evaluations: int
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: each game's φ and s.e., the cross term and the joint game's chain-rule terms."""
        import pandas as pd

        frame = pd.DataFrame({"feature": self.feature_names})
        for g, name in enumerate(GAMES):
            frame[f"phi_{name}"] = self.phi[g]
            frame[f"se_{name}"] = self.se[g]
        frame["cross_component"] = self.cross
        for j, out in enumerate(self.output_names):
            frame[f"joint_term_{out}"] = self.components[2, :, j]
        return frame


def attribute(model, config: AttributionConfig | None = None, seed: int = 0, progress=None) -> Attribution | None:
    """Shapley attributions of the marginal, chain and joint entropy games of ``model``'s predictive.

    Parameters
    ----------
    model : LinearGaussian or GaussianForecaster
        Anything with ``predict``, ``law``, ``background``, ``n_features``, ``n_outputs``, names.
    config : AttributionConfig, optional
        Estimator, Shapley method and sample sizes (defaults if None: the closed form, exact).
    seed : int
        Seeds the background rows, the inner samples and the permutations.
    progress : callable, optional
        ``progress(step, total, metrics)``; False stops (exact enumeration then returns None,
        permutation sampling the estimate so far).

    Returns
    -------
    Attribution or None
        None only when ``progress`` stopped an exact enumeration.

    References
    ----------
    .. [1] "Entropy Shapley games for multivariate predictive uncertainty", NeurIPS 2026 (summarised in
       ``docs/PAPERS.md``; the title is the catalog's).

    Examples
    --------
    Y1 = X1 + X2 + e1, Y2 = X1 + X3 + e2: the shared input X1 explains the outputs' dependence away,
    so its cross-component term is negative, and the cross terms sum to TC(Y | X) − TC(Y).

    >>> from core.uncertainty_shapley.models import linear_gaussian
    >>> m = linear_gaussian([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]], 0.5 * np.eye(2), n_background=8)
    >>> a = attribute(m)
    >>> bool(a.cross[0] < 0), round(a.tc_conditional, 6), abs(float(a.cross.sum()) + a.tc_prior) < 1e-12
    (True, 0.0, True)
    """
    config = config or AttributionConfig()
    d = model.n_features
    game = EntropyGame(model, config, seed)
    method = config.method if config.method != "auto" else ("exact" if d <= MAX_EXACT_PLAYERS else "permutation")
    if method == "exact":
        sv = exact_shapley(game, d, progress=progress)
    else:
        sv = permutation_shapley(game, d, config.n_permutations, seed, progress=progress)
    if sv is None:
        return None
    comps = sv.values.transpose(1, 0, 2)            # (3, d, D)
    phi = comps.sum(-1)
    cross = phi[0] - phi[2]
    if method == "exact":
        se, cross_se = np.zeros_like(phi), np.zeros(d)
    else:   # the s.e. of a sum is not the sum of s.e.s: take it from the per-pair contributions
        totals = sv.pairs.sum(-1)                    # (pairs, d, 3)
        n = len(totals)
        se = (totals.std(0, ddof=1) / np.sqrt(n)).T if n > 1 else np.full_like(phi, np.nan)
        diff = totals[:, :, 0] - totals[:, :, 2]
        cross_se = diff.std(0, ddof=1) / np.sqrt(n) if n > 1 else np.full(d, np.nan)
    empty, full = sv.empty.sum(-1), sv.full.sum(-1)
    return Attribution(getattr(model, "name", type(model).__name__), list(model.feature_names),
                       list(model.output_names), phi, se, comps, cross, cross_se, empty, full,
                       float(empty[0] - empty[2]), float(full[0] - full[2]), config.estimator, method,
                       config.chain_lag, game.evaluations, seed)


def coalition_values(model, masks, config: AttributionConfig | None = None, seed: int = 0) -> np.ndarray:
    """The three games' values on the given coalitions: v_marg(S), v_chain(S), v_joint(S), in nats.

    Parameters
    ----------
    model : LinearGaussian or GaussianForecaster
        As in :func:`attribute`.
    masks : array_like of bool, shape (k, d)
        One coalition per row.
    config : AttributionConfig, optional
        The estimator (defaults if None: the closed form).
    seed : int
        Seeds the background rows and the inner draws.

    Returns
    -------
    ndarray, shape (k, 3)
        Columns in the order of :data:`GAMES`; the hierarchy v_marg >= v_chain >= v_joint holds.

    Examples
    --------
    >>> from core.uncertainty_shapley.models import random_linear_gaussian
    >>> v = coalition_values(random_linear_gaussian(3, 3, seed=0), all_coalitions(3))
    >>> v.shape, bool(np.all(v[:, 0] >= v[:, 1] - 1e-12) and np.all(v[:, 1] >= v[:, 2] - 1e-12))
    ((8, 3), True)
    """
    return EntropyGame(model, config, seed)(masks).sum(-1)


def conditional_total_correlation(model, masks, config: AttributionConfig | None = None, seed: int = 0) -> np.ndarray:
    r""":math:`TC(Y\mid X_S) = \sum_j H(Y_j\mid X_S) - H(Y\mid X_S)` on each coalition of ``masks`` (k, d).

    The empty coalition gives the total correlation :math:`TC(Y)` of the predictive marginalised over
    all features, the grand coalition :math:`TC(Y\mid X)`.

    Parameters
    ----------
    model : LinearGaussian or GaussianForecaster
        As in :func:`attribute`.
    masks : array_like of bool, shape (k, d)
        One coalition per row.
    config : AttributionConfig, optional
        The estimator (defaults if None: the closed form).
    seed : int
        Seeds the background rows and the inner draws.

    Returns
    -------
    ndarray, shape (k,)
        :math:`TC(Y\mid X_S)` in nats, one per coalition.

    Examples
    --------
    A shared input with diagonal noise: all the outputs' dependence comes from X1.

    >>> from core.uncertainty_shapley.models import linear_gaussian
    >>> m = linear_gaussian([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]], 0.5 * np.eye(2), n_background=8)
    >>> np.round(conditional_total_correlation(m, [[False] * 3, [True, False, False]]), 4)
    array([0.0872, 0.    ])
    """
    v = coalition_values(model, masks, config, seed)
    return v[:, 0] - v[:, 2]
