"""The stored bench results hold what the claims need, and each diagnosed verdict follows its rule.

bench/tikhonov_gnn.py takes long (10-fold on two benchmarks, seeds of explanations, a long-range sweep), so
these tests read its stored output: every section is there at the scale the claims name, and doctored copies
flip each verdict the way its rule says (the explanations judged among trained runs against a shuffled-label
null, the long range over seeds against a cut path, the matching by paired folds against the trivial method).
"""

import copy
import json

import numpy as np
import pytest
from scipy import stats

from bench import tikhonov_gnn as bench
from core.common.claims import REPRODUCED, results_path
from core.tikhonov_gnn.claims import CONFIRM

RESULT = json.loads(results_path("tikhonov_gnn").read_text())


def faithful(result):
    (v,) = [v for v in bench.verdicts(result) if v.claim_id == "faithful_explanations"]
    return v


def test_explanation_auroc_is_stored_per_seed_for_both_datasets_with_its_control():
    ex = RESULT["explanations"]
    assert set(ex) == {"motifs", "planted_feature"}
    for v in ex.values():
        assert [r["seed"] for r in v["runs"]] == list(bench.SEEDS) and len(bench.SEEDS) >= 5
        auroc = np.array([r["auroc"] for r in v["runs"]])
        assert ((auroc >= 0) & (auroc <= 1)).all()
        assert v["auroc_mean"] == pytest.approx(auroc.mean())
        assert v["untrained_auroc_mean"] == pytest.approx(np.mean([r["untrained_auroc"] for r in v["runs"]]))


def _final_runs(seeds=bench.FINAL_SEEDS):
    """A doctored explanations_final section for both datasets: every run trained, q faithful to its model (agreement
    well above its untrained start's), pointing at the label's nodes, every null at its chance level."""
    runs = [{"seed": s, "chosen": 0, "validation": [1.0, 0.9], "train_accuracy": 1.0, "test_accuracy": 1.0,
             "auroc": 0.93 + 0.005 * (k % 4), "agreement": 0.7 + 0.01 * (k % 3),
             "untrained_agreement": 0.02 * (k % 3 - 1), "permuted_agreement": 0.01 * (k % 3 - 1),
             "shuffled_auroc": 0.5 + 0.01 * (k % 3 - 1), "untrained_auroc": 0.5 + 0.01 * (k % 2 - 0.5)}
            for k, s in enumerate(seeds)]
    return {n: {"runs": copy.deepcopy(runs), "gate": bench.TRAINED_GATE, "seeds": list(seeds), "readout": "linear_norm",
                "budget": RESULT["explanations_selected_laplacian"][n]["budget"]} for n in ("motifs", "planted_feature")}


def test_the_explanation_verdict_is_judged_among_trained_runs_against_its_nulls_and_can_flip():
    for section in ("explanations_gated", *bench.SELECTED_SECTIONS):
        assert set(RESULT[section]) == {"motifs", "planted_feature"}
        for v in RESULT[section].values():
            assert [x["seed"] for x in v["runs"]] == list(bench.GATED_SEEDS) and len(bench.GATED_SEEDS) >= 10
            assert not set(bench.GATED_SEEDS) & set(bench.SEEDS)      # new seeds, not those the collapse was seen on
    for v in (v for s in bench.SELECTED_SECTIONS for v in RESULT[s].values()):
        for x in v["runs"]:                                          # the chosen configuration is the best on validation
            assert x["chosen"] == int(np.argmax(x["validation"]))
            assert x["final_train_accuracy"][x["chosen"]] == pytest.approx(x["train_accuracy"])
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}["faithful_explanations"]
    assert shipped["status"] == faithful(RESULT).status
    doctored = copy.deepcopy(RESULT)
    doctored["explanations_final"] = _final_runs()
    for k in CONFIRM:                               # seeds 50-59 decide both halves (the confirmatory test: below)
        del doctored[k]
    assert faithful(doctored).status == REPRODUCED
    plausible_not = copy.deepcopy(doctored)         # faithful to the model, not pointing at the label's nodes: partly
    for v in plausible_not["explanations_final"].values():
        for k, x in enumerate(v["runs"]):
            x["auroc"] = 0.5 + 0.01 * (k % 3 - 1)
    assert faithful(plausible_not).status == "partly"
    by_design = copy.deepcopy(doctored)             # an untrained q agrees as well: training adds nothing
    for x in by_design["explanations_final"]["planted_feature"]["runs"]:
        x["untrained_agreement"] = x["agreement"] + 0.01 * (x["seed"] % 3 - 1)
    assert faithful(by_design).status == "not reproduced"
    for null, value in (("permuted_agreement", 0.5), ("shuffled_auroc", 0.9), ("untrained_auroc", 0.9)):
        leak = copy.deepcopy(doctored)              # a null that passes caps the verdict at partly
        for k, x in enumerate(leak["explanations_final"]["motifs"]["runs"]):
            x[null] = value + 0.005 * (k % 3)
        assert faithful(leak).status == "partly", null
    collapsed = copy.deepcopy(doctored)             # runs that did not train are not judged: their q is left out
    runs = collapsed["explanations_final"]["motifs"]["runs"]
    runs[0]["agreement"], runs[1]["agreement"] = 0.9, 0.3
    for x in runs[2:]:
        x["train_accuracy"], x["agreement"] = 0.5, -0.5
    assert faithful(collapsed).status == "not reproduced"   # two trained runs: too few to show anything
    for x in runs[2:]:
        x["agreement"] = 0.95                               # the collapsed runs' q is never read
    assert faithful(collapsed).status == "not reproduced"
    for section in ("explanations_final_node", "explanations_linear_norm_judged", "explanations_occlusion"):
        reference = copy.deepcopy(doctored)         # a reference never decides
        reference[section] = _final_runs()
        for v in reference[section].values():
            for x in v["runs"]:
                x["untrained_agreement"] = x["agreement"] = x["auroc"] = 0.0
        assert faithful(reference).status == REPRODUCED, section


