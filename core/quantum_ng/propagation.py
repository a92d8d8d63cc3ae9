"""Pauli propagation of every gate's generator through the rest of the circuit, with weight-k truncation.

For a rotation U_j = exp(-i theta_j P_j / 2) followed by the gates V_{>j}, the derivative of the
output state is d_j|psi> = -i G_j |psi> with the propagated generator

    G_j = V_{>j} (P_j / 2) V_{>j}^dagger,

a real combination of Pauli strings. We build all G_j in one forward pass over the gate list: at
each gate the whole pool of strings is conjugated, O -> U O U^dagger, and the generator of a
rotation joins the pool right after its own gate (it commutes with it). The rules:

- a rotation R_Q(theta) leaves a string that commutes with Q alone, and maps one that anticommutes
  to cos(theta) P + sin(theta) (-i Q P), where -i Q P is again a Hermitian string up to a sign;
- CNOT and CZ map a string to plus or minus one string (the Aaronson-Gottesman update rules).

Weight-k truncation (the paper's knob): after every gate we drop the strings acting non-trivially
on more than k qubits. Truncating at every gate, not only at the end, is our choice (it is what
bounds the pool's size); a string that would have shrunk back below k later is lost. With
k = n_qubits nothing is dropped and the G_j are exact. Coefficients whose magnitude falls under
1e-12 after merging duplicates are dropped too (cancellations leave ~1e-17 residue); the effect on
a metric entry is far below the 1e-8 our tests demand.

Encoding (ours): a string is a pair of bit masks (x, z) with wire q at bit n-1-q, PennyLane's
statevector order; (x, z) = (1, 0) is X, (1, 1) is Y and (0, 1) is Z, so the string is the
Hermitian product i^{|x & z|} X^x Z^z. Each term also carries the index of the generator (its
``owner``) so one pool holds all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.quantum_ng.ansatz import Ansatz

DROP_BELOW = 1e-12
_LETTER = {"X": (1, 0), "Y": (1, 1), "Z": (0, 1)}


def wire_bit(n_qubits: int, wire: int) -> np.uint64:
    return np.uint64(1) << np.uint64(n_qubits - 1 - wire)


def weight(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Number of qubits each string acts on non-trivially."""
    return np.bitwise_count(x | z).astype(np.int64)


def symmetric_phase(xa, za, xb, zb):
    """(commutes, sign, x, z) for the products P_a P_b: P_a P_b = sign * R(x, z) when they commute."""
    xr, zr = xa ^ xb, za ^ zb
    # P_a P_b = i^(|xa&za| + |xb&zb| - |xr&zr| + 2|za&xb|) R; the exponent is even iff they commute.
    e = (np.bitwise_count(xa & za).astype(np.int64) + np.bitwise_count(xb & zb)
         - np.bitwise_count(xr & zr) + 2 * np.bitwise_count(za & xb).astype(np.int64)) % 4
    return e % 2 == 0, np.where(e == 0, 1.0, -1.0), xr, zr


