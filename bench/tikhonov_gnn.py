"""tikhonov_gnn at full scale: 10-fold MUTAG and Cuneiform for the three models, explanation AUROC
over seeds (with an untrained control; pooled and within each graph; and a linear-readout variant
of the model, not the shipped one), filter shapes on the SBM tasks, identifiability after
normalisation, Dirichlet energy against depth, a long-range task across a bottleneck, the
matrix-free solve against the dense one and PyG's APPNP from 100 to 50,000 nodes, checkpoint
sizes and the page's timings.

    python bench/tikhonov_gnn.py                       # everything; writes bench/results/tikhonov_gnn.json and .md
    python bench/tikhonov_gnn.py --parts DIR --section explanations   # one section into DIR/<section>.json
    python bench/tikhonov_gnn.py --parts DIR           # the missing sections, then the results from DIR

Sections run as separate processes share nothing but DIR, so they can run side by side.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, write_results  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.common.results import result_to_dict  # noqa: E402
from core.common.seeding import derive_rng  # noqa: E402
from core.tikhonov_gnn import (MODELS, cross_validate, explain, explanation_auroc, load_dataset,  # noqa: E402
                               recommended_config, train)
from core.tikhonov_gnn.claims import AUROC_GOAL  # noqa: E402  (the explanation goal, shared with its rule)
from core.tikhonov_gnn.ship import ASSETS  # noqa: E402

PAGE = "../pages/tikhonov_gnn.py"
SEEDS = (0, 1, 2, 3, 4)
COMMAND = "python bench/tikhonov_gnn.py"
DISTANCES = (2, 4, 8)
SIZES = (100, 500, 2000, 10000, 50000)
DENSE_MAX = 2000


def benchmark_cv(name: str, models=MODELS) -> dict:
    data = load_dataset(name)
    out = {}
    for model in models:
        with TqdmProgress(desc=f"{name} 10-fold {model}", leave=False) as bar:
            t0 = time.perf_counter()
            cv = cross_validate(recommended_config(name, model=model), data, folds=10, seed=0, progress=bar)
            out[model] = {**result_to_dict(cv), "seconds": time.perf_counter() - t0}
    return out


def untrained_auroc(name: str, data, test_index, seed: int, **changes) -> float:
    """The control: the same architecture at its initialisation (zero epochs)."""
    from core.common.seeding import torch_seeded
    from core.tikhonov_gnn.models import build_model

    with torch_seeded(seed):
        model = build_model("tikhonov", data.n_features, data.n_classes, data.task, recommended_config(name, **changes))
    return explanation_auroc(model.eval(), [data.graphs[i] for i in test_index])


def explanation_quality(name: str, **changes) -> dict:
    rows = []
    for seed in SEEDS:
        data = load_dataset(name, seed=seed)
        result = train(recommended_config(name, **changes), data, seed=seed)
        test = [data.graphs[i] for i in result.test_index]
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy, "auroc": explanation_auroc(result.model, test),
                     "auroc_within_graph": explanation_auroc(result.model, test, per_graph=True),
                     "untrained_auroc": untrained_auroc(name, data, result.test_index, seed, **changes)})
    auroc = np.array([r["auroc"] for r in rows])
    control = np.array([r["untrained_auroc"] for r in rows])
    return {"runs": rows, "auroc_mean": float(auroc.mean()), "auroc_min": float(auroc.min()),
            "share_at_least_0.85": float((auroc >= AUROC_GOAL).mean()), "untrained_auroc_mean": float(control.mean()),
            "config_changes": changes}


def explanations(names=("motifs", "planted_feature")) -> dict:
    return {name: explanation_quality(name) for name in names}


def explanations_linear_readout(names=("motifs", "planted_feature")) -> dict:
    """The variant of issue 22's item 2, not the shipped model: no per-node nonlinearity after the layer, so a
    node reaches the prediction only through R's column sums, which scale with its q (column j of R is q_j
    (p(L) + Q)^-1 e_j); the per-node SiLU let a constant q solve planted_feature (seed 4: accuracy 1.0, AUROC 0.48)."""
    return {name: explanation_quality(name, readout="linear") for name in names}


def filter_shapes(name: str) -> dict:
    rows = []
    for seed in SEEDS[:3]:
        data = load_dataset(name, seed=seed)
        result = train(recommended_config(name), data, seed=seed)
        e = explain(result.model, data.graphs[result.test_index[0]])
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy, "kind": e.kind,
                     "p_at_0_1_2": [float(e.p[0]), float(e.p[len(e.p) // 2]), float(e.p[-1])]})
    return {"runs": rows}


def filters() -> dict:
    return {name: filter_shapes(name) for name in ("sbm_homophilic", "sbm_heterophilic")}


def identifiability(draws: int = 40) -> dict:
    """Recover the normalised (q, p|spec) from R on random connected graphs; the unnormalised control."""
    import networkx as nx

    from core.tikhonov_gnn.operator import (bernstein_to_monomial, normalize_parameters, normalized_laplacian,
                                            parameters_from_operator, tikhonov_operator)

    recovery, same_r_raw_gap, same_r_norm_gap = [], [], []
    for k in range(draws):
        rng = derive_rng(0, "identifiability", k)
        n = int(rng.integers(8, 30))
        g = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=int(rng.integers(2**31)))
        L = normalized_laplacian(nx.to_numpy_array(g))
        q, theta = rng.uniform(0.1, 5.0, n), rng.uniform(0.05, 3.0, 5)
        coeffs = bernstein_to_monomial(theta)
        R = tikhonov_operator(L, q, coeffs)
        norm, back = normalize_parameters(L, q, coeffs), parameters_from_operator(R, L)
        qn, pn, rq, rp = norm.q_normalized, norm.p_spectrum, back.q_normalized, back.p_spectrum
        recovery.append(max(np.abs(rq - qn).max() / np.abs(qn).max(), np.abs(rp - pn).max()))
        c = float(rng.uniform(0.2, 5.0))
        same_r_raw_gap.append(float(np.abs(c * q - q).max()))          # distinct raw parameters ...
        scaled = normalize_parameters(L, c * q, c * coeffs)           # ... the same R, the same normalised ones
        qc, pc = scaled.q_normalized, scaled.p_spectrum
        same_r_norm_gap.append(float(max(np.abs(qc - qn).max(), np.abs(pc - pn).max())))
        assert np.abs(tikhonov_operator(L, c * q, c * coeffs) - R).max() < 1e-9
    return {"draws": draws, "max_relative_recovery_error": float(max(recovery)),
            "min_raw_parameter_gap_same_R": float(min(same_r_raw_gap)),
            "max_normalised_gap_same_R": float(max(same_r_norm_gap))}


def smoothing() -> dict:
    import networkx as nx

    from core.tikhonov_gnn.smoothing import energy_curves

    out = {}
    for name, g in {"ba_200": nx.barabasi_albert_graph(200, 2, seed=0), "ring_64": nx.cycle_graph(64)}.items():
        c = energy_curves(nx.to_numpy_array(g), seed=0)
        out[name] = {"depth": c.depth.tolist(), "gcn": c.gcn.tolist(), "appnp": c.appnp.tolist(),
                     "tikhonov_stacked": c.tikhonov_stacked.tolist(), "strength": c.strength.tolist(),
                     "tikhonov_strength": c.tikhonov_strength.tolist(), "input": c.input_energy,
                     "diameter": c.diameter}
    return out


def long_range() -> dict:
    from core.tikhonov_gnn.data import make_bottleneck

    rows = []
    for distance in DISTANCES:
        data = make_bottleneck(distance, seed=0)
        for model, layers in (("tikhonov", 1), ("gcn", min(max(distance, 3), 8)), ("gin", min(max(distance, 3), 8))):
            config = recommended_config("sbm_homophilic", model=model, baseline_layers=layers, epochs=60, batch_size=16)
            result = train(config, data, seed=0)
            rows.append({"distance": distance, "model": model, "layers": layers,
                         "test_accuracy": result.final_test_accuracy,
                         "train_accuracy": float(result.train_accuracy[-1])})
    return {"runs": rows, "distances": list(DISTANCES)}


SCALING_CHILD = r"""
import json, resource, sys, time
import numpy as np, torch, networkx as nx
sys.path.insert(0, {root!r})
torch.set_num_threads(1)
from core.tikhonov_gnn.layer import sparse_laplacian, tikhonov_solve, bernstein_matrix
method, n = {method!r}, {n}
g = nx.barabasi_albert_graph(n, 3, seed=0)
edges = np.array(g.edges()).T
edge_index = torch.tensor(np.hstack([edges, edges[::-1]]), dtype=torch.long)
rng = np.random.default_rng(0)
q = torch.tensor(rng.uniform(0.5, 2.0, n), dtype=torch.float32)
theta = torch.tensor(rng.uniform(0.2, 2.0, 5), dtype=torch.float32)
x = torch.tensor(rng.standard_normal((n, 16)), dtype=torch.float32)
from torch_geometric.nn import APPNP
L_sparse = sparse_laplacian(edge_index, n)

