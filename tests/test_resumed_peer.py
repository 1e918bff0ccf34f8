"""A load stopped (SIGSTOP: Ctrl-Z, a debugger, ``docker pause``) past its lease, whose list
another process paged and kept meanwhile, pays none of that list's pages once resumed: before
each page it looks whether its claim on the list is still its own, and when another process
took it and kept the list, it takes that list.

Real processes against the sandbox on 127.0.0.1: load A is stopped by the test when its
page 1 reaches the server (its answer held until A is resumed); its claims are then made to
lapse in the store, as a stop past the lease does (no clock moved: the copies B keeps are not
from A's future), load B runs and ends; then A is resumed. Requests are counted at the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from ledger_day import noon, on_this_clock
from waiting import HANG_GUARD

from icoframes import sandbox
from icoframes.config import SETTINGS
from icoframes.store.cache import Cache

_LOAD = "import icoframes\nicoframes.load_icos(status='past', progress=False)\n"


def _child(sb, tmp_path: Path) -> subprocess.Popen:
    """``load_icos(status="past")`` in a child on this process's clock as it reads now."""
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update({f"ICOFRAMES_{name.upper()}": str(value)
                for name, value in sb.settings().items() if value is not None})
    env.update(ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), ICOFRAMES_TIMEOUT="3600",
               ICOFRAMES_MAX_WORKERS="2")
    return subprocess.Popen([sys.executable, "-c", on_this_clock(_LOAD)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX signals")
def test_a_resumed_load_takes_the_list_another_process_kept_while_it_was_stopped(tmp_path):
    with noon(), sandbox.serve(n_icos=60, seed=1) as sb:  # 48 past ICOs: 3 pages
        n_past = len(sb.directory.ids("past"))
        asked: list[str] = []  # the status of every list request the server answered
        lock, children, b_said = threading.Lock(), [], []
        real_query = sb.directory.query

        def query(wire):  # the server's look-up for one list request
            with lock:
                asked.append(wire.get("status"))
                first = len(asked) == 1
            if first:  # A's page 1: A is stopped, B runs past A's lease, then A resumes
                a = children[0]
                os.kill(a.pid, signal.SIGSTOP)
                os.waitpid(a.pid, os.WUNTRACED)  # (returns once A is stopped)
                cache = Cache(tmp_path / "cache", sb.settings()["base_url"])
                with cache.database().write() as conn:  # type: ignore[union-attr]
                    conn.execute("UPDATE claims SET expires = 0")  # A's lease ran out
                b = _child(sb, tmp_path)
                b_said.append(b.communicate(timeout=HANG_GUARD)[1])
                b_said.append(b.returncode)
                os.kill(a.pid, signal.SIGCONT)
            return real_query(wire)

        sb.directory.query = query  # (the sandbox's own object, dropped with it)
        children.append(_child(sb, tmp_path))
        _, log_a = children[0].communicate(timeout=HANG_GUARD)
        assert b_said[1:] == [0], b_said
        assert children[0].returncode == 0, log_a
        # B paged the list and fetched every profile; A paid its page 1 only (asked before
        # its stop), none of the pages B paid, and no profile again
        assert Counter(asked) == {"past": 3 + 1}, (asked, log_a)
        assert sb.stats.requests["icos"] == 3 + 1
        assert sum(sb.stats.profile_hits.values()) == n_past
