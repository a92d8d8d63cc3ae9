"""Which participants enter the analysis: the study's documented exclusion rule, applied by default.

A participant is excluded for the first of these reasons that applies (so each is counted once):

0. ``withdrawn``: they withdrew (status ``withdrawn``; their responses are kept only when the
   experimenter chose to flag rather than delete them);
1. ``failed_attention``: they answered at least one attention check wrong (``max_failed_checks``,
   default 0, is how many wrong answers are tolerated);
2. ``incomplete``: they did not finish (participant status other than ``completed``/``failed_checks``:
   still active, or abandoned);
3. ``too_fast``: the median time per rated problem (``response_ms``, from first display to the answer)
   is below ``min_median_seconds``, a threshold the experimenter sets (default 3 s: reading a
   statement and setting two sliders takes longer than that; 0 turns the rule off).

The rule is ours (the paper does not publish one); it works on ``StudyStore.rows`` alone, so the
dashboard, the export and a notebook apply the same rule to the same rows. Nothing is deleted: an
excluded participant's rows stay in the database and in the export, marked with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

REASONS = ("withdrawn", "failed_attention", "incomplete", "too_fast")
DEFAULT_MIN_MEDIAN_SECONDS = 3.0


@dataclass(frozen=True)
class ExclusionRule:
    """The exclusion rule's settings (see the module docstring), checked on construction.

    Attributes
    ----------
    min_median_seconds : float
        A participant whose median time per rated problem is below this many seconds is excluded as
        ``too_fast``; 0 turns the rule off. Allowed 0..600; default 3.
    max_failed_checks : int
        Wrong attention-check answers tolerated before ``failed_attention``. Allowed 0..5; default 0.
    """

    min_median_seconds: float = DEFAULT_MIN_MEDIAN_SECONDS
    max_failed_checks: int = 0

    def __post_init__(self):
        if isinstance(self.min_median_seconds, bool) or not isinstance(self.min_median_seconds, (int, float)) \
                or not 0 <= self.min_median_seconds <= 600:
            raise ValueError(f"min_median_seconds: {self.min_median_seconds!r}; allowed numbers 0..600")
        if isinstance(self.max_failed_checks, bool) or not isinstance(self.max_failed_checks, int) \
                or not 0 <= self.max_failed_checks <= 5:
            raise ValueError(f"max_failed_checks: {self.max_failed_checks!r}; allowed integers 0..5")


@dataclass(frozen=True)
class Exclusions:
    """Per participant the reason they are excluded (absent: kept), and the counts per reason.

    Attributes
    ----------
    reasons : dict
        ``{participant_id: reason}`` for every excluded participant, reason one of ``REASONS``.
    participants : int
        Participants with at least one response row.
    counts : dict
        ``{reason: participants excluded for it}`` for every reason of ``REASONS`` (zeros included).
    """

    reasons: dict = field(default_factory=dict)        # participant_id -> reason
    participants: int = 0                              # participants with at least one response
    counts: dict = field(default_factory=dict)         # reason -> participants excluded for it

    @property
    def kept(self) -> int:
        return self.participants - len(self.reasons)

    def to_dict(self) -> dict:
        return {"participants": self.participants, "kept": self.kept, **{r: self.counts.get(r, 0) for r in REASONS}}


def exclusions(rows: list[dict], rule: ExclusionRule | None = None) -> Exclusions:
    """The participants that ``rule`` excludes from ``rows``, each for the first reason that applies.

    The reasons, in order: ``withdrawn``; ``failed_attention`` (more than ``max_failed_checks``
    wrong attention checks); ``incomplete`` (status neither ``completed`` nor ``failed_checks``);
    ``too_fast`` (median ``response_ms`` of the problem rows below ``1000 * min_median_seconds``).

    Parameters
    ----------
    rows : list of dict
        One dict per response, as ``StudyStore.rows`` gives them; the keys read are
        ``participant_id``, ``participant_status``, ``kind``, ``attention_passed`` and ``response_ms``.
    rule : ExclusionRule, optional
        The settings; default ``ExclusionRule()`` (3 s, no failed check tolerated).

    Returns
    -------
    Exclusions
        The reason per excluded participant and the counts per reason; ``rows`` is not changed.

    References
    ----------
    .. [1] "Interestingness of math problems" (NeurIPS 2026, ``docs/PAPERS.md``): LLM
       ratings compared with those of crowdsourced and olympiad participants. The rule is ours.

    Examples
    --------
    >>> rated = {"kind": "problem", "response_ms": 8000}
    >>> rows = [{**rated, "participant_id": "P1", "participant_status": "completed"},
    ...         {"participant_id": "P2", "participant_status": "completed", "kind": "attention",
    ...          "attention_passed": False},
    ...         {**rated, "participant_id": "P3", "participant_status": "active"}]
    >>> found = exclusions(rows)
    >>> found.reasons, found.participants, found.kept
    ({'P2': 'failed_attention', 'P3': 'incomplete'}, 3, 1)
    >>> exclusions(rows, ExclusionRule(max_failed_checks=1)).reasons
    {'P3': 'incomplete'}
    """
    rule = rule or ExclusionRule()
    if not isinstance(rule, ExclusionRule):
        raise ValueError(f"rule: a {type(rule).__name__} is not allowed; allowed an ExclusionRule or None")
    people: dict[str, dict] = {}
    for r in rows:
        p = people.setdefault(r["participant_id"], {"status": r.get("participant_status"), "failed": 0, "ms": []})
        if r.get("kind") == "attention" and r.get("attention_passed") is False:
            p["failed"] += 1
        if r.get("kind") == "problem" and r.get("response_ms") is not None:
            p["ms"].append(r["response_ms"])
    reasons = {}
    for pid, p in people.items():
        if p["status"] == "withdrawn":
            reasons[pid] = "withdrawn"
        elif p["failed"] > rule.max_failed_checks:
            reasons[pid] = "failed_attention"
        elif p["status"] not in ("completed", "failed_checks"):
            reasons[pid] = "incomplete"
        elif rule.min_median_seconds > 0 and p["ms"] and median(p["ms"]) < 1000 * rule.min_median_seconds:
            reasons[pid] = "too_fast"
    counts = {reason: sum(v == reason for v in reasons.values()) for reason in REASONS}
    return Exclusions(reasons, len(people), counts)


@dataclass(frozen=True)
class KeptRows:
    """The rows that enter the analysis, and who was excluded and why (what :func:`kept_rows` returns).

    Attributes
    ----------
    rows : list of dict
        The kept participants' response rows, in their original order (the same dict objects).
    exclusions : Exclusions
        The excluded participants, their reasons and the counts.
    """

    rows: list
    exclusions: Exclusions


def kept_rows(rows: list[dict], rule: ExclusionRule | None = None) -> KeptRows:
    """``rows`` without the excluded participants' responses, with the exclusions (see :func:`exclusions`).

    Parameters
    ----------
    rows : list of dict
        One dict per response, as ``StudyStore.rows`` gives them.
    rule : ExclusionRule, optional
        The settings; default ``ExclusionRule()``.

    Returns
    -------
    KeptRows
        ``rows``: the kept responses in order; ``exclusions``: who was left out and why. Nothing is
        deleted from ``rows`` itself.

    References
    ----------
    .. [1] "Interestingness of math problems" (NeurIPS 2026, ``docs/PAPERS.md``); the rule is ours.

    Examples
    --------
    >>> rows = [{"participant_id": "P1", "participant_status": "completed", "kind": "problem", "response_ms": 8000},
    ...         {"participant_id": "P3", "participant_status": "active", "kind": "problem", "response_ms": 8000}]
    >>> kept = kept_rows(rows)
    >>> [r["participant_id"] for r in kept.rows], kept.exclusions.counts["incomplete"]
    (['P1'], 1)
    """
    found = exclusions(rows, rule)
    return KeptRows([r for r in rows if r["participant_id"] not in found.reasons], found)
