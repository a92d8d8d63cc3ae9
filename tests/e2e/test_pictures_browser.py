"""A first view drawn from pictures becomes interactive without the figures ever leaving the screen.

app/ui/pictures.py draws each figure of a first view as its shipped picture, then reruns the page with the
charts drawn over the pictures. Watched in the page itself at 1280 px (the width the pictures are rendered for):
each figure's slot in the first view shows its picture first, never shows nothing in a painted frame once it has
shown something, ends with its chart and no picture, and the chart takes the picture's place to the pixel; the
figures below the first screen come with the upgrade, out of the window.

What was drawn first is read on every change of the document, every image load and every 10 ms (a timer that a
busy main thread delays can miss the picture). A gap is read only in the frames the browser paints
(``requestAnimationFrame``, whose callbacks run just before a frame is painted): between two microtasks of one
redraw the document may briefly hold neither picture nor chart, which no one ever sees. Every change a slot goes
through is logged with what it held then, so a failure says how the figure left the screen.
"""

import pytest

from app.catalog import BY_KEY
from app.ui.pictures import manifest
from bench.browser import DRAWN

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("browser")]

WATCH = """(() => {
  window.__slots = {};
  const isDrawn = """ + DRAWN + """;
  const drawn = el => { if (!el || !isDrawn(el)) return null; const r = el.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top + window.scrollY), Math.round(r.width), Math.round(r.height)]; };
  const seen = el => { if (!el) return 'none'; const r = el.getBoundingClientRect(), c = getComputedStyle(el);
    return `${Math.round(r.width)}x${Math.round(r.height)} ${c.display} ${c.visibility}`
      + (el.tagName === 'IMG' ? ` complete=${el.complete}` : ''); };
  const scroller = () => document.querySelector('[data-testid="stMain"]');
  const check = painted => {
    const top = scroller() ? scroller().scrollTop : 0;
    document.querySelectorAll('[class*="st-key-paperlab-fig-"]').forEach(slot => {
      const key = [...slot.classList].find(c => c.startsWith('st-key-paperlab-fig-'));
      const state = window.__slots[key] || (window.__slots[key] = {first: null, gaps: 0, picture: null, chart: null,
          showing: null, framed: null, pictureAt: null, chartAt: null, log: []});
      const img = slot.querySelector('[data-testid="stImage"] img'), svg = slot.querySelector('.js-plotly-plot .main-svg');
      const picture = drawn(img), chart = drawn(svg);
      const box = b => b && [b[0], b[1] + top, b[2], b[3]];
      if (picture) state.picture = box(picture);
      if (chart) state.chart = box(chart);
      if (picture && state.pictureAt === null) state.pictureAt = Math.round(performance.now());
      if (chart && state.chartAt === null) state.chartAt = Math.round(performance.now());
      const showing = chart ? 'chart' : picture ? 'picture' : null;
      // seen together at first sight, the picture was there first: the chart only ever comes over it
      if (state.first === null && showing) state.first = picture ? 'picture' : 'chart';
      if (showing !== state.showing && state.log.length < 50)
        state.log.push(`${Math.round(performance.now())} ms${painted ? ' (frame)' : ''} ${showing}: `
                       + `picture ${seen(img)}, chart ${seen(svg)}`);
      state.showing = showing;
      if (!painted) return;
      if (state.framed && !showing) {
        state.gaps += 1;
        if (state.log.length < 50) state.log.push(`${Math.round(performance.now())} ms a frame painted nothing here`);
      }
      state.framed = showing;
    });
  };
  // on every change of the document and every image load, not only on a timer that a busy main thread delays
  new MutationObserver(() => check(false)).observe(document, {subtree: true, childList: true, attributes: true});
  document.addEventListener('load', () => check(false), true);
  setInterval(() => check(false), 10);
  const frame = () => { check(true); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})();"""


@pytest.mark.parametrize("key", ["geto_lp", "class_il"])
def test_pictures_give_way_to_charts_with_no_gap(app_url, browser_page, key):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.add_init_script(WATCH)
    page.goto(f"{app_url}/{key}", wait_until="domcontentloaded")
    page.get_by_role("heading", name=BY_KEY[key].title).first.wait_for(timeout=60_000)
    page.wait_for_function("""() => { const s = Object.values(window.__slots);
        return s.length > 0 && s.every(x => x.showing === 'chart'); }""", timeout=90_000)
    page.wait_for_timeout(500)                       # a gap right after the switch would show here
    slots = page.evaluate("window.__slots")
    assert slots, "the page draws its figures in slots"
    order = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-paperlab-fig-"]')]
        .map(slot => [...slot.classList].find(c => c.startsWith('st-key-paperlab-fig-')))""")
    first_screen = order[:len(manifest()[key])]   # the first view's figures, each a picture; the rest come later
    assert first_screen and sorted(order) == sorted(slots)
    for name, state in slots.items():
        assert state["gaps"] == 0, f"{name}: the figure left the screen {state['gaps']} times: {state['log']}"
        assert state["showing"] == "chart"
        picture, chart = state["picture"], state["chart"]
        if name in first_screen:
            assert state["first"] == "picture", (f"{name}: the first view drew {state['first']}, not its picture "
                                                 f"(picture at {state['pictureAt']} ms, chart at {state['chartAt']} ms)")
            assert all(abs(p - c) <= 2 for p, c in zip(picture, chart)), f"{name}: picture {picture}, chart {chart}"
        else:   # below the first screen: drawn by the upgrade (app.ui.pictures.first_screen), out of the window
            assert picture is None and chart[1] > 900, f"{name}: the first view stopped above a figure in the window"
    hidden = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-paperlab-fig-"] [data-testid="stImage"]')]
        .filter(el => el.getBoundingClientRect().height > 0).length""")
    assert hidden == 0, "a picture is still on screen under its chart"
