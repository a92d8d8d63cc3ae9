"""bench/quantum_ng.py's bookkeeping: partial runs merge into the stored results, and the cost wording."""

import copy
import json
import math

import numpy as np
import pytest

import bench.quantum_ng as bench
from bench.report import interval_text
from core.common.claims import NOT_REPRODUCED, PARTLY, REPRODUCED, results_path
from core.quantum_ng.claims import RULES, STATIONARY_JUDGED, VQE_JUDGED, judged_cases, seed_leads


def test_a_tuning_run_merges_by_chain_into_the_stored_results(tmp_path):
    path = tmp_path / "quantum_ng.json"
    path.write_text(json.dumps({"command": "first", "tuning": {"tfim": {"sgd": 0.1}},
                                "vqe": {"tfim 16q": {"a": 1}, "heisenberg 8q": {"a": 2}}, "metric": {"12": 1, "8": 2}}))
    run = {"command": "python bench/quantum_ng.py --only tuning", "parts": ["tuning"], "seconds": 1.0}
    merged = bench.merge_into_stored({"tuning": {"heisenberg": {"sgd": 0.2}}}, {"tuning"}, run, path)
    assert list(merged["tuning"]) == ["heisenberg", "tfim"] and merged["tuning"]["tfim"] == {"sgd": 0.1}
    assert list(merged["vqe"]) == ["tfim 16q", "heisenberg 8q"] and list(merged["metric"]) == ["12", "8"]   # untouched
    assert merged["made_by"]["tuning heisenberg"] == run["command"] and merged["made_by"]["tuning tfim"] == "first"
    assert [r["command"] for r in merged["runs"]] == ["first", run["command"]]


def test_sizes_sort_by_number_and_chains_by_name():
    assert sorted(["16", "8", "12"], key=bench._size_order) == ["8", "12", "16"]
    assert sorted(["tfim 12q", "heisenberg 16q", "tfim 8q"], key=bench._size_order) == [
        "tfim 8q", "tfim 12q", "heisenberg 16q"]


def test_the_cost_comparison_says_more_where_the_other_path_is_faster():
    assert bench.than(18.62) == "18.6× less than"
    assert bench.than(0.30) == "3.3× more than"
    assert bench.than(1.0) == "1.0× less than"


def _stationary(result):
    return RULES["stationary_convergence"].evaluate(result)


def test_the_stationary_runs_are_tuned_on_other_seeds_and_stored_per_seed():
    st = json.loads(results_path("quantum_ng").read_text())["stationary"]
    assert not set(st["seeds"]) & set(st["tuning_seeds"]) and len(st["seeds"]) >= 5 and len(st["shots"]) >= 3
    assert set(st["optimizers"]) == {*bench.STATIONARY_OPTIMIZERS, bench.RANDOM_WALK}
    for key in bench.STATIONARY_OPTIMIZERS:            # each step is the best of its grid on the tuning seeds
        scores = st["tuning_scores"][key]
        assert st["tuned"][key] == st["optimizers"][key]["step"] == float(min(scores, key=scores.get))
        assert [float(g) for g in scores] == st["grid"]
    assert st["optimizers"][bench.RANDOM_WALK]["step"] == st["tuned"]["surrogate"]
    for v in st["optimizers"].values():
        assert [x["seed"] for x in v["runs"]] == st["seeds"]
        for x in v["runs"]:
            assert len(x["tail"]) == len(st["shots"]) and x["initial"] > 0
            slope = np.polyfit(np.log10(st["shots"]), np.log10(x["tail"]), 1)[0]
            assert abs(x["slope"] - slope) < 1e-9


