"""The variance side of "k trades bias for variance", and the finite-shot concentration bound (both ours).

The abstract claims a bias-variance trade-off in the truncation weight k and "finite-shot
concentration bounds" for the shadow-estimated surrogate, with no formula. What follows is what we
derive and check; nothing here is the paper's text.

**Estimator.** From :mod:`.shadows`, every kept entry is ĝ_ij = L_ij - U_ij with
L_ij = mean_t B_tij, B_tij = sum_r w_r e_t(R_r) (the product expansion of 1/2 <{G_i, G_j}>), and U_ij
the U-statistic of <G_i><G_j> built from A_ti = sum_a c_a e_t(P_a). ĝ is unbiased for the weight-k
(masked) surrogate g^(k), so its error against the exact metric g splits exactly as

    E ||ĝ - g||_F^2 = ||g^(k) - g||_F^2 + E ||ĝ - g^(k)||_F^2 = bias^2 + variance.

**Variance estimate from one dataset** (:func:`shadow_variance`): the delta method on the
influence of snapshot t, psi_tij = B_tij - (m_j A_ti + m_i A_tj) with m = mean_t A_t, so
Var ĝ_ij ~ Var_t(psi_tij) / T (first order in 1/T; the U-statistic's second-order term,
O(1/T^2), is left out). Dropping the second term of psi (the plug-in "variance of B only") is the
control the tests show to be wrong.

**Concentration bound** (:func:`concentration_bound`), distribution-free and with no unknown
constant. A single snapshot's estimate of a weight-|R| string has Var e_t(R) <= 3^|R| (Huang, Kueng,
Preskill 2020), so by Minkowski

    sd(B_ij) <= sigma_ij = sum_r |w_r| 3^(|R_r| / 2),   sd(A_i) <= s_i = sum_a |c_a| 3^(|P_a| / 2),

and |E A_i| <= l_i = sum_a |c_a|. For the order-2 U-statistic (Hoeffding's variance formula)
Var U_ij = (4 (T - 2) zeta1 + 2 zeta2) / (T (T - 1)) with zeta1 <= (l_j s_i + l_i s_j)^2 / 4 and
zeta2 <= (s_i^2 + l_i^2)(s_j^2 + l_j^2). So Var ĝ_ij <= v_ij = (sigma_ij / sqrt(T) + sqrt(Var-bound U_ij))^2,
and Markov's inequality on the squared Frobenius norm gives, for every delta in (0, 1),

    P( ||ĝ - g^(k)||_F >= sqrt(sum_ij v_ij / delta) ) <= delta.

The radius shrinks as 1/sqrt(T) and grows like 3^k through the string weights: the variance side of
the trade-off in closed form. It bounds the estimation error only; the truncation bias is separate
(measured against g it can fail, which is the misspecified-target control of the tests).

**MSE against k** (:func:`bias_variance_curve`): for each k, bias^2 = ||g^(k) - g||^2 (exact
expectations, masked as asked), the variance estimate, its bound, and MSE = bias^2 + variance, all
relative to ||g||_F^2; the best k at a shot count T is the argmin of the MSE, found rather than
assumed. One shadow dataset serves every k (it measures the state, not the generators).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.quantum_ng.propagation import PropagatedGenerators, weight
from core.quantum_ng.shadows import (ShadowData, generator_snapshots, product_expansion, shadow_metric,
                                     snapshot_values)

STRING_CHUNK = 4096   # unique product strings evaluated on every snapshot at once


def kept_pairs(gens: PropagatedGenerators, mask: bool) -> np.ndarray:
    """bool [P, P], upper triangle: the entries :func:`~core.quantum_ng.shadows.shadow_metric` estimates."""
    active = gens.active()
    return np.triu(gens.overlap_mask() if mask else np.outer(active, active))


def _symmetric(upper: np.ndarray) -> np.ndarray:
    return np.triu(upper) + np.triu(upper, 1).T


def product_snapshots(gens: PropagatedGenerators, shadow: ShadowData, pairs: np.ndarray) -> np.ndarray:
    """B [T, P, P]: snapshot t's estimate of 1/2 <{G_i, G_j}> for the kept pairs (upper triangle)."""
    from scipy import sparse

    P, T = gens.n_params, shadow.snapshots
    entry, x, z, w = product_expansion(gens, pairs)
    out = np.zeros((T, P * P))
    if entry.size:
        key = np.stack([x, z], axis=1)
        unique, inverse = np.unique(key, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        W = sparse.csr_matrix((w, (inverse, entry)), shape=(len(unique), P * P))
        for start in range(0, len(unique), STRING_CHUNK):
            sl = slice(start, start + STRING_CHUNK)
            values = snapshot_values(shadow, unique[sl, 0], unique[sl, 1])
            out += np.asarray(W[sl].T.dot(values.T).T)
    return out.reshape(T, P, P)


def shadow_variance(gens: PropagatedGenerators, shadow: ShadowData, mask: bool = True,
                    plug_in: bool = False) -> np.ndarray:
    """Per-entry variance of the one-shadow surrogate, estimated from that one dataset (delta method).

    Parameters
    ----------
    gens : PropagatedGenerators
        The weight-k generators.
    shadow : ShadowData
        The T snapshots the estimate :func:`~core.quantum_ng.shadows.shadow_metric` used.
    mask : bool
        As in ``shadow_metric``.
    plug_in : bool
        The control: Var_t(B_tij) / T alone, ignoring the product-of-means term.

    Returns
    -------
    ndarray [P, P]
        Var ĝ_ij ~ Var_t(psi_tij) / T with psi_tij = B_tij - (m_j A_ti + m_i A_tj); zero outside the
        kept entries. Its sum is the estimated E ||ĝ - g^(k)||_F^2.

    Examples
    --------
    >>> from core.quantum_ng import Ansatz, acquire_shadow, propagate_generators
    >>> ansatz = Ansatz(3, 1)
    >>> params = ansatz.random_params(0)
    >>> gens = propagate_generators(ansatz, params, k=2)
    >>> var = shadow_variance(gens, acquire_shadow(ansatz, params, 200, seed=0))
    >>> var.shape, bool(np.all(var >= 0))
    ((6, 6), True)
    """
    T = shadow.snapshots
    pairs = kept_pairs(gens, mask)
    B = product_snapshots(gens, shadow, pairs)
    if not plug_in:
        A = generator_snapshots(gens, shadow)
        m = A.mean(axis=0)
        B = B - (A[:, :, None] * m[None, None, :] + m[None, :, None] * A[:, None, :])
    var = B.var(axis=0, ddof=1) / T
    return np.where(pairs | pairs.T, _symmetric(np.where(pairs, var, 0.0)), 0.0)


@dataclass
class ConcentrationBound:
    """The per-entry variance bounds v_ij and the Frobenius radius at confidence 1 - delta.

    Attributes
    ----------
    entry_variance : ndarray of shape (P, P)
        v_ij, a bound on Var ĝ_ij (zero outside the kept entries).
    snapshots : int
        T, the shadow's size the bound is for.
    delta : float
        In (0, 1): the radius holds with probability at least 1 - delta.

    Examples
    --------
    >>> bound = ConcentrationBound(np.full((2, 2), 0.01), snapshots=100, delta=0.04)
    >>> round(bound.variance, 3), round(bound.radius, 3)
    (0.04, 1.0)
    """

    entry_variance: np.ndarray
    snapshots: int
    delta: float

    @property
    def variance(self) -> float:
        """sum_ij v_ij, a bound on E ||ĝ - g^(k)||_F^2."""
        return float(self.entry_variance.sum())

    @property
    def radius(self) -> float:
        """sqrt(sum v / delta): ||ĝ - g^(k)||_F stays below it with probability at least 1 - delta."""
        return float(np.sqrt(self.variance / self.delta))


def concentration_bound(gens: PropagatedGenerators, snapshots: int, delta: float = 0.05,
                        mask: bool = True) -> ConcentrationBound:
    """The finite-shot bound of the module docstring for a shadow of ``snapshots`` snapshots.

    Parameters
    ----------
    gens : PropagatedGenerators
        The weight-k generators.
    snapshots : int
        T, at least 2.
    delta : float
        In (0, 1): the bound holds with probability at least 1 - delta.
    mask : bool
        As in :func:`~core.quantum_ng.shadows.shadow_metric`.

    Returns
    -------
    ConcentrationBound
        Depends on the generators only (their strings and coefficients), not on the state.

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "finite-shot concentration bounds for the shadow-estimated surrogate" (this bound is ours).

    Examples
    --------
    >>> from core.quantum_ng import Ansatz, propagate_generators
    >>> ansatz = Ansatz(3, 1)
    >>> gens = propagate_generators(ansatz, ansatz.random_params(0), k=2)
    >>> small, large = concentration_bound(gens, 100), concentration_bound(gens, 10_000)
    >>> round(small.radius / large.radius)       # the radius shrinks about as 1 / sqrt(T)
    10
    """
    T = check_range("snapshots", snapshots, 2, 10**9, integer=True)
    delta = check_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    P = gens.n_params
    pairs = kept_pairs(gens, mask)
    entry, x, z, w = product_expansion(gens, pairs)
    sigma = np.bincount(entry, weights=np.abs(w) * 3.0 ** (weight(x, z) / 2), minlength=P * P).reshape(P, P)
    t = gens.terms
    s = np.bincount(t.owner, weights=np.abs(t.coeff) * 3.0 ** (t.weights() / 2), minlength=P)
    ell = np.bincount(t.owner, weights=np.abs(t.coeff), minlength=P)
    zeta1 = (ell[None, :] * s[:, None] + ell[:, None] * s[None, :]) ** 2 / 4
    zeta2 = np.outer(s ** 2 + ell ** 2, s ** 2 + ell ** 2)
    var_u = (4 * (T - 2) * zeta1 + 2 * zeta2) / (T * (T - 1))
    v = (sigma / np.sqrt(T) + np.sqrt(var_u)) ** 2
    v = np.where(pairs | pairs.T, _symmetric(np.where(pairs, v, 0.0)), 0.0)
    return ConcentrationBound(entry_variance=v, snapshots=T, delta=float(delta))


def variance_point(gens: PropagatedGenerators, shadow: ShadowData, norm2: float, mask: bool = True,
                   delta: float = 0.05) -> dict:
    """The variance side at one k, relative to ``norm2`` = ||g||_F^2: the one-dataset estimate, the bound, its radius."""
    bound = concentration_bound(gens, shadow.snapshots, delta, mask)
    return {"variance": float(shadow_variance(gens, shadow, mask).sum()) / norm2,
            "variance_bound": bound.variance / norm2, "radius": bound.radius / np.sqrt(norm2)}


@dataclass
class BiasVarianceCurve:
    """Bias^2, variance and MSE of the one-shadow surrogate against k, all relative to ||g||_F^2 (one row per k).

    Attributes
    ----------
    k : ndarray of int
        The truncation weights.
    bias2 : ndarray
        ||g^(k) - g||_F^2 / ||g||_F^2, the truncation (and mask) bias of the exact-expectation surrogate.
    variance : ndarray
        The one-dataset variance estimate (:func:`shadow_variance` summed), relative.
    variance_bound : ndarray
        sum_ij v_ij of :func:`concentration_bound`, relative.
    mse : ndarray
        bias2 + variance.
    error2 : ndarray
        The squared error of this one estimate, ||ĝ - g||_F^2 / ||g||_F^2.
    radius : ndarray
        The bound's Frobenius radius at confidence 1 - delta, relative to ||g||_F.
    best_k : int
        The k with the smallest MSE (0 when ``k`` is empty).
    """

    k: np.ndarray
    bias2: np.ndarray
    variance: np.ndarray
    variance_bound: np.ndarray
    mse: np.ndarray
    error2: np.ndarray
    radius: np.ndarray
    best_k: int


def bias_variance_curve(ansatz, params, ks, snapshots: int, mask: bool = True, seed: int = 0,
                        exact: np.ndarray | None = None, delta: float = 0.05) -> BiasVarianceCurve:
    """Bias^2, variance and MSE of the one-shadow surrogate against k at a fixed shot count T.

    .. math::

        \\mathrm{MSE}(k) = \\|g^{(k)} - g\\|_F^2 + \\mathbb{E}\\,\\|\\hat g - g^{(k)}\\|_F^2,

    the first term exact, the second the one-dataset variance estimate (see the module docstring);
    one shadow dataset serves every k.

    Parameters
    ----------
    ansatz : Ansatz
        The circuit.
    params : array_like of shape (P,)
        Its parameters.
    ks : iterable of int
        Truncation weights, each in [1, n_qubits].
    snapshots : int
        T, in [2, 10^7]: the shots the one shadow dataset costs.
    mask : bool
        The support-overlap mask.
    seed : int
        Seeds the one dataset every k is estimated from.
    exact : ndarray [P, P], optional
        The exact metric (computed if not given).
    delta : float
        In (0, 1): confidence of the concentration bound's radius.

    Returns
    -------
    BiasVarianceCurve
        One row per k, and the k that minimises the MSE.

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "Truncation level k provides a bias--variance tradeoff".

    Examples
    --------
    >>> from core.quantum_ng import Ansatz
    >>> ansatz = Ansatz(3, 1)
    >>> curve = bias_variance_curve(ansatz, ansatz.random_params(0), [1, 2], snapshots=100, seed=0)
    >>> curve.k.tolist(), bool(np.allclose(curve.mse, curve.bias2 + curve.variance)), curve.best_k in (1, 2)
    ([1, 2], True, True)
    """
    from core.quantum_ng.metric import exact_metric, metric_from_generators
    from core.quantum_ng.propagation import propagate_generators
    from core.quantum_ng.shadows import acquire_shadow
    from core.quantum_ng.simulate import final_state

    ks = [check_range("ks", k, 1, ansatz.n_qubits, integer=True) for k in ks]
    snapshots = check_range("snapshots", snapshots, 2, 10_000_000, integer=True)
    delta = check_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    exact = exact_metric(ansatz, params) if exact is None else exact
    norm2 = float(np.sum(exact ** 2))
    state = final_state(ansatz, params)
    shadow = acquire_shadow(ansatz, params, snapshots, seed=seed)
    rows = {key: [] for key in ("k", "bias2", "variance", "variance_bound", "mse", "error2", "radius")}
    for k in ks:
        gens = propagate_generators(ansatz, params, int(k))
        truncated = metric_from_generators(gens, state, mask)
        estimate = shadow_metric(gens, shadow, mask=mask)
        bias2 = float(np.sum((truncated - exact) ** 2)) / norm2
        point = variance_point(gens, shadow, norm2, mask, delta)
        rows["k"].append(int(k))
        rows["bias2"].append(bias2)
        rows["mse"].append(bias2 + point["variance"])
        rows["error2"].append(float(np.sum((estimate - exact) ** 2)) / norm2)
        for key in ("variance", "variance_bound", "radius"):
            rows[key].append(point[key])
    out = {key: np.asarray(v, dtype=int if key == "k" else float) for key, v in rows.items()}
    best = int(out["k"][int(np.argmin(out["mse"]))]) if len(out["k"]) else 0
    return BiasVarianceCurve(**out, best_k=best)
