"""The claims ledger: each paper's headline claims, and the verdict a benchmark measured for each.

A system's package exports ``CLAIMS``, a tuple of :class:`Claim`: the abstract's headline claims in
our words, theory included (a bound, a rate, a guarantee), each with what is measured and the
independent reference or control it is checked against. Each ``bench/<key>.py`` derives one
:class:`Verdict` per claim from the numbers it measured and writes them as ``verdicts`` into
``bench/results/<key>.json``; pages, the Claims page and the ledger test read them back from there.

Statuses, in the order the ledger sorts them:

- ``reproduced``: the measured figure meets the claim and its control fails it;
- ``partly``: the figure meets part of the claim, or meets it without a control that fails, or in
  a narrower setting than the paper's; the verdict's ``detail`` says which;
- ``not reproduced``: the measurement contradicts the claim;
- ``not tested``: nothing measures it yet; ``detail`` says why.

This module reads JSON only: it never imports a system, so the Claims page stays light.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterable, Mapping, Sequence

REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTED = "reproduced", "partly", "not reproduced", "not tested"
STATUSES = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTED)
RESULTS_DIR = Path(__file__).resolve().parents[2] / "bench" / "results"
_ID = re.compile(r"^[a-z][a-z0-9_]{1,47}$")


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper.

    Parameters
    ----------
    id : str
        A short slug, unique within the system (lower case, digits and ``_``, 2 to 48 characters).
    statement : str
        The abstract's sentence, in our words.
    measure : str
        What is measured to check it, and at what scale.
    oracle : str
        The independent reference (a library, a closed form) or the control that must fail.
    """

    id: str
    statement: str
    measure: str
    oracle: str

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"id: {self.id!r} is not a claim id; allowed lower-case letters, digits and _, "
                             "2 to 48 characters, starting with a letter")
        for name in ("statement", "measure", "oracle"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name}: the claim {self.id!r} needs a non-empty text; allowed any sentence")


