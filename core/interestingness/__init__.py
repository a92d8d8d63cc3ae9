"""The interestingness study: a problem bank, a resumable rating study with balanced assignment and
attention checks, stored through SQLAlchemy (SQLite by default, PostgreSQL by URL)."""

from core.interestingness.problems import (RATIONALES, TOPICS, Problem, import_problems, load_problem_bank,
                                           parse_problems)
from core.interestingness.store import POPULATIONS, Item, StudyStore

from core.interestingness.claims import CLAIMS  # noqa: E402

__all__ = ["CLAIMS", "Item", "POPULATIONS", "Problem", "RATIONALES", "StudyStore", "TOPICS", "import_problems",
           "load_problem_bank", "parse_problems"]
