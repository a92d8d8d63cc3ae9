"""Hardware-efficient ansätze as an explicit gate list, applied inside a PennyLane qnode.

An ``Ansatz(n_qubits, layers, rotations, entangler)`` is ``layers`` repetitions of: one rotation of
each kind in ``rotations`` on every qubit (all RY first, then all RZ, ...), then the entangler. The
circuit starts in |0...0>. Parameters are flat and ordered gate by gate, which is also the order in
which :meth:`Ansatz.apply` queues the gates, so ``params[i]`` belongs to ``gates[g]`` with
``gates[g].param == i``.

Entanglers (our choices, the abstract names none):

- ``brickwork`` (the default, the abstract's "local ansatz"): CNOTs on the pairs (0,1), (2,3), ...
  in even layers and (1,2), (3,4), ... in odd layers, so a light cone grows by at most one site on
  each side per layer (:meth:`Ansatz.light_cones`);
- ``cnot_chain``: CNOT(0,1), CNOT(1,2), ..., CNOT(n-2,n-1) in that order, a staircase that spreads an
  early operator across the whole chain within one layer. It is *not* local and is kept as the
  labelled non-local control (the hard case for truncation);
- ``cz_chain``: CZ(q, q+1) along the chain; the CZs commute, so their order does not matter;
- ``none``: no entangler, a product-state ansatz (the masked surrogate is exact on it).

The gate list is plain Python (no PennyLane), so the Pauli propagation can walk it; every rotation
is ``exp(-i theta P / 2)`` with P one of X, Y, Z, PennyLane's convention for RX/RY/RZ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from core.common.config import check_choice, check_range

ROTATIONS = ("RX", "RY", "RZ")
ENTANGLERS = ("brickwork", "cnot_chain", "cz_chain", "none")
LOCAL_ENTANGLERS = ("brickwork", "none")   # the light cone grows by a bounded number of sites per layer
MAX_QUBITS = 20


@dataclass(frozen=True)
class Gate:
    """One gate of a circuit: its name, the wires it acts on and, for a rotation, its parameter.

    A rotation ``R_P(theta) = exp(-i theta P / 2)`` (``name`` one of ``RX``, ``RY``, ``RZ``) is either
    trainable, ``param`` the index of theta in the parameter vector, or fixed, ``angle`` its theta
    (a fixed gate of a PennyLane circuit read by :func:`~core.quantum_ng.circuits.tape_circuit`; an
    :class:`Ansatz` makes only trainable rotations). ``CNOT`` and ``CZ`` carry neither.

    Attributes
    ----------
    name : str
        ``"RX"``, ``"RY"``, ``"RZ"``, ``"CNOT"`` or ``"CZ"``.
    wires : tuple of int
        The wires, in ``0 .. n_qubits - 1``; (control, target) for a CNOT.
    param : int or None
        For a trainable rotation, the index of its parameter; None otherwise.
    angle : float or None
        For a fixed rotation, its angle; None otherwise.

    Examples
    --------
    >>> Gate("RY", (2,), param=5).pauli, Gate("CNOT", (0, 1)).pauli
    ('Y', None)
    """

    name: str
    wires: tuple[int, ...]
    param: int | None = None
    angle: float | None = None

    @property
    def pauli(self) -> str | None:
        """The rotation's Pauli letter ("X", "Y" or "Z"), or None for an entangling gate."""
        return self.name[1] if self.name in ROTATIONS else None