def test_the_stationary_verdict_follows_the_seeds_and_its_random_direction_null():
    stored = json.loads(results_path("quantum_ng").read_text())
    doctored = {k: v for k, v in copy.deepcopy(stored).items() if k != STATIONARY_JUDGED}   # the first look decides
    shots = doctored["stationary"]["shots"]
    for key, v in doctored["stationary"]["optimizers"].items():
        for k, x in enumerate(v["runs"]):
            x["initial"] = 5.0
            if key == bench.RANDOM_WALK:        # wanders at the start's level whatever the shots
                x["tail"], x["slope"] = [5.0 + 0.1 * k] * len(shots), 0.02 * (k % 3 - 1)
            else:                               # settles far below the start, lower with more shots
                x["tail"] = [5e-3 / (s / shots[0]) * (1 + 0.05 * k) for s in shots]
                x["slope"] = -1.0 + 0.01 * k
    assert _stationary(doctored).status == REPRODUCED
    leak = copy.deepcopy(doctored)              # the null converging too: the test cannot tell descent apart
    leak["stationary"]["optimizers"][bench.RANDOM_WALK] = copy.deepcopy(doctored["stationary"]["optimizers"]["surrogate"])
    assert _stationary(leak).status == PARTLY
    flat = copy.deepcopy(doctored)              # settles low but does not shrink with the shots: partly
    for k, x in enumerate(flat["stationary"]["optimizers"]["surrogate"]["runs"]):
        x["slope"] = 0.05 * (k % 3 - 1)
    assert _stationary(flat).status == PARTLY
    stuck = copy.deepcopy(doctored)             # no neighbourhood under a tenth of the start
    for x in stuck["stationary"]["optimizers"]["surrogate"]["runs"]:
        x["tail"] = [2.0] * len(shots)
    assert _stationary(stuck).status == NOT_REPRODUCED
    (shipped,) = [v for v in stored["verdicts"] if v["claim_id"] == "stationary_convergence"]
    assert shipped["status"] == _stationary(stored).status


def test_the_confirmatory_stationary_seeds_are_fresh_and_decide_once_stored():
    stored = json.loads(results_path("quantum_ng").read_text())
    st = stored["stationary"]
    fresh = set(bench.STATIONARY_CONFIRM_SEEDS)
    assert len(fresh) == 16 and not fresh & (set(st["seeds"]) | set(st["tuning_seeds"]))
    if STATIONARY_JUDGED in stored:                     # what is stored is what was registered
        c = stored[STATIONARY_JUDGED]
        assert c["seeds"] == list(bench.STATIONARY_CONFIRM_SEEDS) and c["tuned"] == st["tuned"]
        assert {k: v["step"] for k, v in c["optimizers"].items() if k != bench.RANDOM_WALK} == st["tuned"]
    first = {k: v for k, v in copy.deepcopy(stored).items() if k != STATIONARY_JUDGED}
    confirm = copy.deepcopy(first["stationary"])      # doctored confirmatory seeds: a clear neighbourhood
    for key, v in confirm["optimizers"].items():
        for k, x in enumerate(v["runs"]):
            x["initial"], x["slope"] = 5.0, (0.01 * k if key == bench.RANDOM_WALK else -1.0 + 0.01 * k)
            x["tail"] = [5.0] * 3 if key == bench.RANDOM_WALK else [5e-3 * (1 + 0.05 * k)] * 3
    assert _stationary({**first, STATIONARY_JUDGED: confirm}).status == REPRODUCED
    for x in confirm["optimizers"]["surrogate"]["runs"]:   # and a confirmatory run that settles high fails it
        x["tail"] = [1.0] * 3
    assert _stationary({**first, STATIONARY_JUDGED: confirm}).status == NOT_REPRODUCED


def test_the_stored_stationary_verdict_quotes_the_seeds_that_decide_it():
    stored = json.loads(results_path("quantum_ng").read_text())
    (v,) = [v for v in stored["verdicts"] if v["claim_id"] == "stationary_convergence"]
    judged = stored.get(STATIONARY_JUDGED, stored["stationary"])
    sur = judged["optimizers"]["surrogate"]["runs"]
    assert interval_text([math.log10(x["tail"][-1] / x["initial"]) for x in sur]) in v["figure"]
    assert interval_text([x["slope"] for x in sur]) in v["figure"]
    null = judged["optimizers"][bench.RANDOM_WALK]["runs"]
    assert interval_text([math.log10(x["tail"][-1] / x["initial"]) for x in null]) in v["detail"]
    power, needed = bench.stationary_power(stored["stationary"])     # what the confirmatory run was sized by
    assert f"power {power:.2f} against a tenth of the start at its mean, {needed} seeds for 0.8" in v["detail"]
    assert needed < len(stored[STATIONARY_JUDGED]["seeds"])
    assert v["status"] == _stationary(stored).status


