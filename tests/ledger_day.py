"""One ledger day for a test and the Python processes it starts, whenever the suite runs.

The request ledger counts per UTC day: a test that ran across the real midnight UTC
would split its count over two days (a cap reached twice, ``requests_today`` back at 0).
Such a test runs under :func:`noon` (time-machine, ticking: the clock goes on from a fixed
noon; monotonic clocks are untouched, so timed waits and hang guards work as ever), and
each Python child it starts runs :func:`on_this_clock` ``(script)``: the script after a
jump to the test's current simulated time, ticking from there. (The ``faketime`` tool
is not installed on the machines that run the suite; time-machine moves a Python child
as well.)
"""

from __future__ import annotations

import datetime as dt

import time_machine

#: Noon UTC: a test starting here has 12 hours before its ledger day ends.
NOON = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)


def noon() -> time_machine.travel:
    """The clock of this process moved to :data:`NOON`, ticking (a context manager)."""
    return time_machine.travel(NOON, tick=True)


def on_this_clock(script: str) -> str:
    """``script`` (for ``python -c``) run on this process's clock, ticking: at each moment the
    child reads what this process reads. The child's clock is set from the real clock and this
    one's lead over it (the one real-clock read here: no time is measured), and read at once,
    as time-machine ticks from the first read: not from a moment this process read, which the
    child would see late by its start and its imports. The script may move the child's clock
    further through ``_moved`` (its time-machine traveller)."""
    hatch = time_machine.escape_hatch
    lead = dt.datetime.now(dt.UTC).timestamp() - hatch.time.time() if hatch.is_travelling() else 0
    return ("import time as _time, time_machine as _tm\n"
            f"_moved = _tm.travel(_time.time() + {lead!r}, tick=True).start()\n"
            "_time.time()\n" + script)
