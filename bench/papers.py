"""docs/PAPERS.md's claim tables, written from the ledger so the docs never state a stale verdict.

    python bench/papers.py            # rewrite every system's table from bench/results/<key>.json

Each paper's section in docs/PAPERS.md is written by hand except the block between
``<!-- claims:<key> -->`` and ``<!-- /claims:<key> -->``: the system's claims, each with the status
and figure its benchmark derived. ``bench/report.write_results`` rewrites a system's block whenever it
writes its verdicts (a bench run, ``python bench/ledger.py``), and ``tests/test_docs.py`` fails when
a block is not what the stored results give.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.common.claims import Claim, Verdict, load_ledger  # noqa: E402

PAPERS = ROOT / "docs" / "PAPERS.md"
HEADING = re.compile(r"^## (?P<title>.+) \(`(?P<key>[a-z0-9_]+)`\)$", re.MULTILINE)


def markdown_cell(text: str) -> str:
    """``text`` as one cell of a markdown table: pipes escaped, on one line, "–" when empty."""
    return text.replace("|", "\\|").replace("\n", " ").strip() or "–"


def claims_block(key: str, ledger: Sequence[tuple[Claim, Verdict | None]]) -> str:
    """The markdown between a system's markers: one row per claim (statement, status, figure), then
    the commands that measured them and the bench's own table of how each status follows."""
    lines = ["| claim | verdict | figure |", "|---|---|---|"]
    commands, dates = [], []
    for claim, verdict in ledger:
        status = f"**{verdict.status}**" if verdict else "**no verdict**"
        figure = verdict.figure if verdict else ""
        lines.append(f"| {markdown_cell(claim.statement)} | {status} | {markdown_cell(figure)} |")
        if verdict and verdict.command and verdict.command not in commands:
            commands.append(verdict.command)
        if verdict and verdict.measured_at not in dates:
            dates.append(verdict.measured_at)
    table = f"[bench/results/{key}.md](../bench/results/{key}.md)"
    if commands:
        lines += ["", f"Measured by {', '.join(f'`{c}`' for c in commands)} (numbers of {', '.join(sorted(dates))}); "
                  f"how each verdict follows from them: {table}."]
    else:
        lines += ["", f"Nothing measures these claims yet; why, claim by claim: {table}."]
    return "\n".join(lines)


def _markers(key: str) -> re.Pattern:
    return re.compile(rf"(<!-- claims:{key} -->\n)(.*?)(<!-- /claims:{key} -->)", re.DOTALL)


def block_in(text: str, key: str) -> str | None:
    """The block currently between ``key``'s markers in ``text`` (None without markers)."""
    found = _markers(key).search(text)
    return found.group(2).rstrip("\n") if found else None


def with_block(text: str, key: str, block: str) -> str:
    """``text`` with ``key``'s block replaced; ValueError naming the key when its markers are missing."""
    if block_in(text, key) is None:
        raise ValueError(f"key: docs/PAPERS.md has no <!-- claims:{key} --> markers; allowed keys "
                         f"{', '.join(k for _, k in sections(text))}")
    return _markers(key).sub(lambda m: m.group(1) + block + "\n" + m.group(3), text, count=1)


def sections(text: str) -> list[tuple[str, str]]:
    """The papers' ``(title, key)`` in the order of their ``## <title> (`<key>`)`` headings."""
    return [(m["title"], m["key"]) for m in HEADING.finditer(text)]


def stored_block(key: str) -> str:
    """The block that ``key``'s stored results (``bench/results/<key>.json``) give."""
    return claims_block(key, load_ledger(key))


def write(keys: Sequence[str] | None = None) -> list[str]:
    """Rewrite the blocks of ``keys`` (every section's key by default) from the stored results; returns
    the keys whose block changed."""
    text = PAPERS.read_text()
    changed = []
    for key in keys if keys is not None else [k for _, k in sections(text)]:
        block = stored_block(key)
        if block_in(text, key) != block:
            text = with_block(text, key, block)
            changed.append(key)
    if changed:
        PAPERS.write_text(text)
    return changed


if __name__ == "__main__":
    print("rewrote:", ", ".join(write()) or "nothing (every table already matches the ledger)")
