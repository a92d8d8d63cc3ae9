"""The interestingness paper's claims, measured on a real study: human ratings next to LLM ratings.

The claims are about people, so only a study that real participants took can test them. This bench
reads the study store (``STUDY_DATABASE_URL``, else the default SQLite file, or ``--url``), keeps
real participants only (simulated ones, whose ids start with ``sim-``, never count), and measures:

- broad agreement: Spearman between each LLM rater's expected rating and each population's mean
  rating per problem, with a bootstrap 95% interval over problems; the control is the same rater
  with its ratings shuffled across problems (seeded), whose interval must include 0;
- the distribution: mean per-problem Wasserstein-1 between the LLM's rating distribution and the
  population's, against its sampling floor (the W1 between the population's distribution and a
  bootstrap resample of its own ratings: what an exact match would still show, because each
  problem has few raters); "fails to match" is ours: the interval's lower end above the floor;
- rationales: mean per-problem Spearman between the LLM's rationale probabilities and the share of
  participants ticking each rationale; "weak" is ours: below 0.3 and below the human split-half
  agreement;
- generation: mean interestingness of kept generated problems (``source == "generated"``) against
  the study's other problems, rated by the same participants; "engaging" is ours: the bootstrap
  interval of the difference reaches 0 or above.

A claim whose data are missing (fewer than ``MIN_RATERS`` raters per population, ``MIN_ITEMS``
rated problems, no LLM rater run, fewer than ``MIN_GENERATED`` rated generated problems) is
``not tested``, and the verdict says what is missing.

    python bench/interestingness.py                      # the store's study with the most real ratings
    python bench/interestingness.py --study 3 --url postgresql+psycopg://user@host/study
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import judged, write_results  # noqa: E402
from core.common.seeding import make_rng  # noqa: E402
from core.interestingness import analysis  # noqa: E402
from core.interestingness.claims import WEAK  # noqa: E402
from core.interestingness.problems import RATIONALES  # noqa: E402

COMMAND = "python bench/interestingness.py"
MIN_RATERS, MIN_ITEMS, MIN_GENERATED = 4, 10, 5
SPLITS, RESAMPLES, SEED = 100, 2000, 0


def real_rows(store, study_id: int, include_simulated: bool = False) -> list[dict]:
    """The study's problem ratings by real participants (simulated ``sim-`` ones only if asked for) whom the
    study's exclusion rule keeps (core/interestingness/exclusion.py, default settings)."""
    rows = store.rows(study_id, include_external_ids=True)
    return [{k: v for k, v in r.items() if k not in ("external_id", "prolific_study_id", "session_id")}
            for r in rows if r["kind"] == "problem" and r["excluded"] is None
            and (include_simulated or not str(r.get("external_id") or "").startswith("sim-"))]


def llm_raters(ratings: list[dict]) -> dict:
    """Per rater (``rater: model (prompt)``): its distribution and rationale probabilities per problem."""
    out = {}
    for r in ratings:
        entry = out.setdefault(f"{r['rater']}: {r['model']} ({r['prompt_version']})",
                               {"interestingness": {}, "rationales": {}})
        entry["interestingness"][r["problem_id"]] = r["interestingness"]
        entry["rationales"][r["problem_id"]] = r["rationales"] or {}
    return out


def sampling_floor_w1(rows: list[dict], population: str, resamples: int = SPLITS, seed: int = SEED) -> float:
    """Mean per-problem W1 between the population's rating distribution and a bootstrap resample of it.

    An LLM whose distribution equalled the population's exactly would still be this far from the
    observed ratings, because each problem's human distribution is estimated from few raters.
    """
    humans = analysis.human_ratings(rows, population)
    rng, values = make_rng(seed), []
    for _, group in humans.groupby("item_id"):
        ratings = group["interestingness"].to_numpy()
        observed = analysis.empirical_distribution(ratings)
        for _ in range(resamples):
            again = analysis.empirical_distribution(rng.choice(ratings, len(ratings)))
            values.append(analysis.wasserstein_1(observed, again))
    return float(np.mean(values)) if values else float("nan")


