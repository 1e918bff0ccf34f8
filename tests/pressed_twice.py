"""A command stuck on a service that never answers, stopped the way a user stops it.

Its first signal gives the requests in flight :data:`~icoframes.fetch.inflight.FINISHING`
seconds (they are paid for); a second Ctrl-C cuts them at once. A test that stops a stuck
command presses Ctrl-C again once the command says it is finishing, as a user who does not
want to wait would: the command's second-signal path, and no test waits out the grace.
"""

from __future__ import annotations

import signal
import subprocess


def press_ctrl_c_again(proc: subprocess.Popen[str]) -> str:
    """Read ``proc``'s stderr until it says it is finishing the requests in flight, then send
    it a Ctrl-C (SIGINT); what was read (the rest is still to read). Reads to the end when
    the command never says it (it ended first)."""
    assert proc.stderr is not None
    head = ""
    for line in proc.stderr:
        head += line
        if "finishing" in line:
            proc.send_signal(signal.SIGINT)
            break
    return head
