"""Does the shadow-estimated surrogate target the QFIM where it could fail (k < n, finite shots)?

Section ``qfim_target`` of ``bench/quantum_ng.py``, registered before it ran (see ``RULES["targets_qfim"]`` in
core/quantum_ng/claims.py): per size, fresh parameter points (seed 0 chose k in section ``tradeoff``), the
surrogate at that k from one shadow of T snapshots (support-overlap mask on, as the optimiser uses it) and from
one of 4T, each against the exact metric, next to

- the trivial metric: the best multiple of the identity, c = tr(g) / P, chosen knowing g (what plain gradient
  descent assumes, at its most favourable scale);
- the null: the same surrogate with its parameters' labels shuffled (P S P^T, a seeded permutation), the same
  entries aligned with nothing: if the surrogate's closeness came from its scale alone, this would match it;
- the block-diagonal part of the exact metric (one block per rotation sub-layer), the practical alternative;
- the surrogate at its best scale (c S, c knowing g): its error up to a scale a tuned step absorbs, as the
  identity's is;
- the surrogate at every k <= 4 from the T-snapshot shadow, and with exact expectations at the chosen k (its
  truncation bias alone).
"""

from __future__ import annotations

import numpy as np

from core.common.seeding import derive_seed
from core.quantum_ng.ansatz import Ansatz
from core.quantum_ng.metric import exact_metric, metric_from_generators, relative_error
from core.quantum_ng.propagation import propagate_generators
from core.quantum_ng.shadows import acquire_shadow, shadow_metric
from core.quantum_ng.simulate import final_state

TARGET_SEEDS = tuple(range(3, 15))   # parameter points: 0 is the tradeoff section's (k chosen there), 1-2 tried the code
MORE_SHOTS = 4                       # the second shadow's snapshots, as a multiple of T
KS = (1, 2, 3, 4)


def identity_error(exact: np.ndarray) -> float:
    """Relative error of the best multiple of the identity, c = tr(g) / P (the Frobenius-optimal c)."""
    c = float(np.trace(exact)) / exact.shape[0]
    return relative_error(c * np.eye(exact.shape[0]), exact)


def best_scale_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """Relative error of the best multiple c * approx, c = <approx, exact> / <approx, approx> (the sine of the angle
    between the two in Frobenius space): the error up to a scale that a tuned step absorbs."""
    c = float(np.sum(approx * exact)) / max(float(np.sum(approx * approx)), 1e-300)
    return relative_error(c * approx, exact)


