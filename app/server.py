"""Start a real ``streamlit run`` in a subprocess and wait until it answers healthy.

Used by the end-to-end tests and by ``bench/app.py``. The app is started as ``make run`` and the
Docker image start it, through :mod:`app.serve` (Streamlit plus the warm-up from the first second);
any other script (a benchmark's anchor page) through plain ``streamlit run``.
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


def start_server(port: int, log_path: Path, script: str = "app/main.py", env: dict | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    launch = ["-m", "app.serve"] if script == "app/main.py" else ["-m", "streamlit", "run", script]
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, *launch, "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


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
