"""grace: GRACE against SpLiCE, TextSpan, a TopK SAE and three controls, over seeds, on the harder world.

Every method at matched sparsity (see core/grace/compare.py), every metric, for images and for
clips, each on several independent replicates (fresh fit scenes, test scenes and method seeds,
derived from ``BASE_SEED``); the controls (core/grace/controls.py: no fitting, the zero-shot
classifier ReLU(z·Dᵀ), a reference; shuffled concept labels and a random dictionary at GRACE's L0,
the nulls) are rows of every table. Transfers (core/grace/transfer.py): every image replicate's maps
read the paired clip replicate's held-out clips, and maps fitted on one family of scenes read the
other, each against GRACE fitted on the target. GRACE without its geometry term (the ablation) on the
same replicates; the live refit's time next to an anchor (one SpLiCE encoding of the same held-out
set); the page's first view; the fit-set trend from the ``scale`` sweep's cells.

Intervals: for every metric, the difference GRACE − other per replicate, with a Student-t 95%
interval over replicates; for the per-scene metrics also a paired bootstrap over held-out scenes,
resampled within each replicate (2,000 resamples).

    python bench/grace.py             # writes bench/results/grace.json and .md (~8 minutes on 2 cores)
    python bench/grace.py --no-page   # the same without the page timings
    python -m bench.run grace --grid scale     # the fit-set trend of GRACE − SpLiCE (24 cells, ~5 minutes)
    python bench/grace.py --scale-trend        # reads those cells (running any not finished) into the results
    python bench/grace.py --verdicts           # re-derives the verdicts from the stored numbers
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, rederive_verdicts, stored_results, write_results  # noqa: E402
from bench.timing import page_timings  # noqa: E402
from core.common.seeding import derive_rng  # noqa: E402
from core.grace import load_model  # noqa: E402
from core.grace.claims import HEADLINE, TRANSFERS, null_gap  # noqa: E402
from core.grace.compare import (METHODS, NAMED, NULLS, PER_SCENE, REFERENCE, compare, compare_seeds,  # noqa: E402
                                replicate_seeds, t_interval)
from core.grace.refit import refit_curve  # noqa: E402
from core.grace.scenes import ATTRIBUTES  # noqa: E402
from core.grace.train_clip import evaluate  # noqa: E402
from core.grace.transfer import FAMILIES, IN_DOMAIN, SHARED, family_transfer, transfer_hits  # noqa: E402

KEY = "grace"
COMMAND = "python bench/grace.py"
BASE_SEED = 2026
REPLICATES = {"image": 5, "video": 5}
SIZES = {"image": (1000, 600), "video": (600, 400)}       # (fit, held-out) scenes per replicate
ABLATION_REPLICATES = 3
CEILING = 0.99   # a score at or above this on both sides cannot tell methods apart
INFORMATIVE = 0.5   # raw zero-shot (mean over attributes; chance about 0.21) below this: little to preserve
COLUMNS = ["L0", "reconstruction cosine (centred)", "trustworthiness", "triplet agreement", "similarity Spearman",
           "concept-attribute agreement", "object recall (main)", "object recall (clutter)", "top-K precision",
           "retrieval P@50", "texture neighbours", "distractor share", "zero-shot (mean)", "zero-shot (scenes permuted)"]
ABLATION = "image, GRACE without geometry term"


def scene_bootstrap(runs, metric: str, other: str, method: str = "GRACE", resamples: int = 2000) -> list:
    """95% paired bootstrap interval of mean(method − other) on ``metric``, scenes resampled within replicates."""
    diffs = [run.outcomes[method][metric] - run.outcomes[other][metric] for run in runs]
    return paired_bootstrap(diffs, derive_rng(BASE_SEED, "bootstrap", metric, other), resamples)


def paired_bootstrap(diffs, rng, resamples: int = 2000) -> list:
    """95% bootstrap interval of the mean over replicates of each replicate's mean per-scene difference, scenes
    resampled within replicates."""
    boot = np.mean([[d[rng.integers(0, len(d), len(d))].mean() for d in diffs] for _ in range(resamples)], axis=1)
    return [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]


def summarise(sc, others=None) -> dict:
    """Every method's metrics over replicates and GRACE − other with intervals."""
    methods = [m for m in METHODS if all(m in run.outcomes for run in sc.runs)]
    metrics = COLUMNS + ["zero-shot (mean)"]
    out = {"seeds": [run.seeds for run in sc.runs], "methods": sc.summary(metrics, methods),
           "raw embeddings": sc.summary(["zero-shot (mean)", "texture neighbours"], ["raw embeddings"])["raw embeddings"],
           "differences": {}}
    for other in others or [m for m in methods if m != "GRACE"]:
        out["differences"][other] = {}
        for metric in metrics:
            d = sc.difference(metric, other)
            row = {"mean": float(d.mean()), "sd": float(d.std(ddof=1)) if len(d) > 1 else 0.0,
                   "ci95_seeds": t_interval(d), "values": d.tolist()}
            if metric in PER_SCENE:
                row["ci95_scenes"] = scene_bootstrap(sc.runs, metric, other)
            out["differences"][other][metric] = row
    return out