def test_energy_curves_long_range_and_two_benchmarks_are_stored():
    for c in RESULT["smoothing"].values():
        for key in ("gcn", "appnp", "tikhonov_stacked"):
            assert len(c[key]) == len(c["depth"]) and all(0 <= e <= 2 for e in c[key])
        assert len(c["tikhonov_strength"]) == len(c["strength"])
    lr = RESULT["long_range"]
    cells = {(r["distance"], r["model"], r["cut"], r["seed"]) for r in lr["runs"]}
    assert cells == {(d, m, False, s) for d in lr["distances"] for m in ("tikhonov", "gcn", "gin") for s in lr["seeds"]} \
        | {(max(lr["distances"]), "tikhonov", True, s) for s in lr["seeds"]}
    assert len(lr["seeds"]) >= 5 and len(lr["distances"]) >= 3
    assert all(r["configs"] == 6 and len(r["validation"]) == 6 for r in lr["runs"])     # the same budget for all
    for name, changes in (("trend_explanations", {}), ("trend_explanations_linear_readout", {"readout": "linear"})):
        t = RESULT[name]
        assert [x[0] for x in t["trend"]] == list(bench.TREND_SIZES) and t["config_changes"] == changes
        for n, mean, count in t["trend"]:                 # the trend is the mean of the trained runs at each size
            trained = [x["auroc"] for x in t["runs"] if x["graphs"] == n and x["trained"]]
            assert count == len(trained) and (mean is None) == (not trained)
            assert mean is None or mean == pytest.approx(np.mean(trained))
    for name in ("mutag", "cuneiform"):
        cv = RESULT[f"{name}_10fold"]
        for m in ("tikhonov", "gcn", "gin"):
            folds = np.array(cv[m]["fold_accuracies"])
            assert folds.size == 10 and cv[m]["mean"] == pytest.approx(folds.mean())


def test_the_solve_was_measured_from_100_to_50000_nodes_against_dense_and_appnp():
    runs = {(r["nodes"], r["method"]): r for r in RESULT["scaling"]["runs"]}
    for n in (100, 500, 2000, 10000, 50000):
        assert "seconds" in runs[(n, "cg")] and "seconds" in runs[(n, "appnp")]
        assert runs[(n, "cg")]["relative_residual"] < 1e-4
    assert all("seconds" in runs[(n, "dense")] for n in (100, 500, 2000))


def test_the_linear_readout_variant_is_stored_per_seed_and_named_in_the_verdict():
    var = RESULT["explanations_linear_readout"]
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}["faithful_explanations"]
    for name, v in var.items():
        assert v["config_changes"] == {"readout": "linear"}
        assert [r["seed"] for r in v["runs"]] == list(bench.SEEDS)
        assert v["auroc_mean"] == pytest.approx(np.mean([r["auroc"] for r in v["runs"]]))
        assert f"{name} AUROC {v['auroc_mean']:.2f}" in shipped["detail"]
    # The verdict is on the shipped model: a variant at 0.95 does not make it "reproduced".
    doctored = copy.deepcopy(RESULT)
    for v in doctored["explanations_linear_readout"].values():
        v["auroc_mean"] = 0.95
    assert faithful(doctored).status == shipped["status"]


def long_range(result):
    (v,) = [v for v in bench.verdicts(result) if v.claim_id == "long_range"]
    return v


def test_the_long_range_verdict_follows_the_seeds_and_its_cut_path_null():
    """Doctored copies: a Tikhonov layer that reads the value on every seed where GCN and GIN sit at chance is
    reproduced; the same with the cut-path null reading it too (a leak) is not; one at chance is not either."""
    doctored = copy.deepcopy(RESULT)
    far = max(doctored["long_range"]["distances"])
    for r in doctored["long_range"]["runs"]:
        if r["distance"] == far:
            r["test_accuracy"] = 0.5 if (r["model"] != "tikhonov" or r["cut"]) else 0.975 + 0.005 * (r["seed"] % 5)
            r["train_accuracy"] = 1.0 if r["model"] == "tikhonov" and not r["cut"] else 0.55
    assert long_range(doctored).status == REPRODUCED
    # the same test accuracies from a layer that fit its training graphs on only 2 of 5 seeds: not tested (our
    # optimiser, not the layer's reach), so oversmoothing alone leaves it partly, the bottleneck checks not measured
    unfit = copy.deepcopy(doctored)
    tik = [r for r in unfit["long_range"]["runs"] if r["distance"] == far and r["model"] == "tikhonov" and not r["cut"]]
    for r in tik[2:]:
        r["train_accuracy"] = 0.6
    v = long_range(unfit)
    assert v.status == "partly"
    checks = {c["name"]: c for c in v.decision["checks"]}
    assert checks["smoothing_or_bottleneck"]["passed"] is True
    assert all(checks[n]["passed"] is None for n in ("bottleneck", "gcn", "gin"))
    tik[2]["train_accuracy"] = 0.95                          # 3 of 5: tested again, on every seed
    assert long_range(unfit).status == REPRODUCED
    leak = copy.deepcopy(doctored)
    for r in leak["long_range"]["runs"]:
        if r["cut"]:
            r["test_accuracy"] = 0.9 + 0.01 * (r["seed"] % 3)
    assert long_range(leak).status == "partly"
    controls = {c["name"]: c for c in long_range(leak).controls}
    assert controls["cut"]["holds"] is False
    chance = copy.deepcopy(doctored)
    for r in chance["long_range"]["runs"]:
        if r["distance"] == far and r["model"] == "tikhonov":
            r["test_accuracy"] = 0.5
    assert long_range(chance).status == "partly"           # oversmoothing still holds, oversquashing not


