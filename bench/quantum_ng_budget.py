"""Is the surrogate practical to estimate, far cheaper than the full QFIM, in the paper's unit: shots on hardware?

Section ``shot_frontier`` of ``bench/quantum_ng.py`` (rule: ``RULES["practical_estimation"]``). At each fresh
parameter point and shot budget B, every path to the metric estimated from B shots, its error against the exact
metric:

- the full QFIM: the parameter-shift Hessian of the fidelity |<psi(theta)|psi(theta')>|^2 at theta' = theta, one
  compute-uncompute circuit per shifted fidelity (P for the diagonal, shifts of pi; 4 per pair off it, shifts of
  pi/2), each fidelity the share of all-zero outcomes over B / circuits shots: unbiased, g_ii = (1 - F(pi e_i)) / 4,
  g_ij = -(F(++) - F(+-) - F(-+) + F(--)) / 8;
- the block-diagonal metric (PennyLane's ``metric_tensor(approx="block-diag")`` on hardware): per rotation
  sub-layer one circuit measuring its wires in the rotations' basis, the sample covariance of the generators'
  eigenvalues (+-1/2) over B / sub-layers shots; the entries between sub-layers are zero;
- the surrogate: one shadow of B single-shot snapshots (weight-k truncation, mask on);
- the trivial metric (the best multiple of the identity, zero shots) and the surrogate with its parameters' labels
  shuffled (the null).

The budgets are the full QFIM's circuits times 1, 4 and 16 shots each, so the full QFIM is measured at every one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bench.quantum_ng_target import identity_error, shuffled
from core.common.seeding import derive_seed
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.metric import exact_metric, relative_error
from core.quantum_ng.propagation import propagate_generators
from core.quantum_ng.shadows import acquire_shadow, shadow_metric

PER_CIRCUIT = (1, 4, 16)   # shots per fidelity circuit of the full QFIM; the budgets are its circuits times these
FRONTIER_SIZES = (8, 12)   # 16 qubits: 8,128 fidelity circuits of 2^16 amplitudes and 130,048-snapshot shadows a point
FRONTIER_SEEDS = tuple(range(15, 27))   # fresh points (3-14 decided targets_qfim; 1-3 tried this code)
# Registered after section shot_frontier, where k was fixed at its T = 500 choice: k chosen per budget (budget_k, from
# the tradeoff section's point 0) on points not yet seen; this section decides once stored
FRONTIER_K_SEEDS = tuple(range(27, 39))


def full_circuits(p: int) -> int:
    """Circuits of the parameter-shift full QFIM for ``p`` parameters: p diagonal, 4 per pair."""
    return p + 2 * p * (p - 1)


@lru_cache(maxsize=8)
def _state_qnode(ansatz: Ansatz, upto: int | None = None, basis: str | None = None):
    import pennylane as qml

    ops = {"RX": qml.RX, "RY": qml.RY, "RZ": qml.RZ, "CNOT": qml.CNOT, "CZ": qml.CZ}
    gates = ansatz.gates if upto is None else ansatz.gates[:upto + 1]

    @qml.qnode(qml.device("default.qubit", wires=ansatz.n_qubits), diff_method=None)
    def circuit(params):
        for g in gates:
            if g.param is None:
                ops[g.name](wires=g.wires)
            else:
                ops[g.name](params[..., g.param], wires=g.wires[0])
        if basis is None:
            return qml.state()
        for w in range(ansatz.n_qubits):   # the rotations' eigenbasis onto the computational one
            {"X": qml.Hadamard, "Y": lambda wires: qml.RX(np.pi / 2, wires=wires), "Z": lambda wires: None}[basis](
                wires=w)
        return qml.probs(wires=range(ansatz.n_qubits))
    return circuit


def fidelities(ansatz: Ansatz, params) -> tuple[np.ndarray, np.ndarray]:
    """Exact fidelities of the full QFIM's circuits: [P] at theta + pi e_i, and [P, P, 4] at theta + pi/2 (s_i e_i +
    s_j e_j) for (s_i, s_j) = (+,+), (+,-), (-,+), (-,-) (entries i < j filled)."""
    p = ansatz.n_params
    signs = ((1, 1), (1, -1), (-1, 1), (-1, -1))
    shifts = [np.pi * np.eye(p)[i] for i in range(p)]
    pairs = [(i, j) for i in range(p) for j in range(i + 1, p)]
    shifts += [np.pi / 2 * (a * np.eye(p)[i] + b * np.eye(p)[j]) for i, j in pairs for a, b in signs]
    qnode = _state_qnode(ansatz)
    psi = np.asarray(qnode(np.asarray(params, float)))
    states = np.asarray(qnode(np.asarray(params, float)[None, :] + np.stack(shifts)))
    f = np.abs(states.conj() @ psi) ** 2
    diag, off = f[:p], np.zeros((p, p, 4))
    for n, (i, j) in enumerate(pairs):
        off[i, j] = f[p + 4 * n: p + 4 * n + 4]
    return diag, off


def full_qfim(diag: np.ndarray, off: np.ndarray) -> np.ndarray:
    """The Fubini-Study metric from the fidelities (exact or estimated): the parameter-shift Hessian, symmetrised."""
    g = np.diag((1 - diag) / 4)
    upper = -(off[..., 0] - off[..., 1] - off[..., 2] + off[..., 3]) / 8
    iu = np.triu_indices(len(diag), 1)
    g[iu] = upper[iu]
    g.T[iu] = upper[iu]
    return g


def full_qfim_shots(exact_fidelities, shots: int, rng) -> np.ndarray:
    """The full QFIM from ``shots`` shots per circuit: each fidelity a binomial share."""
    diag, off = exact_fidelities
    return full_qfim(rng.binomial(shots, np.clip(diag, 0, 1)) / shots, rng.binomial(shots, np.clip(off, 0, 1)) / shots)


def layer_distributions(ansatz: Ansatz, params) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per rotation sub-layer: its parameters and the outcome distribution over 2^n of its wires measured in its
    rotations' basis just after them (the generators commute with the sub-layer, so before or after is the same)."""
    gates = ansatz.gates
    layer = ansatz.param_layer()
    out = []
    for sub in np.unique(layer):
        mine = np.flatnonzero(layer == sub)
        last = max(i for i, g in enumerate(gates) if g.param is not None and g.param in set(mine.tolist()))
        basis = {gates[i].pauli for i in range(len(gates)) if gates[i].param in set(mine.tolist())}
        if len(basis) != 1:
            raise ValueError(f"sub-layer {sub}: rotations about {sorted(basis)}; allowed one axis per sub-layer")
        probs = np.asarray(_state_qnode(ansatz, last, basis.pop())(np.asarray(params, float)))
        out.append((mine, probs))
    return out


