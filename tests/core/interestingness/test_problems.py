"""The shipped problem bank and validated imports."""

import json

import pytest

from core.interestingness import TOPICS, import_problems, load_problem_bank, parse_problems


def test_the_shipped_bank():
    bank = load_problem_bank()
    assert len(bank) >= 60 and len({p.id for p in bank}) == len(bank)
    assert {p.topic for p in bank} == set(TOPICS) and {p.source for p in bank} == {"original"}
    for topic in TOPICS:
        assert len({p.difficulty for p in bank if p.topic == topic}) >= 3
    assert all("$" in p.statement and p.answer for p in bank)


def test_csv_and_json_imports_round_trip(tmp_path):
    bank = load_problem_bank()[:3]
    (tmp_path / "set.json").write_text(json.dumps([p.to_dict() for p in bank]))
    assert import_problems(tmp_path / "set.json") == bank
    csv = "id,statement,topic,difficulty\nx1,Is $2$ prime?,Number Theory,1\n"
    (problem,) = parse_problems(csv, "csv")
    assert (problem.topic, problem.difficulty, problem.source, problem.answer) == ("number theory", 1, "imported", None)


@pytest.mark.parametrize("text, fmt, message", [
    ("id,statement,topic,difficulty\nx1,Is $2$ prime?,astrology,1\n", "csv",
     r"^row 1 \(x1\)\.topic: 'astrology' is not allowed; allowed algebra, number theory"),
    ("id,statement,topic,difficulty\nx1,Is $2$ prime?,algebra,9\n", "csv",
     r"^row 1 \(x1\)\.difficulty: '9' is not allowed; allowed integers 1..5$"),
    ("id,statement,topic,difficulty\nx1,Q,algebra,2\nx1,Q,algebra,2\n", "csv", r"^row 2\.id: 'x1' appears twice"),
    ("id,statement,topic\nx1,Q,algebra\n", "csv", "^file: CSV header lacks difficulty"),
    ("id,statement,topic,difficulty\nbad id!,Q,algebra,2\n", "csv", r"^row 1\.id: 'bad id!' is not a valid id"),
    ('[{"id": "a", "statement": "", "topic": "algebra", "difficulty": 1}]', "json",
     r"^row 1 \(a\)\.statement: 0 characters; allowed 1..4000$"),
    ('[{"id": "a", "statement": "Q", "topic": "algebra", "difficulty": 1, "colour": "red"}]', "json",
     "^row 1: unknown field"),
    ('{"problems": 3}', "json", "^file: no list of problem objects"),
    ("{not json", "json", "^file: not valid JSON"),
    ("id,statement,topic,difficulty\n", "csv", r"^file: 0 problems; allowed 1..5000$"),
])
def test_malformed_imports_are_refused_with_the_field_named(text, fmt, message):
    with pytest.raises(ValueError, match=message):
        parse_problems(text, fmt)


def test_unknown_file_types_are_refused(tmp_path):
    (tmp_path / "set.xlsx").write_text("")
    with pytest.raises(ValueError, match=r"^path: set.xlsx has suffix '.xlsx'; allowed .csv, .json$"):
        import_problems(tmp_path / "set.xlsx")
