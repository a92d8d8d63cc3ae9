"""The shell through AppTest: the home gallery, and every registered page with its defaults."""

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app.catalog import SYSTEMS, THEMES
from app.ui.pictures import INTERACTIVE
from app.ui.verdicts import STYLE, strip_line
from core.common.claims import load_ledger
from tests.pages import apptest

MAIN = str(Path(__file__).resolve().parents[2] / "app" / "shell.py")
TIMEOUT = 60


def test_home_lists_every_system_by_theme():
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.title[0].value == "Paperlab"
    assert [s.value for s in at.subheader] == list(THEMES)
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for system in SYSTEMS:
        assert f"**{system.title}**" in texts, system.key
        assert system.claim in texts, system.key
    in_progress = sum("In progress" in t for t in texts)
    ready = sum(":green-badge" in t for t in texts)
    assert in_progress == sum(not s.built for s in SYSTEMS)
    assert ready == sum(s.built for s in SYSTEMS)
    assert len(at.get("page_link")) == ready  # links only to built pages
    count = f"{ready} of {len(SYSTEMS)} systems ready"
    assert any(t.startswith(count) for t in texts)
    assert any("the rest are being built" in t for t in texts) == (ready < len(SYSTEMS))


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s.built] or [None],
                         ids=lambda s: s.key if s else "no-built-page-yet")
def test_every_registered_page_renders_with_defaults(system):
    if system is None:
        assert not any(s.built for s in SYSTEMS)
        return
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    at.session_state[INTERACTIVE] = True    # charts, whose data the test reads (tests/test_first_views.py: pictures)
    at.run()
    at.switch_page(f"../pages/{system.key}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == system.title
    # The verdict strip: every claim's status chip, figure and statement, in the ledger's order.
    texts = [m.value for m in at.markdown]
    entries = load_ledger(system.key)
    assert entries, system.key
    for status, (color, icon) in STYLE.items():   # one chip per claim, in the status's own colour
        chip = f":{color}-badge[{icon} {status}]"
        assert texts.count(chip) == sum(v.status == status for _, v in entries), (system.key, status)
    for claim, verdict in entries:
        assert strip_line(claim, verdict) in texts, (system.key, claim.id)
        assert verdict.figure.replace("*", "") in strip_line(claim, verdict).replace("\\", "").replace("*", "")
    if system.key == "interestingness":   # the study's admin view: only the simulated demo before the password
        assert [c.key for c in at.get("plotly_chart")] == ["chart-demo-per-item", "chart-demo-dist"]
        assert not at.dataframe and "simulated" in at.info[0].value
        assert any("admin is locked" in w.value for w in at.warning) or at.text_input
        return
    # The first view draws numbers: a chart with a finite data series, and numeric read-outs.
    series = [apptest.values(trace, axis) for spec in apptest.charts(at).values() for trace in spec["data"]
              for axis in ("x", "y", "z") if isinstance(trace.get(axis), (list, dict))]
    numeric = [v for v in series if v.dtype.kind in "fiu" and v.size and np.isfinite(v).any()]
    assert numeric, f"{system.key}: no chart holds a numeric series"
    for key, spec in apptest.charts(at).items():    # app/ui/plots.py's rule: no legend above a titled plot
        layout = spec["layout"]
        legend = {**layout.get("template", {}).get("layout", {}).get("legend", {}), **layout.get("legend", {})}
        title = layout.get("title", {}).get("text") if isinstance(layout.get("title"), dict) else layout.get("title")
        above = legend.get("yref", "paper") == "paper" and legend.get("y", 0) >= 1 and legend.get("x", 0) <= 1
        assert not (title and above), (system.key, key)
    assert at.metric or at.dataframe or at.table, system.key
