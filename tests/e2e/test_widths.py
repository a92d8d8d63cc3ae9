"""Every page fits a projector: at 1024, 1280 and 1440 px wide no control is clipped or off-screen,
no label or metric breaks a word across lines, no label, chip, button or metric is cut to an ellipsis, and no
chart's legend lies outside its chart.

One test per page, its tab resized through the three widths (a fresh load per width would triple the time and
show nothing more: Streamlit lays out columns in CSS, so a resize relayouts the same elements).
"""

import pytest

from app.catalog import SYSTEMS
from tests.e2e.conftest import open_system_page

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]
WIDTHS = (1440, 1280, 1024)

# What a presenter must be able to reach and read, in the page's main area (not the navigation).
FIT_CHECK = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const viewport = document.documentElement.clientWidth;
  const shown = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const name = el => (el.innerText || el.getAttribute('aria-label') || el.tagName).trim().slice(0, 40);
  const problems = [];
  // a slider's native range input is visually hidden (its thumb, role="slider", is what one sees)
  const controls = main.querySelectorAll('button, [role="radio"], [role="tab"], [role="slider"], '
                                         + 'input:not([type="range"]), [data-baseweb="select"]');
  for (const el of controls) {
    if (!shown(el) || el.closest('.modebar, [data-testid="stElementToolbar"]')) continue;
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.right > viewport + 1) { problems.push(`off-screen: ${name(el)}`); continue; }
    for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (b.width <= 2) break;   // a visually hidden box (a slider's native input): nothing to see
      if (r.left < b.left - 1 || r.right > b.right + 1) { problems.push(`clipped: ${name(el)}`); break; }
    }
  }
  const words = main.querySelectorAll('[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], '
                                      + '[data-testid="stMetricValue"], button p, [role="tab"] p');
  for (const el of words) {
    if (!shown(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S{2,}/g; let m;
      while ((m = re.exec(node.data)) !== null) {
        const range = document.createRange(); range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
        if (lines.size > 1) problems.push(`word broken across lines: ${m[0]}`);
      }
    }
  }
  for (const el of main.querySelectorAll('*')) {   // a label, chip, button or metric ending in "…"
    if (el.closest('.js-plotly-plot, [data-testid="stDataFrame"], [data-testid="stExpanderDetails"]')) continue;
    if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && shown(el))
      problems.push(`cut short: ${el.innerText.trim().slice(0, 40)}`);
  }
  for (const plot of main.querySelectorAll('.js-plotly-plot')) {   // a chart's legend drawn outside its figure
    const legend = plot.querySelector('.legend'), box = plot.getBoundingClientRect();
    if (!legend || !shown(plot)) continue;
    const r = legend.getBoundingClientRect();
    if (r.height > 0 && (r.bottom > box.bottom + 1 || r.top < box.top - 1))
      problems.push(`legend outside its chart: ${(plot.querySelector('.gtitle') || plot).textContent.trim().slice(0, 40)}`);
  }
  return [...new Set(problems)];
}"""


def problems_at_widths(page) -> dict:
    """What :data:`FIT_CHECK` finds at each of :data:`WIDTHS` on the page as it stands (empty: it fits)."""
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    found = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(400)   # the relayout
        problems = page.evaluate(FIT_CHECK)
        if problems:
            found[f"{width}px"] = problems
    return found


BUILT = [s for s in SYSTEMS if s.built]


@pytest.mark.parametrize("system", BUILT, ids=[s.key for s in BUILT])
def test_a_page_fits_at_projector_widths(app_url, browser_page, system):
    # the study page as a visitor sees it (its public preview): no password try that other tests' wrong
    # passwords, counted per client address in the database, could hold back
    open_system_page(browser_page, f"{app_url}/{system.key}", system, unlock=False)
    assert problems_at_widths(browser_page) == {}


def test_the_claims_page_fits_at_projector_widths(app_url, browser_page):
    page = browser_page
    page.goto(f"{app_url}/claims", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Claims").first.wait_for(timeout=30_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
    assert problems_at_widths(page) == {}


def test_the_check_sees_a_clipped_button_a_broken_word_and_a_cut_label(app_url, browser_page):
    page = browser_page
    page.goto(f"{app_url}/claims", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Claims").first.wait_for(timeout=30_000)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    page.evaluate("""() => {
      const main = document.querySelector('[data-testid="stMain"]');
      const box = document.createElement('div');
      box.style.cssText = 'width: 60px; overflow: hidden; white-space: nowrap';
      box.innerHTML = '<button>Train live with a long label</button>';
      const label = document.createElement('div');
      label.setAttribute('data-testid', 'stWidgetLabel');
      label.style.cssText = 'width: 30px; word-break: break-all';
      label.innerText = 'Weighting';
      const chip = document.createElement('span');
      chip.style.cssText = 'display: block; flex-shrink: 0; width: 40px; height: 20px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap';   // stMain is a flex column: an overflow-hidden child would shrink to 0 px
      chip.innerText = 'reproduced';
      main.prepend(box, label, chip);
    }""")
    problems = page.evaluate(FIT_CHECK)
    assert "clipped: Train live with a long label" in problems
    assert "word broken across lines: Weighting" in problems
    assert "cut short: reproduced" in problems
