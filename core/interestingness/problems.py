"""The problem bank: shipped original problems, and validated imports of an experimenter's own set.

A problem has an id, a statement (Markdown with LaTeX), a topic, a difficulty 1–5, a source
("original", "generated", "imported") and an optional answer. Imports come from CSV (a header row
with those columns) or JSON (a list of objects, or {"problems": [...]}); every row is checked and
the first bad one is named with its field and the allowed values, so nothing half-valid loads.
Our choices: a CSV may start with a UTF-8 byte-order mark (Excel's "CSV UTF-8" does); a CSV row with
more fields than its header is refused; in JSON every text field must be a JSON string (a list or a
number is refused, not stringified) and the difficulty a JSON integer or a string of one ASCII digit;
no field may hold a NUL character.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from core.common.assets import asset_dir

BANK = asset_dir("interestingness") / "problems.json"
TOPICS = ("algebra", "number theory", "combinatorics", "geometry", "analysis", "probability")
SOURCES = ("original", "generated", "imported")
RATIONALES = ("surprising result", "elegant solution", "connects areas", "simple to state", "challenging",
              "useful technique", "beautiful structure", "real-world relevance", "other")
FIELDS = ("id", "statement", "topic", "difficulty", "source", "answer")
MAX_STATEMENT, MAX_ANSWER, MAX_PROBLEMS = 4000, 1000, 5000
ID_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class Problem:
    """One problem of a bank: what participants and raters see, with its metadata.

    Attributes
    ----------
    id : str
        1-64 letters, digits, ``_``, ``.`` or ``-``; unique within a bank.
    statement : str
        The problem in Markdown with LaTeX, 1 to 4,000 characters.
    topic : str
        One of ``TOPICS``.
    difficulty : int
        The author's difficulty, 1 (easy) to 5.
    source : str
        One of ``SOURCES``: ``"original"``, ``"generated"`` or ``"imported"``.
    answer : str or None
        An optional answer (at most 1,000 characters), never shown to participants.
    """

    id: str
    statement: str
    topic: str
    difficulty: int
    source: str = "original"
    answer: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _text(row: dict, field: str, where: str) -> str:
    value = row.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{where}.{field}: a {type(value).__name__} is not allowed; allowed text")
    if "\x00" in value:
        raise ValueError(f"{where}.{field}: contains a NUL character; allowed text without NUL")
    return value


def _problem(row: dict, where: str, default_source: str) -> Problem:
    if None in row:
        raise ValueError(f"{where}: more fields than the header has columns; allowed one value per column "
                         f"({', '.join(FIELDS)})")
    unknown = {str(k) for k in row} - set(FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}; allowed {', '.join(FIELDS)}")
    for field in ("id", "statement", "topic", "source", "answer"):
        _text(row, field, where)
    pid = str(row.get("id") or "").strip()
    if not ID_PATTERN.match(pid):
        raise ValueError(f"{where}.id: {pid!r} is not a valid id; allowed 1-64 letters, digits, '_', '.', '-'")
    where = f"{where} ({pid})"
    statement = str(row.get("statement") or "").strip()
    if not 1 <= len(statement) <= MAX_STATEMENT:
        raise ValueError(f"{where}.statement: {len(statement)} characters; allowed 1..{MAX_STATEMENT}")
    topic = str(row.get("topic") or "").strip().lower()
    if topic not in TOPICS:
        raise ValueError(f"{where}.topic: {topic!r} is not allowed; allowed {', '.join(TOPICS)}")
    raw = row.get("difficulty")
    if isinstance(raw, bool) or not isinstance(raw, (int, str)) or not re.fullmatch(r"[1-5]", str(raw).strip()):
        raise ValueError(f"{where}.difficulty: {raw!r} is not allowed; allowed integers 1..5")
    difficulty = int(str(raw).strip())
    source = str(row.get("source") or default_source).strip().lower()
    if source not in SOURCES:
        raise ValueError(f"{where}.source: {source!r} is not allowed; allowed {', '.join(SOURCES)}")
    answer = row.get("answer")
    answer = None if answer is None or str(answer).strip() == "" else str(answer).strip()
    if answer is not None and len(answer) > MAX_ANSWER:
        raise ValueError(f"{where}.answer: {len(answer)} characters; allowed at most {MAX_ANSWER}")
    return Problem(pid, statement, topic, difficulty, source, answer)


def validate_problem(problem: Problem, where: str = "problem") -> Problem:
    """``problem`` checked field by field like an imported row (ValueError naming the field otherwise)."""
    row = problem.to_dict()
    if isinstance(row["difficulty"], int) and not isinstance(row["difficulty"], bool):
        row["difficulty"] = str(row["difficulty"])
    return _problem(row, where, problem.source if isinstance(problem.source, str) else "imported")


def parse_problems(text: str, fmt: str, default_source: str = "imported") -> list[Problem]:
    r"""Problems from CSV or JSON text, every row checked; the first bad row and field are named.

    CSV: a header row with the columns ``id, statement, topic, difficulty`` (required) and
    ``source, answer`` (optional), an optional UTF-8 byte-order mark. JSON: a list of objects or
    ``{"problems": [...]}``, every text field a JSON string, the difficulty an integer or a one-digit
    string. 1 to 5,000 problems with unique ids; nothing half-valid is returned.

    Parameters
    ----------
    text : str
        The file's contents.
    fmt : {"csv", "json"}
        The format of ``text``.
    default_source : str, default "imported"
        The source given to rows that name none; one of ``SOURCES``.

    Returns
    -------
    list of Problem
        In the order of the rows.

    Raises
    ------
    ValueError
        ``"row 3 (p7).topic: 'topology' is not allowed; allowed algebra, ..."`` and the like; ``fmt``
        or ``file`` named for a wrong format or an unreadable file.

    References
    ----------
    .. [1] "Interestingness of math problems" (NeurIPS 2026, ``docs/PAPERS.md``): people and LLMs
       rate how interesting mathematical problems are. The file formats are ours.

    Examples
    --------
    >>> text = "id,statement,topic,difficulty\np1,Is $2^{61}-1$ prime?,number theory,2\n"
    >>> [(p.id, p.topic, p.difficulty, p.source) for p in parse_problems(text, "csv")]
    [('p1', 'number theory', 2, 'imported')]
    >>> parse_problems(text.replace("number theory", "topology"), "csv")
    Traceback (most recent call last):
    ...
    ValueError: row 1 (p1).topic: 'topology' is not allowed; allowed algebra, ...
    """
    if fmt not in ("csv", "json"):
        raise ValueError(f"fmt: {fmt!r} is not allowed; allowed csv, json")
    if not isinstance(text, str):
        raise ValueError(f"file: a {type(text).__name__} is not allowed; allowed UTF-8 text")
    text = text.removeprefix("\ufeff")
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"file: not valid JSON ({error.msg} at line {error.lineno}); allowed a JSON list of "
                             "problems or {\"problems\": [...]}") from None
        rows = data.get("problems") if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("file: no list of problem objects found; allowed a JSON list or {\"problems\": [...]}")
    else:
        reader = csv.DictReader(io.StringIO(text))
        missing = {"id", "statement", "topic", "difficulty"} - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"file: CSV header lacks {', '.join(sorted(missing))}; allowed columns {', '.join(FIELDS)}")
        rows = list(reader)
    if not 1 <= len(rows) <= MAX_PROBLEMS:
        raise ValueError(f"file: {len(rows)} problems; allowed 1..{MAX_PROBLEMS}")
    problems = [_problem(row, f"row {i + 1}", default_source) for i, row in enumerate(rows)]
    seen = set()
    for i, problem in enumerate(problems):
        if problem.id in seen:
            raise ValueError(f"row {i + 1}.id: {problem.id!r} appears twice; allowed unique ids")
        seen.add(problem.id)
    return problems


def import_problems(path: str | Path, default_source: str = "imported") -> list[Problem]:
    """Problems from a .csv or .json file, checked row by row (see :func:`parse_problems`).

    Parameters
    ----------
    path : str or pathlib.Path
        A file whose suffix (``.csv`` or ``.json``, any case) gives its format; read as UTF-8.
    default_source : str, default "imported"
        The source given to rows that name none; one of ``SOURCES``.

    Returns
    -------
    list of Problem
        In the order of the file's rows.

    Raises
    ------
    ValueError
        ``"path: ...; allowed .csv, .json"`` for another suffix, else as :func:`parse_problems`.

    References
    ----------
    .. [1] "Interestingness of math problems" (NeurIPS 2026, ``docs/PAPERS.md``): people and LLMs
       rate how interesting mathematical problems are. The file formats are ours.

    Examples
    --------
    >>> from core.interestingness.problems import BANK
    >>> problems = import_problems(BANK, default_source="original")
    >>> len(problems), problems[0].source
    (66, 'original')
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("csv", "json"):
        raise ValueError(f"path: {path.name} has suffix {path.suffix!r}; allowed .csv, .json")
    return parse_problems(path.read_text(encoding="utf-8"), fmt, default_source)


def load_problem_bank() -> list[Problem]:
    """The shipped bank of original problems (``assets/interestingness/problems.json``), validated.

    Returns
    -------
    list of Problem
        66 problems written for Paperlab, every one with ``source == "original"``, over all ``TOPICS``.

    References
    ----------
    .. [1] "Interestingness of math problems" (NeurIPS 2026, ``docs/PAPERS.md``): people and LLMs
       rate how interesting mathematical problems are. The file formats are ours.

    Examples
    --------
    >>> bank = load_problem_bank()
    >>> len(bank), sorted({p.topic for p in bank}) == sorted(TOPICS), {p.source for p in bank}
    (66, True, {'original'})
    """
    return import_problems(BANK, default_source="original")
