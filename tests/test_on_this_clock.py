"""A Python child started with ``ledger_day.on_this_clock`` reads the clock of the test that
started it, from its first line to its last: not the moment the test built its command,
which the child would read late by its start and its imports (a child's copies dated before
another's, a list paged "before" a peer claimed it).
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

from ledger_day import noon, on_this_clock
from waiting import HANG_GUARD

# imports that take a while, then the child's clock, read once the test says so
_CHILD = ("import sys, datetime\nimport icoframes\nprint('ready', flush=True)\n"
          "sys.stdin.readline()\nprint(datetime.datetime.now(datetime.UTC).timestamp())\n")


def test_a_child_reads_the_clock_the_test_reads_not_one_behind_by_its_start():
    with noon():
        child = subprocess.Popen([sys.executable, "-c", on_this_clock(_CHILD)], text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            before = dt.datetime.now(dt.UTC).timestamp()  # the test's clock, then the child's
            read, _ = child.communicate("go\n", timeout=HANG_GUARD)
        finally:
            child.kill()
            child.wait(timeout=HANG_GUARD)
    # (10 us: the readings are rounded to the microsecond; a child behind by its start read
    # the moment the test built the command, its start and imports before "ready" earlier)
    assert float(read) >= before - 1e-5, (float(read), before)
