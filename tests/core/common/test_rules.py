"""Rules as data: which outcome gives which status, nulls judged by failing, diagnoses, and what a rule can reach."""

import pytest

from core.common.claims import NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED
from core.common.decisions import PairedT, Threshold, Trend
from core.common.rules import Check, Diagnosis, Rule, joined, lookup, reachable, zipped


def rule(**kw):
    checks = (Check("gain", "claim", "paired gain over seeds", "gain", PairedT(0.0, "above")),
              Check("trend", "part", "gain over sizes", "sizes", Trend("rising")),
              Check("shuffled", "null", "the gain with shuffled labels", "shuffled", PairedT(0.0, "above")),
              Check("oracle", "reference", "the oracle's gain", "oracle", PairedT(0.0, "above")))
    return Rule(checks=checks, **kw)


UP, FLAT = [0.30, 0.32, 0.29, 0.31], [0.02, -0.03, 0.01, -0.01]


@pytest.mark.parametrize("gain, sizes, shuffled, status", [
    (UP, [1, 2, 3], FLAT, REPRODUCED),
    (UP, [1, 2, 3], UP, PARTLY),        # the null passes the claim's test too
    (UP, [3, 2, 1], FLAT, PARTLY),      # a part fails
    (UP, None, FLAT, PARTLY),           # a part not measured counts as not holding
    (FLAT, [1, 2, 3], FLAT, NOT_REPRODUCED),
    (None, [1, 2, 3], FLAT, NOT_TESTED),
])
def test_the_status_follows_the_checks(gain, sizes, shuffled, status):
    result = {"gain": gain, "sizes": sizes, "shuffled": shuffled, "oracle": FLAT}   # a reference is not required
    judged = rule().evaluate(result)
    assert judged.status == status
    assert [c["kind"] for c in judged.controls] == ["null", "reference"]
    null = judged.controls[0]
    assert null["holds"] is (None if shuffled is None else shuffled is FLAT) and null["passed"] is (shuffled is UP)
    assert [c["name"] for c in judged.decision["checks"]] == ["gain", "trend"]
    assert (judged.diagnosis is None) is (status == REPRODUCED)


def test_the_rule_names_what_each_status_needs():
    r = rule(partly=("gain", "shuffled"))
    assert r.evaluate({"gain": UP, "sizes": [1, 2, 3], "shuffled": UP, "oracle": FLAT}).status == NOT_REPRODUCED
    assert "partly when gain and shuffled hold" in r.describe()
    r = rule(reproduced=("gain", "oracle"))
    assert r.evaluate({"gain": UP, "sizes": None, "shuffled": UP, "oracle": UP}).status == REPRODUCED


def test_reachable_enumerates_the_statuses():
    assert reachable(rule()) == {REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTED}
    capped = rule(ceiling=PARTLY, ceiling_why="stated false as parameterised")
    assert reachable(capped) == {PARTLY, NOT_REPRODUCED, NOT_TESTED}
    assert capped.evaluate({"gain": UP, "sizes": [1, 2, 3], "shuffled": FLAT, "oracle": FLAT}).status == PARTLY
    # a null whose decision passes on whatever it is given (a control that holds by construction) never fails,
    # so the rule cannot give reproduced: reachable runs each decision on its examples rather than trusting them
    always = type("Always", (Threshold,), {"_decide": lambda self, x: Threshold(0.0, "above").decide(abs(x) + 1)})
    never = Rule(checks=(Check("x", "claim", "a gain", "x", Threshold(0.0, "above")),
                         Check("null", "null", "a control that cannot fail", "n", always(0.0, "above"))))
    assert reachable(never) == {PARTLY, NOT_REPRODUCED, NOT_TESTED}
    # references that no status needs are not enumerated: forty of them (3^40 combinations) change nothing
    many = Rule(checks=(*rule().checks, *(Check(f"ref{k}", "reference", "a reference", "oracle", PairedT(0.0, "above"))
                                          for k in range(40))))
    assert reachable(many) == reachable(rule())
    named = rule(reproduced=("gain", "oracle"))        # a reference the rule names for reproduced is enumerated
    assert REPRODUCED in reachable(named)


def test_an_untested_rule_says_why_and_gives_not_tested():
    r = Rule(checks=(Check("dim", "reference", "the dimension", "d", Threshold(0.0, "above")),),
             untested="the paper's rate was not available",
             diagnosis=Diagnosis("unavailable", "The rate is not in the abstract (checked)."))
    judged = r.evaluate({"d": 3})
    assert judged.status == NOT_TESTED and judged.diagnosis["cause"] == "unavailable"
    assert reachable(r) == {NOT_TESTED}
    plain = Rule(checks=r.checks, untested="no bench yet")
    assert plain.evaluate({}).diagnosis == {"cause": "undiagnosed", "why": "not diagnosed yet",
                                            "evidence": "Not measured: no bench yet"}


def test_diagnoses_of_scale_need_a_trend_over_three_scales():
    with pytest.raises(ValueError, match="^trend: "):
        Diagnosis("scale", "Grows with width.")
    d = Diagnosis("scale", "Grows with width (python bench/x.py --grid width).", trend="widths")
    assert d.record({"widths": [0.1, 0.2, 0.4]})["trend"] == [0.1, 0.2, 0.4]
    with pytest.raises(ValueError, match="^trend: "):
        d.record({"widths": [0.1, 0.2]})
    with pytest.raises(ValueError, match="^cause: 'luck'"):
        Diagnosis("luck", "x")


@pytest.mark.parametrize("make, field", [
    (lambda: Check("a", "control", "x", "a", Threshold(0)), "role"),
    (lambda: Check("a", "claim", " ", "a", Threshold(0)), "statistic"),
    (lambda: Rule(checks=(Check("a", "claim", "x", "a", Threshold(0)),)), "checks"),
    (lambda: Rule(checks=rule().checks, partly=("nope",)), "partly"),
    (lambda: Rule(checks=rule().checks, ceiling=PARTLY), "ceiling_why"),
    (lambda: Rule(checks=rule().checks, ceiling="maybe", ceiling_why="x"), "ceiling"),
])
def test_bad_rules_name_the_field(make, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        make()


def test_lookup_reads_paths_and_functions_and_misses_quietly():
    result = {"sweeps": {"banana/dim": {"ratio": [0.9, 0.8], "ratio_low": [0.8, 0.7], "ratio_high": [1.0, 0.9]}}}
    assert lookup(result, "sweeps.banana/dim.ratio.-1") == 0.8
    assert lookup(result, "sweeps.banana/dim.nope") is None and lookup(result, "sweeps.banana/dim.ratio.5") is None
    assert lookup(result, lambda r: r["missing"]["x"]) is None
    pairs = zipped("sweeps.banana/dim.ratio_low", "sweeps.banana/dim.ratio_high")
    assert lookup(result, pairs) == [(0.8, 1.0), (0.7, 0.9)]
    assert lookup(result, joined(pairs, pairs)) == [(0.8, 1.0), (0.7, 0.9)] * 2
    assert lookup(result, zipped("sweeps.banana/dim.ratio", "nope")) is None


def test_a_capped_rule_says_so_in_its_diagnosis():
    capped = rule(ceiling=PARTLY, ceiling_why="the abstract states no bound")
    judged = capped.evaluate({"gain": UP, "sizes": [1, 2, 3], "shuffled": FLAT, "oracle": FLAT})
    assert judged.status == PARTLY
    assert judged.diagnosis["evidence"].startswith("The rule cannot give better than partly: the abstract states no bound.")
