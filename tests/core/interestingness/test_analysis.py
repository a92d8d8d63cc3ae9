"""Alignment metrics against independent references (SciPy) and on simulated studies whose
agreement is set by construction (simulated raters, labelled so in every row: participant ids 'sim-')."""

import numpy as np
import pytest
from scipy.stats import spearmanr, wasserstein_distance

from core.interestingness import RATIONALES, analysis


def simulated_rows(latent, raters=30, population="college", noise=0.8, seed=0, rationale_probs=None):
    """Every simulated rater rates every item: round(latent + noise), clipped to 1..7."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(raters):
        for i, mu in enumerate(latent):
            probs = rationale_probs[i] if rationale_probs is not None else np.full(len(RATIONALES), 0.3)
            rows.append({"participant_id": f"sim-{population}-{r}", "population": population, "item_id": f"q{i:02d}",
                         "kind": "problem", "interestingness": int(np.clip(np.rint(mu + rng.normal(0, noise)), 1, 7)),
                         "difficulty": 4, "rationales": [x for x, p in zip(RATIONALES, probs) if rng.random() < p]})
    return rows


def test_wasserstein_and_jensen_shannon_match_their_references():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
        assert analysis.wasserstein_1(p, q) == pytest.approx(wasserstein_distance(range(1, 8), range(1, 8), p, q))
        m = (p + q) / 2
        kl = lambda a, b: float(np.sum(a * np.log2(a / b)))  # noqa: E731
        assert analysis.jensen_shannon(p, q) == pytest.approx(0.5 * kl(p, m) + 0.5 * kl(q, m))
    one, seven = np.eye(7)[0], np.eye(7)[6]
    assert analysis.wasserstein_1(one, seven) == 6 and analysis.jensen_shannon(one, seven) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="^q: .*allowed 7 nonnegative probabilities"):
        analysis.wasserstein_1(one, [0.5, 0.6, 0, 0, 0, 0, 0])


def test_mean_correlation_matches_scipy_and_its_interval_holds_it():
    latent = np.linspace(1.5, 6.5, 20)
    a = analysis.item_means(simulated_rows(latent, seed=1))
    b = analysis.item_means(simulated_rows(latent, seed=2, population="olympiad"), "olympiad")
    result = analysis.mean_rating_correlation(a, b, resamples=500)
    assert result["spearman"] == pytest.approx(spearmanr(a, b)[0]) and result["items"] == 20
    assert result["spearman_ci"][0] <= result["spearman"] <= result["spearman_ci"][1]
    with pytest.raises(ValueError, match="^items: 2 shared items"):
        analysis.mean_rating_correlation(a.iloc[:2], b)


def test_populations_sharing_a_latent_agree_and_independent_ones_do_not():
    rng = np.random.default_rng(3)
    latent = rng.uniform(1.5, 6.5, 24)
    same = simulated_rows(latent, seed=1) + simulated_rows(latent, seed=2, population="olympiad")
    agree = analysis.population_agreement(same, resamples=500)
    assert agree["spearman"] > 0.9 and agree["spearman_ci"][0] > 0.8
    other = simulated_rows(latent, seed=1) + simulated_rows(rng.uniform(1.5, 6.5, 24), seed=2, population="olympiad")
    apart = analysis.population_agreement(other, resamples=500)
    assert apart["spearman_ci"][0] < 0 < apart["spearman_ci"][1] or abs(apart["spearman"]) < 0.4


def test_split_half_reliability_recovers_the_constructed_ceiling():
    """Item means of n raters with noise sd s around latents of variance v: reliability v / (v + s^2 / n)."""
    rng = np.random.default_rng(4)
    latent = rng.uniform(2.0, 6.0, 40)
    for raters, noise in ((40, 0.5), (8, 2.0)):
        rows = simulated_rows(latent, raters=raters, noise=noise, seed=5)
        expected = latent.var() / (latent.var() + noise**2 / raters)
        result = analysis.split_half_reliability(rows, splits=100)
        assert result["interval"][0] - 0.05 <= expected <= result["interval"][1] + 0.05, (result, expected)
    with pytest.raises(ValueError, match="^raters: 2; allowed at least 4"):
        analysis.split_half_reliability(simulated_rows(latent, raters=2))


def test_an_llm_that_is_the_generating_distribution_matches_the_humans():
    latent = np.linspace(2, 6, 10)
    rows = simulated_rows(latent, raters=400, noise=0.8, seed=6)
    rng = np.random.default_rng(7)
    draws = np.clip(np.rint(latent[:, None] + rng.normal(0, 0.8, (10, 200_000))), 1, 7).astype(int)
    truth = {f"q{i:02d}": analysis.empirical_distribution(d) for i, d in enumerate(draws)}
    shifted = {k: np.roll(v, 2) / np.roll(v, 2).sum() for k, v in truth.items()}
    good, bad = analysis.distribution_match(rows, truth), analysis.distribution_match(rows, shifted)
    assert good["wasserstein_1"].max() < 0.15 and good["jensen_shannon"].max() < 0.01
    assert bad["wasserstein_1"].min() > 0.5 and (bad["jensen_shannon"] > good["jensen_shannon"]).all()


def test_rationale_alignment_follows_the_constructed_preferences():
    rng = np.random.default_rng(8)
    probs = rng.uniform(0.05, 0.9, (12, len(RATIONALES)))
    rows = simulated_rows(np.full(12, 4.0), raters=200, seed=9, rationale_probs=probs)
    aligned = {f"q{i:02d}": dict(zip(RATIONALES, p)) for i, p in enumerate(probs)}
    reversed_ = {f"q{i:02d}": dict(zip(RATIONALES, 1 - p)) for i, p in enumerate(probs)}
    good = analysis.rationale_alignment(rows, aligned, resamples=300)
    bad = analysis.rationale_alignment(rows, reversed_, resamples=300)
    assert good["mean"] > 0.8 and good["ci"][0] > 0.7 and bad["mean"] < -0.8


def test_vectorised_bootstrap_statistics_equal_scipy_on_each_resample():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(11)
    x, y = rng.integers(1, 8, 30).astype(float), rng.integers(1, 8, 30).astype(float)   # many ties
    idx = rng.integers(0, 30, (25, 30))
    rho, tau = analysis.spearman_rows(x[idx], y[idx]), analysis.kendall_rows(x[idx], y[idx])
    for r in range(25):
        assert rho[r] == pytest.approx(spearmanr(x[idx[r]], y[idx[r]])[0])
        assert tau[r] == pytest.approx(kendalltau(x[idx[r]], y[idx[r]])[0])


def test_correlation_intervals_cover_the_constructed_value():
    """Items drawn from a bivariate normal with correlation r have population Spearman (6/pi) asin(r/2)
    and Kendall (2/pi) asin(r); the bootstrap 95% intervals should cover them in most simulated studies."""
    import pandas as pd

    r = 0.7
    truth = {"spearman": 6 / np.pi * np.arcsin(r / 2), "kendall": 2 / np.pi * np.arcsin(r)}
    rng = np.random.default_rng(12)
    covered = {"spearman": 0, "kendall": 0}
    runs = 40
    for run in range(runs):
        z = rng.multivariate_normal([0, 0], [[1, r], [r, 1]], size=80)
        result = analysis.mean_rating_correlation(pd.Series(z[:, 0]), pd.Series(z[:, 1]), resamples=400, seed=run)
        for name in covered:
            low, high = result[f"{name}_ci"]
            covered[name] += low <= truth[name] <= high
    assert covered["spearman"] >= 0.8 * runs and covered["kendall"] >= 0.8 * runs, covered


def test_mean_distance_intervals_cover_a_constructed_shift():
    """Humans drawn from known distributions on 2..6; an LLM shifted by exactly one point has W1 = 1 per
    item by construction, and the same distribution has W1 = 0."""
    rng = np.random.default_rng(13)
    truth, rows = {}, []
    for i in range(30):
        p = np.zeros(7)
        p[1:6] = rng.dirichlet(np.full(5, 3.0))
        truth[f"q{i:02d}"] = p
        for r, value in enumerate(rng.choice(np.arange(1, 8), size=3000, p=p)):
            rows.append({"participant_id": f"sim-{r}", "population": "college", "item_id": f"q{i:02d}",
                         "kind": "problem", "interestingness": int(value), "rationales": []})
    shifted = {k: np.roll(v, 1) for k, v in truth.items()}
    far = analysis.match_summary(analysis.distribution_match(rows, shifted), resamples=500)
    near = analysis.match_summary(analysis.distribution_match(rows, truth), resamples=500)
    assert far["wasserstein_1_ci"][0] <= 1.0 <= far["wasserstein_1_ci"][1], far
    assert near["wasserstein_1"] < 0.05 and near["jensen_shannon_ci"][1] < 0.002


def test_the_alignment_report_tells_a_faithful_llm_from_a_reversed_one():
    """The dashboard's report, moved out of the page: a simulated LLM whose means follow the latent
    correlates with the humans, one with the latent reversed (the control) does not."""
    from core.interestingness.embedding_rater import binned_normal

    latent = np.linspace(1.5, 6.5, 12)
    rows = simulated_rows(latent, seed=3) + simulated_rows(latent, population="olympiad", seed=4)

    def llm(means):
        items = [f"q{i:02d}" for i in range(len(means))]
        return {"interestingness": {k: binned_normal(m, 0.8) for k, m in zip(items, means)},
                "rationales": {k: {r: 0.3 for r in RATIONALES} for k in items}}

    faithful = analysis.alignment_report(rows, llm(latent), ("college", "olympiad"), resamples=50)
    reversed_ = analysis.alignment_report(rows, llm(latent[::-1]), ("college", "olympiad"), resamples=50)
    table = faithful.table.set_index("population")
    assert list(table.index) == ["college", "olympiad"] and (table["items"] == 12).all()
    assert (table["Spearman"] > 0.9).all() and (reversed_.table["Spearman"] < -0.9).all()
    assert (reversed_.table["mean W1"] > table["mean W1"].max()).all()
    expected = {k: float(np.arange(1, 8) @ binned_normal(m, 0.8)) for k, m in zip(faithful.llm_means.index, latent)}
    assert faithful.llm_means.to_dict() == pytest.approx(expected)
    assert faithful.populations["spearman"] > 0.9 and set(faithful.per_item) == {"college", "olympiad"}
    only_one = analysis.alignment_report(rows, llm(latent), ("college",), resamples=50)
    assert only_one.populations is None and len(only_one.table) == 1