def test_the_seed_level_intervals_are_calibrated_or_say_by_how_much_they_are_not():
    cal = RESULT["long_range"]["calibration"]
    assert cal == bench.seed_test_calibration()                  # stored as the code computes it
    for c in cal.values():
        low, high = c["interval"]
        assert low <= c["rate"] <= high and c["n_draws"] >= 1000
        assert c["verdict"] == ("calibrated" if low <= c["alpha"] <= high else "liberal" if low > c["alpha"]
                                else "conservative")
        if c["used"]:
            assert c["rate"] < 2 * c["alpha"]                      # off, if at all, by less than the nominal rate
    assert cal["bootstrap over 2 trained runs, AUROC at 0.5"]["verdict"] == "liberal"   # why the rule uses t
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}
    for name, c in cal.items():                                   # each verdict states its test's calibration
        if "folds" in name:
            assert f"passes at rate {c['rate']:.3f}" in shipped["matches_baselines"]["detail"]
        elif "trained runs" in name:
            assert f"{name} {c['rate']:.3f}" in shipped["faithful_explanations"]["detail"]
        else:
            assert f"{name} {c['rate']:.3f}" in shipped["long_range"]["detail"]


def test_the_small_long_range_sweep_runs_each_model_on_its_budget(tmp_path):
    from bench.run import run_sweep

    done = run_sweep("tikhonov_gnn", "small", out=tmp_path)
    cells = json.loads(done.path.read_text())
    assert not cells["failed"] and {c["values"]["model"] for c in cells["cells"]} == {"tikhonov", "gcn", "gin"}
    for c in cells["cells"]:
        v = c["values"]
        assert v["configs"] == len(v["validation"]) == 2 and v["test_count"] == 40      # 20 % of 200 targets
        assert v["test_accuracy"] == pytest.approx(v["test_correct"] / v["test_count"])
        assert v["chosen"]["lr"] == 0.01
    tik = [c["values"] for c in cells["cells"] if c["values"]["model"] == "tikhonov"][0]
    assert tik["chosen"]["q_init"] in (0.01, 0.05)


def test_the_long_range_grids_split_the_cells_once_each_with_the_cut_null_beside_the_farthest_distance():
    grids = {g: bench.sweep(g) for g in bench.LONG_RANGE_GRIDS}
    names = [c.name for cells in grids.values() for c in cells]
    assert len(names) == len(set(names))          # no cell twice: a grid resumes only its own cells
    every = {(d, m, s) for d in bench.LONG_RANGE_DISTANCES for m in bench.MODELS for s in bench.LONG_RANGE_SEEDS}
    plain = [(c.params["distance"], c.params["model"], c.seed) for cells in grids.values() for c in cells
             if not c.params.get("cut")]
    assert sorted(plain) == sorted(every)         # every distance, model and seed exactly once
    cut = [c for cells in grids.values() for c in cells if c.params.get("cut")]
    assert {c.params["distance"] for c in cut} == {max(bench.LONG_RANGE_DISTANCES)}
    assert sorted(c.seed for c in cut) == list(bench.LONG_RANGE_SEEDS)
    with pytest.raises(ValueError, match="grid"):
        bench.sweep("long_range")                 # the former single grid is gone


def matches(result):
    (v,) = [v for v in bench.verdicts(result) if v.claim_id == "matches_baselines"]
    return v


def test_the_matches_verdict_is_paired_non_inferiority_with_the_trivial_method_as_its_null():
    for name in ("mutag", "cuneiform"):                              # the null, as the code computes it
        assert RESULT["majority_10fold"][name] == bench.majority_cv(name)
        grid = [{"lr": c.lr, "hidden": c.hidden} for c in bench.tuned_cv_configs(name, "gin")]
        for m in ("tikhonov", "gcn", "gin"):                         # every model, every fold, the same budget
            row = RESULT["tuned_cv"][name][m]
            assert len(row["fold_accuracies"]) == 10 and all(c in grid for c in row["chosen"]) and len(grid) == 6
    doctored = copy.deepcopy(RESULT)
    for cv in doctored["tuned_cv"].values():
        best = np.maximum(cv["gcn"]["fold_accuracies"], cv["gin"]["fold_accuracies"])
        cv["tikhonov"]["fold_accuracies"] = list(best + 0.002 * np.arange(10) % 0.01)    # as good, fold by fold
    assert matches(doctored).status == REPRODUCED
    trivial = copy.deepcopy(doctored)                                 # a benchmark the trivial method also passes
    for name in ("mutag", "cuneiform"):
        trivial["majority_10fold"][name]["fold_accuracies"] = trivial["tuned_cv"][name]["tikhonov"]["fold_accuracies"]
    assert matches(trivial).status == "partly"
    assert {c["name"]: c["holds"] for c in matches(trivial).controls}["majority"] is False
    # The earlier rule's means, within 3 points, are not enough: a wide paired interval does not pass.
    wide = copy.deepcopy(RESULT)
    cv = wide["tuned_cv"]["mutag"]
    cv["tikhonov"]["fold_accuracies"] = list(np.array(cv["gin"]["fold_accuracies"]) + np.tile([0.15, -0.17], 5))
    assert abs(np.mean(cv["tikhonov"]["fold_accuracies"]) - np.mean(cv["gin"]["fold_accuracies"])) < 0.03
    assert not any(f["passed"] for f in matches(wide).decision["checks"] if f["name"] == "every")
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}["matches_baselines"]
    assert "power" in shipped["detail"] and shipped.get("diagnosis", {}).get("cause") != "undiagnosed"


