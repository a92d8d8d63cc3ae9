"""The study store under load: 50 concurrent participants x 20 items (+2 attention checks) on SQLite
and on PostgreSQL at 127.0.0.1:5432; write latency of ``record_response`` (p50, p95, max), next to an
anchor: the same store's single-threaded write latency in the same run. Also measured:

- the same 50 participants while three busy processes load the CPU (the loaded machine of issue 26);
- SQLite with ``synchronous=NORMAL`` (no fsync per commit) as the anchor for the cost of ``FULL``;
- a participant's write on SQLite while an export-sized read transaction stays open for 35 s;
- SQLite with group commit (``GROUP_COMMIT = True``; off by default, each write commits alone) against the
  default, and how many writes a group carried;
- the same 50 participants paced like people (an exponential pause of mean ``THINK_S`` before each
  answer: still far faster than a person reading a problem), where the latency is the store's own and not
  the queue of 50 threads that never pause;
- the floor of the disk: an ``os.fsync`` after a 4 KiB append, in the same folder (p50, p95), and the CPU
  one participant's item costs (``next_item`` + ``record_response``), the floor of 50 threads that share
  one interpreter;
- with ``strace`` (where installed): fsync/fdatasync calls per acknowledged response, one participant and
  50 at once.

    python bench/interestingness_store.py   # writes bench/results/interestingness_store.json and .md
"""

from __future__ import annotations

import os
import shutil
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

PARTICIPANTS, ITEMS, BURNERS, READ_HOLD_S, THINK_S = 50, 20, 3, 35.0, 2.0
BURN = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end:\n    pass\n"


def run(store: StudyStore, participants: int, think_s: float = 0.0) -> dict:
    bank = [Problem(f"b{i:03d}", f"Problem {i}.", "algebra", 1 + i % 5) for i in range(60)]
    study = store.create_study(f"bench-{participants}-{time.time_ns()}", [p.id for p in bank], ITEMS, problems=bank)
    latencies, errors = [], []
    lock = threading.Lock()
    writer = getattr(store, "_writer", None)
    groups0, writes0 = (writer.groups, writer.writes) if writer else (0, 0)

    def participant(i):
        rng = np.random.default_rng(i)
        try:
            pid = store.enroll(study, f"P{i}", "college")
            while (item := store.next_item(pid)) is not None:
                if think_s:
                    time.sleep(rng.exponential(think_s))
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
    out = {"participants": participants, "think_s": think_s, "responses": len(rows),
           "expected": participants * (ITEMS + 2), "unique": len({(r["participant_id"], r["item_id"]) for r in rows}),
           "errors": errors[:5], "write_p50_ms": float(np.percentile(ms, 50)),
           "write_p95_ms": float(np.percentile(ms, 95)), "write_max_ms": float(ms.max()), "wall_s": wall}
    if writer:   # every write of the run (answers and first showings) and the commits that carried them
        out["writes_per_commit"] = (writer.writes - writes0) / max(1, writer.groups - groups0)
    return out


