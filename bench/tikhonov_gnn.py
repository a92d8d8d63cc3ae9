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
    return write_results("tikhonov_gnn", r, table(r))


if __name__ == "__main__":
    sys.exit(main())
