"""The metric as a covariance of propagated generators; the surrogate built from truncated ones.

Convention: PennyLane's ``metric_tensor``, the Fubini-Study metric, equal to QFIM / 4. With the
propagated generators G_j of :mod:`.propagation` (d_j|psi> = -i G_j |psi>),

    g_ij = Re<psi| G_i G_j |psi> - <G_i><G_j> = 1/2 <{G_i, G_j}> - <G_i><G_j>.

The surrogate replaces G_j by its weight-k truncation and, with ``mask=True``, sets g_ij = 0 when
the supports of the truncated G_i and G_j do not intersect (the support-overlap mask). It keeps
every cross-block coupling that survives, unlike block-diagonal QNG.

Where the mask is exact (ours, measured): for disjoint supports G_i and G_j commute and g_ij is
their connected correlator <G_i G_j> - <G_i><G_j>, which vanishes when the output state factorises
across the two supports. That holds on product ansätze (entangler ``none``, a test checks it to
1e-12) and nowhere else in general: on entangled outputs the mask drops real correlations and
leaves an error floor even at k = n (on 6-qubit, 2-layer brickwork about 0.4 relative,
``error_mask`` in :func:`truncation_curve`, which reports it next to the truncation error).

Exact expectations (``shots=None``): we apply each truncated G_j to the output statevector,
Phi_j = G_j |psi>, and take g = Re(Phi^* Phi^T) - m m^T with m_j = <psi|Phi_j>. This equals the
Pauli-product expansion of :mod:`.shadows` with exact <R> in place of shadow estimates (a test
checks it) and costs (strings) x 2^n instead of (pairs of strings) x 2^n. With ``shots=T`` the
entries come from one classical-shadow dataset of T snapshots (:mod:`.shadows`).

The exact metric (:func:`exact_metric`) uses the same formula with untruncated G_j |psi>, which
PennyLane simulates by inserting P_j / 2 after gate j; it is checked against
``qml.metric_tensor(approx=None)`` and is what the truncation error is measured against (it runs
at 16 qubits, where ``qml.adjoint_metric_tensor`` takes tens of seconds).
"""

from __future__ import annotations

import numpy as np

from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.propagation import PauliTerms, PropagatedGenerators, propagate_generators

CHUNK_ELEMENTS = 1 << 21  # strings x amplitudes handled at once when applying Pauli sums (~100 MB peak)


def covariance(phi: np.ndarray, state: np.ndarray) -> np.ndarray:
    """g = Re(Phi^* Phi^T) - m m^T for Phi_j = G_j |psi> (rows), m_j = <psi|G_j|psi>."""
    m = np.real(phi.conj() @ state)
    return np.real(phi.conj() @ phi.T) - np.outer(m, m)


