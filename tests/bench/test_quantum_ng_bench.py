"""bench/quantum_ng.py's bookkeeping: partial runs merge into the stored results, and the cost wording."""

import json

import bench.quantum_ng as bench


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
