"""Re-derive the claims ledger from stored results, without measuring again.

    python bench/ledger.py                 # every system with a bench
    python bench/ledger.py quantum_ng      # one system

For each system, reads ``bench/results/<key>.json``, calls ``bench/<key>.py``'s ``verdicts(result)``
on the numbers stored there, and rewrites the file's ``claims`` and ``verdicts`` (and the markdown
table) in place. Nothing is measured: a verdict changes only when its rule or its claims change.
A results file measured before verdicts existed gets ``measured_at`` from git (the date of the last
commit that changed it). Use it after editing a system's ``CLAIMS`` or a bench's ``verdicts``;
to change the numbers, run the bench itself.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import RESULTS, write_results  # noqa: E402

# Systems whose bench derives verdicts from a results file it stores (bench/<key>.py: table, verdicts).
LEDGER = ("looped_lm", "distributional_steering", "interestingness", "quantum_ng", "robust_decisions", "geto_lp",
          "tikhonov_gnn", "grace", "mcr2", "kernel_conformal",
          "occupancy_irl", "malora", "uncertainty_shapley", "class_il", "graph_clustering",
          "driving_world_model", "lvqmark", "hebbian_memory", "latent_world_action")


def committed_date(path: Path) -> str | None:
    """The ISO date of the last commit that changed ``path``, or None outside git."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cs", "--", str(path)], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out or None


def rederive(key: str) -> None:
    path = RESULTS / f"{key}.json"
    result = json.loads(path.read_text())
    if not result.get("measured_at"):
        date = committed_date(path)
        if date:
            result["measured_at"] = date
    bench = importlib.import_module(f"bench.{key}")
    write_results(key, result, bench.table(result), verdicts=bench.verdicts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", metavar="key", help="any of " + ", ".join(LEDGER))
    keys = parser.parse_args(argv).keys or LEDGER
    unknown = [k for k in keys if k not in LEDGER]
    if unknown:
        parser.error(f"key: {unknown[0]!r} has no ledger; allowed {', '.join(LEDGER)}")
    for key in keys:
        rederive(key)
    return 0


if __name__ == "__main__":
    sys.exit(main())