def test_a_run_that_learned_and_fell_back_is_told_from_one_that_never_learned_or_stayed():
    assert bench._fell_back([0.5, 0.99, 0.95, 0.5])
    assert not bench._fell_back([0.5, 0.5, 0.5])            # never learned
    assert not bench._fell_back([0.5, 0.99, 0.97])          # learned and stayed
    assert not bench._fell_back([0.5, 0.89, 0.5])           # never reached the gate


def test_the_selected_explanations_keep_the_best_on_validation_and_score_its_q(monkeypatch):
    monkeypatch.setattr(bench, "GATED_SEEDS", (10,))
    out = bench.explanations_selected("planted_feature", ({"epochs": 2, "lr": 1e-7}, {"epochs": 3, "p_init": "laplacian"}))
    (row,) = out["runs"]
    assert row["chosen"] == int(np.argmax(row["validation"])) and len(row["validation"]) == 2
    assert [len(x) for x in (row["peak_train_accuracy"], row["fell_back"])] == [2, 2]
    assert row["final_train_accuracy"][row["chosen"]] == pytest.approx(row["train_accuracy"])
    assert 0 <= row["auroc"] <= 1 and 0 <= row["shuffled_auroc"] <= 1 and row["q_spread"] >= 0
    assert out["budget"] == [{"lr": 1e-7, "epochs": 2, "p_init": "flat"}, {"lr": 0.01, "epochs": 3, "p_init": "laplacian"}]


def test_the_motif_preset_is_the_stored_comparison_s_and_it_says_how_sure():
    from core.tikhonov_gnn import recommended_config

    v = RESULT["motif_preset"]
    assert v == bench.preset_summary(v["runs"])                # stored as the code computes it
    assert [x["seed"] for x in v["runs"]] == list(bench.PRESET_SEEDS)
    assert not set(bench.PRESET_SEEDS) & set(bench.GATED_SEEDS)  # fresh seeds: the preset was chosen on 10-19
    assert v["fitted"]["preset"] >= max(v["fitted"].values())   # the reason the preset changed
    preset, earlier = recommended_config("motifs"), bench.measured_config("motifs")
    assert (earlier.lr, earlier.epochs, earlier.p_init) == (0.01, 60, "flat") != (preset.lr, preset.epochs,
                                                                                 preset.p_init)
    # the test's own arithmetic: one discordant seed each way is no evidence; six of six one way is
    rows = lambda pairs: [{"seed": i, "preset": a, "earlier": b} for i, (a, b) in enumerate(pairs)]  # noqa: E731
    assert bench.preset_summary(rows([(1.0, 0.5), (0.5, 1.0)]))["against"]["earlier"]["mcnemar_p"] == 1.0
    assert bench.preset_summary(rows([(1.0, 0.5)] * 6))["against"]["earlier"]["mcnemar_p"] < 0.05


def test_the_q_depth_grids_vary_only_the_q_network_and_reuse_the_tuned_folds(monkeypatch):
    assert set(bench.Q_DEPTH_GRIDS.values()) | {2} == set(bench.Q_DEPTHS) and len(bench.Q_DEPTHS) >= 3
    names = []
    for grid, depth in bench.Q_DEPTH_GRIDS.items():
        cells = bench.sweep(grid)
        assert {(c.params["benchmark"], c.params["fold"]) for c in cells} == {
            (b, k) for b in ("mutag", "cuneiform") for k in range(1, 11)}
        assert {(c.params["model"], c.params["q_hops"]) for c in cells} == {("tikhonov", depth)}
        names += [c.name for c in cells]
        configs = bench.tuned_cv_configs("mutag", "tikhonov", q_hops=depth)   # the same lr x width budget
        assert {c.q_hops for c in configs} == {depth}
        assert [(c.lr, c.hidden) for c in configs] == [(c.lr, c.hidden) for c in bench.tuned_cv_configs("mutag", "gin")]
    assert len(set(names)) == len(names)
    # the trend from synthetic folds: depth 2 is the stored tuned run's, the others the grids', paired with the baselines
    tuned = {"mutag": {m: {"fold_accuracies": list(np.linspace(0.6, 0.9, 10) + off)}
                       for m, off in (("tikhonov", 0.0), ("gcn", 0.01), ("gin", 0.05))}}
    grids = {g: ([{"benchmark": "mutag", "fold": k, "test_accuracy": 0.7 + 0.01 * d + 0.001 * k}
                  for k in range(10, 0, -1)], []) for g, d in bench.Q_DEPTH_GRIDS.items()}
    monkeypatch.setattr(bench, "sweep_values", lambda grid: grids[grid])
    t = bench.trend_q_depth(tuned)["mutag"]
    rows = {r["q_hops"]: r for r in t["runs"]}
    assert rows[2]["fold_accuracies"] == tuned["mutag"]["tikhonov"]["fold_accuracies"]
    assert rows[2]["minus_gin"][0] == pytest.approx(-0.05) and rows[2]["minus_gcn"][0] == pytest.approx(-0.01)
    want = np.mean(0.7 + 0.04 + 0.001 * np.arange(1, 11) - tuned["mutag"]["gin"]["fold_accuracies"])
    assert rows[4]["minus_gin"][0] == pytest.approx(want)            # folds in order, whatever order the cells came
    assert rows[4]["minus_gin"][1] < want < rows[4]["minus_gin"][2]
    assert [x[0] for x in t["trend"]] == list(bench.Q_DEPTHS)


