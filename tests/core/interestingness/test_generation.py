"""Generated problems through the validity filter, with scripted text models standing in for LLMs."""

import json

import pytest

from core.interestingness import StudyStore, load_problem_bank
from core.interestingness.generation import check_reply, generate, sympy_value


class Scripted:
    """A text model that replies from a list, in turn."""

    def __init__(self, *replies):
        self.replies, self.prompts = list(replies), []

    def complete(self, prompt, max_tokens=400, temperature=0.8):
        self.prompts.append(prompt)
        return self.replies[(len(self.prompts) - 1) % len(self.replies)]


GOOD = json.dumps({"statement": "What is the sum $1 + 2 + \\dots + 100$ of the first hundred integers?",
                   "answer": "5050", "check": "100*101/2"})
WRONG_CHECK = json.dumps({"statement": "What is the sum $1 + 2 + \\dots + 100$ of the first hundred integers?",
                          "answer": "5000", "check": "100*101/2"})
PROSE_ANSWER = json.dumps({"statement": "Show that every tree with at least two vertices has two leaves.",
                           "answer": "count degrees: the sum is 2(n-1)", "check": None})


def test_the_filter_keeps_sound_problems_and_names_why_it_rejects():
    model = Scripted(GOOD, WRONG_CHECK, "Sure! Here is a problem: count the primes", PROSE_ANSWER,
                     json.dumps({"statement": "Too short", "answer": "1"}))
    verdicts = generate(model, "number theory", 2, n=5, judge=Scripted("yes"))
    assert [v.kept for v in verdicts] == [True, False, False, True, False]
    assert verdicts[1].reason == "sympy: the check gives 5050, the answer claims 5000"
    assert verdicts[2].reason == "reply: not a JSON object"
    assert verdicts[4].reason == "statement: 9 characters; allowed 20..1000"
    kept = verdicts[0].problem
    assert (kept.source, kept.topic, kept.difficulty, kept.answer) == ("generated", "number theory", 2, "5050")
    assert "number theory problem of difficulty 2" in model.prompts[0]


def test_the_judge_can_veto():
    (verdict,) = generate(Scripted(GOOD), "algebra", 1, judge=Scripted("No, it is ambiguous"))
    assert not verdict.kept and verdict.reason.startswith("judge: answered 'no, it is ambiguous'")


def test_answers_are_never_evaluated_as_code():
    assert sympy_value("__import__('os').system('true')") is None and sympy_value("2^10") == 1024
    with pytest.raises(ValueError, match="^check: "):
        check_reply(json.dumps({"statement": "x" * 30, "answer": "4", "check": "open('f')"}), "algebra", 1, "g1")


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="^topic: 'poetry' is not allowed"):
        generate(Scripted(GOOD), "poetry", 1)
    with pytest.raises(ValueError, match="^difficulty: 9; allowed integers 1..5$"):
        generate(Scripted(GOOD), "algebra", 9)


def test_kept_problems_join_the_pool_without_their_label(tmp_path):
    store = StudyStore(f"sqlite:///{tmp_path / 's.sqlite'}")
    bank = load_problem_bank()[:2]
    sid = store.create_study("pool", [p.id for p in bank], items_per_participant=2, attention_checks=0, problems=bank)
    (verdict,) = generate(Scripted(GOOD), "number theory", 2, prefix="run1")
    assert store.add_to_pool(sid, [verdict.problem]) == 1 and store.add_to_pool(sid, [verdict.problem]) == 0
    pool = {p["id"]: p for p in store.study_problems(sid)}
    assert pool[verdict.problem.id]["source"] == "generated"
    for i in range(3):   # least-assigned-first: the new problem reaches the next participants
        store.enroll(sid, f"P{i}", "college")
    items = []
    for i in range(3):
        pid = store.enroll(sid, f"P{i}", "college")
        while (item := store.next_item(pid)) is not None:
            items.append(item)
            store.record_response(pid, item.id, 4, 4)
    shown = [it for it in items if it.id == verdict.problem.id]
    assert shown and all("generated" not in it.statement and not hasattr(it, "source") for it in shown)
    store.close()


def test_a_stop_ends_generation_after_the_current_problem():
    from core.common.progress import ProgressLog

    model = Scripted(GOOD)
    log = ProgressLog(stop_after=2)
    verdicts = generate(model, "algebra", 1, n=10, judge=Scripted("yes"), progress=log)
    assert len(verdicts) == 2 and log.steps == [1, 2] and len(model.prompts) == 2   # no further model calls
    assert log.metrics[-1] == {"kept": 2}


def test_generate_with_names_a_bad_backend():
    from core.interestingness.generation import generate_with

    with pytest.raises(ValueError, match="^backend: 'cloud' is not an option; allowed 'endpoint', 'local'"):
        generate_with("cloud", {}, "algebra", 1)


def test_a_second_generation_run_never_reuses_an_earlier_problems_id(tmp_path):
    other = json.dumps({"statement": "How many positive divisors does $360$ have, counting $1$ and $360$?",
                        "answer": "24", "check": "4*3*2"})
    (first,) = generate(Scripted(GOOD), "number theory", 2)
    (second,) = generate(Scripted(other), "number theory", 2)              # the same run settings, a new text
    (again,) = generate(Scripted(GOOD), "number theory", 2)
    assert first.kept and second.kept and first.problem.id != second.problem.id
    assert again.problem.id == first.problem.id                            # the same text is the same problem
    assert first.problem.id.startswith("gen-number_theory-2-") and len(first.problem.id) <= 64
    store = StudyStore(f"sqlite:///{tmp_path / 's.sqlite'}")
    bank = load_problem_bank()[:2]
    sid = store.create_study("pool", [p.id for p in bank], items_per_participant=2, attention_checks=0, problems=bank)
    store.add_to_pool(sid, [first.problem])
    assert store.add_to_pool(sid, [second.problem]) == 1
    pool = {p["id"]: p["statement"] for p in store.study_problems(sid)}
    assert pool[first.problem.id] == first.problem.statement and pool[second.problem.id] == second.problem.statement
    store.close()
