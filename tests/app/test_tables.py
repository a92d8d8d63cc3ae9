"""Static first-screen tables (app.ui.tables): numbers formatted per column, missing values as a dash, no grid."""

import math

from streamlit.testing.v1 import AppTest

from app.ui.tables import MISSING, styled


def cells(styler) -> list[list[str]]:
    """The displayed text of every body cell, row by row."""
    return [line.split("|") for line in styler.hide(axis="index").to_string(delimiter="|").splitlines()[1:]]


def test_numbers_take_their_column_format_or_the_default_and_text_is_left_alone():
    shown = cells(styled({"name": ["a", "b"], "x": [0.5, 1 / 3], "rank": [43.91, 150.0], "ok": [True, False]},
                         {"rank": "{:.1f}"}))
    assert shown == [["a", "0.500", "43.9", "True"], ["b", "0.333", "150.0", "False"]]


def test_a_missing_number_shows_as_a_dash():
    shown = cells(styled({"r2": [0.25, math.nan], "n": [1.0, None]}, number_format="{:.2f}"))
    assert shown == [["0.25", "1.00"], [MISSING, MISSING]]


def page():
    from app.ui.tables import static_table

    static_table({"method": ["x", "y"], "score": [0.1234, 0.5]})


def test_the_table_is_static_without_a_grid():
    at = AppTest.from_function(page).run()
    assert not at.dataframe and len(at.table) == 1
    assert at.table[0].value["score"].tolist() == [0.1234, 0.5]   # the values stay exact; only the display rounds