@dataclass
class PauliTerms:
    """Weighted Pauli strings, each owned by one generator; see the module docstring for the encoding.

    Term r is ``coeff[r] * i^{|x_r & z_r|} X^{x_r} Z^{z_r}``, a Hermitian Pauli string with a real
    coefficient, belonging to generator ``owner[r]``.

    Attributes
    ----------
    n_qubits : int
        The wires; wire q is bit ``n_qubits - 1 - q`` of the masks.
    owner : ndarray of int64, shape (N,)
        The generator (parameter index) each term belongs to.
    x : ndarray of uint64, shape (N,)
        The X part of each string.
    z : ndarray of uint64, shape (N,)
        The Z part of each string ((1, 1) on a wire is Y).
    coeff : ndarray of float64, shape (N,)
        The real coefficients.

    Examples
    --------
    >>> terms = PauliTerms.empty(2)
    >>> terms.append(0, "Y", 1, 0.5)
    >>> terms.labels()
    [('IY', 0.5)]
    """

    n_qubits: int
    owner: np.ndarray
    x: np.ndarray
    z: np.ndarray
    coeff: np.ndarray

    def __len__(self) -> int:
        return int(self.coeff.size)

    @classmethod
    def empty(cls, n_qubits: int) -> "PauliTerms":
        return cls(n_qubits, np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0))

    def append(self, owner: int, letter: str, wire: int, coeff: float) -> None:
        b = wire_bit(self.n_qubits, wire)
        xl, zl = _LETTER[letter]
        self.owner = np.append(self.owner, np.int64(owner))
        self.x = np.append(self.x, b if xl else np.uint64(0))
        self.z = np.append(self.z, b if zl else np.uint64(0))
        self.coeff = np.append(self.coeff, float(coeff))

    def select(self, keep: np.ndarray) -> None:
        self.owner, self.x, self.z, self.coeff = self.owner[keep], self.x[keep], self.z[keep], self.coeff[keep]

    def weights(self) -> np.ndarray:
        return weight(self.x, self.z)

    def merge(self) -> None:
        """Sum duplicate (owner, string) terms, drop negligible ones, sort by owner then string."""
        if len(self) == 0:
            return
        order = np.lexsort((self.z, self.x, self.owner))
        o, x, z, c = self.owner[order], self.x[order], self.z[order], self.coeff[order]
        new = np.ones(o.size, bool)
        new[1:] = (o[1:] != o[:-1]) | (x[1:] != x[:-1]) | (z[1:] != z[:-1])
        starts = np.flatnonzero(new)
        c = np.add.reduceat(c, starts)
        keep = np.abs(c) > DROP_BELOW
        self.owner, self.x, self.z, self.coeff = o[starts][keep], x[starts][keep], z[starts][keep], c[keep]

    def truncate(self, k: int) -> None:
        if k < self.n_qubits:
            self.select(self.weights() <= k)

    def rotate(self, letter: str, wire: int, theta: float) -> None:
        """O -> R O R^dagger for R = exp(-i theta Q / 2), Q = ``letter`` on ``wire``."""
        b = wire_bit(self.n_qubits, wire)
        xq, zq = (b if v else np.uint64(0) for v in _LETTER[letter])
        anti = ((self.x & zq) ^ (self.z & xq)) != 0
        if not anti.any():
            return
        xa, za = self.x[anti], self.z[anti]
        # -i Q P_q = eps(Q, P_q) * (third letter): +1 when (Q, P_q) is in cyclic order X -> Y -> Z.
        code_p = _letter_code((xa & b) != 0, (za & b) != 0)
        code_q = {"X": 1, "Y": 2, "Z": 3}[letter]
        sign = np.where((code_p - code_q) % 3 == 1, 1.0, -1.0)
        new_c = self.coeff[anti] * np.sin(theta) * sign
        self.coeff = self.coeff.copy()
        self.coeff[anti] *= np.cos(theta)
        self.owner = np.concatenate([self.owner, self.owner[anti]])
        self.x = np.concatenate([self.x, xa ^ xq])
        self.z = np.concatenate([self.z, za ^ zq])
        self.coeff = np.concatenate([self.coeff, new_c])
        self.merge()

    def cnot(self, control: int, target: int) -> None:
        bc, bt = wire_bit(self.n_qubits, control), wire_bit(self.n_qubits, target)
        xc, zc, xt, zt = ((v & b) != 0 for v, b in ((self.x, bc), (self.z, bc), (self.x, bt), (self.z, bt)))
        flip = xc & zt & ~(xt ^ zc)
        self.x = np.where(xc, self.x ^ bt, self.x)
        self.z = np.where(zt, self.z ^ bc, self.z)
        self.coeff = np.where(flip, -self.coeff, self.coeff)

    def cz(self, a: int, b: int) -> None:
        ba, bb = wire_bit(self.n_qubits, a), wire_bit(self.n_qubits, b)
        xa, za, xb, zb = ((v & m) != 0 for v, m in ((self.x, ba), (self.z, ba), (self.x, bb), (self.z, bb)))
        flip = xa & xb & (za ^ zb)
        self.z = np.where(xb, self.z ^ ba, self.z)
        self.z = np.where(xa, self.z ^ bb, self.z)
        self.coeff = np.where(flip, -self.coeff, self.coeff)

    def labels(self, owner: int | None = None) -> list[tuple[str, float]]:
        """[("XIZY", coeff), ...] with wire 0 first, for display and for cross-checks."""
        rows = np.arange(len(self)) if owner is None else np.flatnonzero(self.owner == owner)
        out = []
        for i in rows:
            s = "".join("IXZY"[int((self.x[i] >> np.uint64(self.n_qubits - 1 - q)) & np.uint64(1))
                                 + 2 * int((self.z[i] >> np.uint64(self.n_qubits - 1 - q)) & np.uint64(1))]
                        for q in range(self.n_qubits))
            out.append((s, float(self.coeff[i])))
        return out


def _letter_code(xbit: np.ndarray, zbit: np.ndarray) -> np.ndarray:
    """X = 1, Y = 2, Z = 3 from the bits of one qubit."""
    return np.where(xbit & zbit, 2, np.where(xbit, 1, 3))


