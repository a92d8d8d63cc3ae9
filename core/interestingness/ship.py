"""The interestingness asset builder.

    python -m core.interestingness.ship          # writes assets/interestingness/demo_study.json (seconds)
    python -m core.interestingness.ship demo     # the same, by name

``demo_study.json`` is the analysis page's SIMULATED demo study (see ``demo.py``). The problem bank,
``problems.json``, is written by hand and only validated here (``load_problem_bank``).
"""

from __future__ import annotations

import json

from core.common.seeding import check_seed
from core.interestingness.demo import DEMO, build


def ship_demo(seed: int = 0) -> dict:
    """Build the simulated demo study with ``seed`` and write ``assets/interestingness/demo_study.json``.

    Parameters
    ----------
    seed : int
        Seeds the simulated participants and the simulated LLM (0 to 2**32 - 1; shipped: 0).

    Returns
    -------
    dict
        ``{"path": str, "kilobytes": int, "rows": int}`` of the file written.
    """
    doc = build(check_seed(seed))
    DEMO.write_text(json.dumps(doc, separators=(",", ":")))
    return {"path": str(DEMO), "kilobytes": DEMO.stat().st_size // 1024, "rows": len(doc["rows"])}


def main(argv: list) -> None:
    """``ship [demo]``: the command line of the module docstring."""
    if argv not in ([], ["demo"]):
        raise SystemExit(f"usage: python -m core.interestingness.ship [demo]; got {' '.join(argv)}")
    print(ship_demo())


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