def test_the_stored_q_depth_trend_pairs_the_stored_folds():
    from scipy import stats

    for b, v in RESULT["trend_q_depth"].items():
        rows = {r["q_hops"]: r for r in v["runs"]}
        assert sorted(rows) == list(bench.Q_DEPTHS)
        assert rows[2]["fold_accuracies"] == RESULT["tuned_cv"][b]["tikhonov"]["fold_accuracies"]
        for r in rows.values():
            assert len(r["fold_accuracies"]) == 10 and r["mean"] == pytest.approx(np.mean(r["fold_accuracies"]))
            for m in ("gcn", "gin"):
                d = np.subtract(r["fold_accuracies"], RESULT["tuned_cv"][b][m]["fold_accuracies"])
                ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
                assert r[f"minus_{m}"] == pytest.approx([d.mean(), ci.low, ci.high])
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}["matches_baselines"]
    trend = shipped["diagnosis"]["trend"]                              # the stored trend, as the ledger copied it
    assert shipped["diagnosis"]["cause"] == "scale" and trend == RESULT["trend_q_depth"]["cuneiform"]["trend"]
    assert [row[0] for row in trend] == list(bench.Q_DEPTHS)


def test_the_stored_leak_table_recomputes_and_reading_needs_small_q_elsewhere():
    again = bench.long_range_leak()                                      # closed form: the same numbers (to rounding)
    assert {k: v for k, v in again.items() if k != "runs"} == {k: v for k, v in RESULT["long_range_leak"].items()
                                                               if k != "runs"}
    for stored, now in zip(RESULT["long_range_leak"]["runs"], again["runs"], strict=True):
        assert stored == pytest.approx(now, rel=1e-9, abs=1e-12)
    for d in (8, 16):
        rows = sorted((r for r in RESULT["long_range_leak"]["runs"] if r["distance"] == d), key=lambda r: -r["q_other"])
        shares = [r["source_share"] for r in rows]
        assert shares == sorted(shares) and 0 < shares[0] < shares[-1] < 1   # less q elsewhere: more of the source
        assert rows[-1]["sign_accuracy"] == 1.0
    far = {r["q_other"]: r["sign_accuracy"] for r in RESULT["long_range_leak"]["runs"] if r["distance"] == 16}
    assert far[0.01] < 0.6                                                  # at the budget's q_init: near chance


def test_off_motif_cycles_are_the_cycle_class_chord_cycle_only():
    from core.tikhonov_gnn.data import make_motifs

    for g in make_motifs(n_graphs=20, seed=3).graphs:
        off = bench._off_motif_cycles(g)
        assert not (off & g.truth).any()
        assert off.sum() == 0 if g.label == 0 else off.sum() >= 6   # the chord closes a cycle of length >= 6


def test_the_motif_evidence_and_small_q_sections_hold_the_judged_runs():
    judged = {x["seed"]: x for x in RESULT[bench.JUDGED_SELECTION]["motifs"]["runs"]}
    for x in RESULT["motif_evidence"]["runs"]:                 # the same models as the judged selection
        assert x["auroc"] == pytest.approx(judged[x["seed"]]["auroc"])
        assert sum(x["largest_q"].values()) == 80 and 0.0 <= x["off_motif_cycle_auroc"] <= 1.0
    starts = [(x["seed"], x["start"]) for x in RESULT["long_range_small_q"]["runs"]]
    assert starts == [(s, dict(c)) for s in bench.DESIGN_SEEDS for c in bench.SMALL_Q_STARTS]


def test_the_linear_readout_is_judged_on_fresh_seeds_as_a_reference_that_never_decides():
    ex = RESULT["explanations_linear_judged"]
    assert set(ex) == {"motifs", "planted_feature"} and len(bench.LINEAR_SEEDS) >= 10
    # fresh: the readout was proposed on 10-19, the motif preset chosen on 20-29, the collapse seen on 0-4
    assert not set(bench.LINEAR_SEEDS) & (set(bench.GATED_SEEDS) | set(bench.PRESET_SEEDS) | set(bench.SEEDS))
    for name, v in ex.items():
        assert v["readout"] == "linear" and [x["seed"] for x in v["runs"]] == list(bench.LINEAR_SEEDS)
        assert v["budget"] == RESULT["explanations_selected_laplacian"][name]["budget"]   # the judged budget
        for x in v["runs"]:
            assert x["chosen"] == int(np.argmax(x["validation"]))
            assert -1 <= x["agreement"] <= 1 and -1 <= x["untrained_agreement"] <= 1
    configs = [bench.measured_config("motifs", **{**c, "readout": "linear"}) for c in bench.EXPLAIN_BUDGET_LAPLACIAN]
    assert [{"lr": c.lr, "epochs": c.epochs, "p_init": c.p_init} for c in configs] == ex["motifs"]["budget"]
    shipped = {v["claim_id"]: v for v in RESULT["verdicts"]}["faithful_explanations"]
    trained = [x["auroc"] for x in ex["planted_feature"]["runs"] if x["train_accuracy"] >= 0.9]
    assert f"AUROC {np.mean(trained):.2f}" in shipped["diagnosis"]["evidence"]          # the figure the diagnosis quotes
    fitted = sum(x["train_accuracy"] >= 0.9 for x in ex["motifs"]["runs"])
    assert f"only {fitted} of 10 runs train" in shipped["diagnosis"]["evidence"]
    doctored = copy.deepcopy(RESULT)      # a reference: the candidate at 0.95 everywhere does not move the verdict
    for v in doctored["explanations_linear_judged"].values():
        for x in v["runs"]:
            x["train_accuracy"], x["auroc"] = 1.0, 0.95
    assert faithful(doctored).status == shipped["status"]


