"""Writing a benchmark's results: bench/results/<key>.json and .md, its verdicts, and its exit status.

A benchmark of a system passes ``verdicts=``, a function from its result dict to one
:class:`core.common.claims.Verdict` per claim in the system's ``CLAIMS``. The function reads only the
numbers in the result, so ``python bench/ledger.py`` can re-derive the verdicts from a stored results
file without measuring again, and the ledger test can check that the stored verdicts are exactly what
the numbers give.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path
from typing import Callable

from bench import papers
from core.common.claims import NOT_TESTED, Verdict, ledger_problems, today, verdicts_to_json

RESULTS = DEFAULT_RESULTS = Path(__file__).resolve().parent / "results"


def interval_text(values, digits: int = 2) -> str:
    """"mean [low, high]": the 95 % t interval of ``values`` (paired differences, per-seed values) as the rules'
    PairedT computes it, signed."""
    from core.common.decisions import PairedT

    out = PairedT(0.0).decide(list(values))
    return f"{out.value:+.{digits}f} [{out.low:+.{digits}f}, {out.high:+.{digits}f}]"


def claims_of(key: str) -> tuple:
    """The system's ``CLAIMS`` (imports ``core.<key>``)."""
    return tuple(importlib.import_module(f"core.{key}").CLAIMS)


def rules_of(key: str) -> dict:
    """The system's ``RULES`` by claim id (``core/<key>/claims.py``), or an empty dict before its migration."""
    return dict(getattr(importlib.import_module(f"core.{key}.claims"), "RULES", {}))


def judged(key: str, describe: Callable[[dict], dict],
           command: str | Callable[[dict], str]) -> Callable[[dict], list[Verdict]]:
    """A bench's ``verdicts``: each claim's status from its rule (``core/<key>/claims.py``), applied to the stored
    numbers; its figure and detail from ``describe(result)`` (claim id -> (figure, detail)), which only words
    what was measured. The bench decides nothing. ``command`` reproduces the numbers (or builds that command
    from the stored result, where the runs it records were made with flags)."""

    def verdicts(result: dict) -> list[Verdict]:
        rules, texts = rules_of(key), describe(result)
        rerun = command(result) if callable(command) else command
        out = []
        for claim in claims_of(key):
            if claim.id not in rules or claim.id not in texts:
                raise ValueError(f"{key}: claim {claim.id!r} needs a rule in RULES and a text from describe()")
            j = rules[claim.id].evaluate(result)
            figure, detail = texts[claim.id]
            out.append(Verdict(claim.id, j.status, figure if j.status != NOT_TESTED else "", detail,
                               rerun if j.status != NOT_TESTED else "", today(), j.decision, j.controls,
                               j.diagnosis))
        return out

    return verdicts


def derive_verdicts(key: str, result: dict, verdicts: Callable[[dict], list[Verdict]]) -> list[Verdict]:
    """``verdicts(result)``, dated with the result's ``measured_at`` and checked against ``CLAIMS``."""
    measured_at = result.get("measured_at") or today()
    derived = [dataclasses.replace(v, measured_at=measured_at) for v in verdicts(result)]
    claims = claims_of(key)
    problems = ledger_problems(claims, {v.claim_id: v for v in derived})
    if len(derived) != len({v.claim_id for v in derived}):
        problems.append("two verdicts on one claim")
    if problems:
        raise ValueError(f"verdicts of {key}: " + "; ".join(problems))
    order = {c.id: i for i, c in enumerate(claims)}
    return sorted(derived, key=lambda v: order[v.claim_id])


def verdict_table(key: str, verdicts: list[Verdict]) -> str:
    """The markdown table of a system's verdicts, claims in their ``CLAIMS`` order."""
    statements = {c.id: c.statement for c in claims_of(key)}
    lines = ["", "## Claims and verdicts", "", "| claim | status | figure | how it follows |", "|---|---|---|---|"]
    for v in verdicts:
        cells = [statements[v.claim_id], f"**{v.status}**", v.figure or "–", v.detail + decided(v)]
        lines.append("| " + " | ".join(map(papers.markdown_cell, cells)) + " |")
    return "\n".join(lines) + "\n"


def decided(v: Verdict) -> str:
    """The rule's findings and, for a negative, its cause, after a verdict's detail (empty before rules)."""
    text = " ".join(t for t in (v.decided(), v.why() and f"Why {v.status}: {v.diagnosis['why']} "
                                                       f"({v.diagnosis['cause']}).") if t)
    return f" {text}" if text else ""


def stored_results(key: str) -> dict:
    """Bench ``key``'s stored results (``bench/results/<key>.json``), or an empty dict when there are none."""
    path = RESULTS / f"{key}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def rederive_verdicts(key: str, table, verdicts, **added) -> int:
    """A bench's ``--verdicts``: rewrite its stored results' claims and verdicts from the numbers already there,
    measuring nothing (what ``python bench/ledger.py <key>`` does for every bench); ``added`` entries (a sweep's
    trend, a measurement run apart) are stored first."""
    stored = {**stored_results(key), **added}
    return write_results(key, stored, table(stored), verdicts=verdicts)


def write_results(key: str, result: dict, markdown: str,
                  verdicts: Callable[[dict], list[Verdict]] | None = None) -> int:
    """Write both files, print the table and the checks; 0 if every check holds, else 1.

    With ``verdicts``, the result also gets ``measured_at`` (today, unless already set), ``claims``
    (the system's ``CLAIMS``) and ``verdicts``, the markdown ends with the verdict table, and the
    system's claim table in docs/PAPERS.md is rewritten from them (``bench/papers.py``).
    """
    RESULTS.mkdir(parents=True, exist_ok=True)
    if verdicts is not None:
        result.setdefault("measured_at", today())
        derived = derive_verdicts(key, result, verdicts)
        result["claims"] = [dataclasses.asdict(c) for c in claims_of(key)]
        result["verdicts"] = verdicts_to_json(derived)
        markdown = markdown.rstrip("\n") + "\n" + verdict_table(key, derived)
    (RESULTS / f"{key}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{key}.md").write_text(markdown)
    if verdicts is not None and RESULTS == DEFAULT_RESULTS:
        papers.write([key])  # docs/PAPERS.md states the verdicts just written
    print(markdown)
    print(json.dumps(result.get("checks", {}), indent=2))
    return 0 if all(result.get("checks", {}).values()) else 1
