"""bench/app.py keeps each launch command's pages side by side: measuring some pages or one command keeps the
others' figures, and every ratio is to the anchor of the run that measured the page. No server is started here:
``measure`` is replaced by a fake whose figures depend on the command, the script and the run."""

import json

import pytest

from app.server import LAUNCHES
from bench import app as bench_app
from bench import report


@pytest.fixture()
def fake(monkeypatch, tmp_path):
    runs = []

    def measure(paths, script, cold_repeats, warm_repeats, launch="streamlit run"):
        runs.append((script.endswith("main.py"), launch, list(paths)))
        scale = 1.0 if not script.endswith("main.py") else (2.0 if launch == "streamlit run" else 3.0)
        scale *= len(runs)          # each run's anchor differs from the last one's
        return {p or "home": {"cold_s": scale, "warm_s": scale / 2, "new_visitor_s": scale, "start_to_healthy_s": 1.0,
                              "rss_after_first_view_mb": 100.0, "rss_after_warm_up_mb": 500.0, "warm_up_wait_s": 2.0}
                for p in paths}

    monkeypatch.setattr(bench_app, "measure", measure)
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    return runs


def test_one_command_then_the_other_keeps_both_and_ratios_follow_their_own_anchor(fake):
    assert bench_app.main(["--launch", "streamlit run", "--pages", "grace"]) == 1      # not every page measured
    assert bench_app.main(["--launch", "make run", "--pages", "grace", ""]) == 1
    result = json.loads((report.RESULTS / "app.json").read_text())
    first, second = result["launches"]["streamlit run"]["pages"], result["launches"]["make run"]["pages"]
    assert set(first) == {"grace"} and set(second) == {"grace", "home"}
    # run 1 = anchor (scale 1), run 2 = grace by streamlit run (2 x 2); runs 3, 4 = anchor 3, pages by make run 3 x 4
    assert first["grace"]["cold_s"] == 4.0 and first["grace"]["cold_ratio_to_anchor"] == 4.0
    assert second["grace"]["cold_s"] == 12.0 and second["grace"]["cold_ratio_to_anchor"] == 4.0
    assert second["home"]["anchor"]["cold_s"] == 3.0
    assert not result["checks"]["every_page_measured_with_every_launch_command"]
    markdown = (report.RESULTS / "app.md").read_text()
    row = next(line for line in markdown.splitlines() if line.startswith("| grace |"))
    assert row == "| grace | 4.00 | 4.00 | 2.00 | 4.00 | 12.00 | 4.00 | 6.00 | 4.00 |"
    assert "| claims | – | – | – | – | – | – | – | – |" in markdown


def test_every_page_with_every_command_under_budget_passes(fake, monkeypatch):
    monkeypatch.setattr(bench_app, "pages", lambda: ["", "grace"])
    monkeypatch.setattr(bench_app, "BUDGET", {"cold_s": 1000.0, "warm_s": 1000.0})
    assert bench_app.main([]) == 0
    # each command's run: the anchor (a bare page, always by streamlit run), then the app by that command
    assert [(main, launch) for main, launch, _ in fake] == [(False, "streamlit run"), (True, "streamlit run"),
                                                            (False, "streamlit run"), (True, "make run")]
    assert list(json.loads((report.RESULTS / "app.json").read_text())["launches"]) == list(LAUNCHES)


def test_a_page_over_budget_fails_the_check(fake, monkeypatch):
    monkeypatch.setattr(bench_app, "pages", lambda: ["grace"])
    assert bench_app.main([]) == 1      # cold 2 x 2 = 4 s > 3 s
    checks = json.loads((report.RESULTS / "app.json").read_text())["checks"]
    assert checks == {"every_cold_first_view_under_3s": False, "every_warm_first_view_under_2s": False,
                      "every_page_measured_with_every_launch_command": True}


@pytest.mark.parametrize("installed", [True, False])
def test_a_terminated_bench_leaves_through_its_finally_blocks(tmp_path, installed):
    """guard stops a bench with SIGTERM; the servers it started (sessions of their own) are stopped only if the bench
    leaves through its ``finally`` blocks. Control: with Python's default handler, it dies on the spot."""
    import subprocess
    import sys

    from app.server import ROOT

    marker = tmp_path / "stopped"
    code = ("import os, signal, sys\nsys.path.insert(0, sys.argv[1])\nfrom bench.browser import stop_on_sigterm\n"
            + ("stop_on_sigterm()\n" if installed else "")
            + f"try:\n    os.kill(os.getpid(), signal.SIGTERM)\n    signal.pause()\nfinally:\n"
            f"    open({str(marker)!r}, 'w').write('stopped')\n")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT)], timeout=60)
    assert done.returncode == (143 if installed else -15)
    assert marker.exists() is installed
