"""A page's first view reads shipped arrays and draws shipped pictures: it imports neither torch, transformers
nor PennyLane, and no figure on it waits for plotly's or the grid's browser code. It draws the page's first screen only; the
run that makes its pictures interactive draws the rest.

A shared link opened on a fresh server pays for every import the page makes before its first figure;
those three cost seconds each on two cores, so they wait until the visitor trains or probes. Each
page is opened in a fresh Python process with the shell's background warm-up switched off, so what
is loaded afterwards is what the page itself imported.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.ship_pictures import PAGES
from app.ui.pictures import PICTURES, manifest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "pennylane")
PROBE = textwrap.dedent("""
    import json, sys, threading
    sys.path.insert(0, sys.argv[1])
    import app.ui.warmup as warmup
    warmup.warm_up = lambda modules: threading.Thread()     # no background imports: only the page's own
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(sys.argv[1] + "/app/shell.py", default_timeout=300).run()
    at.switch_page(f"../pages/{sys.argv[2]}.py").run()
    from app.ui.pictures import DRAWN, ELIGIBLE
    size = lambda node: 1 + sum(size(child) for child in getattr(node, "children", {}).values())
    view = {"exceptions": [e.message for e in at.exception], "charts": len(at.get("plotly_chart")),
            "grids": len(at.dataframe),
            "pictures": at.session_state[DRAWN] if DRAWN in at.session_state else [],
            "loaded": sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[3].split(",")),
            "folded": at.session_state[ELIGIBLE], "elements": size(at.main)}
    at.run()      # the upgrade: the whole page, interactive
    view.update(folded_after=at.session_state[ELIGIBLE], elements_after=size(at.main),
                exceptions_after=[e.message for e in at.exception])
    print(json.dumps(view))
""")


def first_view(key: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), key, ",".join(HEAVY)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("key", PAGES)
def test_a_first_view_imports_no_heavy_library_and_draws_shipped_pictures(key):
    view = first_view(key)
    assert view["exceptions"] == []
    assert sorted({m.split(".")[0] for m in view["loaded"]}) == []
    # every figure of the first view is its shipped picture (app/ui/pictures.py): none waits for plotly's code
    assert len(view["pictures"]) >= 1, "the first view shows its main figure"
    assert view["charts"] == 0, (f"{view['charts']} figures of {key}'s first view have no shipped picture: "
                                 f"run python -m app.ship_pictures {key}")
    assert view["pictures"] == manifest()[key]
    # a grid (st.dataframe) loads 1.3 MB of browser code before the picture is painted: app.ui.tables.static_table
    assert view["grids"] == 0, f"{key}'s first screen draws {view['grids']} grid(s)"
    # it stops at the end of its first screen; the upgrade draws the rest (app.ui.pictures.first_screen)
    assert view["folded"] and not view["folded_after"] and view["exceptions_after"] == []
    assert view["elements_after"] > view["elements"], "the page's first view is already the whole page"


def test_pictures_ship_for_every_page_and_nothing_else():
    shipped = {p.stem for p in PICTURES.glob("*.svg")}
    listed = {fp for fps in manifest().values() for fp in fps}
    assert sorted(manifest()) == sorted(PAGES)
    assert listed == shipped                                  # no stale picture, none missing
    assert {p.stem for p in PICTURES.glob("*.npz")} == shipped   # each with the floats it is matched by
    for fp in sorted(shipped)[:3]:
        svg = (PICTURES / f"{fp}.svg").read_text()
        assert svg.startswith("<svg") and 'class="main-svg"' in svg   # drawn by plotly's own code
