"""The interestingness study: a problem bank, a resumable rating study with balanced assignment and
attention checks, stored through SQLAlchemy (SQLite by default, PostgreSQL by URL), and the
documented exclusion rule the analysis applies by default."""

from core.interestingness.exclusion import ExclusionRule, Exclusions, exclusions, kept_rows
from core.interestingness.problems import (RATIONALES, TOPICS, Problem, import_problems, load_problem_bank,
                                           parse_problems)
from core.interestingness.store import ASSIGNMENT_TIMEOUT, POPULATIONS, Item, StudyStore

from core.interestingness.claims import CLAIMS  # noqa: E402

__all__ = ["ASSIGNMENT_TIMEOUT", "CLAIMS", "ExclusionRule", "Exclusions", "Item", "POPULATIONS", "Problem",
           "RATIONALES", "StudyStore", "TOPICS", "exclusions", "import_problems", "kept_rows", "load_problem_bank",
           "parse_problems"]
