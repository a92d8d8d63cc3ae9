"""Human–LLM alignment on a study's ratings (``StudyStore.rows``), per item and per population.

Definitions (our choices where the paper leaves them open):
- mean-rating correlation: Spearman and Kendall (tau-b) between per-item means, with percentile
  bootstrap CIs from resampling items (paired);
- distribution match, per item: Wasserstein-1 between the LLM's distribution over 1..7 and the
  humans' empirical one (on the integer grid, the sum of |CDF differences|), and the Jensen–Shannon
  divergence in bits (the square of SciPy's base-2 Jensen–Shannon distance), in [0, 1];
- human split-half reliability (the ceiling): raters split at random into halves, per-item means of
  the halves correlated (Spearman) and stepped up with Spearman–Brown, 2r / (1 + r); mean and
  percentile interval over the splits;
- rationale alignment: per item, Spearman between the humans' rationale frequencies (fraction of
  raters ticking each) and the LLM's rationale probabilities; the mean over items, with a bootstrap CI;
- population agreement: the mean-rating correlation between two populations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.spatial.distance import jensenshannon
from scipy.stats import kendalltau, spearmanr

from core.common.seeding import make_rng
from core.interestingness.problems import RATIONALES

SCALE = np.arange(1, 8)


def human_ratings(rows: list[dict], population: str | None = None, field: str = "interestingness") -> pd.DataFrame:
    data = pd.DataFrame(rows)
    if data.empty:
        return pd.DataFrame(columns=["participant_id", "item_id", field])
    data = data[data.kind == "problem"]
    if population is not None:
        data = data[data.population == population]
    return data


def item_means(rows: list[dict], population: str | None = None, field: str = "interestingness") -> pd.Series:
    return human_ratings(rows, population, field).groupby("item_id")[field].mean()


def empirical_distribution(values) -> np.ndarray:
    counts = np.bincount(np.asarray(values, dtype=int), minlength=8)[1:8].astype(float)
    if counts.sum() == 0:
        raise ValueError("values: no ratings; allowed at least one rating in 1..7")
    return counts / counts.sum()


def check_distribution(p, name: str = "distribution") -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.shape != (7,) or (p < 0).any() or not np.isclose(p.sum(), 1.0, atol=1e-6):
        raise ValueError(f"{name}: {np.round(p, 4).tolist()} is not allowed; allowed 7 nonnegative probabilities "
                         "over ratings 1..7 summing to 1")
    return p


def wasserstein_1(p, q) -> float:
    """W1 between two distributions over 1..7 (unit spacing)."""
    p, q = check_distribution(p, "p"), check_distribution(q, "q")
    return float(np.abs(np.cumsum(p - q)[:-1]).sum())


def jensen_shannon(p, q) -> float:
    """Jensen–Shannon divergence in bits, in [0, 1]."""
    p, q = check_distribution(p, "p"), check_distribution(q, "q")
    return float(jensenshannon(p, q, base=2) ** 2)


def _bootstrap(statistic, n: int, resamples: int, seed: int) -> tuple[float, float]:
    rng = make_rng(seed)
    values = [statistic(rng.integers(0, n, n)) for _ in range(resamples)]
    values = np.asarray([v for v in values if np.isfinite(v)])
    if len(values) == 0:
        return float("nan"), float("nan")
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho for each row pair of [R, n] arrays (average ranks for ties, as SciPy)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx, ry = rx - rx.mean(1, keepdims=True), ry - ry.mean(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(1) / np.sqrt((rx**2).sum(1) * (ry**2).sum(1))


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b for each row pair of [R, n] arrays (ties handled as SciPy's default)."""
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum((1, 2)) / np.sqrt((sx**2).sum((1, 2)) * (sy**2).sum((1, 2)))