@dataclass
class PropagatedGenerators:
    """The truncated G_j of every parameter: terms sorted by owner, and what the metric needs of them.

    Attributes
    ----------
    terms : PauliTerms
        Every generator's surviving strings, sorted by owner.
    n_params : int
        P, the number of generators (some may have no term left).
    k : int
        The truncation weight they were built with.

    Examples
    --------
    >>> from core.quantum_ng import Ansatz
    >>> gens = propagate_generators(Ansatz(3, 1, ("RY",), "none"), [0.1, 0.2, 0.3], k=1)
    >>> gens.counts().tolist(), int(gens.overlap_mask().sum())
    ([1, 1, 1], 3)
    """

    terms: PauliTerms
    n_params: int
    k: int

    def counts(self) -> np.ndarray:
        """Number of surviving strings per generator."""
        return np.bincount(self.terms.owner, minlength=self.n_params)

    def retained(self) -> np.ndarray:
        """Fraction of each generator's Hilbert-Schmidt norm the truncation kept: 4 sum_a c_a^2.

        Conjugation by unitaries preserves sum_a c_a^2 = 1/4 for G_j = V (P_j / 2) V^dagger, so this is
        1 for an untruncated generator and 0 for one truncated away, without knowing what was dropped.
        """
        return 4.0 * np.bincount(self.terms.owner, weights=self.terms.coeff ** 2, minlength=self.n_params)

    def active(self, threshold: float = 0.0) -> np.ndarray:
        """The active set: parameters whose truncated generator keeps more than ``threshold`` of its norm.

        ``threshold=0`` is the abstract's definition (the truncated generator is not zero).
        """
        if threshold <= 0:
            return self.counts() > 0
        return self.retained() > threshold

    def supports(self) -> np.ndarray:
        """The wires each G_j touches, as a uint64 mask per parameter (0 for an inactive one)."""
        out = np.zeros(self.n_params, np.uint64)
        np.bitwise_or.at(out, self.terms.owner, self.terms.x | self.terms.z)
        return out

    def support_matrix(self) -> np.ndarray:
        """bool [P, n_qubits]: wire q in supp(G_j)."""
        n = self.terms.n_qubits
        bits = np.array([wire_bit(n, q) for q in range(n)], np.uint64)
        return (self.supports()[:, None] & bits[None, :]) != 0

    def overlap_mask(self) -> np.ndarray:
        """The support-overlap mask: True where supp(G_i) and supp(G_j) intersect."""
        s = self.supports()
        return (s[:, None] & s[None, :]) != 0

    def segments(self) -> np.ndarray:
        """Start offsets of each owner's terms (length n_params + 1), the terms being sorted by owner."""
        return np.concatenate([[0], np.cumsum(self.counts())])


def propagate_generators(ansatz: Ansatz, params, k: int, progress=None) -> PropagatedGenerators | None:
    """Every rotation's generator P_j / 2 pushed through the gates after it, truncated to weight <= k.

    Parameters
    ----------
    ansatz : Ansatz
        The circuit (or a :class:`~core.quantum_ng.circuits.TapeCircuit`, which has the same gates).
    params : array_like of shape (P,)
        The parameters.
    k : int
        The truncation weight, in [1, n_qubits] (n_qubits keeps every string: exact generators).
    progress : callable, optional
        Called as ``progress(g + 1, n_gates, {"Pauli strings": pool size})`` after each gate; the
        pool can grow to millions of strings at large k on long chains, so this is what lets a
        live run stop in the middle. Returning False stops.

    Returns
    -------
    PropagatedGenerators or None
        None when ``progress`` asked to stop (generators pushed through only part of the circuit mean
        nothing).

    References
    ----------
    .. [1] Locality-aware quantum natural gradient (NeurIPS 2026, ``docs/PAPERS.md``):
       "weight-k Pauli truncation to control estimation variance".

    Examples
    --------
    >>> from core.quantum_ng import Ansatz
    >>> ansatz = Ansatz(4, 2)
    >>> exact = propagate_generators(ansatz, ansatz.random_params(0), k=4)
    >>> local = propagate_generators(ansatz, ansatz.random_params(0), k=1)
    >>> bool(np.allclose(exact.retained(), 1.0)), bool(local.retained().min() < 1.0)
    (True, True)
    """
    from core.common.config import check_range
    from core.common.progress import report

    k = check_range("k", k, 1, ansatz.n_qubits, integer=True)
    params = np.asarray(params, dtype=float)
    if params.shape != (ansatz.n_params,):
        raise ValueError(f"params: shape {params.shape}; allowed ({ansatz.n_params},)")
    pool = PauliTerms.empty(ansatz.n_qubits)
    for g, gate in enumerate(ansatz.gates):
        if gate.pauli is not None:   # a trainable rotation, or a fixed one of a PennyLane circuit
            theta = params[gate.param] if gate.param is not None else gate.angle
            pool.rotate(gate.pauli, gate.wires[0], float(theta))
        elif gate.name == "CNOT":
            pool.cnot(*gate.wires)
        elif gate.name == "CZ":
            pool.cz(*gate.wires)
        else:  # pragma: no cover - the Ansatz makes no other gates
            raise ValueError(f"gate: {gate.name} cannot be propagated; allowed RX, RY, RZ, CNOT, CZ")
        pool.truncate(k)
        if gate.param is not None:
            pool.append(gate.param, gate.pauli, gate.wires[0], 0.5)  # weight 1: never truncated
        if not report(progress, g + 1, len(ansatz.gates), {"Pauli strings": len(pool)}):
            return None
    pool.merge()
    return PropagatedGenerators(pool, ansatz.n_params, k)
