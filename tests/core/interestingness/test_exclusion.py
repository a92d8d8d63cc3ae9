"""The exclusion rule on rows of known participants, and the store's export carrying its verdicts."""

import json

import pytest

from core.interestingness.exclusion import ExclusionRule, exclusions, kept_rows
from tests.core.interestingness.conftest import answer_all


def rows_of(pid, status, ms, failed=0):
    out = [{"participant_id": pid, "participant_status": status, "kind": "problem", "item_id": f"q{i}",
            "response_ms": t, "attention_passed": None} for i, t in enumerate(ms)]
    out += [{"participant_id": pid, "participant_status": status, "kind": "attention", "item_id": f"attention-{j}",
             "response_ms": 5000, "attention_passed": j >= failed} for j in range(2)]
    return out


def test_each_participant_is_excluded_once_for_the_first_reason():
    rows = (rows_of("ok", "completed", [8000, 9000, 10000]) + rows_of("inattentive", "completed", [9000] * 3, failed=1)
            + rows_of("both", "active", [100] * 3, failed=2) + rows_of("quit", "active", [9000])
            + rows_of("fast", "completed", [900, 1000, 20000]) + rows_of("failed_all", "failed_checks", [9000] * 3, 2))
    found = exclusions(rows, ExclusionRule(min_median_seconds=2.0))
    assert found.reasons == {"inattentive": "failed_attention", "both": "failed_attention", "quit": "incomplete",
                             "fast": "too_fast", "failed_all": "failed_attention"}
    assert found.to_dict() == {"participants": 6, "kept": 1, "withdrawn": 0, "failed_attention": 3, "incomplete": 1, "too_fast": 1}
    kept = kept_rows(rows, ExclusionRule(min_median_seconds=2.0))
    assert {r["participant_id"] for r in kept.rows} == {"ok"} and kept.exclusions == found
    lenient = exclusions(rows, ExclusionRule(min_median_seconds=0.0, max_failed_checks=1))
    assert lenient.reasons == {"both": "failed_attention", "quit": "incomplete", "failed_all": "failed_attention"}


@pytest.mark.parametrize("kwargs, message", [
    ({"min_median_seconds": -1}, "^min_median_seconds: -1; allowed numbers 0..600$"),
    ({"min_median_seconds": "3"}, "^min_median_seconds: '3'"),
    ({"max_failed_checks": 6}, "^max_failed_checks: 6; allowed integers 0..5$"),
])
def test_bad_rule_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ExclusionRule(**kwargs)


def test_the_export_names_each_excluded_participants_reason(store, study):
    done = store.enroll(study, "X1", "college")
    answer_all(store, done)
    store.complete(done)
    careless = store.enroll(study, "X2", "college")
    answer_all(store, careless, fail_checks=True)
    store.complete(careless)
    quitter = store.enroll(study, "X3", "college")
    item = store.next_item(quitter)
    store.record_response(quitter, item.id, 4, 4)
    lenient = ExclusionRule(min_median_seconds=0.0)           # the store answers in microseconds here
    rows = json.loads(store.export(study, "json", rule=lenient))
    reasons = {r["participant_id"]: r["excluded"] for r in rows}
    assert reasons == {done: None, careless: "failed_attention", quitter: "incomplete"}
    assert len(rows) == 8 + 8 + 1                             # nothing is dropped from the export
    strict = {r["participant_id"]: r["excluded"] for r in json.loads(store.export(study, "json"))}
    assert strict[done] == "too_fast"                         # the default 3 s rule sees instant answers
    header = store.export(study, "csv", rule=lenient).splitlines()
    assert header[0].split(",")[-1] == "excluded" and sum(line.endswith(",incomplete") for line in header) == 1


def test_a_rule_of_the_wrong_type_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="^rule: a dict is not allowed; allowed an ExclusionRule or None$"):
        exclusions([], {"min_median_seconds": 1.0})
    with pytest.raises(ValueError, match="^rule: "):
        kept_rows([], 3.0)
