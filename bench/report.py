"""Writing a benchmark's results: bench/results/<key>.json and .md, and its exit status."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_results(key: str, result: dict, markdown: str) -> int:
    """Write both files, print the table and the checks; 0 if every check holds, else 1."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{key}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{key}.md").write_text(markdown)
    print(markdown)
    print(json.dumps(result.get("checks", {}), indent=2))
    return 0 if all(result.get("checks", {}).values()) else 1
