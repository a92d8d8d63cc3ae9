"""bench/browser.py: a first view is noted by the page when its figure is drawn, not when someone asks later.

A test page reveals its figure in steps (hidden, then shown) and then keeps its main thread busy, marking each
step on its own clock; the note must fall after the figure was shown and before the busy task began (asked
from outside, by Playwright's polls every 0.5 s, the answer can come only once the busy task is over).
"""

import pytest

from bench.browser import browser, first_view_s, watch_first_view

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

URL = "http://paperlab.test/view"
PAGE = """<!doctype html><html><body>
<div id="slot"></div>
<script>
const svg = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="40" '
  + 'height="20"><rect width="40" height="20" fill="teal"/></svg>');
setTimeout(() => {                       // the figure arrives hidden: not drawn yet
  document.getElementById('slot').innerHTML = '<div id="box" style="visibility: hidden"><p>title</p>'
    + '<div data-testid="stImage"><img src="' + svg + '"></div></div>';
  performance.mark('arrived-hidden');
  setTimeout(() => {
    document.getElementById('box').style.visibility = 'visible';
    performance.mark('shown');
    setTimeout(() => {                   // then the page's main thread is busy for a while
      performance.mark('busy');
      const end = performance.now() + 1500;
      while (performance.now() < end) {}
      performance.mark('idle');
    }, 200);
  }, 300);
}, 100);
</script></body></html>"""


def test_the_page_notes_the_figure_when_it_is_drawn():
    with browser() as new_page:
        page = new_page()
        page.route(URL, lambda route: route.fulfill(status=200, content_type="text/html", body=PAGE))
        watch_first_view(page)
        page.goto(URL, wait_until="commit")
        drawn = first_view_s(page, timeout_s=30) * 1000
        page.wait_for_function("performance.getEntriesByName('idle').length > 0", timeout=30_000)
        marks = page.evaluate("Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))")
    assert set(marks) == {"arrived-hidden", "shown", "busy", "idle"}     # the page ran to its end
    assert marks["arrived-hidden"] < marks["shown"] <= drawn < marks["busy"]
