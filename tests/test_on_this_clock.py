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
        cmd = on_this_clock(_CHILD)
        # the test's clock once the command is built: a child whose clock was fixed while
        # building it reads earlier than this; one that reads the test's clock when it
        # starts reads later, by its whole start and imports (far more than any preemption
        # between the test's reads and the child's, which a tighter bound would trip on)
        built = dt.datetime.now(dt.UTC).timestamp()
        child = subprocess.Popen([sys.executable, "-c", cmd], text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            read, _ = child.communicate("go\n", timeout=HANG_GUARD)
        finally:
            child.kill()
            child.wait(timeout=HANG_GUARD)
    assert float(read) >= built, (float(read), built)
