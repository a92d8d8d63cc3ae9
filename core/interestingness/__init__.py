"""The interestingness study: a problem bank, a resumable rating study with balanced assignment and
attention checks, stored through SQLAlchemy (SQLite by default, PostgreSQL by URL), and the
documented exclusion rule the analysis applies by default.

The paper's claims (see ``CLAIMS``): LLMs broadly agree with people on which problems are
interesting but miss the distribution of human judgments and align weakly with people's rationales;
after validity filtering LLMs can generate engaging problems. The study measures the human side
(two populations); ``analysis`` compares LLM raters (``raters``, ``embedding_rater``) with it.
Asset builder: ``python -m core.interestingness.ship``.
"""

from core.interestingness.exclusion import ExclusionRule, Exclusions, KeptRows, exclusions, kept_rows
from core.interestingness.problems import (RATIONALES, TOPICS, Problem, import_problems, load_problem_bank,
                                           parse_problems)
from core.interestingness.store import ASSIGNMENT_TIMEOUT, POPULATIONS, Item, StudyStore

from core.interestingness.claims import CLAIMS  # noqa: E402

__all__ = ["ASSIGNMENT_TIMEOUT", "CLAIMS", "ExclusionRule", "Exclusions", "Item", "KeptRows", "POPULATIONS", "Problem",
           "RATIONALES", "StudyStore", "TOPICS", "exclusions", "import_problems", "kept_rows", "load_problem_bank",
           "parse_problems"]
