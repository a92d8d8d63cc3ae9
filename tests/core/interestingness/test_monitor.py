"""The admin page's numbers, on hand-made rows."""

import math

import krippendorff
import numpy as np
import pytest

from core.interestingness import monitor


def rows_from(matrix, population="college"):
    out = []
    for r, ratings in enumerate(matrix):
        for i, value in enumerate(ratings):
            if value is not None:
                out.append({"participant_id": f"r{r}", "population": population, "participant_status": "completed",
                            "item_id": f"q{i}", "kind": "problem", "interestingness": value, "difficulty": 4,
                            "attention_passed": None, "response_ms": 1000 * (r + 1)})
    return out


def test_alpha_is_one_for_perfect_agreement_and_matches_the_package_with_missing_cells():
    assert monitor.krippendorff_alpha(rows_from([[1, 3, 5, 7], [1, 3, 5, 7], [1, 3, None, 7]]), "college") == 1.0
    matrix = [[1, 2, 5, None, 7], [2, 2, 4, 6, None], [None, 3, 5, 6, 7]]
    expected = krippendorff.alpha(reliability_data=np.array(matrix, dtype=float), level_of_measurement="ordinal",
                                  value_domain=list(range(1, 8)))
    assert monitor.krippendorff_alpha(rows_from(matrix), "college") == pytest.approx(expected)
    assert 0 < expected < 1


def test_alpha_is_undefined_until_raters_overlap():
    assert math.isnan(monitor.krippendorff_alpha(rows_from([[1, None], [None, 5]]), "college"))
    assert math.isnan(monitor.krippendorff_alpha([], "college"))


def test_progress_counts_and_distributions():
    rows = rows_from([[1, 3], [2, 3]]) + rows_from([[7, 7]], population="olympiad")
    rows.append({**rows[0], "item_id": "attention-1", "kind": "attention", "attention_passed": False})
    people = [{"participant_id": "r0", "population": "college", "status": "completed"},
              {"participant_id": "r1", "population": "college", "status": "active"},
              {"participant_id": "r0b", "population": "olympiad", "status": "failed_checks"}]
    table = monitor.progress(people, rows).set_index("population")
    assert table.loc["college"].to_dict() == {"participants": 2, "completed": 1, "failed a check": 1,
                                              "failed every check": 0, "in progress": 1, "resumed": 0, "ratings": 4}
    assert table.loc["olympiad", "failed every check"] == 1 and table.loc["olympiad", "failed a check"] == 0
    people[1]["resumes"] = 2
    assert monitor.progress(people, rows).set_index("population").loc["college", "resumed"] == 1
    assert monitor.ratings_per_item(rows).loc["q1"].to_dict() == {"college": 2, "olympiad": 1}
    dist = monitor.distributions(rows, population="college")
    assert list(dist.columns) == list(range(1, 8)) and dist.loc["q1", 3] == 2 and dist.loc["q0"].sum() == 2
    failures = monitor.attention_failures(rows)
    assert failures.to_dict("records") == [{"participant_id": "r0", "population": "college", "checks": 1, "failed": 1}]
    assert sorted(monitor.response_seconds(rows)) == [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]   # attention items left out
