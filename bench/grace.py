"""grace: GRACE against SpLiCE, TextSpan and a TopK SAE on held-out scenes and clips.

Every method at matched sparsity (see core/grace/compare.py), every metric, for images and for
clips; GRACE with its geometry term switched off (the ablation); the live refit's time next to an
anchor (one SpLiCE encoding of the same held-out set); the page's first view.

    python bench/grace.py   # writes bench/results/grace.json and .md (~3 minutes)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, verdict  # noqa: E402
from bench.timing import page_timings  # noqa: E402
from core.grace import load_model  # noqa: E402
from core.grace.compare import compare  # noqa: E402
from core.grace.metrics import triplet_outcomes  # noqa: E402
from core.grace.refit import refit_curve  # noqa: E402
from core.grace.train_clip import evaluate  # noqa: E402

COLUMNS = ["L0", "reconstruction cosine (centred)", "reconstruction cosine", "trustworthiness", "triplet agreement",
           "similarity Spearman", "concept-attribute agreement", "distractor share", "zero-shot (mean)"]


def paired_triplets(result, resamples: int = 2000) -> dict:
    """GRACE − SpLiCE triplet agreement on the same 20,000 triplets, with a paired bootstrap 95% CI."""
    attrs = result.test.scenes.attributes
    grace, splice = (triplet_outcomes(result.decompositions[m].encode(result.test.embeddings), attrs)
                     for m in ("GRACE", "SpLiCE"))
    diff = grace.astype(float) - splice.astype(float)
    rng = np.random.default_rng(0)
    boot = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(resamples)]
    return {"difference": float(diff.mean()), "ci95": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))],
            "grace_only_right": int(((grace) & (~splice)).sum()), "splice_only_right": int(((~grace) & splice).sum()),
            "triplets": int(len(diff))}


def main() -> int:
    t0 = time.perf_counter()
    model = load_model()
    r = {"clip_zero_shot_heldout": evaluate(model, n=1000, seed=4242), "tables": {}}
    results = {}
    for kind, video in (("image", False), ("video", True)):
        result = results[kind] = compare(model, video=video)
        r["tables"][kind] = result.table
        r.setdefault("triplet_difference_grace_minus_splice", {})[kind] = paired_triplets(result)
    ablation = compare(model, grace_kwargs={"geometry": 0.0})
    r["tables"]["image, GRACE without geometry term (others matched to it)"] = ablation.table
    start = time.perf_counter()
    images = results["image"]
    compare_anchor = images.decompositions["SpLiCE"].encode(images.test.embeddings)
    anchor = time.perf_counter() - start
    start = time.perf_counter()
    refit_curve(geometry=1.0, model=model)
    refit = time.perf_counter() - start
    r["refit"] = {"seconds": refit, "anchor_splice_encode_s": anchor, "ratio_to_anchor": refit / anchor,
                  "anchor_codes": int(compare_anchor.shape[0])}
    r["page"] = page_timings("../pages/grace.py")
    r["seconds"] = time.perf_counter() - t0
    rows = {row["method"]: row for row in r["tables"]["image"]}
    g, s, raw = rows["GRACE"], rows["SpLiCE"], rows["raw embeddings"]
    r["checks"] = {
        "clip_colour_shape_at_least_0.9": min(r["clip_zero_shot_heldout"]["image/colour"],
                                              r["clip_zero_shot_heldout"]["image/shape"]) >= 0.9,
        "grace_agreement_at_least_0.8": g["concept-attribute agreement"] >= 0.8,
        "grace_trustworthiness_above_splice": g["trustworthiness"] > s["trustworthiness"],
        "grace_triplets_above_splice": g["triplet agreement"] > s["triplet agreement"],
        "grace_zero_shot_keeps_90pct": g["zero-shot (mean)"] >= 0.9 * raw["zero-shot (mean)"],
        "refit_under_30s": refit < 30,
        "first_view_under_2s": r["page"]["first_view_warm"]["median_s"] < 2.0,
    }
    return write_results("grace", r, table(r), verdicts=verdicts)


def analysis(r: dict) -> list:
    """Plain sentences on where the numbers agree with the paper's claim and where they do not."""
    rows = {row["method"]: row for row in r["tables"]["image"]}
    ablation = {row["method"]: row for row in r["tables"]["image, GRACE without geometry term (others matched to it)"]}
    g, s = rows["GRACE"], rows["SpLiCE"]
    out = [f"- Trustworthiness: GRACE {g['trustworthiness']:.4f} vs SpLiCE {s['trustworthiness']:.4f} at matched "
           f"sparsity. Without its geometry term GRACE gets {ablation['GRACE']['trustworthiness']:.4f} against "
           f"SpLiCE's {ablation['SpLiCE']['trustworthiness']:.4f} (matched to that fit's L0 "
           f"{ablation['GRACE']['L0']:.1f}), so the advantage comes from the geometry term.",
           triplet_sentence(g, s, r["triplet_difference_grace_minus_splice"]["image"])]
    why = {"reconstruction cosine (centred)": "a per-sample optimum fits each embedding more closely than one "
                                              "global map can",
           "distractor share": "GRACE's global encoder leaks some mass onto untrained distractor words, which a "
                               "per-sample Lasso more often zeroes"}
    for metric, better in (("reconstruction cosine (centred)", "higher"), ("distractor share", "lower")):
        gv, sv = g[metric], s[metric]
        if (sv > gv) == (better == "higher"):
            out.append(f"- Against the claim's spirit: SpLiCE is better on {metric} ({sv:.3f} vs GRACE {gv:.3f}; "
                       f"{better} is better): {why[metric]}.")
    return out


