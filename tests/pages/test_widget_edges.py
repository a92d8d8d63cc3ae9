"""Every numeric control of every page at its minimum and its maximum: never a traceback.

A visitor can set any value a widget allows (or a shared link can carry it); each page must answer
with its view or with a clear ``st.error``, never an exception. Each control is moved on its own,
from the page's defaults, to its lowest and highest allowed value.
"""

import pytest

from app.catalog import SYSTEMS
from tests.pages import apptest

PAGES = [s.key for s in SYSTEMS if s.built]


def numeric_widgets(at):
    return [(w, "number_input") for w in at.number_input] + [(w, "slider") for w in at.slider]


def edge_values(widget):
    low, high = widget.min, widget.max
    if isinstance(widget.value, int) or (isinstance(widget.value, float) and float(widget.value).is_integer()
                                          and float(widget.step).is_integer()):
        return [int(low), int(high)]
    return [low, high]


@pytest.mark.parametrize("key", PAGES)
def test_numeric_controls_at_their_edges_never_raise(key):
    at = apptest.open_page(key, timeout=120)
    widgets = [(w.key, kind, w.value) for w, kind in numeric_widgets(at)
               if w.key and not isinstance(w.value, (list, tuple))]
    assert widgets or key == "interestingness", key     # every system page has numeric controls (the seed)
    for name, kind, default in widgets:
        widget = next(w for w, k in numeric_widgets(at) if w.key == name and k == kind)
        for value in (*edge_values(widget), default):     # its lowest, its highest, then back
            getattr(at, kind)(key=name).set_value(value).run()
            assert not at.exception, (key, name, value, [e.message for e in at.exception])
