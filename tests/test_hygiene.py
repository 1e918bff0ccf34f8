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


#: Calls that wait on a process, a thread or an event: their timeout is a hang guard.
WAITS = {"run", "communicate", "wait", "wait_for", "result", "join", "wait_until", "check_output"}


def literal_hang_guards(source: str) -> list[int]:
    """Line numbers where a wait of :data:`WAITS` is given a number as its timeout.

    A hang guard is tests/waiting.py's ``HANG_GUARD``, sized for a loaded 2-core CI
    machine: a literal of its own (``timeout=120``, ``timeout=10``) is a wall-clock
    bound that a load average of 30 can exceed, failing a test that was not hung.
    """
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in WAITS and any(
                k.arg == "timeout" and isinstance(k.value, ast.Constant)
                and isinstance(k.value.value, int | float) and not isinstance(k.value.value, bool)
                for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_literal_hang_guards():
    source = ("child = subprocess.run(cmd, timeout=120)\n"
              "out = proc.communicate(timeout=HANG_GUARD)\n"
              "wait_until(done, timeout=10, interval=0.5)\nconfigure(timeout=4)\n"
              "pool.submit(f).result(timeout=300)\n")
    assert literal_hang_guards(source) == [1, 3, 5]


def test_every_hang_guard_is_the_shared_one():
    found = {path.name: lines for path in sorted(TESTS.glob("*.py"))
             if path.name not in ALLOWED
             and (lines := literal_hang_guards(path.read_text(encoding="utf-8")))}
    assert found == {}, f"hang guards with a number of their own (use waiting.HANG_GUARD): {found}"
