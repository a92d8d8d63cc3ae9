"""The participant's wait in headless Chromium: from clicking "Submit and continue" to the next item drawn.

A fresh server is started as the study is deployed (``streamlit run app/main.py`` with ``PAPERLAB_WARM=interestingness``,
deploy/docker-compose.yml) on a fresh SQLite study database, and waited on until its warm-up is over. One
participant opens a signed Prolific-style link, consents, passes the instructions and answers ``--submits``
items (attention checks included); each wait runs from the click (the ratings were set before it) until the
page shows the next item's progress label, nothing stale is left on screen and the new item's submit button
is enabled, i.e. the participant can read and answer it. The last item's submit, to the completion page, is
timed apart.

The anchor is a bare Streamlit page with the same form (two 1..7 segmented controls, a submit button that
is drawn disabled while "saving") and the same two reruns per submit, but no database, no navigation and no
page style: Streamlit's own floor for this interaction, timed the same way in the same run.

    python bench/study_browser.py                # writes bench/results/study_browser.json and .md
    python bench/study_browser.py --submits 40
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import browser, server, wait_idle  # noqa: E402
from bench.report import write_results  # noqa: E402

BUDGET_S = 1.0   # issue #27: the next item within 1 s of a submit, in Chromium on 2 cores
SECRET = "bench-study-secret-0123456789"
ANCHOR = """import streamlit as st

def mark(item):
    st.session_state.pending = item


n = st.session_state.setdefault("n", 0)
pending = st.session_state.get("pending")
st.progress(min(n / {total}, 1.0), text=f"Item {{n + 1}} of {total}")
with st.container(border=True):
    st.markdown(f"Problem {{n + 1}}: how many subsets of a three-element set contain a given element?")
with st.form(f"item:{{n}}", clear_on_submit=False):
    c1, c2 = st.columns(2)
    c1.segmented_control("How interesting is this problem?", list(range(1, 8)), key=f"i:{{n}}")
    c2.segmented_control("How difficult is it?", list(range(1, 8)), key=f"d:{{n}}")
    st.form_submit_button("Submit and continue", type="primary", disabled=pending == n, key=f"s:{{n}}",
                          on_click=mark, args=(n,))
if pending == n:
    st.session_state.n = n + 1
    st.session_state.pending = None
    st.rerun()
