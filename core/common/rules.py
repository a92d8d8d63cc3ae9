"""A claim's rule as data: the checks that judge it, which outcome gives which status, and why a negative is negative.

A :class:`Rule` is declared with its claim in ``core/<key>/claims.py`` (``RULES``, by claim id). It holds
:class:`Check` s, each reading stored numbers from the system's results file (:attr:`Check.at`, a dotted path
or a function of the result) and judging them with a :mod:`core.common.decisions` decision fixed before the
run. A check has a role:

- ``claim``: the claim's own measurement; every one must hold for ``partly`` (by default);
- ``part``: a further part of the claim (a trend, a second setting); must hold for ``reproduced``;
- ``null``: a control that the claim's mechanism predicts fails (an untrained model, shuffled labels, the
  trivial method), judged by what *passing* the claim would look like for it: the null holds when that
  fails. Must hold for ``reproduced``;
- ``reference``: a bar to reach or an independent oracle (a library, the zero-shot model); reported, and
  required only where the rule names it.

Status, in order: ``not tested`` when a check in :attr:`Rule.partly` is not measured (its numbers are not
stored) or the rule measures nothing (:attr:`Rule.untested`); ``reproduced`` when every check in
:attr:`Rule.reproduced` holds (default: all but references) and no :attr:`Rule.ceiling` caps it; ``partly``
when every check in :attr:`Rule.partly` holds (default: the ``claim`` checks); else ``not reproduced``.
:func:`reachable` enumerates every outcome of the checks and says which statuses a rule can give.

A verdict that is not ``reproduced`` carries the rule's :class:`Diagnosis` (``undiagnosed`` until its
system's diagnosis is done).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from core.common.claims import CAUSES, CONTROL_KINDS, NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED, STATUSES
from core.common.decisions import Decision, Outcome

ROLES = ("claim", "part", "null", "reference")
TREND_CAUSES = ("scale", "genuine")


def lookup(result: Mapping, at: str | Callable[[Mapping], Any]) -> Any:
    """The stored numbers at ``at``: a dotted path of keys and list indices, or a function of the result.
    None when any step is missing."""
    if callable(at):
        try:
            return at(result)
        except (KeyError, IndexError, TypeError):
            return None
    node: Any = result
    for step in at.split("."):
        if isinstance(node, Mapping):
            if step not in node:
                return None
            node = node[step]
        elif isinstance(node, (list, tuple)) and step.lstrip("-").isdigit():
            i = int(step)
            if not -len(node) <= i < len(node):
                return None
            node = node[i]
        else:
            return None
    return node


def zipped(*paths: str) -> Callable[[Mapping], list | None]:
    """A :attr:`Check.at` that zips the lists stored at ``paths`` (e.g. each dimension's interval ends) into one
    list of tuples; None when any is missing."""

    def at(result: Mapping) -> list | None:
        lists = [lookup(result, p) for p in paths]
        return None if any(v is None for v in lists) else [tuple(t) for t in zip(*lists)]

    at.__doc__ = " × ".join(paths)
    return at


def joined(*ats) -> Callable[[Mapping], list | None]:
    """A :attr:`Check.at` that concatenates the lists several ``at`` s give (e.g. two sweeps judged as one)."""

    def at(result: Mapping) -> list | None:
        parts = [lookup(result, a) for a in ats]
        return None if any(p is None for p in parts) else [x for p in parts for x in p]

    return at


@dataclass(frozen=True)
class Check:
    """One comparison a rule makes: ``decision`` applied to the numbers at ``at``.

    Parameters
    ----------
    name : str
        A short identifier, unique in the rule (lower case, ``_``), used by :attr:`Rule.partly` and friends.
    role : str
        One of :data:`ROLES`.
    statistic : str
        What the numbers are, in words ("volume ratio MKS / ellipsoid, 95% t interval over 10 seeds, d = 2..10").
    at : str or callable
        Where the numbers are stored in the results file.
    decision : Decision
        How they pass.
    """

    name: str
    role: str
    statistic: str
    at: str | Callable[[Mapping], Any]
    decision: Decision

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"role: {self.role!r} of check {self.name!r} is not a role; allowed "
                             + ", ".join(map(repr, ROLES)))
        if not isinstance(self.decision, Decision):
            raise ValueError(f"decision: check {self.name!r} needs a core.common.decisions.Decision")
        if not self.statistic.strip():
            raise ValueError(f"statistic: check {self.name!r} must say what it measures; allowed any sentence")

    def holds(self, outcome: Outcome) -> bool | None:
        """Whether the check's outcome supports the claim: a null holds when it does *not* pass."""
        if outcome.passed is None:
            return None
        return (not outcome.passed) if self.role == "null" else outcome.passed

    def record(self, outcome: Outcome) -> dict:
        out = {"name": self.name, "statistic": self.statistic, **self.decision.to_dict(), **outcome.to_dict()}
        if self.role in CONTROL_KINDS:
            out = {"kind": self.role, **out, "holds": self.holds(outcome)}
        return out


@dataclass(frozen=True)
class Diagnosis:
    """Why a verdict is not ``reproduced``: a :data:`CAUSES` key, what was checked (with its command), and for
    ``scale`` and ``genuine`` the stored trend over at least three scales (``trend``, a path like
    :attr:`Check.at`)."""

    cause: str = "undiagnosed"
    evidence: str = "The rule restates the bench's earlier logic; its system's issue diagnoses why."
    trend: str | None = None

    def __post_init__(self):
        if self.cause not in CAUSES:
            raise ValueError(f"cause: {self.cause!r} is not a cause; allowed " + ", ".join(map(repr, CAUSES)))
        if not self.evidence.strip():
            raise ValueError("evidence: a diagnosis must say what was checked; allowed any sentence")
        if self.cause in TREND_CAUSES and not self.trend:
            raise ValueError(f"trend: a {self.cause!r} diagnosis needs a stored trend over at least three scales")

    def record(self, result: Mapping) -> dict:
        out = {"cause": self.cause, "why": CAUSES[self.cause], "evidence": self.evidence}
        if self.trend:
            trend = lookup(result, self.trend)
            if trend is None or len(trend) < 3:
                raise ValueError(f"trend: {self.trend!r} holds {trend!r}; allowed a stored trend over >= 3 scales")
            out["trend"] = trend
        return out


@dataclass(frozen=True)
class Rule:
    """How a claim's status follows from its checks (see the module's docstring).

    Parameters
    ----------
    checks : tuple of Check
        At least one control (``null`` or ``reference``) unless the rule is :attr:`untested`.
    reproduced, partly : tuple of str, optional
        The checks that must hold for each status; defaults: every claim, part and null check; the claim checks.
    ceiling : str, optional
        The best status the rule can give, with :attr:`ceiling_why` (a known defect its system's issue removes).
    untested : str, optional
        Why nothing measures the claim: the rule gives ``not tested`` (its checks name the control it would use).
    diagnosis : Diagnosis
        Recorded on every verdict other than ``reproduced``.
    """

    checks: tuple[Check, ...]
    reproduced: tuple[str, ...] | None = None
    partly: tuple[str, ...] | None = None
    ceiling: str = REPRODUCED
    ceiling_why: str = ""
    untested: str = ""
    diagnosis: Diagnosis = field(default_factory=Diagnosis)

    def __post_init__(self):
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ValueError(f"checks: names {names} repeat; allowed unique names")
        for label in ("reproduced", "partly"):
            unknown = [n for n in (getattr(self, label) or ()) if n not in names]
            if unknown:
                raise ValueError(f"{label}: {unknown[0]!r} is not a check of the rule; allowed {', '.join(names)}")
        if self.ceiling not in STATUSES:
            raise ValueError(f"ceiling: {self.ceiling!r} is not a status; allowed " + ", ".join(map(repr, STATUSES)))
        if self.ceiling != REPRODUCED and not self.ceiling_why.strip():
            raise ValueError("ceiling_why: a rule capped below 'reproduced' must say why")
        if not any(c.role in CONTROL_KINDS for c in self.checks):
            raise ValueError("checks: a rule names at least one control (a 'null' or a 'reference' check)")
        if not self.untested and not any(c.role == "claim" for c in self.checks):
            raise ValueError("checks: a measured rule needs at least one 'claim' check")

    @property
    def needed_for_reproduced(self) -> tuple[str, ...]:
        if self.reproduced is not None:
            return self.reproduced
        return tuple(c.name for c in self.checks if c.role != "reference")

    @property
    def needed_for_partly(self) -> tuple[str, ...]:
        if self.partly is not None:
            return self.partly
        return tuple(c.name for c in self.checks if c.role == "claim")

    def status(self, holds: Mapping[str, bool | None]) -> str:
        """The status given which checks hold (None: not measured)."""
        if self.untested or any(holds[n] is None for n in self.needed_for_partly):
            return NOT_TESTED
        if all(holds[n] for n in self.needed_for_reproduced):
            best = REPRODUCED
        elif all(holds[n] for n in self.needed_for_partly):
            best = PARTLY
        else:
            return NOT_REPRODUCED
        return best if STATUSES.index(best) >= STATUSES.index(self.ceiling) else self.ceiling

    def evaluate(self, result: Mapping) -> "Judgement":
        """Apply every check to ``result``'s stored numbers."""
        outcomes = {c.name: c.decision.decide(lookup(result, c.at)) if not self.untested else Outcome(None)
                    for c in self.checks}
        holds = {c.name: c.holds(outcomes[c.name]) for c in self.checks}
        status = self.status(holds)
        decision = {"rule": self.describe(),
                    "checks": [c.record(outcomes[c.name]) for c in self.checks if c.role not in CONTROL_KINDS]}
        controls = [c.record(outcomes[c.name]) for c in self.checks if c.role in CONTROL_KINDS]
        diagnosis = None
        if status != REPRODUCED:
            found = self.diagnosis
            if self.untested and found == Diagnosis():
                found = Diagnosis("undiagnosed", f"Not measured: {self.untested}")
            diagnosis = found.record(result)
            if self.ceiling != REPRODUCED:   # a known defect of the rule itself, said where the negative is explained
                diagnosis["evidence"] = (f"The rule cannot give better than {self.ceiling}: {self.ceiling_why}. "
                                         + diagnosis["evidence"])
        return Judgement(status, decision, controls, diagnosis)

    def describe(self) -> str:
        if self.untested:
            return f"not tested: {self.untested}"
        text = (f"reproduced when {' and '.join(self.needed_for_reproduced)} hold; partly when "
                f"{' and '.join(self.needed_for_partly) or 'nothing else'} hold; else not reproduced")
        if self.ceiling != REPRODUCED:
            text += f"; capped at {self.ceiling}: {self.ceiling_why}"
        return text


@dataclass(frozen=True)
class Judgement:
    """What a rule gave on one results file: the status and the records a verdict stores."""

    status: str
    decision: dict
    controls: list
    diagnosis: dict | None


def reachable(rule: Rule) -> set[str]:
    """Every status the rule can give: each check's decision run on its own passing and failing examples (an
    outcome its decision cannot produce is left out), and every combination of those outcomes, missing included."""
    if rule.untested:
        return {NOT_TESTED}
    deciding = set(rule.needed_for_reproduced) | set(rule.needed_for_partly)   # the others never move the status
    options = []
    for check in rule.checks:
        found = {check.holds(check.decision.decide(x)) for x in check.decision.examples()} if check.name in deciding \
            else set()
        options.append(sorted(found | {None}, key=str))
    statuses = set()
    for combo in itertools.product(*options):
        statuses.add(rule.status(dict(zip((c.name for c in rule.checks), combo))))
    return statuses