def _per_shot(result):
    return RULES["per_shot_convergence"].evaluate(result)


def _vqe_doctored(lead_of):
    """The stored result with every chain's areas rewritten: baseline k on seed s at 0.5, the surrogate at 0.5 minus
    ``lead_of(chain index, seed)`` against every baseline; the start held far above (the trivial method far behind)."""
    r = {k: v for k, v in copy.deepcopy(json.loads(results_path("quantum_ng").read_text())).items() if k != VQE_JUDGED}
    for i, (name, c) in enumerate(r["vqe"].items()):
        for k, o in c["optimizers"].items():
            o["areas"] = [0.5 + 0.002 * s for s in range(len(c["seeds"]))]
        base = c["optimizers"]["sgd"]["areas"]
        c["optimizers"]["surrogate"]["areas"] = [a - lead_of(i, s) for s, a in enumerate(base)]
        r["vqe_start"][name]["log_error_area"] = {str(s): 1.2 + 0.01 * s for s in (*c["seeds"], *bench.VQE_CONFIRM_SEEDS)}
    return r


def test_the_per_shot_verdict_reads_paired_leads_with_the_tie_band_and_its_null():
    everywhere = _vqe_doctored(lambda i, s: 0.1 + 0.01 * (s % 3))
    assert _per_shot(everywhere).status == REPRODUCED
    one_chain = _vqe_doctored(lambda i, s: (0.1 if i == 0 else 0.0) + 0.01 * (s % 3 - 1))
    assert _per_shot(one_chain).status == PARTLY               # ahead on one chain, tied elsewhere
    tied = _vqe_doctored(lambda i, s: 0.01 * (s % 3 - 1))
    assert _per_shot(tied).status == NOT_REPRODUCED            # a tie is a tie
    leak = _vqe_doctored(lambda i, s: 0.1 + 0.01 * (s % 3))
    for name, c in leak["vqe"].items():                        # doing nothing beating every baseline: a broken bench
        leak["vqe_start"][name]["log_error_area"] = {str(s): 0.1 + 0.01 * s for s in c["seeds"]}
    assert _per_shot(leak).status == PARTLY
    assert [bench.lead_kind(x) for x in ([0.1, 0.11, 0.12], [-0.1, -0.11, -0.12], [0.01, -0.01, 0.0],
                                         [0.3, -0.3, 0.0])] == ["ahead", "behind", "tie", "undecided"]


def test_the_registered_vqe_seeds_are_fresh_and_decide_once_every_chain_has_them():
    stored = json.loads(results_path("quantum_ng").read_text())
    used = {s for c in stored["vqe"].values() for s in c["seeds"]} | set(bench.TUNING_SEEDS)
    assert len(bench.VQE_CONFIRM_SEEDS) >= 5 and not set(bench.VQE_CONFIRM_SEEDS) & used
    for name, c in stored["vqe"].items():                      # the trivial method's start covers both seed sets
        assert set(stored["vqe_start"][name]["log_error_area"]) == {str(s) for s in (*c["seeds"], *bench.VQE_CONFIRM_SEEDS)}
    again = bench.start_errors("heisenberg 8q", stored["vqe"]["heisenberg 8q"], seeds=[0])
    assert again["log_error_area"]["0"] == stored["vqe_start"]["heisenberg 8q"]["log_error_area"]["0"]
    first = _vqe_doctored(lambda i, s: 0.01 * (s % 3 - 1))           # seeds 0-4: a tie everywhere
    confirm = copy.deepcopy(_vqe_doctored(lambda i, s: 0.1 + 0.01 * (s % 3))["vqe"])
    for c in confirm.values():
        c["seeds"] = list(bench.VQE_CONFIRM_SEEDS)
    partial = {**first, VQE_JUDGED: dict(list(confirm.items())[:-1])}  # one chain missing: seeds 0-4 still decide
    assert _per_shot(partial).status == NOT_REPRODUCED
    assert _per_shot({**first, VQE_JUDGED: confirm}).status == REPRODUCED
    (v,) = [v for v in stored["verdicts"] if v["claim_id"] == "per_shot_convergence"]
    assert v["status"] == _per_shot(stored).status
    assert v["diagnosis"]["trend"] == stored["vqe_trend"]["trend"] and len(v["diagnosis"]["trend"]) >= 3


