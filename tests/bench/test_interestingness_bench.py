"""bench/interestingness.py: the claims are judged only on real participants, and its rules have controls.

The pipeline runs on a study of simulated raters (a dry run must stay "not tested"), and the rules are
checked with an LLM that agrees with people but is too narrow (the paper's pattern), a shuffled LLM
(the control broad agreement must fail) and an LLM that equals the humans' own distribution (the
control "misses the distribution" must fail).
"""

import numpy as np
import pytest

import bench.interestingness as bench
from core.interestingness import load_problem_bank
from core.interestingness.analysis import empirical_distribution, human_ratings
from core.interestingness.embedding_rater import binned_normal
from core.interestingness.raters import RatingResult
from core.interestingness.simulate import latent_interest, simulate_participants
from core.interestingness.store import StudyStore

FAST = {"resamples": 300, "splits": 20}


def add_rater(store, sid, name, distributions):
    for pid, dist in distributions.items():
        store.add_llm_rating(pid, RatingResult(name, "m", "v1", np.asarray(dist, float)), study_id=sid)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """20 problems, 24 simulated raters in two populations, and three LLM raters."""
    bank = load_problem_bank()[:20]
    store = StudyStore(f"sqlite:///{tmp_path_factory.mktemp('bench') / 's.sqlite'}")
    sid = store.create_study("bench", [p.id for p in bank], items_per_participant=12, problems=bank)
    latent = latent_interest([p.id for p in bank], 3)
    simulate_participants(store, sid, 24, seed=3, latent=latent)
    add_rater(store, sid, "narrow", {p: binned_normal(mu, 0.3) for p, mu in latent.items()})
    order = np.random.default_rng(5).permutation(list(latent))
    add_rater(store, sid, "shuffled", {p: binned_normal(latent[q], 0.3) for p, q in zip(latent, order)})
    humans = human_ratings(bench.real_rows(store, sid, include_simulated=True), "college")
    add_rater(store, sid, "own", {pid: empirical_distribution(g["interestingness"])
                                  for pid, g in humans.groupby("item_id")})
    result = bench.measure(store, sid, include_simulated=True, **FAST)
    yield store, result
    store.close()


def test_an_empty_store_and_a_dry_run_are_not_tested(study, tmp_path):
    empty = bench.run(f"sqlite:///{tmp_path / 'empty.sqlite'}")
    assert empty["study_id"] is None
    assert {v.status for v in bench.verdicts(empty)} == {"not tested"}
    store, dry = study
    assert bench.best_study(store) == (None, 0)          # simulated raters never count as real ones
    out = bench.verdicts(dry)
    assert {v.status for v in out} == {"not tested"}
    assert all(v.detail.startswith("SIMULATED") for v in out)


def test_a_narrow_llm_agrees_broadly_and_misses_the_distribution(study):
    _, result = study
    narrow = result["raters"]["narrow: m (v1)"]
    assert set(narrow) == {"college", "olympiad"}
    assert all(m["spearman_ci"][0] > 0 for m in narrow.values())
    assert all(m["shuffled_spearman_ci"][0] <= 0 <= m["shuffled_spearman_ci"][1] for m in narrow.values())
    assert all(m["w1_ci"][0] > m["sampling_floor_w1"] for m in narrow.values())
    only = {**result, "raters": {"narrow: m (v1)": narrow}}
    real = {**only, "simulated_included": False}                   # the rules, without the dry-run cap
    status = {v.claim_id: v.status for v in bench.verdicts(real)}
    assert status["broad_agreement"] == "reproduced" and status["misses_distribution"] == "reproduced"
    assert status["generates_engaging"] == "not tested"     # no generated problem was rated


def test_controls_fail_the_rules(study):
    _, result = study
    shuffled = result["raters"]["shuffled: m (v1)"]
    assert any(m["spearman_ci"][0] <= 0 for m in shuffled.values())      # a shuffled rater: no agreement
    exact = result["raters"]["own: m (v1)"]["college"]                    # the humans' own distribution
    assert exact["w1"] == pytest.approx(0.0, abs=1e-12)
    assert exact["w1_ci"][0] < exact["sampling_floor_w1"]
    only = {**result, "raters": {"own: m (v1)": {"college": exact}}}
    real = {**only, "simulated_included": False}
    assert {v.claim_id: v.status for v in bench.verdicts(real)}["misses_distribution"] == "not reproduced"


def test_the_rules_on_constructed_numbers():
    cell = {"items": 20, "spearman": 0.6, "spearman_ci": [0.3, 0.8], "shuffled_spearman_ci": [-0.4, 0.4],
            "ceiling": 0.9, "w1": 0.7, "w1_ci": [0.6, 0.8], "sampling_floor_w1": 0.3,
            "rationale": {"mean": 0.1, "ci": [0.0, 0.2]}, "split_half_rationale": 0.5}
    base = {"study_id": 1, "responses": 400, "populations": {}, "ready_populations": ["a", "b"],
            "simulated_included": False, "generation": None, "generated_items_rated": 0}

    def status(**changes):
        r = {**base, "raters": {"x": {"a": {**cell, **changes}, "b": {**cell, **changes}}}}
        return {v.claim_id: v.status for v in bench.verdicts(r)}

    assert status() == {"broad_agreement": "reproduced", "misses_distribution": "reproduced",
                        "weak_rationales": "reproduced", "generates_engaging": "not tested"}
    assert status(spearman_ci=[-0.1, 0.5])["broad_agreement"] == "not reproduced"
    assert status(shuffled_spearman_ci=[0.1, 0.5])["broad_agreement"] == "partly"   # the control did not fail
    assert status(w1_ci=[0.2, 0.4])["misses_distribution"] == "not reproduced"
    assert status(rationale={"mean": 0.6, "ci": [0.5, 0.7]})["weak_rationales"] == "not reproduced"
    gen = {**base, "raters": {"x": {"a": cell, "b": cell}}, "generation": {
        "generated_items": 6, "generated_mean": 4.0, "bank_mean": 4.5, "difference": -0.5,
        "difference_ci": [-1.0, -0.1]}}
    assert {v.claim_id: v.status for v in bench.verdicts(gen)}["generates_engaging"] == "not reproduced"
    assert {v.claim_id: v.status for v in bench.verdicts({**base, "raters": {}})}["broad_agreement"] == "not tested"
