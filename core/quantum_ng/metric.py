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

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range

from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.propagation import PauliTerms, PropagatedGenerators, propagate_generators

CHUNK_ELEMENTS = 1 << 21  # strings x amplitudes handled at once when applying Pauli sums (~100 MB peak)


def covariance(phi: np.ndarray, state: np.ndarray) -> np.ndarray:
    """The metric as a covariance of generator states, in ``qml.metric_tensor``'s convention.

    .. math::

        g_{ij} = \\mathrm{Re}\\,\\langle\\Phi_i | \\Phi_j \\rangle - m_i m_j, \\qquad
        \\Phi_j = G_j |\\psi\\rangle, \\quad m_j = \\mathrm{Re}\\,\\langle \\psi | \\Phi_j \\rangle,

    that is 1/2 <{G_i, G_j}> - <G_i><G_j> for Hermitian G_j (the Fubini-Study metric, QFIM / 4).

    Parameters
    ----------
    phi : ndarray of shape (P, 2^n), complex
        Row j is G_j |psi> (exact or truncated generators applied to the state).
    state : ndarray of shape (2^n,), complex
        The output state |psi>.

    Returns
    -------
    ndarray of shape (P, P)
        The real symmetric metric.

    References
    ----------
    .. [1] "Locality-aware quantum natural gradient" (NeurIPS 2026,
       ``docs/PAPERS.md``).

    Examples
    --------
    >>> plus = np.array([1.0, 1.0]) / np.sqrt(2)           # |+>, generator Z / 2
    >>> covariance(0.5 * np.array([[1.0, -1.0]]) / np.sqrt(2), plus)
    array([[0.25]])
    """
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
    """The full metric tensor (QFIM / 4) from untruncated generators, simulated by PennyLane.

    :func:`covariance` of the states G_j |psi> = V_{>j} (P_j / 2) U_j V_{<j} |0>, which PennyLane
    simulates by inserting P_j / 2 after rotation j (no truncation, no mask): the reference every
    surrogate is measured against. It equals ``qml.metric_tensor(qnode, approx=None)``.

    Parameters
    ----------
    ansatz : Ansatz
        The circuit.
    params : array_like of shape (P,)
        Its parameters, ``P = ansatz.n_params``.

    Returns
    -------
    ndarray of shape (P, P)
        The Fubini-Study metric in ``qml.metric_tensor``'s convention.

    Examples
    --------
    >>> g = exact_metric(Ansatz(2, 1, ("RY",), "none"), [0.0, 0.0])
    >>> g.round(3)
    array([[0.25, 0.  ],
           [0.  , 0.25]])
    """
    from core.quantum_ng.simulate import final_state, generator_states

    state = final_state(ansatz, params)
    return covariance(generator_states(ansatz, params), state)


def metric_from_generators(gens: PropagatedGenerators, state: np.ndarray, mask: bool = True,
                           progress=None) -> np.ndarray | None:
    """The covariance formula on (truncated) generators with exact expectations, masked if asked.

    Applies each generator's Pauli sum to the state, Phi_j = G_j |psi>, then takes
    :func:`covariance`; with ``mask`` the entries whose generators' supports do not intersect are
    set to zero (the support-overlap mask, :meth:`PropagatedGenerators.overlap_mask`).

    Parameters
    ----------
    gens : PropagatedGenerators
        The weight-k generators from :func:`propagate_generators`.
    state : ndarray of shape (2^n,)
        The output state of the same circuit and parameters.
    mask : bool
        Apply the support-overlap mask.
    progress : callable, optional
        ``progress(chunk, chunks, {})`` after each chunk of strings applied to the state; returning
        False stops.

    Returns
    -------
    ndarray of shape (P, P) or None
        The surrogate metric, or None when ``progress`` asked to stop.

    Examples
    --------
    >>> ansatz = Ansatz(3, 2)
    >>> params = ansatz.random_params(0)
    >>> from core.quantum_ng.simulate import final_state
    >>> g = metric_from_generators(propagate_generators(ansatz, params, k=3), final_state(ansatz, params), mask=False)
    >>> bool(np.allclose(g, exact_metric(ansatz, params)))
    True
    """
    phi = apply_terms(gens.terms, state, gens.n_params, progress)
    if phi is None:
        return None
    g = covariance(phi, state)
    return np.where(gens.overlap_mask(), g, 0.0) if mask else g