def test_the_per_shot_diagnosis_quotes_the_judged_seeds_as_stored():
    stored = json.loads(results_path("quantum_ng").read_text())
    (v,) = [v for v in stored["verdicts"] if v["claim_id"] == "per_shot_convergence"]
    text = v["diagnosis"]["evidence"]
    kinds = [bench.lead_kind(seed_leads(c, k)) for c in judged_cases(stored).values() for k in ("sgd", "adam", "block_qng", "rng")]
    assert (f"ahead in {kinds.count('ahead')} of the {len(kinds)} chain-baseline pairs" in text
            and f"tied in {kinds.count('tie')}, undecided in {kinds.count('undecided')} and behind in "
                f"{kinds.count('behind')}" in text)
    for n, _, sgd, block in stored["vqe_trend"]["trend"]:
        assert f"{sgd:+.3f} and {block:+.3f}".replace("+", "") in text.replace("+", ""), n
    assert bench.interval_text(seed_leads(judged_cases(stored)["heisenberg 8q"], "sgd"), 3) in text


def test_the_trend_comes_from_bench_run_cells_that_repeat_the_judged_runs_exactly():
    stored = json.loads(results_path("quantum_ng").read_text())
    rows = stored["vqe_cells"]
    assert len(rows) == len(bench.MODELS) * 3 * len(bench.VQE_CONFIRM_SEEDS) * len(bench.OPTIMIZERS)
    cases = bench.cases_from_cells(rows)
    assert set(cases) == set(stored[VQE_JUDGED])
    for name, case in stored[VQE_JUDGED].items():   # every cell's area and steps are the section's, seed by seed
        assert cases[name]["seeds"] == case["seeds"]   # (to rounding: a worker runs with one BLAS thread)
        for key, o in case["optimizers"].items():
            assert cases[name]["optimizers"][key]["areas"] == pytest.approx(o["areas"], rel=1e-12, abs=1e-14)
            assert cases[name]["optimizers"][key]["steps"] == o["steps"]
    assert bench.vqe_trend(stored)["trend"] == stored["vqe_trend"]["trend"]
    shifted = copy.deepcopy(stored)                 # the trend reads the cells: moving them moves it
    for r in shifted["vqe_cells"]:
        if r["optimizer"] == "sgd":
            r["log_error_area"] += 0.5
    assert [round(a - b, 9) for a, b in zip((t[2] for t in bench.vqe_trend(shifted)["trend"]),
                                            (t[2] for t in stored["vqe_trend"]["trend"]))] == [0.5] * 3


def test_the_full_grid_runs_the_tuned_steps_and_the_confirm_grid_the_registered_seeds():
    stored = json.loads(results_path("quantum_ng").read_text())
    for cell in bench.sweep("full"):
        assert cell.params["steps"] == stored["tuning"][cell.params["model"]] and cell.seed in range(5)
    confirm = [c for grid in bench.VQE_CONFIRM_GRIDS for c in bench.sweep(grid)]
    assert {c.seed for c in confirm} == set(bench.VQE_CONFIRM_SEEDS) and len({c.name for c in confirm}) == 150
    assert {c.params["n"] for c in confirm} == {8, 12, 16}
    assert all(c.params["steps"] == bench.SWEEP_STEPS for c in bench.sweep("small"))


def test_the_bias_variance_null_is_a_product_state_where_k_changes_nothing():
    stored = json.loads(results_path("quantum_ng").read_text())
    t = stored["tradeoff_product"]["8"]
    assert t["entangler"] == "none" and t["k"] == [1, 2, 3, 4]
    assert max(t["bias2"]) < 1e-20 and len(set(t["variance_empirical"])) == 1   # flat: nothing for k to capture
    v = RULES["k_bias_variance"].evaluate(stored)
    doctored = copy.deepcopy(stored)              # a null that showed the shape would leave the claim at partly
    doctored["tradeoff_product"] = copy.deepcopy({"8": stored["tradeoff"]["8"]})
    assert v.status == REPRODUCED and RULES["k_bias_variance"].evaluate(doctored).status == PARTLY