def transfer(image_runs, video_runs) -> dict:
    """Image replicate r's maps on clip replicate r's held-out clips (shape, colour, size), against the clips' own
    GRACE."""
    hits = [transfer_hits({**src.decompositions, IN_DOMAIN: dst.decompositions["GRACE"]}, dst.test.embeddings,
                          dst.test.scenes.attributes) for src, dst in zip(image_runs.runs, video_runs.runs)]
    return transfer_summary(hits, "images", "clips", SHARED)


def family_transfers(model) -> dict:
    """Per image replicate (the bench's seeds, its sizes), maps fitted on one family of scenes read on the other."""
    n_fit, n_test = SIZES["image"]
    hits = [family_transfer(model, n_fit, n_test, seeds) for seeds in replicate_seeds(BASE_SEED, REPLICATES["image"])]
    return transfer_summary(hits, "main object " + "/".join(FAMILIES[0]), "main object " + "/".join(FAMILIES[1]),
                            tuple(ATTRIBUTES))


def transfer_summary(hits: list, source: str, target: str, attributes) -> dict:
    """Per method the mean hit rate per replicate, and GRACE − other (and each null − SpLiCE) with t and
    scene-bootstrap intervals, from each replicate's ``{method: per-scene hits}``."""
    methods = [m for m in hits[0] if all(m in h for h in hits)]
    out = {"from": source, "to": target, "attributes": list(attributes),
           "methods": {m: {"values": [float(h[m].mean()) for h in hits]} for m in methods}, "differences": {}}
    for m in methods:
        out["methods"][m]["mean"] = float(np.mean(out["methods"][m]["values"]))
    pairs = [("GRACE", o) for o in methods if o != "GRACE"] + [(n, "SpLiCE") for n in NULLS if n in methods]
    for a, b in pairs:
        d = np.array([h[a].mean() - h[b].mean() for h in hits])
        out["differences"].setdefault(a, {})[b] = {
            "mean": float(d.mean()), "values": d.tolist(), "ci95_seeds": t_interval(d),
            "ci95_scenes": paired_bootstrap([h[a] - h[b] for h in hits], derive_rng(BASE_SEED, "transfer", source, a, b))}
    return out


SWEEP_GRIDS = ("small", "scale")
FIT_SIZES = (250, 1000, 4000, 16000)   # the trend's scales: fit scenes per replicate (held-out sets as in SIZES)
TREND_REPLICATES = 3


def sweep(grid: str) -> list:
    """Cells of the fit-set trend: one replicate of one kind (images or clips) at one fit-set size, every method
    at matched sparsity; ``small``: one cell of 60 fit and 40 held-out images, 20 GRACE steps."""
    from bench.run import Cell

    if grid == "small":
        return [Cell("image-fit60-r0", {"kind": "image", "n_fit": 60, "n_test": 40, "replicate": 0, "steps": 20},
                     BASE_SEED)]
    if grid != "scale":
        raise ValueError(f"grid: {grid!r} is not a grid of grace; allowed {', '.join(SWEEP_GRIDS)}")
    return [Cell(f"{kind}-fit{n}-r{rep}", {"kind": kind, "n_fit": n, "n_test": SIZES[kind][1], "replicate": rep,
                                           "steps": None}, BASE_SEED)
            for kind in REPLICATES for n in FIT_SIZES for rep in range(TREND_REPLICATES)]