class Ansatz:
    """A layered rotation + entangler circuit on ``n_qubits`` wires (see the module docstring).

    Parameters
    ----------
    n_qubits : int
        Wires, in [1, 20].
    layers : int
        Repetitions of (rotations on every qubit, entangler), in [1, 20].
    rotations : sequence of str
        The rotation kinds of each layer, in order, from ``RX``, ``RY``, ``RZ``.
    entangler : str
        ``brickwork`` (local, the default), ``cnot_chain`` (the non-local control), ``cz_chain`` or
        ``none``.

    Examples
    --------
    >>> ansatz = Ansatz(4, 2)
    >>> ansatz.n_params, ansatz.light_cones()[0].astype(int).tolist()   # RY on wire 0 reaches wires 0-2
    (16, [1, 1, 1, 0])
    """

    def __init__(self, n_qubits: int, layers: int, rotations: Sequence[str] = ("RY", "RZ"),
                 entangler: str = "brickwork"):
        self.n_qubits = check_range("n_qubits", n_qubits, 1, MAX_QUBITS, integer=True)
        self.layers = check_range("layers", layers, 1, 20, integer=True)
        rotations = tuple(rotations)
        if not rotations:
            raise ValueError(f"rotations: empty; allowed a non-empty sequence of {', '.join(ROTATIONS)}")
        for r in rotations:
            check_choice("rotations", r, ROTATIONS)
        self.rotations = rotations
        self.entangler = check_choice("entangler", entangler, ENTANGLERS)
        self.gates = tuple(self._build())
        self.n_params = sum(g.param is not None for g in self.gates)

    def _build(self):
        n, index = self.n_qubits, 0
        for layer in range(self.layers):
            for r in self.rotations:
                for q in range(n):
                    yield Gate(r, (q,), index)
                    index += 1
            if self.entangler == "cnot_chain":
                yield from (Gate("CNOT", (q, q + 1)) for q in range(n - 1))
            elif self.entangler == "cz_chain":
                yield from (Gate("CZ", (q, q + 1)) for q in range(n - 1))
            elif self.entangler == "brickwork":
                yield from (Gate("CNOT", (q, q + 1)) for q in range(layer % 2, n - 1, 2))

    @property
    def rotation_gates(self) -> tuple[Gate, ...]:
        """The parameterised gates, in parameter order."""
        return tuple(g for g in self.gates if g.param is not None)

    def param_layer(self) -> np.ndarray:
        """For each parameter, the index of the rotation sub-layer it sits in (layer * len(rotations) + r)."""
        return np.arange(self.n_params) // self.n_qubits

    def param_wire(self) -> np.ndarray:
        """For each parameter, the wire its rotation acts on."""
        return np.array([g.wires[0] for g in self.rotation_gates], dtype=int)

    def light_cones(self) -> np.ndarray:
        """bool [P, n_qubits]: the wires each generator can reach through the gates after its rotation.

        Start from the rotation's wire; every later two-qubit gate that touches the cone adds both of
        its wires. This is the causal cone of P_j / 2 conjugated by V_{>j}: the propagated generator
        G_j acts as the identity outside it, so ``supp(G_j)`` is a subset of the cone (equal for
        generic parameters on CNOT circuits, except where a Pauli commutes with every gate it meets,
        such as a Z on a CNOT's control; loose on ``cz_chain``, whose commuting CZs leave the Z they
        create behind). On ``brickwork`` a cone grows by at most one site per side and layer; on
        ``cnot_chain`` the first layer's generators reach every later wire at once.
        """
        cones = np.zeros((self.n_params, self.n_qubits), bool)
        position = [i for i, g in enumerate(self.gates) if g.param is not None]
        for j, start in enumerate(position):
            cone = np.zeros(self.n_qubits, bool)
            cone[self.gates[start].wires[0]] = True
            for g in self.gates[start + 1:]:
                if len(g.wires) == 2 and cone[list(g.wires)].any():
                    cone[list(g.wires)] = True
            cones[j] = cone
        return cones

    def random_params(self, seed: int = 0, scale: float = 2 * np.pi) -> np.ndarray:
        """Uniform parameters in [0, scale); the same seed gives the same vector."""
        from core.common.seeding import make_rng

        return make_rng(seed).uniform(0.0, scale, self.n_params)

    def apply(self, params) -> None:
        """Queue the circuit inside a qnode. ``params`` may carry a leading batch axis (broadcasting)."""
        import pennylane as qml

        ops = {"RX": qml.RX, "RY": qml.RY, "RZ": qml.RZ, "CNOT": qml.CNOT, "CZ": qml.CZ}
        for g in self.gates:
            if g.param is None:
                ops[g.name](wires=g.wires)
            else:
                ops[g.name](params[..., g.param], wires=g.wires[0])

    def describe(self) -> dict:
        return {"n_qubits": self.n_qubits, "layers": self.layers, "rotations": list(self.rotations),
                "entangler": self.entangler, "n_params": self.n_params}

    def __repr__(self) -> str:
        return (f"Ansatz(n_qubits={self.n_qubits}, layers={self.layers}, rotations={self.rotations}, "
                f"entangler={self.entangler!r})")
