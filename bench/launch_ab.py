"""Cold first views of an earlier revision against this checkout, each started its own way, interleaved.

A start-up change is judged on the same machine at the same time: for each page and each repeat, a fresh
server of the earlier revision (a git worktree of ``--old``, started by ``--old-command``) and a fresh
server of this checkout (``streamlit run app/main.py``) are opened in turn, each as the first URL in a
fresh headless Chromium, and the medians are printed. Nothing is written to bench/results.

    python bench/launch_ab.py --old 1cb8845 --old-command "python -m app.serve" --pages looped_lm grace --repeats 4
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.server import free_port, stop_server, wait_healthy  # noqa: E402
from bench.app import first_view  # noqa: E402
from bench.browser import browser, stop_on_sigterm  # noqa: E402


def cold_view(root: Path, argv: list[str], path: str) -> float:
    """``path`` opened as the first URL of a fresh server started by ``argv`` in ``root``."""
    port = free_port()
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        proc = subprocess.Popen([*argv, "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=root,
                                env={**os.environ, "PYTHONPATH": str(root)}, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, proc, timeout=120)
            with browser() as new_page:
                return first_view(new_page, url, path)
        finally:
            stop_server(proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the earlier revision (a commit, tag or branch)")
    parser.add_argument("--old-command", default="streamlit run app/main.py",
                        help="how that revision starts the app, run by this interpreter (default: %(default)s)")
    parser.add_argument("--pages", nargs="+", required=True, help="page paths ('' for home)")
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args(argv)
    old_argv = shlex.split(args.old_command)
    if old_argv[0] == "python":
        old_argv = [sys.executable, *old_argv[1:]]
    elif old_argv[0] == "streamlit":
        old_argv = [sys.executable, "-m", *old_argv]
    stop_on_sigterm()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(tree), args.old], cwd=ROOT, check=True)
        try:
            runs = {f"{args.old} `{args.old_command}`": (tree, old_argv),
                    "this checkout `streamlit run app/main.py`": (ROOT, [sys.executable, "-m", "streamlit", "run",
                                                                          "app/main.py"])}
            samples = {(name, p): [] for name in runs for p in args.pages}
            for _ in range(args.repeats):
                for path in args.pages:
                    for name, (root, command) in runs.items():
                        samples[name, path].append(cold_view(root, command, path))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    print(f"| page | {' | '.join(runs)} |\n|---|" + "---|" * len(runs))
    for path in args.pages:
        cells = [f"{statistics.median(samples[name, path]):.2f} s (" + ", ".join(
            f"{x:.2f}" for x in samples[name, path]) + ")" for name in runs]
        print(f"| {path or 'home'} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
