"""A shared link with a value a control cannot take says so, names the parameter, and keeps the view."""

import pytest

from app.catalog import SYSTEMS
from tests.pages import apptest

SEEDED = [s.key for s in SYSTEMS if s.built and s.key != "interestingness"]   # every page with a seed box


def notices(at):
    return [w.value for w in at.warning if w.value.startswith("The link's")]


@pytest.mark.parametrize("key", SEEDED)
def test_a_negative_seed_in_the_link_is_named_and_replaced(key):
    default = apptest.open_page(key).number_input(key="seed").value               # the page's own default seed
    at = apptest.open_page(key, seed="-3")
    assert notices(at) == [f"The link's `seed=-3` is not allowed (allowed: 0 to 4294967295); showing {default}."]
    assert at.number_input(key="seed").value == default and at.get("plotly_chart")   # the view is still drawn


@pytest.mark.parametrize("key", SEEDED)
def test_a_valid_link_shows_no_notice(key):
    at = apptest.open_page(key, seed="7")
    assert notices(at) == [] and at.number_input(key="seed").value == 7


def test_out_of_range_and_unknown_values_on_one_page():
    at = apptest.open_page("looped_lm", loops="1000", model="bogus", seed="2")
    found = notices(at)
    assert any(n.startswith("The link's `loops=1000` is not allowed (allowed: 4 to 64); showing") for n in found)
    assert any(n.startswith("The link's `model=bogus` is not allowed (allowed: one of Shipped: stable") for n in found)
    assert len(found) == 2 and at.number_input(key="seed").value == 2                # the valid part is kept


def test_a_label_in_the_link_is_taken_and_a_wrong_one_is_named():
    at = apptest.open_page("geto_lp", inputs="Synthetic shapes (2-D)")
    assert notices(at) == [] and at.selectbox(key="inputs").value == "shapes"
    at = apptest.open_page("geto_lp", inputs="Nonexistent", n="abc")
    found = notices(at)
    assert any("`inputs=Nonexistent`" in n and "showing Handwritten digits (2-D)" in n for n in found)
    assert any("`n=abc`" in n for n in found) and len(found) == 2
