"""The study scaled out for real: nginx in front of two app processes sharing a throwaway PostgreSQL database.

Twenty participants take one study at once: eighteen through the store API from two separate processes
(the bulk), two in headless Chromium through nginx, one on each app process. The app process of the
second browser is killed (SIGKILL, as in a crash) after two of its answers; a reload lands on the other
process and resumes at the next item. Then, from the database: no acknowledged response lost, none
duplicated, every participant complete, and the problems' assignment balanced within 1 across everyone.
The figures are printed (and asserted).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from core.interestingness import StudyStore, load_problem_bank
from core.interestingness.safety import signature
from deploy.cluster import start_cluster
from tests.core.interestingness.conftest import postgres_database
from tests.e2e.conftest import CHROMIUM_FLAGS
from tests.e2e.test_study_browser import set_rating, settled

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("scale_out")]
SECRET = "scale-out-study-secret-0123456789"
ITEMS, CHECKS, BULK = 4, 1, (9, 9)   # problems and attention checks per participant; bulk participants per process


@pytest.fixture(scope="module")
def database():
    url, drop = postgres_database()
    yield url
    drop()


@pytest.fixture(scope="module")
def cluster(database):
    env = {"STUDY_DATABASE_URL": database, "STUDY_SECRET": SECRET, "STUDY_ADMIN_PASSWORD": "scale-out-admin-password",
           "PAPERLAB_WARM": "none", "OMP_NUM_THREADS": "1"}
    running = start_cluster(2, env=env, debug_headers=True)
    yield running
    running.stop()


def routes_to_each(cluster) -> dict[int, str]:
    """A route key (the nginx cookie) that lands on each app process."""
    found, n = {}, 0
    while len(found) < len(cluster.app_ports):
        found.setdefault(cluster.upstream_of(f"route-{n}"), f"route-{n}")
        n += 1
    return found


def answer(page, n: int, total: int) -> None:
    page.get_by_text(f"Item {n + 1} of {total}").wait_for(timeout=60_000)
    settled(page)
    body = page.inner_text('[data-testid="stMain"]')
    want = (3 + n % 4, 2 + n % 5)
    if "Attention check" in body:
        want = tuple(int(x) for x in re.search(r"interestingness to (\d) and difficulty to (\d)", body).groups())
    set_rating(page, "How interesting is this problem?", want[0])
    set_rating(page, "How difficult is it?", want[1])
    page.get_by_role("button", name="Submit and continue").click()


def start_browser_participant(context, cluster, route: str, sid: int, external: str):
    context.add_cookies([{"name": "paperlab_route", "value": route, "url": cluster.url}])
    page = context.new_page()
    link = (f"{cluster.url}/interestingness_study?study={sid}&PROLIFIC_PID={external}"
            f"&pop=college&sig={signature(SECRET, sid, pop='college')}")
    page.goto(link, wait_until="domcontentloaded")
    page.get_by_role("heading", name="How interesting is this math problem?").wait_for(timeout=60_000)
    page.get_by_text("I am 18 or older").click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("heading", name="Instructions").wait_for(timeout=60_000)
    settled(page)
    page.get_by_role("button", name="Start the study").click()
    return page


def test_two_processes_behind_nginx_lose_nothing_when_one_dies(cluster, database, tmp_path, capsys):
    from playwright.sync_api import sync_playwright

    store = StudyStore(database)
    bank = load_problem_bank()
    sid = store.create_study("scale-out", [p.id for p in bank[:12]], items_per_participant=ITEMS,
                             attention_checks=CHECKS, populations=("college",), problems=bank)
    total = ITEMS + CHECKS
    bulk = [subprocess.Popen([sys.executable, "-m", "tests.deploy.participants", database, str(sid), f"bulk{k}",
                              str(n), str(k)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1"}) for k, n in enumerate(BULK)]
    survivor, victim = cluster.app_ports
    routes = routes_to_each(cluster)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_FLAGS)
        try:
            steady = start_browser_participant(browser.new_context(), cluster, routes[survivor], sid, "BROWSER-A")
            crashed = start_browser_participant(browser.new_context(), cluster, routes[victim], sid, "BROWSER-B")
            for n in range(2):
                answer(crashed, n, total)
            crashed.get_by_text(f"Item 3 of {total}").wait_for(timeout=60_000)   # both answers acknowledged
            acknowledged_before_kill = len(store.rows(sid))
            cluster.kill_app(victim)
            for n in range(total):
                answer(steady, n, total)
            crashed.reload(wait_until="domcontentloaded")                        # now served by the survivor
            for n in range(2, total):
                answer(crashed, n, total)
            for page in (steady, crashed):
                page.get_by_role("heading", name="Thank you!").wait_for(timeout=60_000)
        finally:
            browser.close()
    acknowledged = []
    for proc in bulk:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0
        acknowledged += [tuple(row) for row in json.loads(out)]

    rows = json.loads(store.export(sid, "json", include_external_ids=True))
    stored = {(r["participant_id"], r["item_id"]): (r["interestingness"], r["difficulty"]) for r in rows}
    lost = [a for a in acknowledged if stored.get((a[0], a[1])) != (a[2], a[3])]
    duplicated = len(rows) - len(stored)
    participants = {r["participant_id"] for r in rows}
    per_participant = Counter(r["participant_id"] for r in rows)
    crashed_rows = [r for r in rows if r["external_id"] == "BROWSER-B"]
    shown = Counter(r["item_id"] for r in rows if r["kind"] == "problem")
    balance = max(shown.values()) - min(shown.get(p.id, 0) for p in bank[:12])
    statuses = Counter(p["status"] for p in store.participants(sid))
    store.close()
    with capsys.disabled():
        print(f"\nscale-out: {len(participants)} participants, {len(rows)} responses, {len(lost)} lost, "
              f"{duplicated} duplicated, assignment spread {balance}, {acknowledged_before_kill} responses "
              f"acknowledged when app :{victim} was killed; BROWSER-B finished on :{survivor} with "
              f"{len(crashed_rows)} of {total}")
    assert len(participants) == sum(BULK) + 2 and statuses == {"completed": sum(BULK) + 2}
    assert lost == [] and duplicated == 0 and len(acknowledged) == sum(BULK) * total
    assert set(per_participant.values()) == {total}
    assert len(crashed_rows) == total and len({r["item_id"] for r in crashed_rows}) == total
    assert balance <= 1
