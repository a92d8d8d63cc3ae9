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
    """The per-entry variance bounds v_ij and the Frobenius radius at confidence 1 - delta."""

    entry_variance: np.ndarray   # v_ij [P, P]
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


def bias_variance_curve(ansatz, params, ks, snapshots: int, mask: bool = True, seed: int = 0,
                        exact: np.ndarray | None = None, delta: float = 0.05) -> dict:
    """Bias^2, variance and MSE of the one-shadow surrogate against k at a fixed shot count T.

    Parameters
    ----------
    ansatz : Ansatz
    params : array of shape (P,)
    ks : iterable of int
        Truncation weights, each in [1, n_qubits].
    snapshots : int
        T, the shots the one shadow dataset costs.
    mask : bool
        The support-overlap mask.
    seed : int
        Seeds the one dataset every k is estimated from.
    exact : ndarray [P, P], optional
        The exact metric (computed if not given).
    delta : float
        Confidence of the concentration bound's radius.

    Returns
    -------
    dict of arrays, one entry per k, all relative to ||g||_F^2
        ``k``; ``bias2`` = ||g^(k) - g||^2; ``variance`` (the one-dataset estimate);
        ``variance_bound`` (sum v_ij); ``mse`` = bias2 + variance; ``error2`` (the squared error of
        this one estimate, ||ĝ - g||^2); ``radius`` (the bound's radius, relative to ||g||); and
        ``best_k`` (argmin of the MSE, a scalar array).
    """
    from core.quantum_ng.metric import exact_metric, metric_from_generators
    from core.quantum_ng.propagation import propagate_generators
    from core.quantum_ng.shadows import acquire_shadow
    from core.quantum_ng.simulate import final_state

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
    out = {key: np.asarray(v) for key, v in rows.items()}
    out["best_k"] = np.asarray(out["k"][int(np.argmin(out["mse"]))] if len(out["k"]) else 0)
    return out