def test_the_linear_readout_tuned_grid_changes_only_tikhonovs_readout_and_pairs_its_own_baselines():
    cells = bench.sweep(bench.LINEAR_TUNED_GRID)
    plain = bench.sweep("tuned_cv")
    assert len(cells) == len(plain) == 60 and not {c.name for c in cells} & {c.name for c in plain}
    for c, p in zip(cells, plain, strict=True):
        extra = {k: v for k, v in c.params.items() if k not in p.params}
        assert {k: c.params[k] for k in p.params} == p.params and c.seed == p.seed
        assert extra == ({"readout": "linear"} if c.params["model"] == "tikhonov" else {})
    cv = RESULT[bench.LINEAR_TUNED_GRID]
    (v,) = [v for v in bench.verdicts(RESULT) if v.claim_id == "matches_baselines"]
    text = {x["claim_id"]: x for x in RESULT["verdicts"]}["matches_baselines"]["diagnosis"]["evidence"]
    for b, m in (("mutag", "gcn"), ("mutag", "gin"), ("cuneiform", "gcn"), ("cuneiform", "gin")):
        d = np.subtract(cv[b]["tikhonov"]["fold_accuracies"], cv[b][m]["fold_accuracies"])
        assert bench.interval_text(d, 3) in text, (b, m)                    # the figures the diagnosis quotes
    doctored = copy.deepcopy(RESULT)      # a reference: a candidate far above every baseline does not move the verdict
    for row in doctored[bench.LINEAR_TUNED_GRID].values():
        row["tikhonov"]["fold_accuracies"] = [1.0] * 10
    (w,) = [w for w in bench.verdicts(doctored) if w.claim_id == "matches_baselines"]
    assert w.status == v.status


def test_the_linear_readout_capacity_probe_reads_what_the_head_sees_and_is_quoted_as_stored():
    from core.tikhonov_gnn.data import make_motifs
    from core.tikhonov_gnn.operator import normalized_laplacian

    g = make_motifs(n_graphs=4, seed=30).graphs[1]
    q = np.where(g.truth, 10.0, 0.01)
    lap = normalized_laplacian(g.adjacency)                   # p(λ) = λ: R = (L + Q)^-1 Q, by hand
    r = np.linalg.solve(lap + np.diag(q), np.diag(q))
    np.testing.assert_allclose(bench.pooled_linear_readout(g, q), np.ones(g.n_nodes) @ r @ g.features, rtol=1e-10)
    cap = RESULT["linear_readout_capacity"]
    assert {(x["seed"], x["q"]) for x in cap["runs"]} == {(s, k) for s in (30, 31, 32)
                                                          for k in (*bench.CAPACITY_Q, "bag_of_features")}
    text = {x["claim_id"]: x for x in RESULT["verdicts"]}["faithful_explanations"]["diagnosis"]["evidence"]

    def span(q, *keys):
        v = [x[k] for x in cap["runs"] if x["q"] == q for k in keys]
        return f"{min(v):.2f} to {max(v):.2f}"

    for quoted in (span("oracle", "logistic_raw"), span("oracle", "mlp_raw"), span("constant_0.01", "mlp_standardised"),
                   span("constant_0.01", "mlp_raw"),
                   span("bag_of_features", "logistic_raw", "logistic_standardised", "mlp_raw", "mlp_standardised")):
        assert quoted in text, quoted
    # the null: degree multisets are shared, so the bag of node features tells the classes apart no better than chance
    assert max(x["logistic_standardised"] for x in cap["runs"] if x["q"] == "bag_of_features") < 0.6


def test_the_batch_normalised_readout_is_judged_on_fresh_seeds_and_its_figures_are_quoted_as_stored():
    ex = RESULT["explanations_linear_norm_judged"]
    # fresh: the batch norm was proposed on motif seeds 30-39, which judged the plain linear readout
    assert not set(bench.NORM_SEEDS) & (set(bench.LINEAR_SEEDS) | set(bench.GATED_SEEDS) | set(bench.PRESET_SEEDS))
    text = {x["claim_id"]: x for x in RESULT["verdicts"]}["faithful_explanations"]["diagnosis"]["evidence"]
    for name, v in ex.items():
        assert v["readout"] == "linear_norm" and [x["seed"] for x in v["runs"]] == list(bench.NORM_SEEDS)
        trained = [x for x in v["runs"] if x["train_accuracy"] >= v["gate"]]
        assert len(trained) == len(v["runs"])                    # the diagnosis says every run trains
        for quoted in (bench.interval_text([x["agreement"] for x in trained]),
                       bench.interval_text([x["agreement"] - x["untrained_agreement"] for x in trained])):
            assert quoted in text, (name, quoted)
        mean, low, high = bench.t_interval([x["auroc"] for x in trained])
        assert f"{mean:.2f} [{low:.2f}, {high:.2f}]" in text, name
    doctored = copy.deepcopy(RESULT)      # a reference: it never decides the verdict
    for v in doctored["explanations_linear_norm_judged"].values():
        for x in v["runs"]:
            x["auroc"] = 0.95
    assert faithful(doctored).status == faithful(RESULT).status


