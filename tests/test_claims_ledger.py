"""The claims ledger holds for every built system: CLAIMS, shipped verdicts, and verdicts derived from numbers.

For each built system: ``CLAIMS`` is non-empty; the results file ships exactly those claims, and one
verdict per claim, each with a valid status, and every judged verdict names its command. The shipped
verdicts are exactly what the bench's ``verdicts()`` derives from the numbers stored beside them, so
no verdict is typed in by hand (``python bench/ledger.py`` refreshes them after a rule changes).
"""

import dataclasses
import importlib
import json

import pytest

from app.catalog import SYSTEMS
from bench.ledger import LEDGER
from bench.report import derive_verdicts
from core.common.claims import REPRODUCED, STATUSES, Claim, ledger_problems, load_verdicts, results_path

BUILT = [s.key for s in SYSTEMS if s.built]


def test_every_built_system_has_a_ledger():
    assert sorted(BUILT) == sorted(LEDGER)


@pytest.mark.parametrize("key", BUILT)
def test_claims_and_shipped_verdicts_agree(key):
    claims = importlib.import_module(f"core.{key}").CLAIMS
    assert isinstance(claims, tuple) and claims and all(isinstance(c, Claim) for c in claims)
    verdicts = load_verdicts(key)
    assert ledger_problems(claims, verdicts) == []
    for v in verdicts.values():
        assert v.status in STATUSES
        if v.status == REPRODUCED:
            assert v.command.strip(), v.claim_id
        assert v.measured_at[:4].isdigit(), v.claim_id
    shipped = json.loads(results_path(key).read_text())["claims"]
    assert shipped == [dataclasses.asdict(c) for c in claims], "run python bench/ledger.py after editing CLAIMS"


@pytest.mark.parametrize("key", LEDGER)
def test_shipped_verdicts_are_derived_from_the_stored_numbers(key):
    result = json.loads(results_path(key).read_text())
    bench = importlib.import_module(f"bench.{key}")
    derived = derive_verdicts(key, result, bench.verdicts)
    assert [dataclasses.asdict(v) for v in derived] == result["verdicts"], \
        "run python bench/ledger.py after changing a verdict rule"
