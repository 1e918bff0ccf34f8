"""Waiting on an event that has no callback: poll it, with a hang guard.

The one place in tests/ that reads the clock (``test_hygiene`` checks it): the
deadline only stops a test that would otherwise hang, its result is whether the
event happened, never how long it took.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# seconds: generous for a loaded 2-core CI machine, where a subprocess importing pandas
# at a load average of 30 takes tens of seconds before its first request
HANG_GUARD = 300.0


def wait_until(condition: Callable[[], object], *, timeout: float = HANG_GUARD,
               interval: float = 0.02) -> bool:
    """True as soon as ``condition()`` is true; False if it is still false after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


def run_together(commands: list[list[str]], cwd: object) -> list[tuple[int, str, str]]:
    """Start each command, wait until each prints ``ready``, then send them ``go`` at once:
    their (exit code, stdout, stderr). Every child is reaped whatever fails, since a zombie
    left behind is reaped by whoever waits next (mutmut's runner took one for its own)."""
    import subprocess

    children = [subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for command in commands]
    try:
        for child in children:
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline().strip() == "ready", child.communicate()[1]
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        done = [child.communicate(timeout=HANG_GUARD) for child in children]
        return [(child.returncode, out, err) for child, (out, err)
                in zip(children, done, strict=True)]
    finally:
        for child in children:
            child.kill()
            child.communicate()
