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
