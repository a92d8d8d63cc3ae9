"""tikhonov_gnn at full scale: 10-fold MUTAG for the three models, explanation quality over seeds,
filter shapes on the SBM tasks, shipped checkpoint sizes, and the page's timings.

    python bench/tikhonov_gnn.py   # writes bench/results/tikhonov_gnn.json and .md
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, not_tested, verdict  # noqa: E402
from bench.timing import page_timings  # noqa: E402
from core.common.progress import TqdmProgress  # noqa: E402
from core.tikhonov_gnn import (MODELS, cross_validate, explain, explanation_auroc, load_dataset,  # noqa: E402
                               recommended_config, train)
from core.tikhonov_gnn.ship import ASSETS  # noqa: E402

PAGE = "../pages/tikhonov_gnn.py"
SEEDS = (0, 1, 2, 3, 4)


def mutag_cv() -> dict:
    data = load_dataset("mutag")
    out = {}
    for model in MODELS:
        with TqdmProgress(desc=f"mutag 10-fold {model}", leave=False) as bar:
            t0 = time.perf_counter()
            out[model] = cross_validate(recommended_config("mutag", model=model), data, folds=10, seed=0, progress=bar)
            out[model]["seconds"] = time.perf_counter() - t0
    return out


def explanation_quality(name: str) -> dict:
    rows = []
    for seed in SEEDS:
        data = load_dataset(name, seed=seed)
        result = train(recommended_config(name), data, seed=seed)
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy,
                     "auroc": explanation_auroc(result.model, [data.graphs[i] for i in result.test_index])})
    auroc = np.array([r["auroc"] for r in rows])
    return {"runs": rows, "auroc_mean": float(auroc.mean()), "auroc_min": float(auroc.min()),
            "share_at_least_0.85": float((auroc >= 0.85).mean())}


def filter_shapes(name: str) -> dict:
    rows = []
    for seed in SEEDS[:3]:
        data = load_dataset(name, seed=seed)
        result = train(recommended_config(name), data, seed=seed)
        e = explain(result.model, data.graphs[result.test_index[0]])
        rows.append({"seed": seed, "accuracy": result.final_test_accuracy, "kind": e.kind,
                     "p_at_0_1_2": [float(e.p[0]), float(e.p[len(e.p) // 2]), float(e.p[-1])]})
    return {"runs": rows}


def table(r: dict) -> str:
    lines = ["| MUTAG, 10-fold | mean | std | seconds |", "|---|---|---|---|"]
    lines += [f"| {m} | {v['mean']:.3f} | {v['std']:.3f} | {v['seconds']:.0f} |" for m, v in r["mutag_10fold"].items()]
    lines += ["", "| explanation AUROC of q | mean | min | share >= 0.85 | per seed |", "|---|---|---|---|---|"]
    for name, v in r["explanations"].items():
        per = ", ".join(f"{x['auroc']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {v['auroc_mean']:.3f} | {v['auroc_min']:.3f} | {v['share_at_least_0.85']:.1f} | {per} |")
    lines += ["", "| SBM task | learned filter per seed | test accuracy per seed |", "|---|---|---|"]
    for name, v in r["filters"].items():
        kinds = ", ".join(x["kind"] for x in v["runs"])
        accs = ", ".join(f"{x['accuracy']:.2f}" for x in v["runs"])
        lines.append(f"| {name} | {kinds} | {accs} |")
    lines += ["", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r["page"].items()]
    lines += ["", f"Shipped checkpoints: {', '.join(f'{k} {v / 1024:.0f} kB' for k, v in r['checkpoint_bytes'].items())}."]
    return "\n".join(lines) + "\n"


def main() -> int:
    t0 = time.perf_counter()
    r = {"mutag_10fold": mutag_cv(),
         "explanations": {name: explanation_quality(name) for name in ("motifs", "planted_feature")},
         "filters": {name: filter_shapes(name) for name in ("sbm_homophilic", "sbm_heterophilic")},
         "checkpoint_bytes": {p.name: sum(f.stat().st_size for f in p.iterdir()) for p in sorted(ASSETS.iterdir())},
         "page": page_timings(PAGE)}
    r["seconds"] = time.perf_counter() - t0
    cv = r["mutag_10fold"]
    r["checks"] = {
        "tikhonov_within_3_points_of_gin": cv["tikhonov"]["mean"] >= cv["gin"]["mean"] - 0.03,
        "motif_auroc_mean_at_least_0.85": r["explanations"]["motifs"]["auroc_mean"] >= 0.85,
        "homophilic_low_pass": all(x["kind"] == "low-pass" for x in r["filters"]["sbm_homophilic"]["runs"]),
        "heterophilic_high_pass": all(x["kind"] == "high-pass" for x in r["filters"]["sbm_heterophilic"]["runs"]),
        "checkpoints_under_2MB": all(v < 2 * 1024 * 1024 for v in r["checkpoint_bytes"].values()),
        "first_view_under_2s": r["page"]["first_view_warm"]["median_s"] < 2.0,
    }
    return write_results("tikhonov_gnn", r, table(r), verdicts=verdicts)



COMMAND = "python bench/tikhonov_gnn.py"
AUROC_GOAL = 0.85


def verdicts(r: dict) -> list:
    """One verdict per claim in ``core.tikhonov_gnn.CLAIMS``, from the numbers in ``r`` alone."""
    benchmarks = {k[: -len("_10fold")]: v for k, v in r.items() if k.endswith("_10fold")}
    matched = {name: cv["tikhonov"]["mean"] >= max(cv["gcn"]["mean"], cv["gin"]["mean"]) - 0.03
               for name, cv in benchmarks.items()}
    figure = "; ".join(f"{name.upper()}: {cv['tikhonov']['mean']:.3f} vs GCN {cv['gcn']['mean']:.3f}, GIN "
                       f"{cv['gin']['mean']:.3f}" for name, cv in benchmarks.items())
    status = (REPRODUCED if len(matched) >= 2 else PARTLY) if all(matched.values()) else \
        PARTLY if any(matched.values()) else NOT_REPRODUCED
    out = [verdict("matches_baselines", status, figure,
                   "10-fold cross-validated accuracy, within 3 points of the best baseline counts as a match. "
                   + ("" if len(benchmarks) >= 2 else f"Only {len(benchmarks)} benchmark, where the paper claims "
                      "several."), command=COMMAND)]
    auroc = {name: v["auroc_mean"] for name, v in r["explanations"].items()}
    found = [name for name, a in auroc.items() if a >= AUROC_GOAL]
    out.append(verdict("faithful_explanations",
                       REPRODUCED if len(found) == len(auroc) else PARTLY if found else NOT_REPRODUCED,
                       ", ".join(f"{name} AUROC {a:.2f}" for name, a in auroc.items()),
                       f"Mean AUROC of q for the label-carrying nodes over {len(SEEDS)} seeds (goal ≥ {AUROC_GOAL}): "
                       + "; ".join(f"{name} {v['auroc_mean']:.2f} (min {v['auroc_min']:.2f})"
                                   for name, v in r["explanations"].items())
                       + "." + (f" Below the goal: {', '.join(sorted(set(auroc) - set(found)))}." if len(found) < len(auroc)
                                else "") + " The motif classes differ in edge count (26 against 25), a confound that "
                       "a structure-free model can read (issue 22).", command=COMMAND))
    kinds = {name: [x["kind"] for x in v["runs"]] for name, v in r["filters"].items()}
    want = {"sbm_homophilic": "low-pass", "sbm_heterophilic": "high-pass"}
    right = {name: sum(k == want[name] for k in ks) for name, ks in kinds.items() if name in want}
    total = {name: len(ks) for name, ks in kinds.items() if name in want}
    out.append(verdict("filter_reveals_homophily", REPRODUCED if right == total else
                       PARTLY if any(right.values()) else NOT_REPRODUCED,
                       ", ".join(f"{want[n]} on {n[4:]} {right[n]} of {total[n]}" for n in right),
                       "The learned polynomial p, classified by its values on the spectrum, against the block "
                       "models' known homophily, one fit per seed.", command=COMMAND))
    out.append(not_tested("distinct_operators", "No bench checks it. As built, (c·q, c·θ) gives the same R for any "
                          "c > 0, so the claim cannot hold before the scale is normalised (issue 22)."))
    out.append(not_tested("long_range", "No bench measures oversmoothing (Dirichlet energy) or oversquashing "
                          "(a long-range task) yet (issue 22)."))
    return out


if __name__ == "__main__":
    sys.exit(main())