def run_cell(cell):
    """One replicate of the comparison at the cell's fit-set size, seeds from ``replicate_seeds`` as the bench's
    own replicates: every method's named measures and L0."""
    import torch

    from bench.run import CellOutput

    torch.set_num_threads(1)
    p = cell.params
    t = time.perf_counter()
    seeds = replicate_seeds(cell.seed, p["replicate"] + 1)[p["replicate"]]
    run = compare(load_model(), p["n_fit"], p["n_test"], video=p["kind"] == "video",
                  grace_kwargs={"steps": p["steps"]} if p["steps"] else None, seed=seeds["method"],
                  fit_seed=seeds["fit"], test_seed=seeds["test"])
    rows = {row["method"]: row for row in run.table if row["method"] != "raw embeddings"}
    values = {**p, "seeds": seeds, "methods": {m: {k: row[k] for k in ("L0", *NAMED)} for m, row in rows.items()}}
    return CellOutput(values=values, measured={"seconds": time.perf_counter() - t})


def scale_trend(values: list) -> dict:
    """The finished cells of the ``scale`` grid, per kind and fit-set size: GRACE − SpLiCE and GRACE − the zero-shot
    classifier on every named measure (mean and t 95% over replicates), and the two L0s."""
    rows = []
    for kind in REPLICATES:
        for n in sorted({v["n_fit"] for v in values if v["kind"] == kind}):
            cells = [v["methods"] for v in values if v["kind"] == kind and v["n_fit"] == n]
            row = {"kind": kind, "n_fit": n, "replicates": len(cells),
                   "L0": {m: float(np.mean([c[m]["L0"] for c in cells])) for m in ("GRACE", "SpLiCE")}}
            for other in ("SpLiCE", REFERENCE):
                row[f"GRACE - {other}"] = {
                    metric: {"mean": float(np.mean(d)), "ci95_seeds": t_interval(d)} for metric in NAMED
                    for d in [np.array([c["GRACE"][metric] - c[other][metric] for c in cells])]}
            rows.append(row)
    return {"fit_sizes": list(FIT_SIZES), "rows": rows,
            "command": "python -m bench.run grace --grid scale; python bench/grace.py --scale-trend"}


def sweep_trend() -> dict:
    """:func:`scale_trend` of the ``scale`` grid's cells, running any not finished (``python -m bench.run``)."""
    from bench.run import sweep_values

    return scale_trend(sweep_values(KEY, "scale")[0])


def main() -> int:
    if "--verdicts" in sys.argv[1:]:
        return rederive_verdicts(KEY, table, verdicts)
    if "--scale-trend" in sys.argv[1:]:
        return rederive_verdicts(KEY, table, verdicts, scale_trend=sweep_trend())
    t0 = time.perf_counter()
    model = load_model()
    r = {"clip_zero_shot_heldout": evaluate(model, n=1000, seed=4242), "base_seed": BASE_SEED,
         "replicates": dict(REPLICATES), "sizes": {k: list(v) for k, v in SIZES.items()}, "summaries": {}}
    runs = {}
    for kind, reps in REPLICATES.items():
        n_fit, n_test = SIZES[kind]
        runs[kind] = compare_seeds(model, replicates=reps, base_seed=BASE_SEED, n_fit=n_fit, n_test=n_test,
                                   video=kind == "video", random_control=True)
        r["summaries"][kind] = summarise(runs[kind])
        print(kind, f"{time.perf_counter() - t0:.0f}s", flush=True)
    r["transfer"] = transfer(runs["image"], runs["video"])
    r["family_transfer"] = family_transfers(model)
    print("transfers", f"{time.perf_counter() - t0:.0f}s", flush=True)
    ablation = compare_seeds(model, replicates=ABLATION_REPLICATES, base_seed=BASE_SEED, n_fit=SIZES["image"][0],
                             n_test=SIZES["image"][1], grace_kwargs={"geometry": 0.0})
    paired = runs["image"].runs[:ABLATION_REPLICATES]
    r["summaries"][ABLATION] = summarise(ablation, others=["SpLiCE", "no fitting"])
    gap = [{x["method"]: x for x in a.table}["GRACE"]["trustworthiness"]
           - {x["method"]: x for x in b.table}["GRACE"]["trustworthiness"] for a, b in zip(paired, ablation.runs)]
    r["geometry_term_trustworthiness_gain"] = {"values": gap, "mean": float(np.mean(gap)), "ci95_seeds": t_interval(gap)}
    start = time.perf_counter()
    first = runs["image"].runs[0]
    first.decompositions["SpLiCE"].encode(first.test.embeddings)
    anchor = time.perf_counter() - start
    start = time.perf_counter()
    refit_curve(geometry=1.0, model=model)
    refit = time.perf_counter() - start
    r["refit"] = {"seconds": refit, "anchor_splice_encode_s": anchor, "ratio_to_anchor": refit / anchor}
    # The sweep's trend (human_aligned's diagnosis) is kept across reruns; a fresh checkout runs its cells.
    r["scale_trend"] = stored_results(KEY).get("scale_trend") or sweep_trend()
    if "--no-page" not in sys.argv:
        r["page"] = page_timings("../pages/grace.py")
    r["seconds"] = time.perf_counter() - t0
    return write_results("grace", r, table(r), verdicts=verdicts)


