"""URL-bound controls and export buttons, in real script runs."""

import pytest
from streamlit.testing.v1 import AppTest


def controls_script():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path.cwd()))
    import streamlit as st

    from app.ui.controls import bound, seed_input

    seed = seed_input(default=3)
    kind = bound(st.selectbox, "Kind", key="kind", options=["ring", "chain"])
    st.markdown(f"seed={seed} kind={kind}")


@pytest.mark.parametrize("params, expected", [
    ({}, "seed=3 kind=ring"),
    ({"seed": "42", "kind": "chain"}, "seed=42 kind=chain"),  # a link reproduces the view
    ({"seed": "not-a-number"}, "seed=3 kind=ring"),           # bad URL values fall back to defaults
    ({"seed": "-1", "kind": "star"}, "seed=3 kind=ring"),
])
def test_controls_read_the_url(params, expected):
    at = AppTest.from_function(controls_script, default_timeout=30)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert at.markdown[0].value == expected
    seed_box = at.number_input(key="seed")
    assert (seed_box.min, seed_box.max) == (0, 2**32 - 1)


def test_seed_box_changes_the_value():
    at = AppTest.from_function(controls_script, default_timeout=30).run()
    at.number_input(key="seed").set_value(11).run()
    assert at.markdown[0].value == "seed=11 kind=ring"


def export_script():
    import sys
    from dataclasses import dataclass
    from pathlib import Path

    sys.path.insert(0, str(Path.cwd()))
    import numpy as np

    from app.ui.export import export_buttons

    @dataclass
    class Result:
        loss: np.ndarray
        best: float

    export_buttons(Result(np.array([3.0, 2.0, 1.0]), 1.0), "demo-run")


def test_export_buttons_offer_json_and_csv():
    at = AppTest.from_function(export_script, default_timeout=30).run()
    assert not at.exception
    buttons = {b.proto.label: b.proto for b in at.get("download_button")}
    assert set(buttons) == {"JSON", "CSV"}
    # The payloads themselves are checked in tests/core/common/test_results.py.
    assert buttons["JSON"].url.endswith(".json") and buttons["CSV"].url.endswith(".csv")
    assert buttons["JSON"].ignore_rerun and buttons["CSV"].ignore_rerun  # a download never reruns the page
