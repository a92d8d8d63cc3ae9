"""Classical shadows: one dataset of T random-Pauli snapshots, reused for every metric entry.

Acquisition is PennyLane's own sampler (``qml.classical_shadow``'s measurement process,
``ClassicalShadowMP.process_state_with_shots``) run on the output statevector; we call it in
chunks of snapshots, each chunk with its own recipe seed drawn from ``seed``, because it holds a
copy of the state per snapshot (T x 2^n amplitudes at once would be 2 GB at 16 qubits, T = 2000).
Conventions are PennyLane's: ``recipes`` 0/1/2 = X/Y/Z basis, ``bits`` 0 = eigenvalue +1.

Single-snapshot estimate of a Pauli string R of weight |R| (Huang, Kueng, Preskill 2020):

    e_t(R) = 3^|R| * prod_{q in supp R} 1[basis_{t,q} = R_q] * (-1)^bit_{t,q},

unbiased for <R> with variance <= 3^|R|; it equals ``qml.ClassicalShadow(...).expval`` on single
strings (a test checks this). Weight-k truncation keeps |R| <= 2k for every product below.

The metric entry estimator (ours; the abstract says only that one dataset serves every entry):

    g_ij = sum_{a in G_i, b in G_j, [P_a, P_b] = 0} c_a d_b s_ab mean_t e_t(R_ab)
           - (S_i S_j - sum_t A_ti A_tj) / (T (T - 1)),

where P_a P_b = s_ab R_ab for commuting strings (anticommuting pairs vanish in 1/2{P_a, P_b}),
A_ti = sum_a c_a e_t(P_a) is snapshot t's estimate of <G_i>, and S_i = sum_t A_ti. The second term
is the U-statistic of <G_i><G_j> (products of different snapshots only), so every entry is an
unbiased estimate of the truncated metric; the plug-in product of means would be biased by
Cov(A_i, A_j) / T.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_range
from core.common.seeding import make_rng
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.propagation import PropagatedGenerators, symmetric_phase, weight, wire_bit

SNAPSHOT_ELEMENTS = 1 << 22   # amplitudes held by PennyLane's sampler at once (~64 MB)
ESTIMATE_ELEMENTS = 1 << 23   # snapshots x strings compared at once


@dataclass
class ShadowData:
    """T snapshots in PennyLane's encoding: bits and recipes, both int8 [T, n_qubits].

    Attributes
    ----------
    bits : ndarray of int8, shape (T, n_qubits)
        The measured outcomes, 0 for eigenvalue +1 and 1 for -1.
    recipes : ndarray of int8, shape (T, n_qubits)
        The measured bases, 0/1/2 = X/Y/Z (PennyLane's ``classical_shadow`` recipes).

    Examples
    --------
    >>> shadow = ShadowData(np.zeros((4, 2), np.int8), np.full((4, 2), 2, np.int8))   # four |00> in Z
    >>> shadow.snapshots, shadow.n_qubits
    (4, 2)
    """

    bits: np.ndarray
    recipes: np.ndarray

    @property
    def snapshots(self) -> int:
        return int(self.bits.shape[0])

    @property
    def n_qubits(self) -> int:
        return int(self.bits.shape[1])

    def masks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per snapshot: the measured basis as (x, z) string masks, and the mask of -1 outcomes."""
        n = self.n_qubits
        bits = np.array([wire_bit(n, q) for q in range(n)], np.uint64)
        pick = lambda cond: np.bitwise_or.reduce(np.where(cond, bits[None, :], np.uint64(0)), axis=1)  # noqa: E731
        return pick(self.recipes <= 1), pick(self.recipes >= 1), pick(self.bits == 1)


def shadow_chunks(n_qubits: int, snapshots: int) -> int:
    """How many batches :func:`acquire_shadow` samples ``snapshots`` in (its progress steps)."""
    return -(-int(snapshots) // max(1, SNAPSHOT_ELEMENTS >> int(n_qubits)))


def acquire_shadow(ansatz: Ansatz, params, snapshots: int, seed: int = 0, progress=None) -> ShadowData:
    """T = ``snapshots`` random-Pauli measurements of the ansatz's output state (PennyLane's sampler).

    Parameters
    ----------
    ansatz : Ansatz
        The circuit.
    params : array_like of shape (P,)
        Its parameters.
    snapshots : int
        T, in [2, 10^7] (the range is reported under the name ``shots``, the surrogate's knob).
    seed : int
        Seeds the sampler; the same seed gives the same dataset.
    progress : callable, optional
        Called as ``progress(batch, batches, {})`` after each batch of snapshots (a batch holds
        ``2^22 / 2^n`` of them); returning False stops, and the snapshots drawn so far are returned.

    Returns
    -------
    ShadowData
        T snapshots, or fewer when stopped.

    Examples
    --------
    >>> from core.quantum_ng import Ansatz
    >>> shadow = acquire_shadow(Ansatz(3, 1), np.zeros(6), snapshots=50, seed=1)
    >>> shadow.bits.shape, bool(np.all(shadow.bits[shadow.recipes == 2] == 0))   # |000>: Z always +1
    ((50, 3), True)
    """
    from core.quantum_ng.simulate import final_state

    snapshots = check_range("shots", snapshots, 2, 10_000_000, integer=True)
    return shadow_from_state(final_state(ansatz, params), snapshots, seed, progress)


def shadow_from_state(state: np.ndarray, snapshots: int, seed: int = 0, progress=None) -> ShadowData:
    """:func:`acquire_shadow` on a given statevector (length 2^n, wire 0 the most significant bit)."""
    import pennylane as qml

    from core.common.progress import report

    snapshots = check_range("shots", snapshots, 2, 10_000_000, integer=True)
    n = int(np.log2(state.size))
    state = np.asarray(state).reshape((2,) * n)
    rng = make_rng(seed)
    chunk = max(1, SNAPSHOT_ELEMENTS >> n)
    batches = shadow_chunks(n, snapshots)
    bits, recipes = [], []
    for i, start in enumerate(range(0, snapshots, chunk)):
        size = min(chunk, snapshots - start)
        mp = qml.classical_shadow(wires=range(n), seed=int(rng.integers(2**31)))
        out = mp.process_state_with_shots(state, qml.wires.Wires(range(n)), size, rng=rng)
        bits.append(out[0])
        recipes.append(out[1])
        if not report(progress, i + 1, batches):
            break
    return ShadowData(np.concatenate(bits).astype(np.int8), np.concatenate(recipes).astype(np.int8))


def snapshot_values(shadow: ShadowData, x: np.ndarray, z: np.ndarray, mean: bool = False) -> np.ndarray:
    """Single-snapshot estimates of Pauli strings: e_t(R) for every snapshot t and string R = (x, z).

    .. math::

        e_t(R) = 3^{|R|} \\prod_{q \\in \\mathrm{supp} R} \\mathbb{1}[b_{tq} = R_q] (-1)^{s_{tq}},

    unbiased for <R> with variance at most 3^|R| (Huang, Kueng and Preskill 2020).

    Parameters
    ----------
    shadow : ShadowData
        The snapshots.
    x : array_like of uint64, shape (N,)
        The strings' X masks (wire q at bit n-1-q, :mod:`.propagation`'s encoding).
    z : array_like of uint64, shape (N,)
        Their Z masks.
    mean : bool
        Return the mean over snapshots instead of every snapshot's value.

    Returns
    -------
    ndarray
        [T, N] values in {0, +-3^|R|}, or their means, [N].

    Examples
    --------
    >>> shadow = ShadowData(np.zeros((4, 2), np.int8), np.full((4, 2), 2, np.int8))   # |00> in Z
    >>> snapshot_values(shadow, np.array([0], np.uint64), np.array([0b10], np.uint64), mean=True)  # Z on wire 0
    array([3.])
    """
    bx, bz, out = shadow.masks()
    x, z = np.asarray(x, np.uint64), np.asarray(z, np.uint64)
    scale = 3.0 ** weight(x, z)
    supp = x | z
    result = np.zeros(x.size) if mean else np.zeros((shadow.snapshots, x.size))
    step = max(1, ESTIMATE_ELEMENTS // max(1, shadow.snapshots))
    for start in range(0, x.size, step):
        sl = slice(start, start + step)
        s = supp[None, sl]
        match = ((bx[:, None] & s) == x[None, sl]) & ((bz[:, None] & s) == z[None, sl])
        sign = 1.0 - 2.0 * (np.bitwise_count(out[:, None] & s) & 1)
        values = match * sign * scale[None, sl]
        if mean:
            result[sl] = values.mean(axis=0)
        else:
            result[:, sl] = values
    return result


def generator_snapshots(gens: PropagatedGenerators, shadow: ShadowData) -> np.ndarray:
    """A [T, P]: snapshot t's estimate of <G_i> for every generator."""
    t = gens.terms
    values = snapshot_values(shadow, t.x, t.z) * t.coeff[None, :]
    out = np.zeros((shadow.snapshots, gens.n_params))
    if len(t):
        starts = np.flatnonzero(np.r_[True, t.owner[1:] != t.owner[:-1]])
        out[:, t.owner[starts]] = np.add.reduceat(values, starts, axis=1)
    return out


def product_expansion(gens: PropagatedGenerators, pairs: np.ndarray):
    """The Pauli products behind 1/2 <{G_i, G_j}> for the kept pairs (i <= j).

    Returns (entry, x, z, w): for each commuting string pair, the flat index i * P + j of the entry
    it feeds, the product string R and its weight c_a d_b s_ab, so that
    1/2 <{G_i, G_j}> = sum over its rows of w <R>.
    """
    t, seg, P = gens.terms, gens.segments(), gens.n_params
    entries, xs, zs, ws = [], [], [], []
    for i in range(P):
        a = slice(seg[i], seg[i + 1])
        if a.start == a.stop:
            continue
        js = [j for j in range(i, P) if pairs[i, j] and seg[j] < seg[j + 1]]
        if not js:
            continue
        b = np.concatenate([np.arange(seg[j], seg[j + 1]) for j in js])
        commute, sign, xr, zr = symmetric_phase(t.x[a, None], t.z[a, None], t.x[None, b], t.z[None, b])
        w = t.coeff[a, None] * t.coeff[None, b] * sign
        entry = np.broadcast_to(i * P + t.owner[None, b], w.shape)
        entries.append(entry[commute])
        xs.append(xr[commute])
        zs.append(zr[commute])
        ws.append(w[commute])
    if not entries:
        empty = np.zeros(0, np.uint64)
        return np.zeros(0, np.int64), empty, empty, np.zeros(0)
    return np.concatenate(entries), np.concatenate(xs), np.concatenate(zs), np.concatenate(ws)


def metric_from_expectations(gens: PropagatedGenerators, expect, pairs: np.ndarray, mean_product) -> np.ndarray:
    """g from the product expansion: ``expect(x, z)`` gives <R> for unique strings, and
    ``mean_product`` is the [P, P] estimate of <G_i><G_j> to subtract."""
    P = gens.n_params
    entry, x, z, w = product_expansion(gens, pairs)
    g = np.zeros(P * P)
    if entry.size:
        key = np.stack([x, z], axis=1)
        unique, inverse = np.unique(key, axis=0, return_inverse=True)
        values = expect(unique[:, 0], unique[:, 1])
        g = np.bincount(entry, weights=w * values[inverse.ravel()], minlength=P * P)
    g = g.reshape(P, P)
    g = np.triu(g) + np.triu(g, 1).T
    return np.where(pairs | pairs.T, g - mean_product, 0.0)


def shadow_metric(gens: PropagatedGenerators, shadow: ShadowData, mask: bool = True) -> np.ndarray:
    """The surrogate metric estimated from one shadow dataset (see the module docstring).

    Every kept entry is the product expansion of 1/2 <{G_i, G_j}> evaluated on the same snapshots,
    minus the U-statistic of <G_i><G_j>, so each entry is unbiased for the exact-expectation
    surrogate of the same generators.

    Parameters
    ----------
    gens : PropagatedGenerators
        The weight-k generators.
    shadow : ShadowData
        T >= 2 snapshots of the circuit's output state.
    mask : bool
        Estimate only the entries whose supports overlap (the others are 0); without it every pair of
        active generators.

    Returns
    -------
    ndarray of shape (P, P)
        The symmetric estimate (not necessarily positive semi-definite).

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "single-dataset classical-shadow estimation that reuses the same shadow dataset across all
       retained metric entries".

    Examples
    --------
    >>> from core.quantum_ng import Ansatz, propagate_generators
    >>> ansatz = Ansatz(3, 1)
    >>> params = ansatz.random_params(0)
    >>> gens = propagate_generators(ansatz, params, k=2)
    >>> g = shadow_metric(gens, acquire_shadow(ansatz, params, snapshots=200, seed=0))
    >>> g.shape, bool(np.allclose(g, g.T))
    ((6, 6), True)
    """
    T = shadow.snapshots
    active = gens.active()
    pairs = np.triu(gens.overlap_mask() if mask else np.outer(active, active))
    A = generator_snapshots(gens, shadow)
    S = A.sum(axis=0)
    u_stat = (np.outer(S, S) - A.T @ A) / (T * (T - 1))
    return metric_from_expectations(gens, lambda x, z: snapshot_values(shadow, x, z, mean=True), pairs, u_stat)