def fsync_floor(folder: str, n: int = 300) -> dict:
    """The disk's own cost of a commit under synchronous=FULL: fsync after a 4 KiB append."""
    path = Path(folder) / "fsync.bin"
    ms = []
    with open(path, "wb") as f:
        for _ in range(n):
            f.write(os.urandom(4096))
            f.flush()
            t0 = time.perf_counter()
            os.fsync(f.fileno())
            ms.append((time.perf_counter() - t0) * 1000)
    path.unlink()
    return {"n": n, "p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "max_ms": float(max(ms))}


def cpu_per_item(store: StudyStore) -> dict:
    """CPU seconds of one participant's item (the process's, writer thread included), alone."""
    bank = [Problem(f"c{i:03d}", f"CPU problem {i}.", "algebra", 1) for i in range(30)]
    study = store.create_study(f"cpu-{time.time_ns()}", [p.id for p in bank], ITEMS, problems=bank)
    pid, n, t0 = store.enroll(study, "cpu", "college"), 0, time.process_time()
    while (item := store.next_item(pid)) is not None:
        store.record_response(pid, item.id, *(item.expected or {"i": 3, "d": 3}).values())
        n += 1
    per_item = (time.process_time() - t0) / n * 1000
    return {"items": n, "cpu_ms_per_item": per_item,
            "round_of_all_participants_ms": per_item * PARTICIPANTS}   # one interpreter runs them one at a time


STRACE = '''
import sys, threading
sys.path.insert(0, {root!r})
from core.interestingness import Problem, StudyStore
from core.interestingness import store as store_module
store_module.GROUP_COMMIT = {group!r}
store = StudyStore({url!r})
bank = [Problem(f"s{{i:03d}}", f"Strace problem {{i}}.", "algebra", 1) for i in range(60)]
sid = store.create_study("strace", [p.id for p in bank], 20, problems=bank)
pids = [store.enroll(sid, f"S{{i}}", "college") for i in range({n})]
print("READY", flush=True)
sys.stdin.readline()                                   # strace counts from here
acked = []
def go(pid):
    while (item := store.next_item(pid)) is not None:
        store.record_response(pid, item.id, *(item.expected or {{"i": 3, "d": 3}}).values())
        acked.append(item.id)
threads = [threading.Thread(target=go, args=(p,)) for p in pids]
[t.start() for t in threads]
[t.join() for t in threads]
print("ACKED", len(acked), flush=True)
store.close()
'''


def fsyncs_per_response(folder: str, participants: int, group: bool = False) -> dict | None:
    """fsync + fdatasync calls (strace -f) per acknowledged response while ``participants`` answer at once."""
    if shutil.which("strace") is None:
        return None
    url = f"sqlite:///{folder}/strace-{participants}-{group}.sqlite"
    log = Path(folder) / f"strace-{participants}-{group}.log"
    script = STRACE.format(root=str(ROOT), url=url, n=participants, group=group)
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "READY"
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", str(log),
                               "-p", str(proc.pid)])              # -f -p: every thread of the process
    time.sleep(1.0)                                    # strace attached
    proc.stdin.write("\n")
    proc.stdin.flush()
    acked = int(proc.stdout.readline().split()[1])
    proc.wait()
    tracer.wait()
    calls = sum(1 for line in log.read_text().splitlines() if "fsync(" in line or "fdatasync(" in line)
    return {"participants": participants, "group_commit": group, "acknowledged": acked, "fsync_calls": calls,
            "fsyncs_per_response": calls / acked}


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
            r["fsync_floor"] = fsync_floor(tmp)
            for name, db in (("sqlite", f"sqlite:///{tmp}/bench.sqlite"), ("postgresql", url)):
                store = StudyStore(db)
                anchor = run(store, 1)
                concurrent = run(store, PARTICIPANTS)
                concurrent["p50_ratio_to_single_participant"] = concurrent["write_p50_ms"] / anchor["write_p50_ms"]
                r["backends"][name] = {"single_participant": anchor, "concurrent": concurrent,
                                       "concurrent_paced": run(store, PARTICIPANTS, THINK_S),
                                       "concurrent_cpu_loaded": loaded(store)}
                if name == "sqlite":
                    r["sqlite_long_read"] = write_during_long_read(store)
                    r["cpu_per_item"] = cpu_per_item(store)
                store.close()
            store_module.GROUP_COMMIT = True                     # the variant: one commit for the writes waiting
            try:
                grouped = StudyStore(f"sqlite:///{tmp}/grouped.sqlite")
                r["sqlite_group_commit"] = {"single_participant": run(grouped, 1),
                                            "concurrent": run(grouped, PARTICIPANTS),
                                            "concurrent_paced": run(grouped, PARTICIPANTS, think_s=THINK_S)}
                grouped.close()
            finally:
                store_module.GROUP_COMMIT = False
            r["strace"] = [x for x in (fsyncs_per_response(tmp, 1), fsyncs_per_response(tmp, PARTICIPANTS),
                               fsyncs_per_response(tmp, PARTICIPANTS, group=True)) if x]
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
                   for name, b in r["backends"].items()
                   for kind in ("concurrent", "concurrent_paced", "concurrent_cpu_loaded")}
    r["checks"]["sqlite_p95_under_50ms"] = full["concurrent"]["write_p95_ms"] < 50
    r["checks"]["sqlite_p95_under_50ms_paced"] = full["concurrent_paced"]["write_p95_ms"] < 50
    r["checks"]["fsync_per_acknowledged_response"] = bool(r["strace"]) and all(
        x["fsyncs_per_response"] >= 1 for x in r["strace"] if not x["group_commit"])
    r["checks"]["postgresql_p95_under_300ms"] = r["backends"]["postgresql"]["concurrent"]["write_p95_ms"] < 300
    r["checks"]["sqlite_write_during_35s_read_under_100ms"] = r["sqlite_long_read"]["write_max_ms"] < 100
    lines = ["| backend | participants | load | responses | p50 write (ms) | p95 write (ms) | max write (ms) | "
             "p50 ratio to 1 participant | wall (s) |", "|---|---|---|---|---|---|---|---|---|"]
    rows = [(name, b) for name, b in r["backends"].items()] + [("sqlite, synchronous=NORMAL", normal),
                                                                ("sqlite, group commit (variant)",
                                                                 r["sqlite_group_commit"])]
    for name, b in rows:
        for label, load, x in (("1", "-", b["single_participant"]), (str(PARTICIPANTS), "-", b["concurrent"]),
                               (str(PARTICIPANTS), f"paced: {THINK_S:g} s mean pause", b.get("concurrent_paced")),
                               (str(PARTICIPANTS), f"{BURNERS} busy processes", b.get("concurrent_cpu_loaded"))):
            if x is None:
                continue
            lines.append(f"| {name} | {label} | {load} | {x['responses']} / {x['expected']} | {x['write_p50_ms']:.1f} | "
                         f"{x['write_p95_ms']:.1f} | {x['write_max_ms']:.1f} | "
                         f"{x.get('p50_ratio_to_single_participant', 1.0):.1f} | {x['wall_s']:.1f} |")
    read, floor, cpu = r["sqlite_long_read"], r["fsync_floor"], r["cpu_per_item"]
    sq, gc = r["backends"]["sqlite"], r["sqlite_group_commit"]
    lines += ["", f"SQLite `synchronous=FULL` over `NORMAL` (p50 write): {r['sqlite_full_over_normal_p50']:.2f}x with "
              f"{PARTICIPANTS} participants, {r['sqlite_full_over_normal_single_p50']:.2f}x with one.",
              f"SQLite group commit (variant): {gc['concurrent'].get('writes_per_commit', 1):.1f} writes per commit "
              f"with {PARTICIPANTS} participants that never pause, {gc['concurrent_paced'].get('writes_per_commit', 1):.1f} "
              f"paced; p95 {gc['concurrent']['write_p95_ms']:.0f} ms against {sq['concurrent']['write_p95_ms']:.0f} ms "
              "with one commit per write (the default).",
              f"Floors: an fsync on this disk p50 {floor['p50_ms']:.2f} ms, p95 {floor['p95_ms']:.2f} ms, max "
              f"{floor['max_ms']:.1f} ms; one item costs {cpu['cpu_ms_per_item']:.1f} ms of CPU, so "
              f"{PARTICIPANTS} participants that never pause need {cpu['round_of_all_participants_ms']:.0f} ms of "
              "one interpreter for one item each.",
              "fsync calls per acknowledged response (strace -f): " + (", ".join(
                  f"{x['fsyncs_per_response']:.2f} with {x['participants']} participant(s)"
                  f"{' with group commit' if x['group_commit'] else ''} ({x['fsync_calls']} for "
                  f"{x['acknowledged']})" for x in r["strace"]) or "strace not installed") + ".",
              f"SQLite write while a read transaction stays open {read['hold_s']:.0f} s: {read['writes']} writes, "
              f"max {read['write_max_ms']:.1f} ms, p95 {read['write_p95_ms']:.1f} ms.", "",
              "| check | holds |", "|---|---|"] + [f"| {k} | {v} |" for k, v in r["checks"].items()]
    return write_results("interestingness_store", r, "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
