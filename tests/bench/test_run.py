"""bench/run.py: a sweep's cells give the same file on either engine; failures are retried, reported, resumed."""

from __future__ import annotations

import json
import sys
import types

import pytest

from bench.run import Cell, CellOutput, run_sweep, sweep_benches


@pytest.mark.slow(reason="starts a local 2-CPU Ray (about 20 s) and runs geto_lp's small sweep on both engines")
@pytest.mark.xdist_group("ray")
def test_local_and_ray_write_identical_results(tmp_path):
    local = run_sweep("geto_lp", "small", "local", out=tmp_path / "local")
    ray = run_sweep("geto_lp", "small", "ray", out=tmp_path / "ray", cpus=2)
    assert local.failed == [] and ray.failed == [] and local.done == ray.done >= 10
    assert local.path.read_bytes() == ray.path.read_bytes()
    cells = json.loads(local.path.read_text())["cells"]
    dense = [c for c in cells if c["name"].startswith("dense-")]
    assert {c["seed"] for c in dense} == {1, 2}             # the seeds are in the file
    by_name = {c["name"]: c["values"] for c in cells}
    for seed in (1, 2):   # the layered LP and POT's classical LP agree on every seeded dense input
        geto, pot = by_name[f"dense-06-seed{seed}-geto_lp"], by_name[f"dense-06-seed{seed}-pot_lp"]
        assert geto["objective"] == pytest.approx(pot["objective"], rel=1e-6)
    assert by_name["dense-06-seed1-geto_lp"]["objective"] != by_name["dense-06-seed2-geto_lp"]["objective"]
    timings = json.loads(ray.path.with_suffix(".timings.json").read_text())
    # times live apart from the results: every cell has its measurements there (their values are not asserted)
    assert timings["engine"] == "ray" and set(timings["cells"]) == set(by_name)
    assert all("cell_seconds" in t for t in timings["cells"].values())


@pytest.fixture
def flaky_bench(monkeypatch, tmp_path):
    """A bench whose cell "b" fails once, cell "c" always, recording every run in a file."""
    calls = tmp_path / "calls.txt"

    def run_cell(cell):
        with calls.open("a") as f:
            f.write(cell.name + "\n")
        if cell.name == "c" or (cell.name == "b" and calls.read_text().count("b\n") == 1):
            raise RuntimeError(f"cell {cell.name} broke")
        return CellOutput(values={"twice": 2 * cell.params["x"], "seed": cell.seed}, measured={"mb": 1.0})

    module = types.SimpleNamespace(SWEEP_GRIDS=("small",), run_cell=run_cell,
                                   sweep=lambda grid: [Cell(n, {"x": i}, 10 + i) for i, n in enumerate("abc")])
    monkeypatch.setitem(sys.modules, "bench.flaky", module)
    return calls


def test_a_failing_cell_is_retried_once_then_reported_and_the_rest_kept(flaky_bench, tmp_path):
    result = run_sweep("flaky", out=tmp_path)
    document = json.loads(result.path.read_text())
    assert [c["name"] for c in document["cells"]] == ["a", "b"]             # b succeeded on its retry
    assert document["cells"][1]["values"] == {"twice": 2, "seed": 11}
    assert document["failed"] == [{"name": "c", "params": {"x": 2}, "seed": 12, "error": "RuntimeError: cell c broke"}]
    assert flaky_bench.read_text().split() == ["a", "b", "b", "c", "c"]
    assert "measured" not in json.dumps(document)                           # run-dependent numbers live apart
    assert json.loads(result.path.with_suffix(".timings.json").read_text())["cells"]["a"]["mb"] == 1.0


def test_an_interrupted_sweep_resumes_where_it_stopped(flaky_bench, tmp_path):
    first = run_sweep("flaky", out=tmp_path)
    timings = lambda: json.loads(first.path.with_suffix(".timings.json").read_text())   # noqa: E731
    assert [r["cells_run"] for r in timings()["runs"]] == [3]
    again = run_sweep("flaky", out=tmp_path)
    assert again.resumed == 2 and flaky_bench.read_text().split()[5:] == ["c", "c"]   # only the failed cell reruns
    assert [r["cells_run"] for r in timings()["runs"]] == [3, 1]
    (tmp_path / "flaky-small" / "c.json").write_text(json.dumps(              # c finished elsewhere: all resume
        {"name": "c", "params": {"x": 2}, "seed": 12, "values": {}, "measured": {"cell_seconds": 1.0}}))
    before = timings()
    assert run_sweep("flaky", out=tmp_path).resumed == 3
    after = timings()
    assert after["runs"] == before["runs"] and after["wall_seconds"] == before["wall_seconds"]   # kept, not zeroed
    assert after["cells"]["c"] == {"cell_seconds": 1.0}
    fresh = run_sweep("flaky", out=tmp_path, fresh=True)
    assert fresh.resumed == 0


def test_bad_arguments_name_the_field(flaky_bench, tmp_path):
    with pytest.raises(ValueError, match="^grid: 'huge' is not a grid of bench/flaky.py; allowed small"):
        run_sweep("flaky", "huge", out=tmp_path)
    with pytest.raises(ValueError, match="^engine: 'dask' is not an engine; allowed local, ray"):
        run_sweep("flaky", engine="dask", out=tmp_path)
    with pytest.raises(ValueError, match="^key: no bench/nothing.py"):
        run_sweep("nothing", out=tmp_path)
    with pytest.raises(ValueError, match="^key: bench/report.py has no SWEEP_GRIDS, sweep, run_cell"):
        run_sweep("report", out=tmp_path)
    assert not list(tmp_path.glob("*.json"))


def test_the_three_longest_benches_have_sweeps():
    assert {"geto_lp", "quantum_ng", "looped_lm"} <= set(sweep_benches())
    from bench.run import bench_module

    for key in ("quantum_ng", "looped_lm"):   # their grids are well formed: unique names, seeds and JSON params
        module = bench_module(key)
        for grid in module.SWEEP_GRIDS:
            cells = module.sweep(grid)
            assert len({c.name for c in cells}) == len(cells) > 1
            assert all(isinstance(c.seed, int) for c in cells)
            json.dumps([c.params for c in cells])
