"""A whole participant run in headless Chromium: from a Prolific-style link to the completion code,
then the responses found in the export."""

import json
import os
import re

import pytest
import sqlalchemy as sa
from playwright.sync_api import expect

from core.interestingness import StudyStore, load_problem_bank
from core.interestingness import models as m
from core.interestingness.safety import signature

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]   # one worker, one server

# Links that fix the population are signed under STUDY_SECRET. The server (tests/e2e/conftest.py) inherits
# this process's environment, and this module is imported before the session's server starts.
E2E_SECRET = os.environ.setdefault("STUDY_SECRET", "e2e-study-secret-0123456789")
# The browser stands behind a proxy on the loopback, as behind nginx: the admin back-off counts the address in
# X-Forwarded-For (a test sets the header), and without one every visitor here is 127.0.0.1.
os.environ.setdefault("STUDY_TRUSTED_PROXIES", "127.0.0.1")


@pytest.fixture(autouse=True)
def no_wrong_passwords_carried_over(study_db_url):
    """Every test starts and ends with no wrong admin passwords counted (per session or per address, in the
    server's study database), so a test that enters wrong ones on purpose holds back no later test."""
    def forget():
        store = StudyStore(study_db_url)
        with store.session.begin() as s:
            s.execute(sa.delete(m.AdminBackoff))
        store.close()
    forget()
    yield
    forget()


def signed(sid, pop):
    return f"pop={pop}&sig={signature(E2E_SECRET, sid, pop=pop)}"


def settled(page):
    """The rerun is over and nothing of the previous item is left on screen (stale elements gone)."""
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')"
                           " && !document.querySelector('[data-stale=\"true\"]')", timeout=60_000)
    page.wait_for_timeout(200)


def set_rating(page, label, value):
    """A 1..7 rating is a segmented control (a radio group named by its question): click the value."""
    option = page.get_by_role("radiogroup", name=label).get_by_role("radio", name=re.compile(rf"^{value}( ·.*)?$"))
    option.click()
    expect(option).to_have_attribute("aria-checked", "true", timeout=20_000)


def test_a_participant_from_link_to_completion_code(app_url, browser_page, study_db_url, shots):
    store = StudyStore(study_db_url)
    bank = load_problem_bank()
    sid = store.create_study("e2e run", [p.id for p in bank[:8]], items_per_participant=3, problems=bank)
    page = browser_page
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{app_url}/interestingness_study?study={sid}&PROLIFIC_PID=E2E-PID-1&STUDY_ID=PS&SESSION_ID=SS"
              f"&{signed(sid, 'college')}", wait_until="domcontentloaded")
    page.get_by_role("heading", name="How interesting is this math problem?").wait_for(timeout=30_000)
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0          # no navigation for participants
    page.get_by_text("I am 18 or older").click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("heading", name="Instructions").wait_for(timeout=30_000)
    settled(page)
    assert "pid=" in page.url
    page.get_by_role("button", name="Start the study").click()
    for n in range(5):                                                        # 3 problems + 2 attention checks
        page.get_by_text(f"Item {n + 1} of 5").wait_for(timeout=30_000)
        settled(page)   # read the item only once the rerun has drawn all of it
        body = page.inner_text('[data-testid="stMain"]')
        want = (4 + n % 3, 2)
        if "Attention check" in body:
            want = tuple(int(x) for x in re.search(r"interestingness to (\d) and difficulty to (\d)", body).groups())
        set_rating(page, "How interesting is this problem?", want[0])
        set_rating(page, "How difficult is it?", want[1])
        page.get_by_text("simple to state").click()
        if n == 0:
            page.screenshot(path=str(shots / "interestingness_study.png"))
        page.get_by_role("button", name="Submit and continue").click()
    page.get_by_role("heading", name="Thank you!").wait_for(timeout=30_000)
    settled(page)
    code = store.study(sid)["completion_code"]
    page.get_by_text(f"Your completion code: {code}").wait_for(timeout=30_000)
    assert not page.locator('[data-testid="stMainMenu"]').is_visible()     # no Print / Record screen menu
    # every request goes to the app: the page icon ships with it (app/icon.png), fonts come from Streamlit's build
    others = {r for r in requests if not r.startswith(app_url)}
    assert requests and not others, others
    rows = json.loads(store.export(sid, "json", include_external_ids=True))
    assert len(rows) == 5 and {r["external_id"] for r in rows} == {"E2E-PID-1"}
    assert all(r["attention_passed"] for r in rows if r["kind"] == "attention")
    assert [r["interestingness"] for r in rows if r["kind"] == "problem"] == [
        4 + n % 3 for n, r in enumerate(rows) if r["kind"] == "problem"]
    assert all(r["rationales"] == ["simple to state"] and r["session_id"] == "SS" for r in rows)
    store.close()


