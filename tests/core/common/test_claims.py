"""core.common.claims: the Claim and Verdict records refuse bad values, and the ledger helpers count."""

import json

import pytest

from core.common.claims import (STATUSES, Claim, Verdict, ledger_problems, load_ledger, load_verdicts, not_tested,
                                summary_line, tally, verdict, verdicts_to_json)

CLAIM = Claim("rate", "The loss falls like eta^(2/3).", "log-log slope", "a closed form")


@pytest.mark.parametrize("bad", ["", "A", "1abc", "has space", "x" * 49, 3])
def test_claim_id_must_be_a_slug(bad):
    with pytest.raises(ValueError, match="^id: "):
        Claim(bad, "s", "m", "o")


@pytest.mark.parametrize("field", ["statement", "measure", "oracle"])
def test_claim_texts_must_be_given(field):
    kwargs = {"statement": "s", "measure": "m", "oracle": "o", field: "  "}
    with pytest.raises(ValueError, match=f"^{field}: "):
        Claim("ok", **kwargs)


def test_verdict_status_must_be_one_of_the_four():
    for status in STATUSES:
        assert verdict(CLAIM, status, "f", "d", command="python x.py").status == status
    with pytest.raises(ValueError, match="^status: 'confirmed' is not a verdict; allowed 'reproduced'"):
        verdict(CLAIM, "confirmed", "f", "d", command="python x.py")


@pytest.mark.parametrize("status", [s for s in STATUSES if s != "not tested"])
def test_a_judged_verdict_names_its_command(status):
    with pytest.raises(ValueError, match="^command: "):
        verdict(CLAIM, status, "f", "d", command=" ")


def test_not_tested_needs_a_reason_not_a_command():
    v = not_tested(CLAIM, "nothing measures it yet")
    assert (v.status, v.command, v.figure) == ("not tested", "", "")
    with pytest.raises(ValueError, match="^detail: "):
        not_tested(CLAIM, "")


def test_ledger_problems_name_each_inconsistency():
    other = Claim("gap", "s", "m", "o")
    good = {c.id: not_tested(c, "why") for c in (CLAIM, other)}
    assert ledger_problems((CLAIM, other), good) == []
    assert ledger_problems((), {}) == ["CLAIMS is empty"]
    assert ledger_problems((CLAIM, other), {"rate": good["rate"]}) == ["claim 'gap' has no verdict"]
    assert ledger_problems((CLAIM,), good) == ["verdict on unknown claim 'gap'"]
    assert ledger_problems((CLAIM, CLAIM), {"rate": good["rate"]}) == ["claim id 'rate' appears twice"]


def test_tally_and_summary_line_count_every_status():
    counts = tally(["partly", "reproduced", "partly"])
    assert counts == {"reproduced": 1, "partly": 2, "not reproduced": 0, "not tested": 0}
    assert summary_line(counts) == "1 reproduced, 2 partly, 0 not reproduced, 0 not tested"


def test_results_round_trip_and_a_removed_verdict_shows(tmp_path):
    v = verdict(CLAIM, "partly", "slope 0.6", "only one law", command="python bench/x.py", measured_at="2026-01-02")
    data = {"claims": [vars(CLAIM)], "verdicts": verdicts_to_json([v])}
    (tmp_path / "x.json").write_text(json.dumps(data))
    assert load_verdicts("x", tmp_path) == {"rate": v}
    assert load_ledger("x", tmp_path) == [(CLAIM, v)]
    (tmp_path / "x.json").write_text(json.dumps({**data, "verdicts": []}))
    assert load_ledger("x", tmp_path) == [(CLAIM, None)]
    assert ledger_problems((CLAIM,), load_verdicts("x", tmp_path)) == ["claim 'rate' has no verdict"]
    assert load_ledger("missing", tmp_path) == [] and load_verdicts("missing", tmp_path) == {}


def test_a_verdict_missing_a_field_is_refused():
    raw = verdicts_to_json([not_tested(CLAIM, "why")])[0]
    del raw["detail"]
    with pytest.raises(ValueError, match="^detail: missing"):
        Verdict.from_dict(raw)
