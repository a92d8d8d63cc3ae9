"""The home page, every built page and the Claims page in headless Chromium against a real server.

Screenshots go to the ``shots`` folder (temporary; ``docs/`` under ``make screenshots``)."""

import pytest
from playwright.sync_api import expect

from app.catalog import SYSTEMS, THEMES
from tests.e2e.conftest import open_system_page

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]   # one worker, one server


def test_home_gallery_names_all_nineteen_systems(app_url, browser_page, shots):
    page = browser_page
    page.goto(app_url, wait_until="domcontentloaded")
    page.get_by_role("heading", name="Paperlab").first.wait_for(timeout=30_000)
    titles = [s.title for s in SYSTEMS]
    try:  # the gallery streams in card by card; wait until every title has arrived
        page.wait_for_function("titles => titles.every(t => document.body.innerText.includes(t))", arg=titles,
                               timeout=30_000)
    except Exception:
        pass  # the assertion below names what is missing
    body = page.inner_text("body")
    missing = [s.title for s in SYSTEMS if s.title not in body]
    assert missing == []
    assert all(theme in body for theme in THEMES)
    assert body.count("In progress") == sum(not s.built for s in SYSTEMS)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.title() == "Paperlab"
    full_screenshot(page, shots / "home.png")
    assert (shots / "home.png").stat().st_size > 20_000


def full_screenshot(page, path):
    """Streamlit scrolls inside its own container, so grow the window to the content's height."""
    page.wait_for_timeout(300)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1280, "height": min(int(height) + 40, 6000)})   # a projector's width
    page.wait_for_timeout(800)  # let fonts, icons, charts and the relayout settle before the picture
    path.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(path))


BUILT = [s for s in SYSTEMS if s.built]


@pytest.mark.parametrize("system", BUILT, ids=[s.key for s in BUILT])
def test_a_built_page_opens_and_draws_its_figure(app_url, browser_page, shots, system):
    page = browser_page
    open_system_page(page, f"{app_url}/{system.key}", system)
    assert page.locator('[data-testid="stException"]').count() == 0
    # app/ui/preload.py imports plotly's bundle early, at the URL the front end's own import uses: one fetch
    fetched = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)"
                            ".filter(n => n.includes('/static/js/PlotlyChart.'))")
    assert len(fetched) == 1, fetched
    full_screenshot(page, shots / f"{system.key}.png")


@pytest.mark.timeout(900)   # one home page and one click per built system (19 when all are built)
def test_every_card_leads_to_its_page(app_url, browser_page):
    page = browser_page
    for system in BUILT:
        page.goto(app_url, wait_until="domcontentloaded")
        page.get_by_role("heading", name="Paperlab").first.wait_for(timeout=30_000)
        links = page.locator('a[data-testid="stPageLink-NavLink"]')
        expect(links).to_have_count(len(BUILT), timeout=60_000)  # cards stream in; wait for all
        link = links.filter(has_text="Open").and_(page.locator(f'[href="{system.key}"]'))
        link.click()
        page.get_by_role("heading", name=system.title).first.wait_for(timeout=60_000)
        assert page.url.rstrip("/").endswith(f"/{system.key}")


def test_claims_page_shows_the_ledger(app_url, browser_page, shots):
    from core.common.claims import load_ledger, summary_line, tally

    statuses = [v.status for s in SYSTEMS if s.built for _, v in load_ledger(s.key)]
    page = browser_page
    page.goto(f"{app_url}/claims", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Claims").first.wait_for(timeout=30_000)
    summary = summary_line(tally(statuses))
    page.get_by_text(summary).first.wait_for(timeout=30_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    full_screenshot(page, shots / "claims.png")


def test_the_claims_page_filters_by_cause(app_url, browser_page, shots):
    import pandas as pd

    from core.common.claims import load_ledger

    verdicts = [v for s in SYSTEMS if s.built for _, v in load_ledger(s.key)]
    found = {}
    for v in verdicts:
        if v.cause:
            found[v.cause] = found.get(v.cause, 0) + 1
    cause = min(found, key=lambda c: (found[c], c))          # the rarest cause: a filter that drops most rows
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{app_url}/claims", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Claims").first.wait_for(timeout=30_000)
    page.get_by_role("button", name=f"{cause} ({found[cause]})").click()
    page.get_by_text(f"Showing {found[cause]} of {len(verdicts)} claims.").wait_for(timeout=30_000)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download these claims (CSV)").click()
    shown = pd.read_csv(download.value.path())
    assert len(shown) == found[cause] and set(shown["cause"]) == {cause}
    assert "reproduced" not in set(shown["status"]) and shown["why"].nunique() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
    full_screenshot(page, shots / "claims_by_cause.png")
