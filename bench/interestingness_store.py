"""The study store under load: 50 concurrent participants x 20 items (+2 attention checks) on SQLite
and on PostgreSQL at 127.0.0.1:5432; write latency of ``record_response`` (p50, p95, max), next to an
anchor: the same store's single-threaded write latency in the same run. Also measured:

- the same 50 participants while three busy processes load the CPU (the loaded machine of issue 26);
- SQLite with ``synchronous=NORMAL`` (the setting before issue 26: no fsync per commit) as the anchor
  for the cost of ``FULL``;
- a participant's write on SQLite while an export-sized read transaction stays open for 35 s.

    python bench/interestingness_store.py   # writes bench/results/interestingness_store.json and .md
"""

from __future__ import annotations

import subprocess
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
from core.interestingness import store as store_module  # noqa: E402
from tests.core.interestingness.conftest import postgres_database  # noqa: E402

PARTICIPANTS, ITEMS, BURNERS, READ_HOLD_S = 50, 20, 3, 35.0
BURN = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end:\n    pass\n"


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
            "write_max_ms": float(ms.max()), "wall_s": wall}


def loaded(store: StudyStore) -> dict:
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(BURNERS)]
    try:
        return run(store, PARTICIPANTS)
    finally:
        for p in burners:
            p.kill()
            p.wait()


def write_during_long_read(store: StudyStore) -> dict:
    """Participants' writes while another session holds a read transaction open for READ_HOLD_S."""
    bank = [Problem(f"r{i:03d}", f"Read problem {i}.", "algebra", 1) for i in range(30)]
    study = store.create_study(f"read-{time.time_ns()}", [p.id for p in bank], ITEMS, problems=bank)
    opened = threading.Event()

    def reader():
        with store.reader() as s:
            s.execute(store_module.select(store_module.m.Response.id)).all()   # the transaction now holds a snapshot
            opened.set()
            time.sleep(READ_HOLD_S)

    thread = threading.Thread(target=reader)
    thread.start()
    opened.wait()
    ms, start = [], time.perf_counter()
    pid = store.enroll(study, "during-read", "college")
    while (item := store.next_item(pid)) is not None:
        t0 = time.perf_counter()
        store.record_response(pid, item.id, *(item.expected or {"i": 3, "d": 3}).values())
        ms.append((time.perf_counter() - t0) * 1000)
    writes_s = time.perf_counter() - start
    thread.join()
    return {"hold_s": READ_HOLD_S, "writes": len(ms), "write_max_ms": float(max(ms)),
            "write_p95_ms": float(np.percentile(ms, 95)), "writes_finished_during_the_read": writes_s < READ_HOLD_S}


def main() -> int:
    r = {"backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        url, drop = postgres_database()
        try:
            for name, db in (("sqlite", f"sqlite:///{tmp}/bench.sqlite"), ("postgresql", url)):
                store = StudyStore(db)
                anchor = run(store, 1)
                concurrent = run(store, PARTICIPANTS)
                concurrent["p50_ratio_to_single_participant"] = concurrent["write_p50_ms"] / anchor["write_p50_ms"]
                r["backends"][name] = {"single_participant": anchor, "concurrent": concurrent,
                                       "concurrent_cpu_loaded": loaded(store)}
                if name == "sqlite":
                    r["sqlite_long_read"] = write_during_long_read(store)
                store.close()
            store_module.SQLITE_SYNCHRONOUS = "NORMAL"           # the anchor for FULL's cost
            try:
                normal = StudyStore(f"sqlite:///{tmp}/normal.sqlite")
                r["sqlite_synchronous_normal"] = {"single_participant": run(normal, 1),
                                                  "concurrent": run(normal, PARTICIPANTS)}
                normal.close()
            finally:
                store_module.SQLITE_SYNCHRONOUS = "FULL"
        finally:
            drop()
    full, normal = r["backends"]["sqlite"], r["sqlite_synchronous_normal"]
    r["sqlite_full_over_normal_p50"] = full["concurrent"]["write_p50_ms"] / normal["concurrent"]["write_p50_ms"]
    r["sqlite_full_over_normal_single_p50"] = (full["single_participant"]["write_p50_ms"]
                                               / normal["single_participant"]["write_p50_ms"])
    r["checks"] = {f"{name}_{kind}_nothing_lost_or_duplicated": b[kind]["responses"] == b[kind]["expected"]
                   == b[kind]["unique"] and not b[kind]["errors"]
                   for name, b in r["backends"].items() for kind in ("concurrent", "concurrent_cpu_loaded")}
    r["checks"]["sqlite_p95_under_50ms"] = full["concurrent"]["write_p95_ms"] < 50
    r["checks"]["postgresql_p95_under_300ms"] = r["backends"]["postgresql"]["concurrent"]["write_p95_ms"] < 300
    r["checks"]["sqlite_write_during_35s_read_under_100ms"] = r["sqlite_long_read"]["write_max_ms"] < 100
    lines = ["| backend | participants | load | responses | p50 write (ms) | p95 write (ms) | max write (ms) | "
             "p50 ratio to 1 participant | wall (s) |", "|---|---|---|---|---|---|---|---|---|"]
    rows = [(name, b) for name, b in r["backends"].items()] + [("sqlite, synchronous=NORMAL", normal)]
    for name, b in rows:
        for label, load, x in (("1", "-", b["single_participant"]), (str(PARTICIPANTS), "-", b["concurrent"]),
                               (str(PARTICIPANTS), f"{BURNERS} busy processes", b.get("concurrent_cpu_loaded"))):
            if x is None:
                continue
            lines.append(f"| {name} | {label} | {load} | {x['responses']} / {x['expected']} | {x['write_p50_ms']:.1f} | "
                         f"{x['write_p95_ms']:.1f} | {x['write_max_ms']:.1f} | "
                         f"{x.get('p50_ratio_to_single_participant', 1.0):.1f} | {x['wall_s']:.1f} |")
    read = r["sqlite_long_read"]
    lines += ["", f"SQLite `synchronous=FULL` over `NORMAL` (p50 write): {r['sqlite_full_over_normal_p50']:.2f}x with "
              f"{PARTICIPANTS} participants, {r['sqlite_full_over_normal_single_p50']:.2f}x with one.",
              f"SQLite write while a read transaction stays open {read['hold_s']:.0f} s: {read['writes']} writes, "
              f"max {read['write_max_ms']:.1f} ms, p95 {read['write_p95_ms']:.1f} ms.", "",
              "| check | holds |", "|---|---|"] + [f"| {k} | {v} |" for k, v in r["checks"].items()]
    return write_results("interestingness_store", r, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