def run():
    if method == "cg":
        return tikhonov_solve(q, theta, q[:, None] * x, L_sparse, tol=1e-5)
    if method == "dense":
        L = L_sparse.to_dense()
        return torch.linalg.solve(bernstein_matrix(theta, L) + torch.diag(q), q[:, None] * x)
    return APPNP(K=10, alpha=0.1)(x, edge_index)

# Warm-up of first-call costs (PyG's and torch's) on a 3-node graph: untimed, and too small to move the peak.
APPNP(K=10, alpha=0.1)(x[:3], torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]))
tikhonov_solve(q[:3], theta, x[:3], sparse_laplacian(torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), 3))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
z = run()
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
residual = float("nan")
if method != "appnp":
    L = L_sparse
    from core.tikhonov_gnn.layer import apply_polynomial, bernstein_monomial_matrix
    c = bernstein_monomial_matrix(4, torch.float32) @ theta
    r = apply_polynomial(c, L, z) + q[:, None] * z - q[:, None] * x
    residual = float(r.norm() / (q[:, None] * x).norm())
print(json.dumps({{"seconds": seconds, "extra_peak_mb": max(peak - before, 0) / 1024, "relative_residual": residual}}))
"""


def scaling() -> dict:
    rows = []
    for n in SIZES:
        for method in ("appnp", "cg", "dense"):
            if method == "dense" and n > DENSE_MAX:
                continue
            code = SCALING_CHILD.format(root=str(ROOT), method=method, n=n)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
            if out.returncode != 0:
                rows.append({"nodes": n, "method": method, "error": out.stderr.strip().splitlines()[-1]})
                continue
            rows.append({"nodes": n, "method": method, **json.loads(out.stdout.strip().splitlines()[-1])})
    return {"runs": rows, "graph": "Barabasi-Albert, m = 3; 16 channels; degree-4 p; CG relative tolerance 1e-5; "
            "APPNP K = 10, alpha = 0.1 (PyG); one thread; imports and the Laplacian outside the timer, an untimed "
            "warm-up on a 3-node graph; extra peak MB = peak RSS growth during the timed call"}


def checkpoint_bytes() -> dict:
    return {p.name: sum(f.stat().st_size for f in p.iterdir()) for p in sorted(ASSETS.iterdir()) if p.is_dir()}


def page() -> dict:
    from bench.timing import page_timings

    return page_timings(PAGE)


SECTIONS = {"mutag_10fold": lambda: benchmark_cv("mutag"), "cuneiform_10fold": lambda: benchmark_cv("cuneiform"),
            "explanations": explanations, "explanations_linear_readout": explanations_linear_readout,
            "filters": filters, "identifiability": identifiability,
            "smoothing": smoothing, "long_range": long_range, "scaling": scaling,
            "checkpoint_bytes": checkpoint_bytes, "page": page}


def table(r: dict) -> str:
    lines = ["| 10-fold accuracy | tikhonov | gcn | gin |", "|---|---|---|---|"]
    for name in ("mutag", "cuneiform"):
        cv = r.get(f"{name}_10fold")
        if not cv or set(cv) != set(MODELS):
            lines.append(f"| {name} | not measured in this run | | |")
            continue
        lines.append(f"| {name} | " + " | ".join(f"{cv[m]['mean']:.3f} ± {cv[m]['std']:.3f}" for m in MODELS) + " |")
    lines += ["", "| explanation AUROC of q | mean | min | share >= 0.85 | per seed | untrained (control) |",
              "|---|---|---|---|---|---|"]
    for name, v in r.get("explanations", {}).items():
        per = ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {v['auroc_mean']:.3f} | {v['auroc_min']:.3f} | {v['share_at_least_0.85']:.1f} | "
                     f"{per} | {v['untrained_auroc_mean']:.3f} |")
    for name, v in r.get("explanations_linear_readout", {}).items():
        per = ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
        lines.append(f"| {name}, linear readout (variant) | {v['auroc_mean']:.3f} | {v['auroc_min']:.3f} | "
                     f"{v['share_at_least_0.85']:.1f} | {per} | {v['untrained_auroc_mean']:.3f} |")
    lines += ["", "| SBM task | learned filter per seed | test accuracy per seed |", "|---|---|---|"]
    for name, v in r["filters"].items():
        kinds = ", ".join(x["kind"] for x in v["runs"])
        accs = ", ".join(f"{x['accuracy']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {kinds} | {accs} |")
    i = r["identifiability"]
    lines += ["", f"Identifiability ({i['draws']} random graphs): normalised (q, p|spec) recovered from R with "
              f"max relative error {i['max_relative_recovery_error']:.1e}; pairs (c·q, c·θ) with the same R differ "
              f"by ≥ {i['min_raw_parameter_gap_same_R']:.2f} raw and by {i['max_normalised_gap_same_R']:.1e} "
              "after normalisation."]
    for name, c in r["smoothing"].items():
        lines += ["", f"| Dirichlet energy, {name} (input {c['input']:.3f}, diameter {c['diameter']}) | "
                  + " | ".join(str(d) for d in c["depth"]) + " |", "|---|" + "---|" * len(c["depth"])]
        for key in ("gcn", "appnp", "tikhonov_stacked"):
            lines.append(f"| {key} (depth) | " + " | ".join(f"{v:.3g}" for v in c[key]) + " |")
        lines.append(f"| tikhonov one layer, strength {', '.join(f'{s:g}' for s in c['strength'])} | "
                     + " | ".join(f"{v:.3g}" for v in c["tikhonov_strength"]) + " |" + " |" * (len(c["depth"]) - len(c["strength"])))
    lines += ["", "| bottleneck distance | " + " | ".join(MODELS) + " |", "|---|---|---|---|"]
    for d in r["long_range"]["distances"]:
        acc = {x["model"]: x for x in r["long_range"]["runs"] if x["distance"] == d}
        lines.append(f"| {d} | " + " | ".join(f"{acc[m]['test_accuracy']:.2f} ({acc[m]['layers']} layer"
                                               f"{'s' if acc[m]['layers'] > 1 else ''})" for m in MODELS) + " |")
    lines += ["", "| nodes | method | seconds | extra peak MB | relative residual |", "|---|---|---|---|---|"]
    for x in r.get("scaling", {}).get("runs", []):
        if "error" in x:
            lines.append(f"| {x['nodes']} | {x['method']} | failed: {x['error']} | | |")
        else:
            lines.append(f"| {x['nodes']} | {x['method']} | {x['seconds']:.3g} | {x['extra_peak_mb']:.0f} | "
                         f"{x['relative_residual']:.1e} |")
    lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r.get("page", {}).items()]
    if r.get("missing_sections"):
        lines += ["", f"Not measured in this run: {', '.join(r['missing_sections'])}."]
    lines += ["", f"Shipped checkpoints: {', '.join(f'{k} {v / 1024:.0f} kB' for k, v in r['checkpoint_bytes'].items())}."]
    return "\n".join(lines) + "\n"


def checks(r: dict) -> dict:
    runs = r.get("scaling", {}).get("runs", [])
    scal = {(x["nodes"], x["method"]): x for x in runs}
    return {
        "cg_serves_50000_nodes": "seconds" in scal.get((max(SIZES), "cg"), {}),
        "cg_residual_below_1e-4": bool(runs) and all(x.get("relative_residual", 0) < 1e-4 for x in runs
                                                     if x["method"] == "cg"),
        "identifiable_after_normalisation": r["identifiability"]["max_relative_recovery_error"] < 1e-6,
        "checkpoints_under_2MB": all(v < 2 * 1024 * 1024 for v in r["checkpoint_bytes"].values()),
        "first_view_under_2s": "page" in r and r["page"]["first_view_warm"]["median_s"] < 2.0,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parts", type=Path, help="a folder for per-section results")
    parser.add_argument("--section", choices=sorted(SECTIONS))
    parser.add_argument("--model", choices=MODELS, help="with a *_10fold section: only this model")
    parser.add_argument("--dataset", help="with the explanations section: only this dataset")
    parser.add_argument("--available-only", action="store_true",
                        help="with --parts: write the results from the parts there, leaving out missing sections")
    args = parser.parse_args(argv)
    if args.section:
        if args.parts is None:
            parser.error("--section needs --parts")
        args.parts.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        if args.model:
            value = benchmark_cv(args.section[: -len("_10fold")], (args.model,))
            name = f"{args.section}.{args.model}"
        elif args.dataset:
            run = explanations_linear_readout if args.section == "explanations_linear_readout" else explanations
            value, name = run((args.dataset,)), f"{args.section}.{args.dataset}"
        else:
            value, name = SECTIONS[args.section](), args.section
        (args.parts / f"{name}.json").write_text(json.dumps({"value": value, "seconds": time.perf_counter() - t0}))
        return 0
    r, seconds = {}, {}
    for name, run in SECTIONS.items():
        cached = sorted(args.parts.glob(f"{name}.*json")) if args.parts else []
        merged = name.endswith("_10fold") or name.startswith("explanations")
        if merged and cached:                          # per-model or per-dataset parts
            parts = [json.loads(c.read_text()) for c in cached]
            r[name] = {k: v for p in parts for k, v in p["value"].items()}
            seconds[name] = sum(p["seconds"] for p in parts)
            whole = set(MODELS) if name.endswith("_10fold") else {"motifs", "planted_feature"}
            if set(r[name]) >= whole:
                continue
            if args.available_only:                    # keep the parts that ran, say which did not
                r.setdefault("missing_sections", []).extend(f"{name}.{k}" for k in sorted(whole - set(r[name])))
                continue
        if cached and not merged:
            part = json.loads(cached[0].read_text())
            r[name], seconds[name] = part["value"], part["seconds"]
        elif args.available_only:
            r.pop(name, None)
            r.setdefault("missing_sections", []).append(name)
        else:
            t0 = time.perf_counter()
            r[name] = run()
            seconds[name] = time.perf_counter() - t0
    r["seconds"] = seconds
    r["checks"] = checks(r)
    return write_results("tikhonov_gnn", r, table(r), verdicts=verdicts)


def learned_auroc(name: str, v: dict) -> str:
    """The mean AUROC of the runs that learned the task: a run at chance explains nothing, rightly or not."""
    good = [x["auroc"] for x in v["runs"] if x["accuracy"] >= 0.9]
    return f"{name} {np.mean(good):.2f} in {len(good)} of {len(v['runs'])} runs" if good else \
        f"{name} none of {len(v['runs'])} runs"


def within_note(ex: dict) -> str:
    """The per-graph reading (each graph's own AUROC, averaged), where the runs stored it; the goal is on the pooled one."""
    have = {n: [x["auroc_within_graph"] for x in v["runs"]] for n, v in ex.items()
            if all("auroc_within_graph" in x for x in v["runs"])}
    if not have:
        return ""
    return (" Ranked within each graph instead (the mean of every held-out graph's own AUROC, blind to a per-graph "
            "scale of q): " + "; ".join(f"{n} {np.mean(a):.2f} (per seed " + ", ".join(f"{x:.2f}" for x in a) + ")"
                                        for n, a in have.items()) + ".")


def variant_note(r: dict) -> str:
    """What the linear-readout variant measured, where it ran; the verdict itself is on the shipped model."""
    var = r.get("explanations_linear_readout", {})
    if not var:
        return " The linear-readout variant (no per-node nonlinearity after the layer) was not measured in this run."
    return (" Variant, not the shipped model (readout = 'linear': no per-node nonlinearity after the layer, so a node "
            "reaches the prediction only through R's column sums, which scale with its q): " + "; ".join(
                f"{n} AUROC {v['auroc_mean']:.2f} (per seed " + ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
                + f"; untrained {v['untrained_auroc_mean']:.2f}; among the runs that learned, {learned_auroc(n, v)})" for n, v in var.items())
            + ". Chosen after seeing seeds 3 and 4 of planted_feature, so it is not an out-of-sample figure"
            + ("" if set(var) >= {"motifs", "planted_feature"} else "; motifs not measured in this run") + ".")


def describe(r: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``r`` alone; its rule in
    ``core.tikhonov_gnn.claims`` decides its status."""
    benchmarks = {k[: -len("_10fold")]: v for k, v in r.items() if k.endswith("_10fold") and set(v) == set(MODELS)}
    out = {"matches_baselines": ("", "No 10-fold run finished in this bench run.") if not benchmarks else (
        "; ".join(f"{name}: {cv['tikhonov']['mean']:.3f} vs GCN {cv['gcn']['mean']:.3f}, GIN {cv['gin']['mean']:.3f}"
                  for name, cv in benchmarks.items()),
        "10-fold cross-validated accuracy (final epoch, no selection on test folds); within 3 points of the best "
        "baseline counts as a match. Tikhonov minus the best baseline: "
        + ", ".join(f"{name} {cv['tikhonov']['mean'] - max(cv['gcn']['mean'], cv['gin']['mean']):+.3f}"
                    for name, cv in benchmarks.items()) + ".")}

    ex = r.get("explanations", {})
    out["faithful_explanations"] = ("", "The explanation runs did not finish in this bench run.") \
        if set(ex) != {"motifs", "planted_feature"} else (
        ", ".join(f"{name} AUROC {v['auroc_mean']:.2f}" for name, v in ex.items()),
        f"Mean AUROC of q for the label-carrying nodes on the held-out graphs over {len(SEEDS)} seeds (goal ≥ "
        f"{AUROC_GOAL}): " + "; ".join(
            f"{n} {v['auroc_mean']:.2f} (min {v['auroc_min']:.2f}, untrained control {v['untrained_auroc_mean']:.2f}, "
            f"test accuracy {np.mean([x['accuracy'] for x in v['runs']]):.2f})" for n, v in ex.items())
        + ". Per seed (AUROC / test accuracy): " + "; ".join(
            f"{n} " + ", ".join(f"{x['auroc']:.2f} / {x['accuracy']:.2f}" for x in v["runs"]) for n, v in ex.items())
        + ". Among the runs that learned (test accuracy >= 0.9): " + "; ".join(learned_auroc(n, v) for n, v in ex.items())
        + "." + within_note(ex)
        + " The layer propagates a linear map of the features (an MLP encoder let the readout ignore q); the motif "
        "classes have the same edge count and degree multiset." + variant_note(r))

    kinds = {name: [x["kind"] for x in v["runs"]] for name, v in r["filters"].items()}
    want = {"sbm_homophilic": "low-pass", "sbm_heterophilic": "high-pass"}
    right = {name: sum(k == want[name] for k in ks) for name, ks in kinds.items() if name in want}
    total = {name: len(ks) for name, ks in kinds.items() if name in want}
    out["filter_reveals_homophily"] = (
        ", ".join(f"{want[n]} on {n[4:]} {right[n]} of {total[n]}" for n in right),
        "The learned polynomial p, classified by its values on the spectrum, against the block models' known "
        "homophily, one fit per seed: " + "; ".join(f"{n[4:]} {', '.join(ks)}" for n, ks in kinds.items()) + ".")

    i = r["identifiability"]
    out["distinct_operators"] = (
        f"normalised explanation recovered from R, error {i['max_relative_recovery_error']:.1e} over {i['draws']} graphs",
        "Judged on the explanation as the abstract reads it: large q_i against the penalty p ('node i's own features "
        "drive the prediction') and the shape of p on the spectrum, which R = (p(L) + Q)^-1 Q only sees up to a common "
        "scale: (c·q, c·p) gives the same R for every c > 0, and p enters only through its values on spec(L). "
        "Normalised (q / c, p|spec / c with c the mean of p on the spectrum), the explanation is recovered from R "
        f"alone with a largest relative error of {i['max_relative_recovery_error']:.1e} over {i['draws']} random "
        f"graphs, and normalised explanations with the same R differ by at most {i['max_normalised_gap_same_R']:.1e}. "
        f"Null: the raw parameters, which the scale symmetry predicts are not identifiable: pairs ≥ "
        f"{i['min_raw_parameter_gap_same_R']:.2f} apart give the same R. Read literally on raw parameters the claim "
        "is false; no reading of the explanation depends on the scale.")

    sm = r["smoothing"]["ba_200"]
    depth = np.array(sm["depth"])
    reach = int(np.flatnonzero(depth >= sm["diameter"])[0])       # the GCN depth that sees the whole graph
    gcn_at_reach, tik_one = sm["gcn"][reach], sm["tikhonov_strength"][sm["strength"].index(1.0)]
    tik_strong = sm["tikhonov_strength"][-1]
    runs = r["long_range"]["runs"]
    far = max(r["long_range"]["distances"])
    acc = {x["model"]: x["test_accuracy"] for x in runs if x["distance"] == far}
    out["long_range"] = (
        f"energy {tik_one:.3f} vs GCN {gcn_at_reach:.3f}; bottleneck {far}: {acc['tikhonov']:.2f} vs GCN "
        f"{acc['gcn']:.2f}, GIN {acc['gin']:.2f}",
        f"Oversmoothing (BA graph, 200 nodes, diameter {sm['diameter']}): one Tikhonov layer (q = 1, p = λ) reaches "
        f"every node with Dirichlet energy {tik_one:.3f} (input {sm['input']:.3f}); a GCN needs depth "
        f"{int(depth[reach])} to reach them and keeps {gcn_at_reach:.3f}; APPNP keeps {sm['appnp'][reach]:.3f}. "
        f"A strong layer (p = {sm['strength'][-1]:g} λ) smooths to {tik_strong:.3f}: the layer can oversmooth too, "
        "it is q against p that decides. Oversquashing: test accuracy reading a value "
        f"{far} hops away through a one-node path, Tikhonov (1 layer) {acc['tikhonov']:.2f}, GCN {acc['gcn']:.2f}, "
        f"GIN {acc['gin']:.2f} (as many layers as hops, at least 3, up to 8); counted as mitigated when the "
        "Tikhonov layer gets ≥ 0.9 and ≥ 10 points above both. Per distance (Tikhonov / GCN / GIN): "
        + "; ".join(f"{d}: " + " / ".join(f"{x['test_accuracy']:.2f}" for m in MODELS for x in runs
                                         if x["distance"] == d and x["model"] == m)
                    for d in r["long_range"]["distances"]) + ".")
    return out


verdicts = judged("tikhonov_gnn", describe, COMMAND)


if __name__ == "__main__":
    sys.exit(main())
