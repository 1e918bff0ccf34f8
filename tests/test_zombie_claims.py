"""The claims of a process killed but not reaped yet (a zombie: its parent has not waited
for it) lapse at once, as a dead process's do: else every other process sharing the cache
dir waited out its lease for them.

A real child takes claims and is killed with SIGKILL; the test does not reap it (it waits
for its exit with ``WNOWAIT``, so it stays a zombie) and claims the same ids.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from waiting import HANG_GUARD

from icoframes.store.cache import Cache

_CLAIM = ("import sys\nfrom icoframes.store.cache import Cache\n"
          "claims = Cache(sys.argv[1], 'http://127.0.0.1:9').claims()\n"
          "print(claims.claim([1, 2]), flush=True)\nsys.stdin.read()\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc tells a zombie")
def test_a_killed_process_not_reaped_yet_holds_no_claim(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", _CLAIM, str(tmp_path)], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "([1, 2], [], [])"
        os.kill(child.pid, signal.SIGKILL)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # dead, not reaped
        with open(f"/proc/{child.pid}/stat") as stat:
            assert stat.read().rpartition(")")[2].split()[0] == "Z"
        with Cache(tmp_path, "http://127.0.0.1:9").claims() as claims:
            assert claims.claim([1, 2, 3]) == ([1, 2, 3], [], [])
    finally:
        child.kill()
        child.communicate(timeout=HANG_GUARD)