def cell(summary: dict, method: str, metric: str) -> str:
    s = summary["methods"].get(method, {}).get(metric) if method != "raw embeddings" else \
        summary["raw embeddings"].get(metric)
    if s is None or not np.isfinite(s["mean"]):
        return "–"
    return f"{s['mean']:.3f} ± {s['sd']:.3f}"


def table(r: dict) -> str:
    z = r["clip_zero_shot_heldout"]
    lines = ["| held-out zero-shot (small CLIP) | " + " | ".join(z) + " |", "|---|" + "---|" * len(z),
             "| accuracy | " + " | ".join(f"{v:.3f}" for v in z.values()) + " |", "",
             "Each cell: mean ± sd over replicates (" + ", ".join(
                 f"{k}s {n} replicates of {r['sizes'][k][0]} fit / {r['sizes'][k][1]} held-out scenes"
                 for k, n in r["replicates"].items()) + f"; ablation {ABLATION_REPLICATES}; seeds derived from "
             f"{r['base_seed']}).", ""]
    for kind, summary in r["summaries"].items():
        methods = ["raw embeddings", *summary["methods"]]
        lines += [f"**{kind}**", "", "| method | " + " | ".join(COLUMNS) + " |", "|---|" + "---|" * len(COLUMNS)]
        lines += [f"| {m} | " + " | ".join(cell(summary, m, c) for c in COLUMNS) + " |" for m in methods]
        lines.append("")
    for kind in REPLICATES:
        diffs = r["summaries"][kind]["differences"]
        lines += [f"**GRACE minus each other row, {kind}s** (mean, t 95% over replicates; [scene bootstrap 95%])", "",
                  "| other | " + " | ".join(DIFF_METRICS) + " |", "|---|" + "---|" * len(DIFF_METRICS)]
        for other, d in diffs.items():
            lines.append(f"| {other} | " + " | ".join(diff_cell(d[m]) for m in DIFF_METRICS) + " |")
        lines.append("")
    for name in ("transfer", "family_transfer"):
        if name not in r:
            continue
        t = r[name]
        lines += [f"**Transfer, maps fitted on {t['from']} read on {t['to']}** (attribute agreement on "
                  f"{', '.join(t['attributes'])}; mean over replicates)", "", "| method | agreement | minus | "
                  "difference (t 95% over replicates) [scene bootstrap 95%] |", "|---|---|---|---|"]
        for m, v in t["methods"].items():
            for other, d in t["differences"].get(m, {}).items():
                lines.append(f"| {m} | {v['mean']:.3f} | {other} | {diff_cell(d)} |")
            if m not in t["differences"]:
                lines.append(f"| {m} | {v['mean']:.3f} | | |")
        lines.append("")
    if "scale_trend" in r:
        lines += ["**Fit-set trend** (GRACE − SpLiCE, mean (t 95% over replicates); `" + r["scale_trend"]["command"]
                  + "`)", "", "| kind | fit scenes | L0 GRACE / SpLiCE | " + " | ".join(NAMED) + " |",
                  "|---|---|---|" + "---|" * len(NAMED)]
        for row in r["scale_trend"]["rows"]:
            lines.append(f"| {row['kind']} | {row['n_fit']} | {row['L0']['GRACE']:.1f} / {row['L0']['SpLiCE']:.1f} | "
                         + " | ".join(diff_cell(row["GRACE - SpLiCE"][m]) for m in NAMED) + " |")
        lines.append("")
    g = r["geometry_term_trustworthiness_gain"]
    lines += [f"Geometry term: trustworthiness GRACE − GRACE(γ = 0) on the same replicates {g['mean']:+.4f} "
              f"(t 95% {g['ci95_seeds'][0]:+.4f} … {g['ci95_seeds'][1]:+.4f}).", ""]
    f = r["refit"]
    lines += [f"Live refit (3 GRACE fits + embedding 3,000 scenes): {f['seconds']:.1f} s "
              f"({f['ratio_to_anchor']:.0f}× one SpLiCE encoding of the 1,000 held-out images, "
              f"{f['anchor_splice_encode_s']:.2f} s).", "", "| page timing | median (s) | ratio to anchor |",
              "|---|---|---|"]
    lines += [f"| {k} | {v['median_s']:.3f} | {v.get('ratio_to_anchor', 1.0):.2f} |" for k, v in r.get("page", {}).items()]
    if "page" not in r:
        lines.append("| (not timed: run without --no-page) | – | – |")
    return "\n".join(lines) + "\n"


