"""How often kaleido's tab is not ready when a picture is rendered, on a loaded machine.

``app.ship_pictures.render`` asks kaleido again when its tab had not yet run its own scripts
(``NOT_READY``). This bench renders one small figure ``--renders`` times while ``--busy`` processes
spin on the CPU, first with a single try per render (no retry) and then through
``render``, counting kaleido's calls and the renders that failed. Prints a JSON line; writes nothing.

    python bench/kaleido_race.py                      # 15 renders, 4 busy processes
    python bench/kaleido_race.py --renders 30 --busy 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def spin() -> None:
    while True:
        pass


def count(renders: int, spec: Path, tries: int) -> dict:
    import plotly.io as pio

    from app import ship_pictures

    calls, to_image, default = [0], pio.to_image, ship_pictures.RENDER_TRIES

    def counted(*args, **kwargs):
        calls[0] += 1
        return to_image(*args, **kwargs)

    pio.to_image, ship_pictures.RENDER_TRIES = counted, tries
    failed = 0
    try:
        for _ in range(renders):
            try:
                ship_pictures.render(spec, 321, 123)
            except Exception as exc:
                if ship_pictures.NOT_READY not in str(exc):
                    raise
                failed += 1
    finally:
        pio.to_image, ship_pictures.RENDER_TRIES = to_image, default
    return {"tries_allowed": tries, "renders": renders, "kaleido_calls": calls[0], "failed": failed}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=15)
    parser.add_argument("--busy", type=int, default=4, help="processes spinning on the CPU meanwhile")
    args = parser.parse_args(argv)
    if args.renders < 1 or args.busy < 0:
        raise SystemExit(f"renders: {args.renders}, busy: {args.busy}; allowed renders >= 1, busy >= 0")
    import plotly.graph_objects as go

    from app import ship_pictures

    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "figure.json"
        spec.write_text(go.Figure(go.Bar(x=["a", "b"], y=[2, 1])).to_json(), encoding="utf-8")
        for p in busy:
            p.start()
        try:
            rows = [count(args.renders, spec, 1), count(args.renders, spec, ship_pictures.RENDER_TRIES)]
        finally:
            for p in busy:
                p.terminate()
    print(json.dumps({"busy_processes": args.busy, "runs": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
