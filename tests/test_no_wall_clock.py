"""No test asserts a wall-clock limit: time belongs in bench/, tests wait on events and count calls.

A test may measure time only to wait (a deadline in a polling loop); an ``assert`` whose condition
reads a clock fails on a loaded machine and proves nothing on a quiet one.
"""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"perf_counter", "monotonic", "time", "process_time", "perf_counter_ns", "monotonic_ns", "time_ns"}


def _reads_clock(node, tainted: set) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CLOCKS \
                and getattr(n.func.value, "id", "") == "time":
            return True
        if isinstance(n, ast.Name) and n.id in tainted:
            return True
    return False


def clock_asserts(source: str) -> list[int]:
    """Lines of asserts that read a clock, directly or through a name computed from one."""
    tree = ast.parse(source)
    tainted: set = set()
    assigns = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))]
    changed = True
    while changed:                         # names computed from clocks, and from those names
        changed = False
        for node in assigns:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
            if node.value is not None and _reads_clock(node.value, tainted) and not names <= tainted:
                tainted |= names
                changed = True
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert) and _reads_clock(n.test, tainted)]


def test_no_assert_reads_a_clock():
    offenders = {str(p.relative_to(TESTS)): clock_asserts(p.read_text()) for p in TESTS.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def program(*lines: str) -> str:
    """A module's source, one argument per line: the scan's inputs are written one line of theirs to a line
    of this file, so that no line here reads as a timed assert."""
    return "\n".join(lines) + "\n"


ELAPSED = "time.perf_counter() - t0 < 1"
DIRECT = program(                  # a clock in the assert itself: line 3
    "import time",
    "t0 = time.perf_counter()",
    "assert " + ELAPSED,
)
THROUGH_A_NAME = program(          # names computed from a clock, then asserted on: line 6
    "import time",
    "t0 = time.time()",
    "wait()",
    "spent = time.time() - t0",
    "short = spent < 2",
    "assert short",
)
DEADLINE = program(                # a clock only as a polling deadline: nothing
    "import time",
    "end = time.monotonic() + 5",
    "while time.monotonic() < end:",
    "    pass",
)


def test_the_scan_sees_a_clock_in_an_assert():
    assert clock_asserts(DIRECT) == [3]
    assert clock_asserts(THROUGH_A_NAME) == [6]
    assert clock_asserts(DEADLINE) == []