DIFF_METRICS = ["trustworthiness", "triplet agreement", "concept-attribute agreement", "object recall (main)",
                "top-K precision", "retrieval P@50", "texture neighbours", "zero-shot (mean)"]


def diff_cell(d: dict) -> str:
    lo, hi = d["ci95_seeds"]
    text = f"{d['mean']:+.3f} ({lo:+.3f}, {hi:+.3f})"
    if "ci95_scenes" in d:
        text += f" [{d['ci95_scenes'][0]:+.3f}, {d['ci95_scenes'][1]:+.3f}]"
    return text


def describe(r: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``r`` alone; its rule in ``core.grace.claims``
    decides its status: ``reproduced`` only where GRACE is ahead of its controls and the named baseline with
    intervals that exclude zero, in images and in clips; a measure the controls pass as well as GRACE does is
    no evidence."""
    kinds = [k for k in REPLICATES if k in r["summaries"]]
    s = {k: r["summaries"][k] for k in kinds}

    def mean(kind, method, metric):
        return s[kind]["methods"][method][metric]["mean"]

    def diff(kind, other, metric):
        return s[kind]["differences"][other][metric]

    def gaps(others, metrics):
        return "; ".join(f"{k} {m}: " + ", ".join(f"− {o} {diff_cell(diff(k, o, m))}" for o in others)
                         for m in metrics for k in kinds)

    def share(kind, metric):
        return mean(kind, "GRACE", metric) / mean(kind, REFERENCE, metric)

    figure = "; ".join(
        f"{k}: attribute agreement GRACE {mean(k, 'GRACE', 'concept-attribute agreement'):.3f}, nulls: shuffled labels "
        f"{mean(k, 'shuffled labels', 'concept-attribute agreement'):.3f}, random dictionary "
        f"{mean(k, 'random dictionary', 'concept-attribute agreement'):.3f}; SpLiCE "
        f"{mean(k, 'SpLiCE', 'concept-attribute agreement'):.3f}; the zero-shot classifier (no fitting) "
        f"{mean(k, REFERENCE, 'concept-attribute agreement'):.3f}, which GRACE reaches to "
        + ", ".join(f"{share(k, m):.0%}" for m in HEADLINE) + " on the headline measures" for k in kinds)
    detail = ("Named-concept measures (attribute agreement, per-object recall, top-K precision, retrieval P@50), "
              "GRACE minus each null, SpLiCE and the zero-shot reference, mean (t 95% over replicates) [scene "
              "bootstrap 95%]: " + gaps((*NULLS, "SpLiCE", REFERENCE), NAMED) + ". The null run through the "
              "claim's test, random dictionary minus shuffled labels on the headline measures (t 95% over "
              "replicates): " + "; ".join(
                  f"{k} {m} {g['mean']:+.3f} ({g['ci95_seeds'][0]:+.3f}, {g['ci95_seeds'][1]:+.3f})"
                  for m in HEADLINE for k in kinds for g in [null_gap(s[k], m)]) + ".")
    out = {"human_aligned": (figure, detail)}

    gain = r["geometry_term_trustworthiness_gain"]
    figure = "; ".join(f"{k}: GRACE {mean(k, 'GRACE', 'trustworthiness'):.4f}, SpLiCE {mean(k, 'SpLiCE', 'trustworthiness'):.4f},"
                       f" no fitting {mean(k, 'no fitting', 'trustworthiness'):.4f}" for k in kinds) + \
        f"; geometry term gain {gain['mean']:+.4f} [{gain['ci95_seeds'][0]:+.4f}, {gain['ci95_seeds'][1]:+.4f}]"
    detail = ("Trustworthiness of the codes at matched sparsity, GRACE minus SpLiCE and minus the no-fitting control "
              "(t 95% over replicates): " + gaps(("SpLiCE", "no fitting"), ["trustworthiness"])
              + f"; minus GRACE without its geometry term {gain['mean']:+.4f} [{gain['ci95_seeds'][0]:+.4f}, "
              f"{gain['ci95_seeds'][1]:+.4f}]. The shuffled-label control equals GRACE here by construction: "
              "trustworthiness does not read the concepts' names, so it cannot show alignment.")
    out["geometry_preserving"] = (figure, detail)

    names = [n for n in TRANSFERS if n in r]

    def moved(t, a, b):
        return diff_cell(t["differences"][a][b])

    def level(t, m):
        return f"{t['methods'][m]['mean']:.3f}"

    figure = "; ".join(
        f"{t['from']} to {t['to']} ({', '.join(t['attributes'])}): GRACE {level(t, 'GRACE')}, SpLiCE "
        f"{level(t, 'SpLiCE')}, nulls: shuffled labels {level(t, 'shuffled labels')}, random dictionary "
        f"{level(t, 'random dictionary')}; references: "
        f"GRACE in domain {level(t, IN_DOMAIN)}, zero-shot classifier {level(t, REFERENCE)}" for t in map(r.get, names))
    detail = ("Every map fitted on the source only (its centred space, its map, SpLiCE's λ), read on the paired "
              "replicate's held-out target scenes; per scene the share of the scored attributes its largest code gets "
              "right; mean (t 95% over replicates) [scene bootstrap 95%]. " + " ".join(
                  f"{t['from']} to {t['to']}: GRACE − SpLiCE {moved(t, 'GRACE', 'SpLiCE')}; GRACE − shuffled labels "
                  f"{moved(t, 'GRACE', 'shuffled labels')}; GRACE − random dictionary "
                  f"{moved(t, 'GRACE', 'random dictionary')}; nulls in GRACE's place: shuffled labels − SpLiCE "
                  f"{moved(t, 'shuffled labels', 'SpLiCE')}, random dictionary − SpLiCE "
                  f"{moved(t, 'random dictionary', 'SpLiCE')}; GRACE − GRACE in domain {moved(t, 'GRACE', IN_DOMAIN)}; "
                  f"GRACE − zero-shot classifier {moved(t, 'GRACE', REFERENCE)}." for t in map(r.get, names))
              + " Not counted (the earlier measure, a neighbourhood statistic that no transfer needs): the share of "
              "10 nearest code neighbours with the scene's unnamed texture, "
              + gaps(("SpLiCE", REFERENCE), ["texture neighbours"]) + ".")
    out["global_structure"] = (figure, detail)

    parts = []
    for k in kinds:
        raw = np.array(s[k]["raw embeddings"]["zero-shot (mean)"]["values"])
        grace, permuted, zero = (np.array(s[k]["methods"][m][metric]["values"]) for m, metric in (
            ("GRACE", "zero-shot (mean)"), ("GRACE", "zero-shot (scenes permuted)"), (REFERENCE, "zero-shot (mean)")))
        parts.append(f"{k} GRACE {grace.mean():.3f} of raw {raw.mean():.3f} (worst replicate {(grace / raw).min():.0%}); "
                     f"null, codes of another scene: {permuted.mean():.3f} ({(permuted / raw).max():.0%} at best); "
                     f"no fitting {zero.mean():.3f} ({(zero / raw).min():.0%} at worst)")
    out["preserves_performance"] = (
        "; ".join(parts), "Zero-shot accuracy from the reconstructed embeddings against the raw ones (mean over the "
        "attributes), every replicate; 'most' read as at least 90% on every replicate. The null reconstructs each "
        "held-out scene from another scene's GRACE codes (a derangement), which must lose what the model knew; the "
        f"zero-shot classifier's reconstructions (no fitting) are a reference. A raw model at the ceiling ({CEILING:g}) "
        f"could not show a loss, one near chance (under {INFORMATIVE:g}) has little to preserve.")
    return out


verdicts = judged(KEY, describe, COMMAND)


if __name__ == "__main__":
    sys.exit(main())
