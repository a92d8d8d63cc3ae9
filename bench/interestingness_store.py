"""The study store under load: 50 concurrent participants x 20 items (+2 attention checks) on SQLite
and on PostgreSQL at 127.0.0.1:5432; write latency of ``record_response`` (p50, p95), next to an
anchor: the same store's single-threaded write latency in the same run.

    python bench/interestingness_store.py   # writes bench/results/interestingness_store.json and .md
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import write_results  # noqa: E402
from core.interestingness import Problem, StudyStore  # noqa: E402
from tests.core.interestingness.conftest import postgres_database  # noqa: E402

PARTICIPANTS, ITEMS = 50, 20


def run(store: StudyStore, participants: int) -> dict:
    bank = [Problem(f"b{i:03d}", f"Problem {i}.", "algebra", 1 + i % 5) for i in range(60)]
    study = store.create_study(f"bench-{participants}-{time.time_ns()}", [p.id for p in bank], ITEMS, problems=bank)
    latencies, errors = [], []
    lock = threading.Lock()

    def participant(i):
        try:
            pid = store.enroll(study, f"P{i}", "college")
            while (item := store.next_item(pid)) is not None:
                values = item.expected or {"i": 1 + i % 7, "d": 4}
                start = time.perf_counter()
                store.record_response(pid, item.id, *values.values())
                with lock:
                    latencies.append(time.perf_counter() - start)
            store.complete(pid)
        except Exception as error:  # noqa: BLE001
            errors.append(repr(error))

    start = time.perf_counter()
    threads = [threading.Thread(target=participant, args=(i,)) for i in range(participants)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    rows = store.rows(study)
    ms = np.array(latencies) * 1000
    return {"participants": participants, "responses": len(rows), "expected": participants * (ITEMS + 2),
            "unique": len({(r["participant_id"], r["item_id"]) for r in rows}), "errors": errors[:5],
            "write_p50_ms": float(np.percentile(ms, 50)), "write_p95_ms": float(np.percentile(ms, 95)),
            "wall_s": wall}


def main() -> int:
    r = {"backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        url, drop = postgres_database()
        try:
            for name, db in (("sqlite", f"sqlite:///{tmp}/bench.sqlite"), ("postgresql", url)):
                store = StudyStore(db)
                anchor = run(store, 1)
                loaded = run(store, PARTICIPANTS)
                loaded["p50_ratio_to_single_participant"] = loaded["write_p50_ms"] / anchor["write_p50_ms"]
                r["backends"][name] = {"single_participant": anchor, "concurrent": loaded}
                store.close()
        finally:
            drop()
    r["checks"] = {f"{name}_nothing_lost_or_duplicated": b["concurrent"]["responses"] == b["concurrent"]["expected"]
                   == b["concurrent"]["unique"] and not b["concurrent"]["errors"] for name, b in r["backends"].items()}
    lines = ["| backend | participants | responses | p50 write (ms) | p95 write (ms) | p50 ratio to 1 participant | wall (s) |",
             "|---|---|---|---|---|---|---|"]
    for name, b in r["backends"].items():
        for label, x in (("1", b["single_participant"]), (str(PARTICIPANTS), b["concurrent"])):
            lines.append(f"| {name} | {label} | {x['responses']} / {x['expected']} | {x['write_p50_ms']:.1f} | "
                         f"{x['write_p95_ms']:.1f} | {x.get('p50_ratio_to_single_participant', 1.0):.1f} | "
                         f"{x['wall_s']:.1f} |")
    return write_results("interestingness_store", r, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