def _circuit(ansatz, params):
    """(circuit, params, jacobian or None) for an Ansatz, a QuantumScript or a QNode."""
    if isinstance(ansatz, Ansatz):
        return ansatz, np.asarray(params, float), None
    from core.quantum_ng.circuits import qnode_circuit, tape_circuit

    kind = type(ansatz).__name__
    if kind == "QNode":
        circuit, jac = qnode_circuit(ansatz, params)
        return circuit, circuit.params, jac
    if hasattr(ansatz, "operations") and hasattr(ansatz, "trainable_params"):
        tape = ansatz if params is None else ansatz.bind_new_parameters(list(params), ansatz.trainable_params)
        circuit = tape_circuit(tape)
        return circuit, circuit.params, None
    raise ValueError(f"ansatz: a {kind}; allowed an Ansatz, a PennyLane QNode or a QuantumScript (tape)")


def surrogate_metric(ansatz, params, k: int, mask: bool = True, shots: int | None = None,
                     seed: int = 0) -> np.ndarray:
    """The locality-aware QFIM surrogate in ``qml.metric_tensor``'s convention (QFIM / 4).

    Every rotation's generator P_j / 2 is pushed through the rest of the circuit with weight-k
    Pauli truncation after every gate (:func:`propagate_generators`), then

    .. math::

        \\hat g_{ij} = \\tfrac12 \\langle \\{G^{(k)}_i, G^{(k)}_j\\} \\rangle
                     - \\langle G^{(k)}_i \\rangle \\langle G^{(k)}_j \\rangle
                     \\quad \\text{if } \\mathrm{supp}\\,G^{(k)}_i \\cap \\mathrm{supp}\\,G^{(k)}_j \\neq
                     \\emptyset, \\text{ else } 0,

    with exact expectations (``shots=None``) or all estimated from one classical-shadow dataset of
    T = ``shots`` snapshots (:func:`shadow_metric`). With ``k = n_qubits`` and ``mask=False`` it is
    the exact metric.

    Like PennyLane's transforms it takes any circuit: an :class:`Ansatz`; a QNode, with ``params``
    its one 1-D trainable argument, where the metric on the tape's trainable parameters is contracted
    with the classical Jacobian J as J^T g J (``qml.metric_tensor``'s own contraction); or a
    ``QuantumScript``, whose trainable parameters are replaced by ``params`` (None keeps the tape's).
    Trainable operations must be RX, RY or RZ; fixed ones are decomposed into RX, RY, RZ, CNOT and CZ
    (:mod:`.circuits`). The circuit starts in |0...0>.

    Parameters
    ----------
    ansatz : Ansatz, pennylane.QNode or pennylane.tape.QuantumScript
        The circuit.
    params : array_like of shape (P,), or None for a tape
        The parameters (for a QNode, its argument).
    k : int
        The truncation weight, in [1, n_qubits] (n_qubits keeps every string).
    mask : bool
        Apply the support-overlap mask.
    shots : int or None
        None for exact expectation values, else the size T in [2, 10^7] of the one shadow dataset
        every entry is estimated from.
    seed : int
        Seeds the shadow dataset (unused when ``shots`` is None).

    Returns
    -------
    ndarray of shape (P, P)
        The surrogate; with a shadow, an unbiased estimate of the exact-expectation surrogate (not
        necessarily positive semi-definite, see :func:`psd`).

    Raises
    ------
    ValueError
        ``k``, ``params``, ``shots`` or ``circuit`` out of range, in the house's message format.

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026,
       ``docs/PAPERS.md``).

    Examples
    --------
    >>> ansatz = Ansatz(4, 2)
    >>> params = ansatz.random_params(0)
    >>> g = surrogate_metric(ansatz, params, k=2)
    >>> g.shape, bool(np.allclose(g, g.T))
    ((16, 16), True)
    >>> bool(np.allclose(surrogate_metric(ansatz, params, k=4, mask=False), exact_metric(ansatz, params)))
    True

    Any PennyLane circuit, as with ``qml.metric_tensor``:

    >>> import pennylane as qml
    >>> from pennylane import numpy as pnp
    >>> @qml.qnode(qml.device("default.qubit", wires=3))   # metric_tensor's exact mode needs a spare wire
    ... def circuit(x):
    ...     qml.Hadamard(0)
    ...     qml.RY(x[0], wires=0)
    ...     qml.CNOT(wires=[0, 1])
    ...     qml.RX(2 * x[1], wires=1)
    ...     return qml.expval(qml.Z(1))
    >>> x = pnp.array([0.4, 0.3], requires_grad=True)
    >>> bool(np.allclose(surrogate_metric(circuit, x, k=2, mask=False), qml.metric_tensor(circuit)(x)))
    True
    """
    from core.common.config import check_range

    circuit, values, jac = _circuit(ansatz, params)
    k = check_range("k", k, 1, circuit.n_qubits, integer=True)
    if shots is not None:
        shots = check_range("shots", shots, 2, 10_000_000, integer=True)
    gens = propagate_generators(circuit, values, k)
    if isinstance(circuit, Ansatz):
        from core.quantum_ng.simulate import final_state

        state = final_state(circuit, values)
    else:
        state = circuit.state()
    if shots is None:
        g = metric_from_generators(gens, state, mask)
    else:
        from core.quantum_ng.shadows import shadow_from_state, shadow_metric

        g = shadow_metric(gens, shadow_from_state(state, shots, seed=seed), mask=mask)
    return g if jac is None else jac.T @ g @ jac


