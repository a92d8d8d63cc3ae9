"""The Claims page and the verdict strips: what a visitor reads equals the shipped ledger."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.catalog import SYSTEMS
from app.ui.verdicts import plain
from core.common.claims import load_ledger, summary_line, tally

MAIN = str(Path(__file__).resolve().parents[2] / "app" / "shell.py")
BUILT = [s for s in SYSTEMS if s.built]
LEDGER = {s.key: load_ledger(s.key) for s in BUILT}
ALL = [(key, claim, verdict) for key, entries in LEDGER.items() for claim, verdict in entries]


def open_claims() -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60).run()
    at.switch_page("claims.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_claims_page_lists_every_claim_with_its_shipped_status():
    at = open_claims()
    counts = tally(v.status for _, _, v in ALL)
    assert at.subheader[0].value.startswith(summary_line(counts))
    table = at.dataframe[0].value
    assert len(table) == len(ALL) and set(table["system"]) == {s.title for s in BUILT}
    shipped = {(c.statement, v.status, v.figure) for _, c, v in ALL}
    assert set(zip(table["claim"], table["status"], table["figure"])) == shipped
    assert all(p.startswith("/") for p in table["page"])
    assert at.get("download_button")[0].label.startswith("Download")


@pytest.mark.parametrize("status", ["not reproduced", "partly"])
def test_the_status_filter_keeps_only_that_status(status):
    at = open_claims()
    at.button_group(key="status").set_value([status]).run()
    table = at.dataframe[0].value
    assert len(table) == sum(v.status == status for _, _, v in ALL) > 0
    assert set(table["status"]) == {status}
    assert at.caption[0].value == f"Showing {len(table)} of {len(ALL)} claims."


def test_the_theme_filter_keeps_only_that_theme():
    at = open_claims()
    theme = BUILT[0].theme
    at.multiselect(key="theme").set_value([theme]).run()
    table = at.dataframe[0].value
    assert set(table["theme"]) == {theme}
    assert len(table) == sum(len(LEDGER[s.key]) for s in BUILT if s.theme == theme)


def test_home_cards_count_reproduced_claims():
    at = AppTest.from_file(MAIN, default_timeout=60).run()
    texts = [m.value for m in at.markdown]
    for key, entries in LEDGER.items():
        done = sum(v.status == "reproduced" for _, v in entries)
        assert f":blue-badge[:material/fact_check: {done} of {len(entries)} claims reproduced]" in texts, key


def test_quantum_ng_says_on_first_view_how_often_the_per_shot_claim_holds():
    verdict = dict((c.id, v) for c, v in LEDGER["quantum_ng"])["per_shot_convergence"]
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    at.switch_page("../pages/quantum_ng.py").run()
    texts = " ".join(m.value for m in at.markdown)
    assert f"**{plain(verdict.figure)}**" in texts                  # in the strip, under the title
    assert f"finds the claim **{verdict.status}**: it {plain(verdict.figure)}" in texts   # and beside the main figure
