"""The asset builder's command line and the shipped demo's label."""

import pytest

from core.interestingness.demo import LABEL, load_demo
from core.interestingness.ship import main, ship_demo


def test_ship_refuses_an_unknown_part_and_a_bad_seed_before_writing():
    with pytest.raises(SystemExit, match="usage: python -m core.interestingness.ship"):
        main(["bank"])
    with pytest.raises(ValueError, match="^seed: .*; allowed 0.."):
        ship_demo(seed=-1)


def test_the_shipped_demo_names_its_builder_and_says_it_is_simulated():
    demo = load_demo()
    assert demo["made_by"] == "python -m core.interestingness.ship" and demo["label"] == LABEL
    assert "simulated" in LABEL.lower() and set(demo["llm"]) == {"simulated LLM"}
