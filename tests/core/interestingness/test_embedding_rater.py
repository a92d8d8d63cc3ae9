"""The MiniLM + ridge baseline on the shipped bank with human means constructed from a known signal
(simulated: no real participant is involved)."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from core.interestingness import load_problem_bank
from core.common.text_embedding import embed_sentences
from core.interestingness.embedding_rater import EmbeddingRidgeRater, binned_normal


def test_binned_normal_is_a_distribution_centred_on_the_mean():
    p = binned_normal(4.0, 1.0)
    assert p.sum() == pytest.approx(1.0) and p.argmax() == 3 and p[2] == pytest.approx(p[4])
    assert p[0] == pytest.approx(norm.cdf(1.5, 4, 1)) and binned_normal(9.0, 0.1)[6] == pytest.approx(1.0)


def test_the_baseline_learns_a_topic_signal_out_of_fold_and_not_noise():
    bank = load_problem_bank()
    rng = np.random.default_rng(0)
    signal = pd.Series({p.id: (5.5 if p.topic in ("probability", "combinatorics") else 2.5) + rng.normal(0, 0.3)
                        for p in bank})
    rater = EmbeddingRidgeRater().fit(bank, signal)
    assert rater.cv["spearman"] > 0.5 and rater.cv["problems"] == 66
    result = rater.rate(bank[0])
    assert result.interestingness.sum() == pytest.approx(1.0) and result.rater == "minilm-ridge"
    shuffled = EmbeddingRidgeRater().fit(bank, pd.Series(rng.normal(4, 1, len(bank)), index=signal.index))
    assert shuffled.cv["spearman"] < 0.35 and rater.cv["r2"] > shuffled.cv["r2"]
    with pytest.raises(ValueError, match="^human_means: 3 rated problems"):
        EmbeddingRidgeRater().fit(bank, signal.iloc[:3])


@pytest.mark.slow(reason="MiniLM embeddings and two 5-fold ridge fits; ~20 s on a loaded 2-core machine, ~50 s cold")
def test_cross_rating_is_out_of_fold_where_in_sample_rating_flatters_noise():
    """The dashboard's baseline: each problem rated by the fold model that left it out. On pure noise the
    in-sample rating (fit, then rate the same problems) still looks good; the cross-fitted one does not."""
    from scipy.stats import spearmanr

    bank = load_problem_bank()
    noise = pd.Series(np.random.default_rng(1).normal(4, 1, len(bank)), index=[p.id for p in bank])
    rater = EmbeddingRidgeRater()
    cross = rater.cross_rate(bank, noise.iloc[:60])          # the last 6 problems have no human means
    assert [cross[p.id].raw["out_of_fold"] for p in bank] == [True] * 60 + [False] * 6
    expected = pd.Series({k: r.expected_interestingness for k, r in cross.items()})
    assert spearmanr(expected.loc[noise.index[:60]], noise.iloc[:60])[0] == pytest.approx(rater.cv["spearman"], abs=1e-9)
    in_sample = rater.model.predict(embed_sentences(p.statement for p in bank[:60]))   # what rate() gives, batched
    assert spearmanr(in_sample, noise.iloc[:60])[0] > rater.cv["spearman"] + 0.3


@pytest.mark.parametrize("kwargs, field", [({"folds": 1}, "folds"), ({"folds": 2.5}, "folds"), ({"seed": -1}, "seed"),
                                           ({"alphas": ()}, "alphas"), ({"alphas": (1.0, 0.0)}, "alphas")])
def test_bad_rater_settings_are_refused_before_anything_is_embedded(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}: .*allowed"):
        EmbeddingRidgeRater(**kwargs)