def block_diagonal_shots(ansatz: Ansatz, distributions, shots: int | None, rng=None) -> np.ndarray:
    """The block-diagonal metric from ``shots`` shots per sub-layer (None: exact): per sub-layer the covariance of
    the generators' eigenvalues (+-1/2 per wire) over the outcomes."""
    n, p = ansatz.n_qubits, ansatz.n_params
    wires = ansatz.param_wire()
    bits = (np.arange(1 << n)[:, None] >> (n - 1 - np.arange(n))[None, :]) & 1   # wire 0 the most significant bit
    values = 0.5 - bits                                                           # +1/2 for outcome 0, -1/2 for 1
    g = np.zeros((p, p))
    for mine, probs in distributions:
        probs = np.clip(probs, 0, None) / np.clip(probs, 0, None).sum()
        if shots is None:
            weights = probs
        else:
            weights = rng.multinomial(shots, probs) / shots
        v = values[:, wires[mine]]
        mean = weights @ v
        cov = (v * weights[:, None]).T @ v - np.outer(mean, mean)
        if shots is not None and shots > 1:
            cov *= shots / (shots - 1)   # the unbiased sample covariance
        g[np.ix_(mine, mine)] = cov
    return g


def budget_k(tradeoff: dict, budget: int) -> int:
    """The k a budget calls for, from the tradeoff section's point 0 (not a point judged here): the least
    bias² + variance, the variance measured at its T snapshots scaled to ``budget`` (a shadow's variance falls as 1/T)."""
    mse = [b + v * tradeoff["snapshots"] / budget for b, v in zip(tradeoff["bias2"], tradeoff["variance_empirical"])]
    return int(tradeoff["k"][int(np.argmin(mse))])