def test_the_analysis_page_shows_the_demo_to_everyone_and_the_rest_behind_the_password(app_url, browser_page, shots):
    from tests.e2e.conftest import ADMIN_PASSWORD
    from tests.e2e.test_home_browser import full_screenshot

    page = browser_page
    page.goto(f"{app_url}/interestingness_analysis", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Interestingness: humans and LLMs").wait_for(timeout=30_000)
    page.get_by_text("Public preview").first.wait_for(timeout=60_000)       # the simulated demo, to everyone
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.get_by_role("tab", name="Run raters").count() == 0          # raters and real studies need it
    page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
    page.get_by_label("Admin password").press("Enter")
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    settled(page)
    assert "Every rater in this study is simulated" in page.inner_text('[data-testid="stMain"]')
    assert page.locator('[data-testid="stException"]').count() == 0
    full_screenshot(page, shots / "interestingness_analysis.png")


def test_double_clicking_every_item_stores_exactly_the_values_set(app_url, browser_page, study_db_url):
    """A double click on "Submit and continue" must store what the participant set, once, for every item."""
    store = StudyStore(study_db_url)
    bank = load_problem_bank()
    sid = store.create_study("e2e double click", [p.id for p in bank[:8]], items_per_participant=4, problems=bank)
    page = browser_page
    page.goto(f"{app_url}/interestingness_study?study={sid}&PROLIFIC_PID=E2E-DBL&{signed(sid, 'college')}",
              wait_until="domcontentloaded")
    page.get_by_text("I am 18 or older").click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("heading", name="Instructions").wait_for(timeout=30_000)
    settled(page)
    page.get_by_role("button", name="Start the study").click()
    wanted = {}
    for n in range(6):                                                        # 4 problems + 2 attention checks
        page.get_by_text(f"Item {n + 1} of 6").wait_for(timeout=30_000)
        settled(page)
        body = page.inner_text('[data-testid="stMain"]')
        want = (2 + n % 5, 7 - n % 4)                                        # nothing is preselected
        if "Attention check" in body:
            want = tuple(int(x) for x in re.search(r"interestingness to (\d) and difficulty to (\d)", body).groups())
        set_rating(page, "How interesting is this problem?", want[0])
        set_rating(page, "How difficult is it?", want[1])
        page.get_by_text("surprising result").click()
        wanted[n] = want
        page.get_by_role("button", name="Submit and continue").dblclick()
    page.get_by_role("heading", name="Thank you!").wait_for(timeout=30_000)
    settled(page)
    rows = json.loads(store.export(sid, "json"))
    assert [r["position"] for r in rows] == list(range(6))                   # every item once, none twice
    assert [(r["interestingness"], r["difficulty"]) for r in rows] == [wanted[n] for n in range(6)]
    assert all(r["rationales"] == ["surprising result"] for r in rows)
    assert [r["attention_passed"] for r in rows if r["kind"] == "attention"] == [True, True]
    assert {r["participant_status"] for r in rows} == {"completed"}
    store.close()


def run_to_the_end(page, n_items):
    page.get_by_text("I am 18 or older").click()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("heading", name="Instructions").wait_for(timeout=30_000)
    settled(page)
    page.get_by_role("button", name="Start the study").click()
    for n in range(n_items):
        page.get_by_text(f"Item {n + 1} of {n_items}").wait_for(timeout=30_000)
        settled(page)
        set_rating(page, "How interesting is this problem?", 3)
        set_rating(page, "How difficult is it?", 5)
        page.get_by_role("button", name="Submit and continue").click()


def test_the_completion_page_redirects_to_the_platform_with_the_code(app_url, browser_page, study_db_url):
    """The auto-redirect fires (a JS string literal, not HTML-escaped) and lands on the URL with ?cc=."""
    store = StudyStore(study_db_url)
    bank = load_problem_bank()
    target = f"{app_url}/?landed=yes"                      # the app's own home page stands in for Prolific
    sid = store.create_study("e2e redirect", [p.id for p in bank[:4]], items_per_participant=2, attention_checks=0,
                             completion_url=target, problems=bank)
    code = store.study(sid)["completion_code"]
    page = browser_page
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{app_url}/interestingness_study?study={sid}&PROLIFIC_PID=E2E-REDIRECT&{signed(sid, 'college')}",
              wait_until="domcontentloaded")
    run_to_the_end(page, 2)
    page.get_by_role("heading", name="Thank you!").wait_for(timeout=30_000)
    page.wait_for_url(re.compile(rf"/\?landed=yes&cc={code}$"), timeout=30_000)
    assert not [e for e in errors if "Unexpected token" in e], errors
    store.close()