def split_half_rationales(rows: list[dict], population: str, splits: int = SPLITS, seed: int = SEED) -> float:
    """Mean per-problem Spearman between two random halves' rationale frequencies."""
    from scipy.stats import spearmanr

    humans = analysis.human_ratings(rows, population)
    raters = np.array(sorted(humans["participant_id"].unique()))
    rng, values = make_rng(seed), []
    for _ in range(splits):
        half = set(raters[rng.permutation(len(raters))[: len(raters) // 2]])
        for _, group in humans.groupby("item_id"):
            parts = [group[group["participant_id"].isin(half) == side]["rationales"] for side in (True, False)]
            if all(len(p) for p in parts):
                fa, fb = ([np.mean([r in chosen for chosen in p]) for r in RATIONALES] for p in parts)
                if np.ptp(fa) > 0 and np.ptp(fb) > 0:
                    values.append(float(spearmanr(fa, fb)[0]))
    return float(np.mean(values)) if values else float("nan")


def population_sizes(rows: list[dict]) -> dict:
    frame = pd.DataFrame(rows, columns=["population", "participant_id", "item_id"])
    return {pop: {"raters": int(g["participant_id"].nunique()), "items": int(g["item_id"].nunique())}
            for pop, g in frame.groupby("population")}


def measure(store, study_id: int, include_simulated: bool = False, resamples: int = RESAMPLES,
            splits: int = SPLITS) -> dict:
    """Every figure the verdicts need, from one study (plain floats and lists).

    ``include_simulated`` counts simulated participants too: a dry run of the pipeline, never a finding
    (the result says so, and every verdict's detail starts with "SIMULATED"). ``resamples`` bootstrap
    resamples for every interval, ``splits`` random splits (or resamples) for the human floors.
    """
    rows = real_rows(store, study_id, include_simulated)
    sizes = population_sizes(rows)
    ready = [p for p, s in sizes.items() if s["raters"] >= MIN_RATERS and s["items"] >= MIN_ITEMS]
    out = {"study_id": study_id, "responses": len(rows), "populations": sizes, "ready_populations": ready,
           "simulated_included": include_simulated, "raters": {}, "generation": None}
    for name, llm in llm_raters(store.llm_ratings(study_id)).items():
        means = pd.Series({k: float(analysis.SCALE @ analysis.check_distribution(v))
                           for k, v in llm["interestingness"].items()})
        shuffled = pd.Series(make_rng(SEED).permutation(means.to_numpy()), index=means.index)
        per_pop = {}
        for pop in ready:
            human = analysis.item_means(rows, pop)
            corr = analysis.mean_rating_correlation(human, means, resamples=resamples, seed=SEED)
            control = analysis.mean_rating_correlation(human, shuffled, resamples=resamples, seed=SEED)
            match = analysis.match_summary(analysis.distribution_match(rows, llm["interestingness"], pop),
                                           resamples=resamples, seed=SEED)
            try:
                rationale = analysis.rationale_alignment(rows, llm["rationales"], pop, resamples=resamples, seed=SEED)
                rationale = {"mean": rationale["mean"], "ci": list(rationale["ci"])}
            except ValueError:
                rationale = None
            per_pop[pop] = {"items": corr["items"], "spearman": corr["spearman"], "spearman_ci": list(corr["spearman_ci"]),
                            "shuffled_spearman_ci": list(control["spearman_ci"]),
                            "ceiling": analysis.split_half_reliability(rows, pop, splits=splits, seed=SEED)["reliability"],
                            "w1": match["wasserstein_1"], "w1_ci": list(match["wasserstein_1_ci"]),
                            "sampling_floor_w1": sampling_floor_w1(rows, pop, splits), "rationale": rationale,
                            "split_half_rationale": split_half_rationales(rows, pop, splits)}
        out["raters"][name] = per_pop
    sources = {p["id"]: p.get("source") for p in store.study_problems(study_id)}
    scores = pd.DataFrame(rows, columns=["item_id", "interestingness"])
    scores["generated"] = scores["item_id"].map(lambda i: sources.get(i) == "generated")
    gen = scores[scores["generated"]]
    if gen["item_id"].nunique() >= MIN_GENERATED and len(scores) > len(gen):
        a, b = gen["interestingness"].to_numpy(float), scores[~scores["generated"]]["interestingness"].to_numpy(float)
        rng = make_rng(SEED)
        boot = [rng.choice(a, len(a)).mean() - rng.choice(b, len(b)).mean() for _ in range(resamples)]
        out["generation"] = {"generated_items": int(gen["item_id"].nunique()), "generated_mean": float(a.mean()),
                             "bank_mean": float(b.mean()), "difference": float(a.mean() - b.mean()),
                             "difference_ci": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]}
    else:
        out["generated_items_rated"] = int(gen["item_id"].nunique())
    return out


def _missing(r: dict) -> str | None:
    if r.get("study_id") is None:
        return (f"The store holds no study with real participants ({r.get('real_responses', 0)} real ratings). The "
                "shipped demo study's raters and LLM are simulated, so it cannot test a claim about people.")
    if len(r["ready_populations"]) < 2:
        sizes = "; ".join(f"{p}: {s['raters']} raters, {s['items']} problems" for p, s in r["populations"].items())
        return (f"Study #{r['study_id']} has {r['responses']} real ratings ({sizes or 'none'}); a verdict needs two "
                f"populations with ≥ {MIN_RATERS} raters over ≥ {MIN_ITEMS} problems each.")
    if not r["raters"]:
        return f"Study #{r['study_id']} has no LLM rater run stored next to its human ratings."
    return None


def describe(r: dict) -> dict:
    """Each claim's figure and detail in words, from the numbers in ``r`` alone; its rule in
    ``core.interestingness.claims`` decides its status (a dry run with simulated participants: not tested)."""
    out = _describe(r)
    if r.get("simulated_included"):   # a dry run: never a finding, whatever the numbers say
        out = {k: ("", "SIMULATED participants were included (a dry run of the pipeline): "
                   + (figure + ". " if figure else "") + detail) for k, (figure, detail) in out.items()}
    return out


verdicts = judged("interestingness", describe, COMMAND)


def _describe(r: dict) -> dict:
    missing = _missing(r)
    if missing:
        out = {c: ("", missing) for c in ("broad_agreement", "misses_distribution", "weak_rationales")}
    else:
        cells = [(rater, pop, m) for rater, per in r["raters"].items() for pop, m in per.items()]
        agree = [c for c in cells if c[2]["spearman_ci"][0] > 0]
        out = {"broad_agreement": (
            f"Spearman > 0 (95% CI) for {len(agree)} of {len(cells)} rater × population pairs",
            "; ".join(f"{rater}, {pop}: {m['spearman']:.2f} [{m['spearman_ci'][0]:.2f}, {m['spearman_ci'][1]:.2f}] "
                      f"(ceiling {m['ceiling']:.2f}; shuffled control [{m['shuffled_spearman_ci'][0]:.2f}, "
                      f"{m['shuffled_spearman_ci'][1]:.2f}])" for rater, pop, m in cells) + ".")}
        off = [c for c in cells if c[2]["w1_ci"][0] > c[2]["sampling_floor_w1"]]
        out["misses_distribution"] = (
            f"W1 above the sampling floor for {len(off)} of {len(cells)} pairs",
            "; ".join(f"{rater}, {pop}: W1 {m['w1']:.2f} [{m['w1_ci'][0]:.2f}, {m['w1_ci'][1]:.2f}] "
                      f"against a sampling floor of {m['sampling_floor_w1']:.2f}" for rater, pop, m in cells) + ".")
        rated = [c for c in cells if c[2]["rationale"] is not None]
        weak = [c for c in rated if c[2]["rationale"]["mean"] < min(WEAK, c[2]["split_half_rationale"])]
        out["weak_rationales"] = (
            f"weak (< {WEAK} and below split halves) for {len(weak)} of {len(rated)} pairs",
            "; ".join(f"{rater}, {pop}: {m['rationale']['mean']:.2f} against split halves "
                      f"{m['split_half_rationale']:.2f}" for rater, pop, m in rated) + "."
        ) if rated else ("", "No LLM rater gave rationale probabilities that vary.")
    g = r.get("generation")
    if g is None:
        out["generates_engaging"] = ("", missing or f"{r.get('generated_items_rated', 0)} generated problems were "
                                     f"rated; a verdict needs ≥ {MIN_GENERATED}.")
    else:
        low, high = g["difference_ci"]
        out["generates_engaging"] = (
            f"generated {g['generated_mean']:.2f} vs bank {g['bank_mean']:.2f}",
            f"{g['generated_items']} kept generated problems against the study's other problems, difference "
            f"{g['difference']:+.2f} [{low:+.2f}, {high:+.2f}].")
    return out


def table(r: dict) -> str:
    lines = ["Interestingness claims on a real study (simulated participants excluded).", ""]
    if r.get("study_id") is None:
        return "\n".join(lines + [f"No study with real participants in the store ({r.get('real_responses', 0)} real "
                                  "ratings)."]) + "\n"
    lines += [f"Study #{r['study_id']}: {r['responses']} real ratings; " + "; ".join(
        f"{p}: {s['raters']} raters, {s['items']} problems" for p, s in r["populations"].items()), ""]
    if r["raters"]:
        lines += ["| rater | population | items | Spearman [95% CI] | ceiling | W1 [95% CI] | sampling floor W1 | "
                  "rationale | split-half rationale |", "|---|---|---|---|---|---|---|---|---|"]
        for rater, per in r["raters"].items():
            for pop, m in per.items():
                rat = "–" if m["rationale"] is None else f"{m['rationale']['mean']:.2f}"
                lines.append(f"| {rater} | {pop} | {m['items']} | {m['spearman']:.2f} [{m['spearman_ci'][0]:.2f}, "
                             f"{m['spearman_ci'][1]:.2f}] | {m['ceiling']:.2f} | {m['w1']:.2f} [{m['w1_ci'][0]:.2f}, "
                             f"{m['w1_ci'][1]:.2f}] | {m['sampling_floor_w1']:.2f} | {rat} | "
                             f"{m['split_half_rationale']:.2f} |")
    return "\n".join(lines) + "\n"


def best_study(store) -> tuple[int | None, int]:
    """The study with the most real ratings, and how many real ratings the store holds in all."""
    counts = {s["id"]: len(real_rows(store, s["id"])) for s in store.studies()}
    total = sum(counts.values())
    best = max(counts, key=counts.get, default=None)
    return (best if best is not None and counts[best] > 0 else None), total


def run(url: str | None = None, study_id: int | None = None, include_simulated: bool = False) -> dict:
    from core.interestingness.store import StudyStore

    store = StudyStore(url)
    try:
        chosen, total = (study_id, None) if study_id is not None else best_study(store)
        if chosen is None:
            return {"study_id": None, "real_responses": total or 0, "backend": store.dialect}
        return {**measure(store, chosen, include_simulated), "backend": store.dialect}
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a SQLAlchemy URL (default: STUDY_DATABASE_URL, else the SQLite file)")
    parser.add_argument("--study", type=int, help="the study id (default: the one with most real ratings)")
    parser.add_argument("--include-simulated", action="store_true",
                        help="a dry run that counts simulated participants (every verdict stays 'not tested')")
    args = parser.parse_args(argv)
    result = run(args.url, args.study, args.include_simulated)
    return write_results("interestingness", result, table(result), verdicts=verdicts)


if __name__ == "__main__":
    sys.exit(main())
