"""Suite hygiene: no test measures the wall clock (speed belongs to `make bench`).

A wall-clock bound (``assert elapsed < 5``) fails on a loaded CI machine and
proves nothing on an idle one. Tests wait on events instead, with generous
hang guards; the one helper that polls with a deadline is tests/waiting.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: The only module allowed to read the clock: its deadline is a hang guard.
ALLOWED = {"waiting.py"}
CLOCKS = {"monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time", "time_ns",
          "process_time", "process_time_ns", "thread_time", "thread_time_ns"}


def clock_reads(source: str) -> list[int]:
    """Line numbers where ``source`` reads a clock of the time module (code, not strings)."""
    tree = ast.parse(source)
    from_time = {alias.asname or alias.name for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module == "time"
                 for alias in node.names if alias.name in CLOCKS}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in CLOCKS
                and isinstance(func.value, ast.Name) and func.value.id == "time") or \
                (isinstance(func, ast.Name) and func.id in from_time):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_clock_reads_and_ignores_strings():
    source = ("import time\nfrom time import perf_counter as pc\nstarted = time.monotonic()\n"
              "assert pc() - started < 5\nSCRIPT = 'time.monotonic()'\ntime.sleep(0)\n")
    assert clock_reads(source) == [3, 4]


def test_no_test_reads_the_wall_clock():
    found = {path.name: lines for path in sorted(TESTS.glob("*.py"))
             if path.name not in ALLOWED
             and (lines := clock_reads(path.read_text(encoding="utf-8")))}
    assert found == {}, f"wall-clock reads in tests (wait on an event instead): {found}"
