"""Spin chains from ``qml.spin`` and their exact ground energies (sparse Lanczos, SciPy).

- ``heisenberg``: XXX, sum over bonds of J (XX + YY + ZZ), antiferromagnetic for J > 0;
- ``xxz``: sum of J (XX + YY + delta ZZ);
- ``tfim``: the transverse-field Ising chain, -J sum ZZ - h sum X.

Signs and boundary handling are PennyLane's (``boundary_condition=True`` closes the chain). The
ground energy comes from ``scipy.sparse.linalg.eigsh`` on PennyLane's sparse matrix, smallest
algebraic eigenvalue; it is cached per chain, since 12 to 16 sites take 5 to 15 s on two cores. The
page's chains (the three models with their default couplings, open, 2 to 16 sites) are solved once
by ``python -m core.quantum_ng.ship`` and shipped in ``assets/quantum_ng/ground_energies.json``, so
a live run starts stepping at once; any other chain is solved when asked (a test re-solves some
shipped ones and compares).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING
import numpy as np

from core.common.assets import asset_dir
from core.common.config import Config, choice, param

if TYPE_CHECKING:  # PennyLane is imported by the functions that simulate
    import pennylane as qml

MODELS = ("heisenberg", "xxz", "tfim")
MODEL_LABELS = {"heisenberg": "Heisenberg XXX", "xxz": "Heisenberg XXZ", "tfim": "Transverse-field Ising"}
GROUND_ENERGIES = asset_dir("quantum_ng") / "ground_energies.json"


@dataclass(frozen=True)
class Chain(Config):
    """A spin chain: which model, how long, open or periodic, and its couplings.

    Examples
    --------
    >>> chain = Chain(model="tfim", n_qubits=4)
    >>> chain.n_qubits, chain.periodic
    (4, False)
    """

    model: str = choice("heisenberg", MODELS, doc="heisenberg (XXX), xxz or tfim (transverse-field Ising)")
    n_qubits: int = param(6, low=2, high=16, integer=True, doc="sites of the chain, one qubit each")
    periodic: bool = choice(False, (False, True), doc="close the chain (a bond between the last and first site)")
    coupling: float = param(1.0, low=-10.0, high=10.0, doc="J")
    delta: float = param(0.5, low=-10.0, high=10.0, doc="ZZ anisotropy of the XXZ chain")
    field: float = param(1.0, low=-10.0, high=10.0, doc="transverse field h of the Ising chain")

    def hamiltonian(self):
        """The chain's Hamiltonian as a PennyLane operator (:func:`chain_hamiltonian`)."""
        return chain_hamiltonian(self)

    def ground_energy(self) -> float:
        """E0: shipped for the page's chains, else solved by sparse Lanczos (cached)."""
        return _ground_energy(self)


def chain_hamiltonian(chain: Chain) -> "qml.operation.Operator":
    """The chain's Hamiltonian as a PennyLane operator on wires 0..n-1 (``qml.spin``'s lattices).

    .. math::

        H_{XXZ} = J \\sum_{\\langle i j \\rangle} (X_i X_j + Y_i Y_j + \\delta Z_i Z_j), \\qquad
        H_{TFIM} = -J \\sum_{\\langle i j \\rangle} Z_i Z_j - h \\sum_i X_i,

    with delta = 1 for ``heisenberg``; PennyLane's signs and boundary handling.

    Parameters
    ----------
    chain : Chain
        The model, its length, boundary and couplings.

    Returns
    -------
    pennylane.operation.Operator
        A sum of Pauli products on wires ``0 .. n_qubits - 1``.

    Examples
    --------
    >>> H = chain_hamiltonian(Chain(model="heisenberg", n_qubits=3))
    >>> len(H.terms()[0])     # two bonds, three Pauli products each
    6
    """
    import pennylane as qml

    n, J = chain.n_qubits, chain.coupling
    if chain.model == "tfim":
        return qml.spin.transverse_ising("chain", [n], coupling=J, h=chain.field, boundary_condition=chain.periodic)
    zz = J if chain.model == "heisenberg" else J * chain.delta
    return qml.spin.heisenberg("chain", [n], coupling=[J, J, zz], boundary_condition=chain.periodic)


def exact_ground_energy(chain: Chain) -> float:
    """E0 by sparse Lanczos (``eigsh``, smallest algebraic) on PennyLane's sparse Hamiltonian; dense below 5 sites."""
    from scipy.sparse.linalg import eigsh

    H = chain_hamiltonian(chain).sparse_matrix(wire_order=range(chain.n_qubits), format="csr")
    if chain.n_qubits <= 4:  # eigsh needs k < dim - 1 and is pointless this small
        return float(np.linalg.eigvalsh(H.toarray())[0])
    return float(eigsh(H, k=1, which="SA", tol=1e-12)[0][0])


@lru_cache(maxsize=1)
def shipped_ground_energies() -> dict:
    """{Chain: E0} for the chains in ``assets/quantum_ng/ground_energies.json`` (empty if it is missing)."""
    if not GROUND_ENERGIES.is_file():
        return {}
    rows = json.loads(GROUND_ENERGIES.read_text())["chains"]
    return {Chain.from_dict(row["chain"]): float(row["ground_energy"]) for row in rows}


@lru_cache(maxsize=64)
def _ground_energy(chain: Chain) -> float:
    shipped = shipped_ground_energies().get(chain)
    return shipped if shipped is not None else exact_ground_energy(chain)