"""
# the next item is on screen and answerable: its progress label, nothing stale, its submit button enabled
DRAWN = """(label) => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.innerText.includes(label) || document.querySelector('[data-stale="true"]')) return false;
  const button = [...main.querySelectorAll('button')].find(b => b.innerText.includes('Submit and continue'));
  return !!button && !button.disabled;
}"""


def set_rating(page, question: str, value: int) -> None:
    option = page.get_by_role("radiogroup", name=question).get_by_role("radio").nth(value - 1)   # 1..7 in order
    option.click()
    page.wait_for_function("(el) => el.getAttribute('aria-checked') === 'true'", arg=option.element_handle())


def time_submits(page, total: int, submits: int) -> list[float]:
    """Seconds from each click on "Submit and continue" until the next item is drawn, for ``submits`` items."""
    waits = []
    for n in range(submits):
        page.wait_for_function(DRAWN, arg=f"Item {n + 1} of {total}", timeout=60_000)
        set_rating(page, "How interesting is this problem?", 1 + n % 7)
        set_rating(page, "How difficult is it?", 7 - n % 7)
        button = page.get_by_role("button", name="Submit and continue")
        t0 = time.perf_counter()
        button.click()
        page.wait_for_function(DRAWN, arg=f"Item {n + 2} of {total}", timeout=60_000, polling="raf")
        waits.append(time.perf_counter() - t0)
    return waits


def start_participant(page, url: str, sid: int) -> None:
    from core.interestingness.safety import signature

    page.goto(f"{url}/interestingness_study?study={sid}&PROLIFIC_PID=BENCH-1&pop=college"
              f"&sig={signature(SECRET, sid, pop='college')}", wait_until="domcontentloaded")
    page.get_by_text("I am 18 or older").click(timeout=60_000)
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("heading", name="Instructions").wait_for(timeout=60_000)
    page.wait_for_function("!document.querySelector('[data-stale=\"true\"]')")
    page.get_by_role("button", name="Start the study").click()


def measure_study(submits: int) -> dict:
    from core.interestingness import StudyStore, load_problem_bank

    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'study.sqlite'}"
        store = StudyStore(db)
        bank = load_problem_bank()
        sid = store.create_study("bench", [p.id for p in bank], items_per_participant=submits - 1, problems=bank)
        total = submits - 1 + store.study(sid)["attention_checks"]
        env = {"STUDY_DATABASE_URL": db, "STUDY_SECRET": SECRET, "PAPERLAB_WARM": "interestingness"}
        with server(env=env) as (url, pid), browser() as new_page:
            waited = wait_idle(pid)
            page = new_page()
            start_participant(page, url, sid)
            waits = time_submits(page, total, total - 1)
            set_rating(page, "How interesting is this problem?", 4)
            set_rating(page, "How difficult is it?", 4)
            t0 = time.perf_counter()
            page.get_by_role("button", name="Submit and continue").click()
            page.get_by_role("heading", name="Thank you!").wait_for(timeout=60_000)
            completion = time.perf_counter() - t0
        rows = store.export(sid, "json")
        store.close()
    rows = json.loads(rows)
    return {"waits_s": waits, "completion_s": completion, "items": total, "warm_up_wait_s": waited,
            "stored_once_each": [r["position"] for r in rows] == list(range(total))}


def measure_anchor(submits: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "anchor.py"
        script.write_text(ANCHOR.format(total=submits + 1))
        with server(str(script)) as (url, pid), browser() as new_page:
            page = new_page()
            page.goto(url, wait_until="domcontentloaded")
            waits = time_submits(page, submits + 1, submits)
    return {"waits_s": waits}


def summary(waits: list[float]) -> dict:
    ordered = sorted(waits)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"n": len(waits), "median_s": statistics.median(waits), "p95_s": p95, "max_s": ordered[-1],
            "first_s": waits[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submits", type=int, default=20, help="timed submits (the study has this many items "
                                                                 "before the last one; default 20)")
    args = parser.parse_args(argv)
    if not 3 <= args.submits <= 60:
        parser.error(f"--submits: {args.submits}; allowed 3..60 (the bank's size bounds the study)")
    anchor = measure_anchor(args.submits)
    study = measure_study(args.submits)
    result = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                          "cpus": os.cpu_count(), "load_average_at_end": os.getloadavg()},
              "submits": args.submits, "budget_s": BUDGET_S,
              "anchor": {**anchor, **summary(anchor["waits_s"])}, "study": {**study, **summary(study["waits_s"])}}
    s, a = result["study"], result["anchor"]
    s["median_ratio_to_anchor"], s["p95_ratio_to_anchor"] = s["median_s"] / a["median_s"], s["p95_s"] / a["p95_s"]
    result["checks"] = {"next_item_median_under_1s": s["median_s"] < BUDGET_S, "next_item_p95_under_1s": s["p95_s"] < BUDGET_S,
                        "every_item_stored_once": s["stored_once_each"]}
    return write_results("study_browser", result, table(result))


def table(result: dict) -> str:
    s, a = result["study"], result["anchor"]
    rows = [("anchor (bare form page, same two reruns, no database)", a, "1.00", "1.00"),
            ("participant page (app/main.py, SQLite)", s, f"{s['median_ratio_to_anchor']:.2f}",
             f"{s['p95_ratio_to_anchor']:.2f}")]
    lines = ["Click on \"Submit and continue\" to the next item drawn and answerable, headless Chromium, one "
             f"participant, {result['submits']} submits per page (`python bench/study_browser.py`).", "",
             "| page | submits | median (s) | p95 (s) | max (s) | first (s) | median / anchor | p95 / anchor |",
             "|---|---|---|---|---|---|---|---|"]
    for name, m, r50, r95 in rows:
        lines.append(f"| {name} | {m['n']} | {m['median_s']:.3f} | {m['p95_s']:.3f} | {m['max_s']:.3f} | "
                     f"{m['first_s']:.3f} | {r50} | {r95} |")
    load = ", ".join(f"{x:.2f}" for x in result["machine"]["load_average_at_end"])
    lines += ["", f"Last submit to the completion page: {s['completion_s']:.3f} s. Every item stored once: "
              f"{s['stored_once_each']}. Budget: the next item within {result['budget_s']:g} s (issue #27). "
              f"Machine: {result['machine']['cpus']} CPUs, load average at the end {load} "
              "(shared with other jobs: absolute times vary, the ratio to the anchor less)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