def triplet_sentence(g: dict, s: dict, paired: dict) -> str:
    low, high = paired["ci95"]
    verdict = ("GRACE is ahead and the paired 95% CI excludes 0" if low > 0 else
               "SpLiCE is ahead and the paired 95% CI excludes 0" if high < 0 else "the paired 95% CI includes 0: a tie")
    return (f"- Triplets: both are near the ceiling on this synthetic world (GRACE {g['triplet agreement']:.4f}, "
            f"SpLiCE {s['triplet agreement']:.4f}); {verdict}.")


def table(r: dict) -> str:
    lines = ["| held-out zero-shot (small CLIP) | " + " | ".join(r["clip_zero_shot_heldout"]) + " |",
             "|---|" + "---|" * len(r["clip_zero_shot_heldout"]),
             "| accuracy | " + " | ".join(f"{v:.3f}" for v in r["clip_zero_shot_heldout"].values()) + " |", ""]
    for kind, rows in r["tables"].items():
        lines += [f"**{kind}**", "", "| method | " + " | ".join(COLUMNS) + " |", "|---|" + "---|" * len(COLUMNS)]
        for row in rows:
            cells = [f"{row[c]:.3f}" if c in row else "–" for c in COLUMNS]
            lines.append(f"| {row['method']} | " + " | ".join(cells) + " |")
        lines.append("")
    for kind, d in r["triplet_difference_grace_minus_splice"].items():
        lines += [f"Triplets, {kind}s: GRACE − SpLiCE = {d['difference']:+.4f} (paired bootstrap 95% CI "
                  f"{d['ci95'][0]:+.4f} … {d['ci95'][1]:+.4f}; {d['grace_only_right']} triplets only GRACE orders "
                  f"right, {d['splice_only_right']} only SpLiCE, of {d['triplets']}).", ""]
    f = r["refit"]
    lines += [f"Live refit (3 GRACE fits + embedding 3,000 scenes): {f['seconds']:.1f} s "
              f"({f['ratio_to_anchor']:.0f}× one SpLiCE encoding of the 1,000 held-out images, {f['anchor_splice_encode_s']:.2f} s).",
              "", "| page timing | median (s) | ratio to anchor |", "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r["page"].items()]
    lines += ["", "The cold first view (a fresh process opening this page directly) pays for importing torch and "
              "transformers' CLIP; the app imports them in the background while the home page is read.",
              "", "**Analysis**", "", *analysis(r)]
    return "\n".join(lines) + "\n"



COMMAND = "python bench/grace.py"
CEILING = 0.99   # a score at or above this on both sides cannot tell methods apart
CONTROLS = ("no fitting", "shuffled labels")   # rows a future bench adds to every table


def verdicts(r: dict) -> list:
    """One verdict per claim in ``core.grace.CLAIMS``, from the numbers in ``r`` alone.

    A claim is ``reproduced`` only if GRACE beats its baselines and its controls (the no-fitting
    ReLU(z·Dᵀ) decomposition, a shuffled-label dictionary) on the measure, below the ceiling.
    """
    tables = {kind: {row["method"]: row for row in rows} for kind, rows in r["tables"].items()}
    main = [k for k in ("image", "video") if k in tables]
    controls = [c for c in CONTROLS if all(c in tables[k] for k in main)]
    no_controls = "" if controls else " The bench has no controls (no fitting, shuffled labels); an independent " \
        "check found the no-fitting ReLU(z·Dᵀ) at 0.999 agreement and 0.9956 triplets (issue 24), so a high score " \
        "here is not evidence by itself."

    def beats_controls(metric: str) -> bool:
        return bool(controls) and all(tables[k]["GRACE"][metric] > tables[k][c][metric] for k in main for c in controls)

    def at_ceiling(metric: str) -> bool:
        return all(tables[k]["GRACE"][metric] >= CEILING and tables[k]["SpLiCE"][metric] >= CEILING for k in main)

    metric = "concept-attribute agreement"
    agree = {k: (tables[k]["GRACE"][metric], tables[k]["SpLiCE"][metric]) for k in main}
    high = all(g >= 0.8 for g, _ in agree.values())
    status = NOT_REPRODUCED if not high else REPRODUCED if beats_controls(metric) and not at_ceiling(metric) else PARTLY
    out = [verdict("human_aligned", status, ", ".join(f"{k} {g:.3f} (SpLiCE {s:.3f})" for k, (g, s) in agree.items()),
                   "Share of each scene's true attributes among the top concepts, GRACE against SpLiCE. "
                   + ("Both are at the ceiling, so the measure cannot tell them apart. " if at_ceiling(metric) else "")
                   + no_controls.strip(), command=COMMAND)]
    ablation = {row["method"]: row for row in r["tables"].get("image, GRACE without geometry term (others matched "
                                                                "to it)", [])}
    g, s = tables["image"]["GRACE"]["trustworthiness"], tables["image"]["SpLiCE"]["trustworthiness"]
    a = ablation.get("GRACE", {}).get("trustworthiness", float("nan"))
    a_splice = ablation.get("SpLiCE", {}).get("trustworthiness", float("nan"))
    ahead = g > s and g > a
    out.append(verdict("geometry_preserving", REPRODUCED if ahead and not no_controls else PARTLY if ahead
                       else NOT_REPRODUCED, f"trustworthiness {g:.4f} vs SpLiCE {s:.4f}, without the geometry term {a:.4f}",
                       f"At matched sparsity GRACE's codes keep neighbourhoods better than SpLiCE's and than GRACE "
                       f"without its geometry term ({a:.4f}, against SpLiCE's {a_splice:.4f} at that fit's sparsity), so "
                       "the term is what helps. All are above 0.99: the margin is small on this synthetic world."
                       + no_controls, command=COMMAND))
    tri = r["triplet_difference_grace_minus_splice"]
    excludes = all(d["ci95"][0] > 0 for d in tri.values())
    out.append(verdict("global_structure", (PARTLY if at_ceiling("triplet agreement") or no_controls else REPRODUCED)
                       if excludes else NOT_REPRODUCED,
                       ", ".join(f"{k} {d['difference']:+.4f} [{d['ci95'][0]:+.4f}, {d['ci95'][1]:+.4f}]"
                                 for k, d in tri.items()),
                       "Triplet agreement, GRACE minus SpLiCE, paired bootstrap 95% intervals: positive and excluding "
                       "0, but both methods are near the ceiling (" + ", ".join(
                           f"{k} {tables[k]['GRACE']['triplet agreement']:.3f} vs "
                           f"{tables[k]['SpLiCE']['triplet agreement']:.3f}" for k in main) + ")." + no_controls,
                       command=COMMAND))
    zs = {k: (tables[k]["GRACE"]["zero-shot (mean)"], tables[k]["raw embeddings"]["zero-shot (mean)"]) for k in main}
    keeps = all(g >= 0.9 * raw for g, raw in zs.values())
    saturated = all(raw >= CEILING for _, raw in zs.values())
    out.append(verdict("preserves_performance", (PARTLY if saturated else REPRODUCED) if keeps else NOT_REPRODUCED,
                       ", ".join(f"{k} {g:.3f} of raw {raw:.3f}" for k, (g, raw) in zs.items()),
                       "Zero-shot accuracy from the reconstructed embeddings against the raw ones. " +
                       ("The raw model is at the ceiling, so a loss of performance could not show here."
                        if saturated else ""), command=COMMAND))
    return out


if __name__ == "__main__":
    sys.exit(main())