def test_the_shipped_readout_is_judged_on_fresh_seeds_with_the_registered_budget_and_quoted_as_stored():
    from core.tikhonov_gnn import recommended_config

    # fresh: linear_norm was chosen on 10-49 (the collapse seen on 0-4, the motif preset chosen on 20-29)
    used = set(bench.SEEDS) | set(bench.GATED_SEEDS) | set(bench.PRESET_SEEDS) | set(bench.LINEAR_SEEDS) | set(
        bench.NORM_SEEDS)
    assert len(bench.FINAL_SEEDS) >= 10 and not set(bench.FINAL_SEEDS) & used
    assert bench.SHIPPED_READOUT == recommended_config("motifs").readout == recommended_config(
        "planted_feature").readout == "linear_norm"
    text = {x["claim_id"]: x for x in RESULT["verdicts"]}["faithful_explanations"]["diagnosis"]["evidence"]
    for section, readout in (("explanations_final", bench.SHIPPED_READOUT), ("explanations_final_node", "node")):
        assert set(RESULT[section]) == {"motifs", "planted_feature"}
        for name, v in RESULT[section].items():
            assert v["readout"] == readout and v["seeds"] == [x["seed"] for x in v["runs"]] == list(bench.FINAL_SEEDS)
            assert v["budget"] == RESULT["explanations_selected_laplacian"][name]["budget"]   # the judged budget
            for x in v["runs"]:
                assert x["chosen"] == int(np.argmax(x["validation"]))
                assert all(-1 <= x[k] <= 1 for k in ("agreement", "untrained_agreement", "permuted_agreement"))
            trained = [x for x in v["runs"] if x["train_accuracy"] >= v["gate"]]
            for quoted in (bench.interval_text([x["agreement"] for x in trained]),
                           bench.interval_text([x["agreement"] - x["untrained_agreement"] for x in trained])):
                assert quoted in text, (section, name, quoted)
    for v in RESULT["explanations_final"].values():                 # the permuted null, as the diagnosis quotes it
        assert bench.interval_text([x["permuted_agreement"] for x in v["runs"]]) in text
    # the power the diagnosis quotes, and the confirmatory seeds' count, recompute from the stored runs
    motifs, planted = (RESULT["explanations_final"][n] for n in ("motifs", "planted_feature"))
    power, needed = bench.gain_power(bench.trained_runs(motifs))
    assert f"power {power:.2f} with {len(motifs['runs'])} seeds and needs {needed} for 0.8" in text
    assert len(bench.CONFIRM_SEEDS) == needed
    assert f"it has {bench.gain_power(bench.trained_runs(planted))[0]:.2f}" in text
    untrained = [x["untrained_agreement"] for x in motifs["runs"]]
    trained_sd = np.std([x["agreement"] for x in bench.trained_runs(motifs)], ddof=1)
    assert (f"spans {min(untrained):+.2f} to {max(untrained):+.2f} over the seeds (sd {np.std(untrained, ddof=1):.2f}, "
            f"the trained runs' {trained_sd:.2f})") in text
    untrained_p = np.std([x["untrained_agreement"] for x in planted["runs"]], ddof=1)
    assert f"(untrained sd {untrained_p:.2f})" in text
    # the power function itself: a gain far above its spread is found with few runs, one within it needs many
    sure = [{"agreement": 0.5 + 0.01 * k, "untrained_agreement": 0.0} for k in range(10)]
    noisy = [{"agreement": 0.1 + 0.5 * (-1) ** k, "untrained_agreement": 0.0} for k in range(10)]
    assert bench.gain_power(sure)[0] > 0.99 and bench.gain_power(noisy)[0] < 0.2 and bench.gain_power(noisy)[1] > 100
    trend = RESULT["trend_explanations_shipped"]
    assert trend["config_changes"] == {"readout": bench.SHIPPED_READOUT} and len(trend["trend_agreement"]) >= 3
    assert "AUROC " + ", ".join(f"{a:.2f}" for _, a, _ in trend["trend"]) in text


def test_the_confirmatory_motif_seeds_replace_the_ten_only_once_all_four_sections_are_stored():
    assert len(bench.CONFIRM_SEEDS) == 44 and not set(bench.CONFIRM_SEEDS) & set(range(60))   # fresh, fixed in advance
    assert [s for k in CONFIRM for s in bench.CONFIRM_SECTIONS[k]] == list(bench.CONFIRM_SEEDS)
    for k in (k for k in CONFIRM if k in RESULT):                    # what is stored is what was registered
        (v,) = RESULT[k].values()
        assert list(RESULT[k]) == ["motifs"] and v["readout"] == bench.SHIPPED_READOUT
        assert v["seeds"] == [x["seed"] for x in v["runs"]] == list(bench.CONFIRM_SECTIONS[k])
        assert v["budget"] == RESULT["explanations_final"]["motifs"]["budget"]
    doctored = {k: v for k, v in copy.deepcopy(RESULT).items() if k not in CONFIRM}
    doctored["explanations_final"] = _final_runs()
    for x in doctored["explanations_final"]["motifs"]["runs"]:       # the 10 seeds: no gain on motifs
        x["untrained_agreement"] = x["agreement"] + 0.01 * (x["seed"] % 3 - 1)
    assert faithful(doctored).status == "not reproduced"
    for k in CONFIRM[:3]:                                            # three of four sections: still the 10 seeds
        doctored[k] = {"motifs": _final_runs(bench.CONFIRM_SECTIONS[k])["motifs"]}
    assert faithful(doctored).status == "not reproduced"
    doctored[CONFIRM[3]] = {"motifs": _final_runs(bench.CONFIRM_SECTIONS[CONFIRM[3]])["motifs"]}
    assert faithful(doctored).status == REPRODUCED                   # all 44 stored: they decide motifs' half
    for x in doctored[CONFIRM[0]]["motifs"]["runs"]:                 # and a failing confirmatory run fails it
        x["agreement"] = x["untrained_agreement"] - 0.5
    for k in CONFIRM[1:]:
        for x in doctored[k]["motifs"]["runs"]:
            x["agreement"] = x["untrained_agreement"] - 0.01 * (x["seed"] % 3)
    assert faithful(doctored).status == "not reproduced"