@dataclass(frozen=True)
class Verdict:
    """What a benchmark measured for one claim.

    Parameters
    ----------
    claim_id : str
        The :attr:`Claim.id` it judges.
    status : str
        One of :data:`STATUSES`.
    figure : str
        The headline number in a few words, e.g. ``"1 of 6 chains"``; empty only when not tested.
    detail : str
        How the status follows from the numbers; for ``not tested``, why nothing measures it.
    command : str
        The command that reproduces the numbers, e.g. ``"python bench/quantum_ng.py"``; required
        for every status but ``not tested``.
    measured_at : str
        The date (ISO 8601) the numbers were measured.
    decision : dict, optional
        The rule (:mod:`core.common.rules`) and what each of its own checks found: statistic, interval, margin, α.
    controls : list of dict, optional
        Each control the rule judged: ``name``, ``kind`` (``null`` or ``reference``), the measured value, whether
        it passed the claim's test (``passed``) and whether that supports the claim (``holds``).
    diagnosis : dict, optional
        On a verdict other than ``reproduced``: ``cause``, ``why`` (the cause in plain words), ``evidence``, and
        for ``scale`` and ``genuine`` the ``trend``.
    """

    claim_id: str
    status: str
    figure: str
    detail: str
    command: str
    measured_at: str
    decision: dict | None = None
    controls: list = field(default_factory=list)
    diagnosis: dict | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status: {self.status!r} is not a verdict; allowed {', '.join(map(repr, STATUSES))}")
        if not str(self.detail).strip():
            raise ValueError(f"detail: the verdict on {self.claim_id!r} must say how it follows; allowed any sentence")
        if self.status != NOT_TESTED and not str(self.command).strip():
            raise ValueError(f"command: a {self.status!r} verdict on {self.claim_id!r} must name the command "
                             "that reproduces it; allowed any shell command")

    @classmethod
    def from_dict(cls, data: Mapping) -> "Verdict":
        names = {f.name for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
        missing = sorted(required - set(data))
        if missing:
            raise ValueError(f"{missing[0]}: missing from a verdict; allowed fields {', '.join(sorted(names))}")
        return cls(**{name: data[name] for name in names if name in data})

    @property
    def cause(self) -> str | None:
        """The diagnosis' cause, or None (a reproduced verdict, or one stored before diagnoses)."""
        return (self.diagnosis or {}).get("cause")

    def decided(self) -> str:
        """What the rule found, in a sentence: each check's and each control's outcome (empty before rules)."""
        if not self.decision:
            return ""
        found = [f"{c['name']}: {c['text']}" for c in self.decision.get("checks", []) if c.get("text")]
        found += [f"{c['kind']} {c['name']}: {c['text']}" for c in self.controls if c.get("text")]
        return ("Decided: " + "; ".join(found) + ".") if found else ""

    def why(self) -> str:
        """Why the verdict is not reproduced, in a sentence: its cause in plain words and the evidence."""
        if not self.diagnosis:
            return ""
        d = self.diagnosis
        return f"Why {self.status}: {d['why']} ({d['cause']}). {d.get('evidence', '')}".strip()


def verdict(claim: Claim | str, status: str, figure: str, detail: str, *, command: str,
            measured_at: str | None = None) -> Verdict:
    """A :class:`Verdict` on ``claim``, dated today unless ``measured_at`` is given."""
    claim_id = claim.id if isinstance(claim, Claim) else claim
    return Verdict(claim_id, status, figure, detail, command, measured_at or today())


def not_tested(claim: Claim | str, why: str, *, measured_at: str | None = None) -> Verdict:
    """The verdict on a claim that no benchmark measures yet; ``why`` says what is missing."""
    return verdict(claim, NOT_TESTED, "", why, command="", measured_at=measured_at)


def today() -> str:
    return _dt.date.today().isoformat()


def verdicts_to_json(verdicts: Iterable[Verdict]) -> list[dict]:
    """Verdicts as the plain dicts that go under ``"verdicts"`` in a results file (a verdict judged before rules
    existed stores no decision, controls or diagnosis)."""
    optional = ("decision", "controls", "diagnosis")
    return [{k: val for k, val in asdict(v).items() if k not in optional or val}
            if not (v.decision or v.controls or v.diagnosis) else asdict(v) for v in verdicts]


def results_path(key: str, results_dir: Path | None = None) -> Path:
    return (results_dir or RESULTS_DIR) / f"{key}.json"


def load_verdicts(key: str, results_dir: Path | None = None) -> dict[str, Verdict]:
    """The verdicts shipped in ``bench/results/<key>.json``, by claim id (empty if there are none)."""
    path = results_path(key, results_dir)
    if not path.exists():
        return {}
    raw = json.loads(path.read_text()).get("verdicts", [])
    return {v.claim_id: v for v in map(Verdict.from_dict, raw)}


def ledger_problems(claims: Sequence[Claim], verdicts: Mapping[str, Verdict]) -> list[str]:
    """Everything wrong between a system's claims and its shipped verdicts (empty when consistent)."""
    problems = []
    if not claims:
        problems.append("CLAIMS is empty")
    ids = [c.id for c in claims]
    problems += [f"claim id {i!r} appears twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
    problems += [f"claim {i!r} has no verdict" for i in ids if i not in verdicts]
    problems += [f"verdict on unknown claim {i!r}" for i in verdicts if i not in ids]
    return problems


CONTROL_KINDS = ("null", "reference")
CAUSES = {  # why a verdict is not reproduced (core.common.rules.Diagnosis) -> the plain words the pages show
    "method": "our method departs from the paper",
    "measurement": "our test cannot show the effect, or is miscalibrated",
    "scale": "plausibly needs more data, width or steps than we run",
    "genuine": "faithful method, calibrated and powered test: the effect is absent at our scale",
    "unavailable": "the material is not reachable here",
    "undiagnosed": "not diagnosed yet",
}


def verdict_problems(v: Verdict) -> list[str]:
    """What a stored verdict lacks under the ledger's rules (empty when complete): a decision, at least one
    control with its ``kind``, and, unless reproduced, a diagnosis with its ``cause``."""
    problems = []
    if not isinstance(v.decision, Mapping) or not v.decision.get("rule"):
        problems.append(f"{v.claim_id}: no decision (its rule and checks)")
    controls = v.controls if isinstance(v.controls, list) else []
    if not controls:
        problems.append(f"{v.claim_id}: names no control")
    for c in controls:
        if not isinstance(c, Mapping) or c.get("kind") not in CONTROL_KINDS or not c.get("name"):
            problems.append(f"{v.claim_id}: a control without a name or a kind in {', '.join(CONTROL_KINDS)}")
    if v.status != REPRODUCED and not (v.diagnosis or {}).get("cause"):
        problems.append(f"{v.claim_id}: a {v.status!r} verdict without diagnosis.cause")
    return problems


def tally(statuses: Iterable[str]) -> dict[str, int]:
    """How many of each status, every status present (zeros included), in :data:`STATUSES` order."""
    counts = dict.fromkeys(STATUSES, 0)
    for status in statuses:
        counts[status] += 1
    return counts


def summary_line(counts: Mapping[str, int]) -> str:
    """``"N reproduced, M partly, K not reproduced, J not tested"``."""
    return ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)


def load_ledger(key: str, results_dir: Path | None = None) -> list[tuple[Claim, Verdict | None]]:
    """A system's claims as shipped in its results file, each with its verdict (None if missing).

    Reads ``claims`` and ``verdicts`` from ``bench/results/<key>.json``, which the bench writes from
    the system's ``CLAIMS``; the ledger test checks that the two agree. Empty if there is no file.
    """
    path = results_path(key, results_dir)
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    verdicts = {v.claim_id: v for v in map(Verdict.from_dict, data.get("verdicts", []))}
    return [(claim, verdicts.get(claim.id)) for claim in (Claim(**c) for c in data.get("claims", []))]
