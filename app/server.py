"""Start a real ``streamlit run`` in a subprocess and wait until it answers healthy.

Used by the end-to-end tests, ``deploy/cluster.py`` and the benches. The app is started as users
start it, ``streamlit run app/main.py``; a benchmark's anchor page the same way.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LAUNCHES = ("streamlit run", "make run")   # the two commands the README gives for starting the app


def start_server(port: int, log_path: Path, script: str = "app/main.py", env: dict | None = None,
                 launch: str = "streamlit run") -> subprocess.Popen:
    """``streamlit run <script>`` on ``127.0.0.1:<port>`` (or, with ``launch="make run"``, ``make run PORT=<port>``,
    which runs app/main.py), its output to ``log_path``; in a session of its own, so that :func:`stop_server` stops
    all of it."""
    if launch not in LAUNCHES:
        raise ValueError(f"launch: {launch!r} is not a launch command; allowed {', '.join(LAUNCHES)}")
    if launch == "make run" and script != "app/main.py":
        raise ValueError(f"script: 'make run' serves app/main.py only, not {script!r}")
    env = {**os.environ, **(env or {})}
    argv = (["make", "--no-print-directory", "run", f"PORT={port}"] if launch == "make run"
            else [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                  "--server.address", "127.0.0.1", "--server.headless", "true"])
    with open(log_path, "wb") as log:
        return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Poll ``/_stcore/health`` until it says ok; return the seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                if response.read() == b"ok":
                    return time.monotonic() - start
        except OSError:
            pass
        time.sleep(0.02)
    raise TimeoutError(f"{url}/_stcore/health did not answer ok within {timeout} s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
