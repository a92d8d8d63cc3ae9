"""Suite-wide checks: the tests leave the checkout as they found it.

A run that writes into the repository (screenshots over the tracked ``docs/*.png``, a bench result,
a stray file) fails, naming what changed, so ``make test`` on a clean clone leaves ``git status``
clean. In a checkout that was already dirty the change is only reported (someone may be editing). Only the controlling process checks (under pytest-xdist the workers share its checkout).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def checkout_state(root: Path = ROOT) -> dict[str, str] | None:
    """``{path: status and content hash}`` for every path git reports as changed; None outside git."""
    try:
        out = subprocess.run(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], cwd=root,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    state = {}
    for entry in filter(None, out.stdout.split("\0")):
        status, path = entry[:2], entry[3:]
        file = root / path
        digest = hashlib.sha1(file.read_bytes()).hexdigest() if file.is_file() else "-"
        state[path] = f"{status} {digest}"
    return state


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Paths whose git status or content differ between two :func:`checkout_state` readings."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def pytest_configure(config):
    """Under pytest-xdist, each worker's BLAS and torch get their share of the cores, not all of them."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        share = max(1, (os.cpu_count() or 1) // int(workerinput.get("workercount", 1)))
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(name, str(share))


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        session.config.stash[STATE] = checkout_state()


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        return
    before = session.config.stash.get(STATE, None)
    after = checkout_state()
    if before is None or after is None:
        return
    changed = changed_paths(before, after)
    if changed:
        # A checkout that was clean at the start (CI, a fresh clone) fails; in a working tree that
        # someone is editing meanwhile, the change may be theirs, so it is only reported.
        fail = not before
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"{'FAILED: ' if fail else 'note: '}the checkout changed during the tests "
                                f"({len(changed)} paths): " + ", ".join(changed[:20]), red=fail, yellow=not fail)
        if fail:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


STATE = pytest.StashKey[dict]()