def test_a_forged_population_link_is_refused_in_the_browser(app_url, browser_page, study_db_url):
    store = StudyStore(study_db_url)
    bank = load_problem_bank()
    sid = store.create_study("e2e forged", [p.id for p in bank[:4]], items_per_participant=2, problems=bank)
    college = signed(sid, "college").replace("pop=college", "pop=olympiad")      # the signature of another pop
    page = browser_page
    for link in (f"study={sid}&PROLIFIC_PID=E2E-FORGE&pop=olympiad", f"study={sid}&PROLIFIC_PID=E2E-FORGE&{college}"):
        page.goto(f"{app_url}/interestingness_study?{link}", wait_until="domcontentloaded")
        page.get_by_text("This study link is not valid").wait_for(timeout=30_000)
        settled(page)
        assert page.get_by_text("I am 18 or older").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
    assert store.participants(sid) == []
    page.goto(f"{app_url}/interestingness_study?study={sid}&PROLIFIC_PID=E2E-FORGE&{signed(sid, 'olympiad')}",
              wait_until="domcontentloaded")
    page.get_by_text("I am 18 or older").wait_for(timeout=30_000)            # the link as made opens the study
    store.close()


def test_the_admin_session_survives_a_reload_until_logout(app_url, browser_page):
    from tests.e2e.conftest import ADMIN_PASSWORD

    page = browser_page
    page.goto(f"{app_url}/interestingness", wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(ADMIN_PASSWORD)
    page.get_by_label("Admin password").press("Enter")
    page.get_by_role("button", name="Log out").wait_for(timeout=60_000)
    settled(page)
    assert any(c["name"] == "paperlab_study_admin" for c in page.context.cookies())
    page.reload(wait_until="domcontentloaded")
    page.get_by_role("button", name="Log out").wait_for(timeout=60_000)         # still unlocked
    assert page.get_by_label("Admin password").count() == 0
    page.get_by_role("button", name="Log out").click()
    page.get_by_label("Admin password").wait_for(timeout=30_000)
    settled(page)
    assert not any(c["name"] == "paperlab_study_admin" for c in page.context.cookies())
    page.reload(wait_until="domcontentloaded")
    page.get_by_label("Admin password").wait_for(timeout=30_000)                # locked again after a reload