def frontier_point(ansatz: Ansatz, seed: int, k, per_circuit=PER_CIRCUIT) -> dict:
    """One parameter point: every path's relative error at every budget (see the module docstring); ``k`` one
    truncation weight for every budget, or a list of one per budget."""
    params = ansatz.random_params(seed)
    exact = exact_metric(ansatz, params)
    fid = fidelities(ansatz, params)
    dists = layer_distributions(ansatz, params)
    ks = list(k) if isinstance(k, (list, tuple)) else [k] * len(per_circuit)
    gens = {j: propagate_generators(ansatz, params, j) for j in set(ks)}
    circuits = full_circuits(ansatz.n_params)
    rows = []
    for m, kb in zip(per_circuit, ks, strict=True):
        budget = circuits * m
        rng = np.random.default_rng(derive_seed(seed, f"shot frontier {budget}"))
        shadow = acquire_shadow(ansatz, params, budget, seed=derive_seed(seed, f"shot frontier shadow {budget}"))
        surrogate = shadow_metric(gens[kb], shadow, mask=True)
        rows.append({"budget": budget, "k": kb, "full_qfim": relative_error(full_qfim_shots(fid, m, rng), exact),
                     "block_diagonal": relative_error(
                         block_diagonal_shots(ansatz, dists, budget // len(dists), rng), exact),
                     "surrogate": relative_error(surrogate, exact),
                     "shuffled": relative_error(shuffled(surrogate, derive_seed(seed, "qfim target shuffle")), exact)})
    return {"n_qubits": ansatz.n_qubits, "layers": ansatz.layers, "entangler": ansatz.entangler, "k": k, "seed": seed,
            "identity": identity_error(exact), "budgets": rows,
            "block_diagonal_exact": relative_error(block_diagonal_shots(ansatz, dists, None), exact),
            "full_qfim_exact": relative_error(full_qfim(*fid), exact)}


def shot_frontier(rows: list, log=print) -> dict:
    """Section ``shot_frontier`` from the cells of grid shot_frontier (one parameter point each), by size."""
    out = {}
    for n in sorted({r["n_qubits"] for r in rows}):
        mine = sorted((r for r in rows if r["n_qubits"] == n), key=lambda r: r["seed"])
        ansatz = Ansatz(n, mine[0]["layers"], ("RY", "RZ"), mine[0]["entangler"])
        circuits = full_circuits(ansatz.n_params)
        out[str(n)] = {"n_qubits": n, "k": mine[0]["k"], "seeds": [r["seed"] for r in mine],
                       "circuits": {"full_qfim": circuits, "block_diagonal": len(np.unique(ansatz.param_layer())),
                                    "surrogate": "one single-shot circuit per snapshot"},
                       "budgets": [circuits * m for m in PER_CIRCUIT], "points": mine}
        for i, b in enumerate(out[str(n)]["budgets"]):
            med = {f: round(float(np.median([p["budgets"][i][f] for p in mine])), 3)
                   for f in ("full_qfim", "block_diagonal", "surrogate", "shuffled")}
            log(f"shot frontier {n}q B={b}: median relative error {med}")
    return out


def frontier_text(result: dict, section: str = "shot_frontier") -> tuple[str, str]:
    """practical_estimation's figure and detail from a frontier section (the CPU comparison follows in the caller)."""
    from bench.report import interval_text

    def ratio(s, i, mine, *others):
        return interval_text([np.log10(min(p["budgets"][i].get(o, p.get(o)) for o in others) / p["budgets"][i][mine])
                              for p in s["points"]])

    def med(s, i, f):
        return float(np.median([p["budgets"][i][f] for p in s["points"]]))

    sections = result[section]
    figure = "log10 of the best other path's error over the surrogate's at equal shots: " + "; ".join(
        f"{n}q " + ", ".join(f"{b:,} {ratio(s, i, 'surrogate', 'full_qfim', 'identity')}"
                             for i, b in enumerate(s["budgets"])) for n, s in sections.items())
    rows = []
    for n, s in sections.items():
        per = "; ".join(
            f"B = {b:,}: median error surrogate {med(s, i, 'surrogate'):.2f}, full QFIM {med(s, i, 'full_qfim'):.2f}, "
            f"block-diagonal {med(s, i, 'block_diagonal'):.2f}, shuffled {med(s, i, 'shuffled'):.2f}; log10 ratios "
            f"over the surrogate's: full or trivial {ratio(s, i, 'surrogate', 'full_qfim', 'identity')}, "
            f"block-diagonal {ratio(s, i, 'surrogate', 'block_diagonal')}; the null (shuffled) against full or "
            f"trivial {ratio(s, i, 'shuffled', 'full_qfim', 'identity')}" for i, b in enumerate(s["budgets"]))
        first = s["points"][0]
        ks = sorted({b.get("k", s["k"]) for b in s["points"][0]["budgets"]})
        rows.append(f"{n} qubits, k = {', '.join(map(str, ks))} ({s['circuits']['full_qfim']:,} full-QFIM circuits, "
                    f"{s['circuits']['block_diagonal']} block-diagonal ones; trivial metric error "
                    f"{np.median([p['identity'] for p in s['points']]):.2f}, block-diagonal with exact expectations "
                    f"{np.median([p['block_diagonal_exact'] for p in s['points']]):.2f}; points {first['seed']}-"
                    f"{s['points'][-1]['seed']}): "
                    + per)
    detail = ("Shots on hardware as the cost: per fresh parameter point and budget B, each path estimated from B "
              "shots, its relative error against the exact metric, 95 % t intervals over points. " + ". ".join(rows)
              + ".")
    return figure, detail
