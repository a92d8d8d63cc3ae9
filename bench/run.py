"""One runner for the benches' sweeps: independent cells (configuration × seed), in-process or on Ray.

    python -m bench.run geto_lp                       # the "small" grid, in this process
    python -m bench.run geto_lp --grid full --engine ray                 # a local Ray on this machine's cores
    python -m bench.run geto_lp --engine ray --address ray://head:10001  # or RAY_ADDRESS: an existing cluster

A bench takes part by defining, in ``bench/<key>.py``:

- ``SWEEP_GRIDS``: the grid names it offers (``"small"`` first: seconds, for tests and a first look);
- ``sweep(grid) -> list[Cell]``: the cells, each a name, JSON parameters and a seed (or None);
- ``run_cell(cell) -> CellOutput``: one cell, from its parameters and seed alone (no shared state), with
  ``values`` (deterministic numbers: objectives, counts, errors) apart from ``measured`` (seconds, memory).

The runner writes each finished cell to ``<out>/<key>-<grid>/<cell>.json`` at once, so an interrupted
sweep resumes where it stopped (``--fresh`` starts over); then ``<out>/<key>-<grid>.json`` (every cell's
parameters, seed and values, sorted by name: the same bytes from either engine) and, next to it,
``.timings.json`` (each cell's measurements, which differ from run to run, and under ``runs`` every invocation
that ran cells: engine, wall time, cells run; the latest also at the top level; one that only resumed adds none).
A cell that raises is retried once; if it fails again its seed and error are recorded under
``failed`` and the other cells' results are kept. Workers run with one BLAS/OpenMP thread each in
both engines (Ray's default), so the numbers do not depend on the engine.

Add a bench: give it the three names above (``bench/geto_lp.py`` is the model) and a small grid, and
add it to ``tests/bench/test_run.py``'s engines test if its small grid runs in seconds.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.common.results import result_to_dict  # noqa: E402

OUT = ROOT / "bench" / "results" / "sweeps"
ENGINES = ("local", "ray")
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass(frozen=True)
class Cell:
    """One independent unit of a sweep: ``name`` (unique in the sweep, a file name), JSON ``params``, ``seed``."""

    name: str
    params: dict
    seed: int | None = None


@dataclass
class CellOutput:
    """What ``run_cell`` returns: deterministic ``values`` and run-dependent ``measured`` (seconds, MB)."""

    values: dict
    measured: dict = field(default_factory=dict)


@dataclass
class SweepResult:
    """A finished sweep: where it was written, how many cells ran, which failed, and the wall time."""

    path: Path
    done: int
    failed: list[dict]
    resumed: int
    seconds: float


def bench_module(key: str):
    if not key.replace("_", "").isalnum():
        raise ValueError(f"key: {key!r} is not a bench name; allowed the keys of bench/*.py")
    try:
        module = importlib.import_module(f"bench.{key}")
    except ModuleNotFoundError as error:
        raise ValueError(f"key: no bench/{key}.py") from error
    missing = [name for name in ("SWEEP_GRIDS", "sweep", "run_cell") if not hasattr(module, name)]
    if missing:
        raise ValueError(f"key: bench/{key}.py has no {', '.join(missing)}; allowed benches with a sweep "
                         f"({', '.join(sweep_benches())})")
    return module


def sweep_benches() -> list[str]:
    """The benches that define a sweep (found by reading their source, without importing them)."""
    return sorted(p.stem for p in (ROOT / "bench").glob("*.py") if "def run_cell(" in p.read_text())


def _run_one(key: str, cell: dict) -> dict:
    """Run one cell (in this process or a Ray worker); its output as plain JSON."""
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")
    from threadpoolctl import threadpool_limits

    module = importlib.import_module(f"bench.{key}")
    t0 = time.perf_counter()
    with threadpool_limits(1):
        out = module.run_cell(Cell(**cell))
    measured = {"cell_seconds": time.perf_counter() - t0, **out.measured}
    return {"values": result_to_dict(out.values), "measured": result_to_dict(measured)}   # NaN becomes null


def _progress(total: int, initial: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="cell")


def run_sweep(key: str, grid: str = "small", engine: str = "local", address: str | None = None,
              out: Path | str = OUT, fresh: bool = False, cpus: int | None = None) -> SweepResult:
    """Run bench ``key``'s sweep ``grid`` on ``engine`` and write the files described in the module docstring."""
    module = bench_module(key)
    if grid not in module.SWEEP_GRIDS:
        raise ValueError(f"grid: {grid!r} is not a grid of bench/{key}.py; allowed {', '.join(module.SWEEP_GRIDS)}")
    if engine not in ENGINES:
        raise ValueError(f"engine: {engine!r} is not an engine; allowed {', '.join(ENGINES)}")
    cells = module.sweep(grid)
    names = [c.name for c in cells]
    if len(set(names)) != len(names):
        raise ValueError(f"bench/{key}.py: sweep({grid!r}) repeats a cell name")
    folder = Path(out) / f"{key}-{grid}"
    if fresh and folder.exists():
        for path in folder.glob("*.json"):
            path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    finished = {c.name: json.loads((folder / f"{c.name}.json").read_text()) for c in cells
                if (folder / f"{c.name}.json").exists()}
    todo = [c for c in cells if c.name not in finished]
    failed: list[dict] = []
    t0 = time.perf_counter()

    def record(cell: Cell, output: dict) -> None:
        finished[cell.name] = {"name": cell.name, "params": cell.params, "seed": cell.seed, **output}
        (folder / f"{cell.name}.json").write_text(json.dumps(finished[cell.name], indent=1, sort_keys=True))

    def give_up(cell: Cell, error: str) -> None:
        failed.append({"name": cell.name, "params": cell.params, "seed": cell.seed, "error": error})

    bar = _progress(len(cells), len(cells) - len(todo), f"{key} {grid} ({engine})")
    try:
        if engine == "local":
            start_seconds = _run_local(key, todo, record, give_up, bar)
        else:
            start_seconds = _run_ray(key, todo, record, give_up, bar, address, cpus)
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    ordered = [finished[c.name] for c in sorted(cells, key=lambda c: c.name) if c.name in finished]
    document = {"bench": key, "grid": grid, "cells": [{k: v for k, v in row.items() if k != "measured"}
                                                      for row in ordered],
                "failed": sorted(failed, key=lambda f: f["name"])}
    path = Path(out) / f"{key}-{grid}.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    timings_path = path.with_suffix(".timings.json")
    earlier = json.loads(timings_path.read_text()).get("runs", []) if timings_path.exists() and not fresh else []
    this = {"engine": engine, "address": address, "wall_seconds": seconds, "engine_start_seconds": start_seconds,
            "cells_run": len(todo)}
    runs = earlier + [this] if todo or not earlier else earlier    # a run that only resumed measured nothing
    timings = {**runs[-1], "runs": runs, "cells": {row["name"]: row.get("measured", {}) for row in ordered}}
    timings_path.write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n")
    return SweepResult(path, len(ordered), failed, len(cells) - len(todo), seconds)


