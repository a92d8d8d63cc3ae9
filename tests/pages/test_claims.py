"""The Claims page and the verdict strips: what a visitor reads equals the shipped ledger."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.catalog import SYSTEMS
from app.ui.verdicts import plain
from core.common.claims import CAUSES, load_ledger, summary_line, tally

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


def causes_shipped() -> dict[str, int]:
    found = {}
    for _, _, v in ALL:
        if v.cause:
            found[v.cause] = found.get(v.cause, 0) + 1
    return found


@pytest.mark.parametrize("cause", sorted(causes_shipped()))
def test_the_cause_filter_keeps_only_that_cause_and_says_why(cause):
    at = open_claims()
    pills = at.button_group(key="cause")
    assert list(pills.options) and all(str(o).split(" (")[0] in CAUSES for o in pills.options)
    pills.set_value([cause]).run()
    table = at.dataframe[0].value
    assert len(table) == causes_shipped()[cause] > 0
    assert set(table["why"]) == {CAUSES[cause]}
    assert not (set(table["status"]) & {"reproduced"})
    assert at.caption[0].value == f"Showing {len(table)} of {len(ALL)} claims."


def test_the_csv_export_carries_the_rule_and_the_diagnosis():
    from app.claims import EXPORT, rows

    table = rows()
    assert {"cause", "why", "evidence", "decision", "controls"} <= set(EXPORT)
    by_claim = {(k, c.id): v for k, c, v in ALL}
    for _, row in table.iterrows():
        v = by_claim[(row["key"], row["claim_id"])]
        assert row["decision"] == v.decided() and row["why"] == (v.diagnosis or {}).get("why", "")
        assert row["controls"] == "; ".join(f"{c['name']} ({c['kind']})" for c in v.controls)


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


def test_a_strip_says_how_each_verdict_was_decided_and_why_a_negative_is_negative():
    key = next(k for k, entries in LEDGER.items() if any(v.decision and v.diagnosis for _, v in entries))
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    at.switch_page(f"../pages/{key}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    texts = [m.value for m in at.markdown]
    for claim, v in LEDGER[key]:
        if v.decision:
            assert any(t.startswith("**Decided by its rule.**") and plain(v.decision["rule"]) in t for t in texts)
        if v.diagnosis:
            why = next(t for t in texts if t.startswith(f"**Why {v.status}.**") and plain(v.diagnosis["evidence"]) in t)
            assert f"({v.diagnosis['cause']})" in why