def relative_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """The Frobenius-norm error of a metric relative to the exact one.

    .. math:: \\|\\hat g - g\\|_F / \\|g\\|_F

    Parameters
    ----------
    approx : ndarray of shape (P, P)
        The approximation.
    exact : ndarray of shape (P, P)
        The reference (a zero reference is guarded against, giving a huge value).

    Returns
    -------
    float
        The relative error, >= 0.

    Examples
    --------
    >>> round(relative_error(np.eye(2) * 1.1, np.eye(2)), 3)
    0.1
    """
    return float(np.linalg.norm(approx - exact) / max(np.linalg.norm(exact), 1e-300))


@dataclass
class TruncationCurve:
    """The error of the exact-expectation surrogate against the truncation weight k (one row per finished k).

    Attributes
    ----------
    k : ndarray of int
        The truncation weights.
    error_masked : ndarray
        ||g_hat - g||_F / ||g||_F with the support-overlap mask.
    error_unmasked : ndarray
        The same without the mask.
    error_mask : ndarray
        ||masked - unmasked||_F / ||g||_F: what the mask alone removes (zero on product states).
    active : ndarray of int
        Parameters with a nonzero truncated generator.
    strings : ndarray of int
        The weight-k pool's size (Pauli strings over all generators).
    kept_entries : ndarray
        The share of metric entries the mask keeps, in (0, 1].
    """

    k: np.ndarray
    error_masked: np.ndarray
    error_unmasked: np.ndarray
    error_mask: np.ndarray
    active: np.ndarray
    strings: np.ndarray
    kept_entries: np.ndarray


def truncation_curve(ansatz: Ansatz, params, ks, exact: np.ndarray | None = None,
                     progress=None) -> TruncationCurve:
    """Relative error of the exact-expectation surrogate against the exact metric for each k.

    Parameters
    ----------
    ansatz : Ansatz
        The circuit.
    params : array_like of shape (P,)
        Its parameters.
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
    TruncationCurve
        One entry per finished k: the masked and unmasked errors, what the mask alone removes, the
        active parameters, the pool's size and the share of entries kept.

    Examples
    --------
    >>> ansatz = Ansatz(3, 2)
    >>> curve = truncation_curve(ansatz, ansatz.random_params(0), [1, 3])
    >>> curve.k.tolist(), bool(curve.error_unmasked[-1] < 1e-10)
    ([1, 3], True)
    """
    from core.quantum_ng.simulate import final_state
    from core.quantum_ng.steps import Steps

    ks = [int(k) for k in ks]
    for k in ks:
        check_range("ks", k, 1, ansatz.n_qubits, integer=True)
    steps = Steps.within(progress, curve_steps(ansatz, ks))
    state = final_state(ansatz, params)
    exact = exact_metric(ansatz, params) if exact is None else exact
    rows = {key: [] for key in CURVE_FIELDS}
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
    ints = ("k", "active", "strings")
    return TruncationCurve(**{key: np.asarray(v, dtype=int if key in ints else float) for key, v in rows.items()})


CURVE_FIELDS = ("k", "error_masked", "error_unmasked", "error_mask", "active", "strings", "kept_entries")


def curve_steps(ansatz: Ansatz, ks) -> int:
    """The progress steps :func:`truncation_curve` plans for ``ks`` before it knows the pools' sizes."""
    return len(list(ks)) * (len(ansatz.gates) + 2)