def sweep_values(key: str, grid: str) -> tuple[list, list]:
    """Every cell's values of bench ``key``'s sweep ``grid``, run here (resuming finished cells), and each cell's
    measurements as it ran; a failed cell is an error."""
    done = run_sweep(key, grid)
    cells = json.loads(done.path.read_text())
    if cells["failed"]:
        raise RuntimeError(f"{grid}: cells failed: {cells['failed']}")
    timings = json.loads(done.path.with_suffix(".timings.json").read_text())
    return [c["values"] for c in cells["cells"]], [c["cell_seconds"] for c in timings["cells"].values()]


def _run_local(key, todo, record, give_up, bar) -> float:
    for cell in todo:
        error = None
        for _ in range(2):   # one retry
            try:
                record(cell, _run_one(key, asdict(cell)))
                error = None
                break
            except Exception:  # noqa: BLE001 - a failed cell is reported, the sweep goes on
                error = traceback.format_exc(limit=3).strip().splitlines()[-1]
        if error is not None:
            give_up(cell, error)
        bar.update(1)
    return 0.0


def _run_ray(key, todo, record, give_up, bar, address, cpus) -> float:
    """Run the cells as Ray tasks; returns the seconds Ray took to start (0 when it was already running)."""
    t0 = time.perf_counter()
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    env = {"env_vars": {"PYTHONPATH": str(ROOT), **{v: "1" for v in THREAD_VARS}}}
    started_here = not ray.is_initialized()
    if started_here:
        if address:   # a cluster: ship the repository (not the virtualenv, git or results) as the working dir
            env["working_dir"] = str(ROOT)
            env["excludes"] = [".venv", ".git", "bench/results", "data", "**/__pycache__"]
            ray.init(address=address, runtime_env=env, log_to_driver=False)
        else:
            ray.init(num_cpus=cpus or os.cpu_count(), runtime_env=env, include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
    started = time.perf_counter() - t0 if started_here else 0.0
    try:
        remote = ray.remote(max_retries=0)(_run_one)
        pending = {remote.remote(key, asdict(cell)): (cell, 0) for cell in todo}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            cell, tries = pending.pop(ref)
            try:
                record(cell, ray.get(ref))
            except Exception as error:  # noqa: BLE001 - a task error or a lost worker
                if tries == 0:
                    pending[remote.remote(key, asdict(cell))] = (cell, 1)
                    continue
                cause = getattr(error, "cause", None) or error
                give_up(cell, f"{type(cause).__name__}: {str(cause).strip().splitlines()[-1] if str(cause).strip() else ''}")
            bar.update(1)
    finally:
        if started_here:
            ray.shutdown()
    return started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("key", help=f"a bench with a sweep: {', '.join(sweep_benches())}")
    parser.add_argument("--grid", default="small")
    parser.add_argument("--engine", default="local", choices=ENGINES)
    parser.add_argument("--address", default=None, help="a Ray cluster (default RAY_ADDRESS, else a local Ray)")
    parser.add_argument("--cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--fresh", action="store_true", help="ignore cells finished by an earlier run")
    args = parser.parse_args(argv)
    result = run_sweep(args.key, args.grid, args.engine, args.address, args.out, args.fresh, args.cpus)
    print(f"{result.path}: {result.done} cells ({result.resumed} resumed), {len(result.failed)} failed, "
          f"{result.seconds:.1f} s")
    for failure in result.failed:
        print(f"  failed: {failure['name']} (seed {failure['seed']}): {failure['error']}")
    return 1 if result.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