def test_the_confirmatory_figures_are_quoted_as_stored_and_their_permuted_null_fails():
    runs = [x for k in CONFIRM for x in RESULT[k]["motifs"]["runs"]]
    trained = bench.trained_runs({"runs": runs, "gate": RESULT[CONFIRM[0]]["motifs"]["gate"]})
    text = {x["claim_id"]: x for x in RESULT["verdicts"]}["faithful_explanations"]["diagnosis"]["evidence"]
    assert f"on the {len(runs)} confirmatory motif seeds" in text and len(trained) == len(runs) == 44
    for quoted in (bench.interval_text([x["agreement"] - x["untrained_agreement"] for x in trained]),
                   bench.interval_text([x["agreement"] for x in trained]),
                   bench.interval_text([x["permuted_agreement"] for x in trained])):
        assert quoted in text, quoted
    for field in ("auroc", "untrained_auroc", "shuffled_auroc"):
        mean, low, high = bench.t_interval([x[field] for x in trained])
        assert f"{mean:.2f} [{low:.2f}, {high:.2f}]" in text, field
    p = stats.ttest_1samp([x["agreement"] - x["untrained_agreement"] for x in trained], 0.0, alternative="greater")
    assert f"one-sided p = {p.pvalue:.4f}" in text
    controls = {c["name"]: c for c in faithful(RESULT).controls}
    assert controls["permuted"]["passed"] is False and controls["confirm_informative"]["passed"] is True
    leak = copy.deepcopy(RESULT)                     # the permuted null reads the confirmatory runs once stored
    for k in CONFIRM:
        for i, x in enumerate(leak[k]["motifs"]["runs"]):
            x["permuted_agreement"] = 0.4 + 0.01 * (i % 3)
    assert {c["name"]: c for c in faithful(leak).controls}["permuted"]["passed"] is True


def test_the_shipped_trend_runs_as_bench_run_cells_and_is_the_mean_of_its_trained_runs():
    cells = bench.sweep(bench.TREND_GRID)
    assert sorted((c.params["graphs"], c.seed) for c in cells) == [(n, s) for n in bench.TREND_SIZES
                                                                     for s in bench.GATED_SEEDS]
    assert {c.params["readout"] for c in cells} == {bench.SHIPPED_READOUT} and len({c.name for c in cells}) == len(cells)
    t = RESULT["trend_explanations_shipped"]
    for (n, mean, count), (n2, agree, count2) in zip(t["trend"], t["trend_agreement"], strict=True):
        trained = [x for x in t["runs"] if x["graphs"] == n and x["trained"]]
        assert n == n2 and count == count2 == len(trained) >= 5
        assert mean == pytest.approx(np.mean([x["auroc"] for x in trained]))
        assert agree == pytest.approx(np.mean([x["agreement"] for x in trained]))
    # the aggregation from rows is the one the in-process section used: rows in any order give the same trend
    again = bench.explanations_trend(agreement=True, rows=list(reversed(t["runs"])), readout=bench.SHIPPED_READOUT)
    assert again["trend"] == t["trend"] and again["trend_agreement"] == t["trend_agreement"]
    (v,) = [v for v in bench.verdicts(RESULT) if v.claim_id == "faithful_explanations"]
    assert v.diagnosis["cause"] == "genuine" and v.diagnosis["trend"] == t["trend"]
    assert "AUROC " + ", ".join(f"{a:.2f}" for _, a, _ in t["trend"]) in v.diagnosis["evidence"]


def test_the_log_parameterisation_probe_holds_its_registered_starts_and_the_long_range_gate_is_reported():
    runs = RESULT["long_range_log_scale"]["runs"]
    assert [(x["seed"], x["start"]) for x in runs] == [(s, dict(c)) for s in bench.DESIGN_SEEDS
                                                      for c in bench.LOG_SCALE_STARTS]
    fits = [x for x in runs if x["train_accuracy"] >= 0.9]
    assert {x["seed"] for x in fits} == {1}          # as the diagnosis says: only seed 1 fits
    for x in fits:                                   # and there q at the source stands out
        assert x["q_source"] > 10 * x["q_others_max"]
    (v,) = [v for v in bench.verdicts(RESULT) if v.claim_id == "long_range"]
    fitted, seeds = bench.fitted_seeds(RESULT)
    assert 2 * fitted <= seeds and f"at 16 hops on only {fitted} of {seeds} seeds" in v.detail
    assert "again only seed 1 fits (2 of 4 starts" in v.diagnosis["evidence"] and len(fits) == 2
