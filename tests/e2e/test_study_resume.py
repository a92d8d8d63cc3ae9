"""A participant who leaves mid-study and comes back from another browser: the link opened in a fresh browser
context (no cookies, no storage, a new Streamlit session) resumes at the next unanswered item, and the store
ends with every item answered once, with the values given in whichever browser gave them."""

import json
import re

import pytest

from core.interestingness import StudyStore, load_problem_bank
from tests.e2e.conftest import CHROMIUM_FLAGS
from tests.e2e.test_study_browser import set_rating, settled, signed

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]   # one worker, one server


@pytest.fixture()
def fresh_context(chromium_path):
    """A function that opens a page in a new browser context of one headless Chromium: each context has its
    own empty cookie jar and storage, as a second browser (or a private window) would."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_FLAGS)

        def new_page():
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            assert context.cookies() == []
            return context.new_page()
        try:
            yield new_page
        finally:
            browser.close()


def answer(page, n, total, want):
    """Rate item ``n`` (0-based) with ``want`` (attention checks with the values they ask for); return what was set."""
    page.get_by_text(f"Item {n + 1} of {total}").wait_for(timeout=30_000)
    settled(page)
    body = page.inner_text('[data-testid="stMain"]')
    if "Attention check" in body:
        want = tuple(int(x) for x in re.search(r"interestingness to (\d) and difficulty to (\d)", body).groups())
    set_rating(page, "How interesting is this problem?", want[0])
    set_rating(page, "How difficult is it?", want[1])
    page.get_by_text("elegant solution").click()
    page.get_by_role("button", name="Submit and continue").click()
    return want


def shown_item(page) -> str:
    """The drawn statement on screen (as rendered, KaTeX included): the text between the progress bar's label
    and the first rating question."""
    body = page.inner_text('[data-testid="stMain"]')
    return body.split("How interesting is this problem?")[0].split(" of ", 1)[1].split("\n", 1)[1].strip()


def shows_only_the_item(page, n, total):
    """The page resumed at item ``n``: no consent, background or instructions asked again."""
    page.get_by_text(f"Item {n + 1} of {total}").wait_for(timeout=30_000)
    settled(page)
    assert page.get_by_text("I am 18 or older").count() == 0
    assert page.get_by_role("heading", name="About you").count() == 0
    assert page.get_by_role("heading", name="Instructions").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_new_browser_resumes_at_the_next_unanswered_item_with_nothing_lost(app_url, study_db_url, fresh_context):
    store = StudyStore(study_db_url)
    bank = load_problem_bank()
    sid = store.create_study("e2e resume", [p.id for p in bank[:8]], items_per_participant=4, problems=bank)
    total = 4 + store.study(sid)["attention_checks"]
    link = f"{app_url}/interestingness_study?study={sid}&PROLIFIC_PID=E2E-RESUME&{signed(sid, 'college')}"
    wanted = {}

    first = fresh_context()
    first.goto(link, wait_until="domcontentloaded")
    first.get_by_text("I am 18 or older").click()
    first.get_by_role("button", name="Continue").click()
    first.get_by_role("heading", name="Instructions").wait_for(timeout=30_000)
    settled(first)
    first.get_by_role("button", name="Start the study").click()
    for n in range(2):
        wanted[n] = answer(first, n, total, (1 + n, 7 - n))
    first.get_by_text(f"Item 3 of {total}").wait_for(timeout=30_000)        # item 2's answer is committed
    settled(first)
    [pid] = [p["participant_id"] for p in store.participants(sid)]
    assert store.next_item(pid).position == 2                            # shown already: its shown_at stays
    statement = shown_item(first)
    assert statement
    participant_link = first.url                                          # the URL now carries pid=
    assert f"pid={pid}" in participant_link
    first.context.close()                                                 # the participant leaves
    assert store.participant(pid)["answered"] == 2
    resumes = store.participant(pid)["resumes"]

    second = fresh_context()                                              # another browser, the link they kept
    second.goto(participant_link, wait_until="domcontentloaded")
    shows_only_the_item(second, 2, total)
    assert shown_item(second) == statement                                # the same item, not a new draw
    wanted[2] = answer(second, 2, total, (5, 3))
    second.get_by_text(f"Item 4 of {total}").wait_for(timeout=30_000)
    settled(second)
    second.context.close()

    third = fresh_context()                                               # back from Prolific's link: no pid
    third.goto(link, wait_until="domcontentloaded")
    shows_only_the_item(third, 3, total)
    assert "pid=" in third.url and store.participant(pid)["resumes"] == resumes + 1   # flagged for the admin
    for n in range(3, total):
        wanted[n] = answer(third, n, total, (2 + n % 5, 1 + n % 7))
    third.get_by_role("heading", name="Thank you!").wait_for(timeout=30_000)
    settled(third)

    rows = json.loads(store.export(sid, "json", include_external_ids=True))
    assert [r["position"] for r in rows] == list(range(total))             # every item once, none twice
    assert [(r["interestingness"], r["difficulty"]) for r in rows] == [wanted[n] for n in range(total)]
    assert {r["external_id"] for r in rows} == {"E2E-RESUME"} and len(store.participants(sid)) == 1
    assert {r["participant_status"] for r in rows} == {"completed"}
    assert all(r["rationales"] == ["elegant solution"] for r in rows)
    store.close()