def apply_chunks(n_terms: int, n_qubits: int) -> int:
    """How many chunks :func:`apply_terms` handles ``n_terms`` strings in (its progress steps)."""
    return max(1, -(-int(n_terms) // max(1, CHUNK_ELEMENTS >> int(n_qubits))))


def apply_terms(terms: PauliTerms, state: np.ndarray, n_owners: int, progress=None) -> np.ndarray | None:
    """[n_owners, 2^n]: sum over each owner's strings of coeff * P |psi> (terms sorted by owner).

    ``progress(chunk, chunks, {})`` is called after each chunk of strings (see :func:`apply_chunks`);
    returning False stops, and None is returned.
    """
    from core.common.progress import report

    n = terms.n_qubits
    dim = 1 << n
    out = np.zeros((n_owners, dim), complex)
    if len(terms) == 0:
        return out if report(progress, 1, 1) else None
    m = np.arange(dim, dtype=np.uint64)
    # P = i^{|x&z|} X^x Z^z, so (P psi)[m] = i^{|x&z|} (-1)^{|z & (m^x)|} psi[m ^ x].
    phase = (1j) ** (np.bitwise_count(terms.x & terms.z).astype(np.int64) % 4) * terms.coeff
    step = max(1, CHUNK_ELEMENTS // dim)
    chunks = apply_chunks(len(terms), n)
    for i, start in enumerate(range(0, len(terms), step)):
        sl = slice(start, start + step)
        idx = m[None, :] ^ terms.x[sl, None]
        sign = 1.0 - 2.0 * (np.bitwise_count(idx & terms.z[sl, None]) & 1)
        contrib = (phase[sl, None] * sign) * state[idx]
        owners = terms.owner[sl]
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        out[owners[starts]] += np.add.reduceat(contrib, starts, axis=0)
        if not report(progress, i + 1, chunks):
            return None
    return out


def exact_metric(ansatz: Ansatz, params) -> np.ndarray:
    """The full metric tensor (QFIM / 4) from untruncated generators, simulated by PennyLane."""
    from core.quantum_ng.simulate import final_state, generator_states

    state = final_state(ansatz, params)
    return covariance(generator_states(ansatz, params), state)


def metric_from_generators(gens: PropagatedGenerators, state: np.ndarray, mask: bool = True,
                           progress=None) -> np.ndarray | None:
    """The covariance formula on truncated generators with exact expectations, masked if asked.

    ``progress`` is :func:`apply_terms`'; None is returned when it asked to stop.
    """
    phi = apply_terms(gens.terms, state, gens.n_params, progress)
    if phi is None:
        return None
    g = covariance(phi, state)
    return np.where(gens.overlap_mask(), g, 0.0) if mask else g


def surrogate_metric(ansatz: Ansatz, params, k: int, mask: bool = True, shots: int | None = None,
                     seed: int = 0) -> np.ndarray:
    """The locality-aware surrogate [P, P] in ``qml.metric_tensor``'s convention.

    ``k``: the truncation weight (k = n_qubits keeps everything); ``mask``: apply the support-overlap
    mask; ``shots``: None for exact expectation values, else the size T of the one classical-shadow
    dataset every entry is estimated from (drawn with ``seed``).
    """
    from core.quantum_ng.simulate import final_state

    gens = propagate_generators(ansatz, params, k)
    if shots is None:
        return metric_from_generators(gens, final_state(ansatz, params), mask)
    from core.quantum_ng.shadows import acquire_shadow, shadow_metric

    shadow = acquire_shadow(ansatz, params, shots, seed=seed)
    return shadow_metric(gens, shadow, mask=mask)


def relative_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """Frobenius-norm error relative to the exact metric."""
    return float(np.linalg.norm(approx - exact) / max(np.linalg.norm(exact), 1e-300))


def truncation_curve(ansatz: Ansatz, params, ks, exact: np.ndarray | None = None, progress=None) -> dict:
    """Relative error of the exact-expectation surrogate against the exact metric for each k.

    Parameters
    ----------
    ansatz : Ansatz
    params : array of shape (P,)
    ks : iterable of int
        The truncation weights, each in [1, n_qubits].
    exact : ndarray of shape (P, P), optional
        The exact metric (computed with :func:`exact_metric` if not given).
    progress : callable, optional
        Called after every gate of every propagation, every chunk of strings applied to the state and
        every finished point (whose step carries its masked error): at least ``len(ks) * (n_gates + 2)``
        steps, the total growing as the pools' sizes become known. A :class:`~core.quantum_ng.steps.Steps`
        is advanced as it is. Returning False stops, and the points finished so far are returned.

    Returns
    -------
    dict of arrays, one entry per finished k
        ``k``, ``error_masked`` and ``error_unmasked`` (||g_hat - g||_F / ||g||_F with and without the
        support-overlap mask), ``error_mask`` (||masked - unmasked||_F / ||g||_F: what the mask alone
        removes, zero on product states), ``active``  (parameters with a nonzero truncated generator), ``strings``
        (the pool's size) and ``kept_entries`` (the share of entries the mask keeps).
    """
    from core.quantum_ng.simulate import final_state
    from core.quantum_ng.steps import Steps

    ks = [int(k) for k in ks]
    steps = Steps.within(progress, curve_steps(ansatz, ks))
    state = final_state(ansatz, params)
    exact = exact_metric(ansatz, params) if exact is None else exact
    rows = {"k": [], "error_masked": [], "error_unmasked": [], "error_mask": [], "active": [], "strings": [],
            "kept_entries": []}
    for k in ks:
        gens = propagate_generators(ansatz, params, k, progress=steps)
        if gens is None:
            break
        steps.grow(apply_chunks(len(gens.terms), ansatz.n_qubits) - 1)
        unmasked = metric_from_generators(gens, state, mask=False, progress=steps)
        if unmasked is None:
            break
        masked = np.where(gens.overlap_mask(), unmasked, 0.0)
        rows["k"].append(k)
        rows["error_masked"].append(relative_error(masked, exact))
        rows["error_unmasked"].append(relative_error(unmasked, exact))
        rows["error_mask"].append(float(np.linalg.norm(masked - unmasked) / max(np.linalg.norm(exact), 1e-300)))
        rows["active"].append(int(gens.active().sum()))
        rows["strings"].append(len(gens.terms))
        rows["kept_entries"].append(float(gens.overlap_mask().mean()))
        if not steps(metrics={"relative error (masked)": rows["error_masked"][-1]}):
            break
    return {key: np.asarray(v) for key, v in rows.items()}


def curve_steps(ansatz: Ansatz, ks) -> int:
    """The progress steps :func:`truncation_curve` plans for ``ks`` before it knows the pools' sizes."""
    return len(list(ks)) * (len(ansatz.gates) + 2)