def block_diagonal(exact: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """``exact`` with every entry between parameters of different blocks set to zero."""
    return np.where(blocks[:, None] == blocks[None, :], exact, 0.0)


def shuffled(metric: np.ndarray, seed: int) -> np.ndarray:
    """P S P^T for a seeded permutation P: the same entries, the parameters' labels shuffled."""
    order = np.random.default_rng(seed).permutation(metric.shape[0])
    return metric[np.ix_(order, order)]


def shadow_seed(point: int, snapshots: int, base: int) -> int:
    """The shadow's seed at parameter point ``point``: the section's two shadows (``base`` and MORE_SHOTS x ``base``
    snapshots) keep the seeds they ran with, so the shots trend's cells at those counts repeat them exactly."""
    name = {base: "qfim target", MORE_SHOTS * base: "qfim target more"}.get(snapshots, f"qfim target T={snapshots}")
    return derive_seed(point, name)


def shots_point(n: int, k: int, snapshots: int, seed: int, base: int, layers: int, entangler: str) -> dict:
    """One cell of the shots trend (grid target_shots): at parameter point ``seed``, the surrogate's error from one
    shadow of ``snapshots`` against the exact metric, the best identity multiple's, and its exact-expectation error."""
    ansatz = Ansatz(n, layers, ("RY", "RZ"), entangler)
    params = ansatz.random_params(seed)
    exact = exact_metric(ansatz, params)
    gens = propagate_generators(ansatz, params, k)
    shadow = acquire_shadow(ansatz, params, snapshots, seed=shadow_seed(seed, snapshots, base))
    return {"n_qubits": n, "k": k, "snapshots": snapshots, "seed": seed,
            "surrogate": relative_error(shadow_metric(gens, shadow, mask=True), exact),
            "identity": identity_error(exact),
            "exact_expectations": relative_error(metric_from_generators(gens, final_state(ansatz, params), mask=True),
                                                 exact)}


def shots_trend(rows: list) -> dict:
    """Per size and shot count: log10 of the identity's error over the surrogate's, mean and 95 % t interval over the
    points, and at infinite shots (exact expectations): does the gap to the trivial metric close as T grows?"""
    from core.common.decisions import PairedT

    trend, limit = [], []
    for n in sorted({r["n_qubits"] for r in rows}):
        mine = [r for r in rows if r["n_qubits"] == n]
        for t in sorted({r["snapshots"] for r in mine}):
            out = PairedT(0.0).decide([np.log10(r["identity"] / r["surrogate"]) for r in mine if r["snapshots"] == t])
            trend.append([n, t, out.value, out.low, out.high])
        at_limit = {r["seed"]: np.log10(r["identity"] / r["exact_expectations"]) for r in mine}
        out = PairedT(0.0).decide(list(at_limit.values()))
        limit.append([n, out.value, out.low, out.high])
    return {"trend": trend, "trend_columns": ["qubits", "snapshots T", "log10 identity's error / surrogate's (mean)",
                                              "95 % low", "95 % high"],
            "exact_expectations": limit, "exact_expectations_columns": ["qubits", "mean", "95 % low", "95 % high"],
            "runs": sorted(rows, key=lambda r: (r["n_qubits"], r["snapshots"], r["seed"]))}


def target_point(ansatz: Ansatz, seed: int, k: int, snapshots: int) -> dict:
    """One parameter point's errors against the exact metric (see the module docstring)."""
    params = ansatz.random_params(seed)
    exact = exact_metric(ansatz, params)
    ks = [j for j in KS if j <= ansatz.n_qubits]
    gens = {j: propagate_generators(ansatz, params, j) for j in ks}
    shadow = acquire_shadow(ansatz, params, snapshots, seed=shadow_seed(seed, snapshots, snapshots))
    more = acquire_shadow(ansatz, params, MORE_SHOTS * snapshots, seed=shadow_seed(seed, MORE_SHOTS * snapshots, snapshots))
    at = {j: shadow_metric(gens[j], shadow, mask=True) for j in ks}
    surrogate = at[k]
    return {"seed": seed, "surrogate": relative_error(surrogate, exact),
            "surrogate_more_shots": relative_error(shadow_metric(gens[k], more, mask=True), exact),
            "surrogate_best_scale": best_scale_error(surrogate, exact), "identity": identity_error(exact),
            "shuffled": relative_error(shuffled(surrogate, derive_seed(seed, "qfim target shuffle")), exact),
            "block_diagonal": relative_error(block_diagonal(exact, ansatz.param_layer()), exact),
            "exact_expectations": relative_error(
                metric_from_generators(gens[k], final_state(ansatz, params), mask=True), exact),
            "by_k": {str(j): relative_error(at[j], exact) for j in ks}}


def qfim_target(n: int, k: int, snapshots: int, layers: int, entangler: str, seeds=TARGET_SEEDS, log=print) -> dict:
    """Section ``qfim_target`` at ``n`` qubits: every parameter point of ``seeds`` (see the module docstring)."""
    ansatz = Ansatz(n, layers, ("RY", "RZ"), entangler)
    points = [target_point(ansatz, s, k, snapshots) for s in seeds]
    out = {"n_qubits": n, "layers": layers, "entangler": entangler, "k": k, "snapshots": snapshots,
           "more_snapshots": MORE_SHOTS * snapshots, "seeds": list(seeds), "points": points}
    med = {f: float(np.median([p[f] for p in points])) for f in ("surrogate", "identity", "shuffled", "block_diagonal")}
    log(f"qfim target {n}q k={k} T={snapshots}: median relative error {med}")
    return out


def target_text(result: dict) -> tuple[str, str]:
    """targets_qfim's figure and detail from section qfim_target (the old k = n check follows in the caller)."""
    from bench.report import interval_text

    def ratio(t, over, under):
        return interval_text([np.log10(p[over] / p[under]) for p in t["points"]])

    def median(t, f):
        return float(np.median([p[f] for p in t["points"]]))

    sections = result["qfim_target"]
    figure = "log10 identity's error / surrogate's: " + ", ".join(
        f"{n}q {ratio(t, 'identity', 'surrogate')}" for n, t in sections.items())
    rows = []
    for n, t in sections.items():
        by_k = ", ".join(f"k = {j} {float(np.median([p['by_k'][j] for p in t['points']])):.2f}"
                         for j in t["points"][0]["by_k"])
        rows.append(
            f"{n} qubits, k = {t['k']}: median relative error surrogate {median(t, 'surrogate'):.2f} "
            f"({median(t, 'surrogate_more_shots'):.2f} at {t['more_snapshots']} snapshots, "
            f"{median(t, 'exact_expectations'):.2f} with exact expectations, {median(t, 'surrogate_best_scale'):.2f} at its "
            f"best scale), best identity multiple "
            f"{median(t, 'identity'):.2f}, shuffled labels {median(t, 'shuffled'):.2f}, block-diagonal part "
            f"{median(t, 'block_diagonal'):.2f}; log10 ratios over the surrogate's: identity "
            f"{ratio(t, 'identity', 'surrogate')}, shuffled null against identity {ratio(t, 'identity', 'shuffled')}, "
            f"T over 4T {ratio(t, 'surrogate', 'surrogate_more_shots')}, identity over the surrogate at its best "
            f"scale {ratio(t, 'identity', 'surrogate_best_scale')}, block-diagonal against identity "
            f"{ratio(t, 'identity', 'block_diagonal')}; by k at T: {by_k}")
    first = next(iter(sections.values()))
    detail = (f"Parameter points {first['seeds'][0]}-{first['seeds'][-1]} (k chosen on point 0 by the tradeoff "
              f"section), one shadow of T = {first['snapshots']} snapshots, 95 % t intervals over points. "
              + "; ".join(rows) + ".")
    return figure, detail