def mean_rating_correlation(a: pd.Series, b: pd.Series, resamples: int = 2000, seed: int = 0) -> dict:
    """Spearman and Kendall between two per-item series (aligned on shared items), with paired bootstrap
    CIs over items (vectorised; each resample's statistic equals SciPy's on that resample)."""
    shared = a.index.intersection(b.index)
    if len(shared) < 3:
        raise ValueError(f"items: {len(shared)} shared items; allowed at least 3 to correlate")
    x, y = a.loc[shared].to_numpy(float), b.loc[shared].to_numpy(float)
    idx = make_rng(seed).integers(0, len(x), (resamples, len(x)))
    out = {"items": int(len(shared))}
    for name, fn, rows_fn in (("spearman", spearmanr, spearman_rows), ("kendall", kendalltau, kendall_rows)):
        out[name] = float(fn(x, y)[0])
        boot = rows_fn(x[idx], y[idx])
        boot = boot[np.isfinite(boot)]
        out[f"{name}_ci"] = ((float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))) if len(boot)
                             else (float("nan"), float("nan")))
    return out


def distribution_match(rows: list[dict], llm: dict, population: str | None = None) -> pd.DataFrame:
    """Per item: W1 and JS between ``llm[item]`` (a distribution over 1..7) and the human ratings."""
    humans = human_ratings(rows, population)
    out = []
    for item, group in humans.groupby("item_id"):
        if item not in llm:
            continue
        human = empirical_distribution(group["interestingness"])
        out.append({"item_id": item, "raters": len(group), "wasserstein_1": wasserstein_1(llm[item], human),
                    "jensen_shannon": jensen_shannon(llm[item], human),
                    "human_mean": float(SCALE @ human), "llm_mean": float(SCALE @ check_distribution(llm[item]))})
    return pd.DataFrame(out, columns=["item_id", "raters", "wasserstein_1", "jensen_shannon", "human_mean",
                                      "llm_mean"])


def match_summary(match: pd.DataFrame, resamples: int = 2000, seed: int = 0) -> dict:
    """Mean per-item W1 and JS with percentile bootstrap CIs over items."""
    out = {}
    for column in ("wasserstein_1", "jensen_shannon"):
        values = match[column].to_numpy(float)
        if len(values) == 0:
            out[column], out[f"{column}_ci"] = float("nan"), (float("nan"), float("nan"))
            continue
        boot = values[make_rng(seed).integers(0, len(values), (resamples, len(values)))].mean(1)
        out[column] = float(values.mean())
        out[f"{column}_ci"] = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5)))
    return out


