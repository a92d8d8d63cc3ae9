"""A page's first view reads shipped arrays: it imports neither torch, transformers nor PennyLane.

A shared link opened on a fresh server pays for every import the page makes before its first figure;
those three cost seconds each on two cores, so they wait until the visitor trains or probes. Each
page is opened in a fresh Python process with the shell's background warm-up switched off, so what
is loaded afterwards is what the page itself imported.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.catalog import SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "pennylane")
PROBE = textwrap.dedent("""
    import json, sys, threading
    sys.path.insert(0, sys.argv[1])
    import app.ui.warmup as warmup
    warmup.warm_up = lambda modules: threading.Thread()     # no background imports: only the page's own
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(sys.argv[1] + "/app/main.py", default_timeout=300).run()
    at.switch_page(f"../pages/{sys.argv[2]}.py").run()
    print(json.dumps({"exceptions": [e.message for e in at.exception], "charts": len(at.get("plotly_chart")),
                      "loaded": sorted(m for m in sys.modules if m.split(".")[0] in sys.argv[3].split(","))}))
""")


def first_view(key: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, str(ROOT), key, ",".join(HEAVY)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("key", [s.key for s in SYSTEMS if s.built and s.key != "interestingness"])
def test_a_first_view_imports_no_heavy_library(key):
    view = first_view(key)
    assert view["exceptions"] == []
    assert view["charts"] >= 1, "the first view shows its main figure"
    assert sorted({m.split(".")[0] for m in view["loaded"]}) == []