def split_half_reliability(rows: list[dict], population: str | None = None, splits: int = 200, seed: int = 0,
                           field: str = "interestingness") -> dict:
    humans = human_ratings(rows, population, field)
    raters = np.array(sorted(humans["participant_id"].unique()))
    if len(raters) < 4:
        raise ValueError(f"raters: {len(raters)}; allowed at least 4 to split in halves")
    table = humans.pivot_table(index="participant_id", columns="item_id", values=field, aggfunc="first")
    rng = make_rng(seed)
    values = []
    for _ in range(splits):
        order = rng.permutation(len(raters))
        half_a, half_b = raters[order[: len(raters) // 2]], raters[order[len(raters) // 2:]]
        ma, mb = table.loc[half_a].mean(), table.loc[half_b].mean()
        keep = ma.notna() & mb.notna()
        if keep.sum() >= 3:
            r = spearmanr(ma[keep], mb[keep])[0]
            if np.isfinite(r):
                values.append(2 * r / (1 + r))
    values = np.asarray(values)
    return {"reliability": float(values.mean()), "interval": (float(np.percentile(values, 2.5)),
                                                              float(np.percentile(values, 97.5))),
            "splits": int(len(values)), "raters": int(len(raters))}


def rationale_frequencies(rows: list[dict], population: str | None = None) -> pd.DataFrame:
    """Items x rationales: fraction of raters who ticked each."""
    humans = human_ratings(rows, population)
    out = {}
    for item, group in humans.groupby("item_id"):
        out[item] = [float(np.mean([r in chosen for chosen in group["rationales"]])) for r in RATIONALES]
    return pd.DataFrame.from_dict(out, orient="index", columns=list(RATIONALES))


def rationale_alignment(rows: list[dict], llm: dict, population: str | None = None, resamples: int = 2000,
                        seed: int = 0) -> dict:
    """Mean over items of Spearman(human rationale frequencies, LLM rationale probabilities)."""
    human = rationale_frequencies(rows, population)
    per_item = {}
    for item, freq in human.iterrows():
        if item in llm:
            probs = np.array([llm[item].get(r, 0.0) for r in RATIONALES], dtype=float)
            if np.ptp(freq.to_numpy()) > 0 and np.ptp(probs) > 0:
                per_item[item] = float(spearmanr(freq.to_numpy(), probs)[0])
    if not per_item:
        raise ValueError("items: no item with varying human and LLM rationale choices; allowed after ratings exist")
    values = np.array(list(per_item.values()))
    return {"mean": float(values.mean()), "ci": _bootstrap(lambda idx: values[idx].mean(), len(values), resamples,
                                                           seed), "per_item": per_item}


def population_agreement(rows: list[dict], a: str = "college", b: str = "olympiad", **kwargs) -> dict:
    return mean_rating_correlation(item_means(rows, a), item_means(rows, b), **kwargs)


def llm_means(distributions: dict) -> pd.Series:
    """Per item, the expected rating Σ_k k·p_k of an LLM's distribution p over 1..7 (p as given, not renormalised)."""
    return pd.Series({k: float(SCALE @ np.asarray(v, dtype=float)) for k, v in distributions.items()}, dtype=float)


@dataclass
class AlignmentReport:
    """The dashboard's alignment of one LLM with each population of a study.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per population with at least 3 rated items: correlations with CIs, the human
        split-half ceiling, mean W1 and JS with CIs, rationale alignment with its CI.
    per_item : dict
        ``{population: distribution_match(...)}``, the per-item W1/JS frames.
    llm_means : pandas.Series
        The LLM's expected rating per item.
    populations : dict or None
        ``population_agreement`` between the first two populations, or None with only one.
    """

    table: pd.DataFrame
    per_item: dict
    llm_means: pd.Series
    populations: dict | None


def _ci_text(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def alignment_report(rows: list[dict], llm: dict, populations: tuple, resamples: int = 500) -> AlignmentReport:
    """Every alignment measure of the module docstring, for one LLM against each population.

    ``llm`` is ``{"interestingness": {item: distribution over 1..7}, "rationales": {item: {rationale: p}}}``.
    A population with fewer than 3 rated items gets no row; a rationale alignment that cannot be
    computed (no rationales) is NaN.
    """
    means_llm = llm_means(llm["interestingness"])
    table, per_item = [], {}
    for population in populations:
        means = item_means(rows, population)
        if len(means) < 3:
            continue
        corr = mean_rating_correlation(means, means_llm, resamples=resamples)
        match = distribution_match(rows, llm["interestingness"], population)
        summary = match_summary(match, resamples=resamples)
        ceiling = split_half_reliability(rows, population, splits=80)
        try:
            rationale = rationale_alignment(rows, llm["rationales"], population, resamples=resamples)
        except ValueError:
            rationale = {"mean": float("nan"), "ci": (float("nan"), float("nan"))}
        table.append({"population": population, "items": corr["items"], "Spearman": corr["spearman"],
                      "Spearman 95% CI": _ci_text(corr["spearman_ci"]), "Kendall": corr["kendall"],
                      "Kendall 95% CI": _ci_text(corr["kendall_ci"]), "human split-half ceiling": ceiling["reliability"],
                      "mean W1": summary["wasserstein_1"], "W1 95% CI": _ci_text(summary["wasserstein_1_ci"]),
                      "mean JS (bits)": summary["jensen_shannon"], "JS 95% CI": _ci_text(summary["jensen_shannon_ci"]),
                      "rationale alignment": rationale["mean"], "rationale 95% CI": _ci_text(rationale["ci"])})
        per_item[population] = match
    pops = population_agreement(rows, *populations[:2], resamples=resamples) if len(populations) > 1 else None
    return AlignmentReport(pd.DataFrame(table), per_item, means_llm, pops)
