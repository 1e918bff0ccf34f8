"""A prune never removes a service folder a live load uses, however old its files look.

A load in another process (a real one) holds its folder from its start (warm) or from the
moment its database is made (cold); the folder's files are then aged by ``os.utime`` (no
clock read, no sleep): ``prune_cache`` leaves it and its lists as they are (used now). Once
the load has ended, the same prune removes it. Before, a prune judged only the files' age:
a load that waited on the network for longer than ``older_than`` lost its folder (and a
list it had just paged) while it was filling it.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox

# a load in its own process: its crawl begun (the folder held, or not yet made when cold),
# its database opened (made when cold), then it waits until told to end
_CHILD = """
import sys
from icoframes.fetch.load import Load
load = Load(progress=False)
load.cache.hold()  # as its crawl does, from its start to its end
load.cache.database()
print(load.cache.dir, flush=True)
sys.stdin.readline()
"""
_OLD = (dt.datetime(2020, 1, 1, tzinfo=dt.UTC) - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        ).total_seconds()


def _age(folder: Path) -> None:
    """Date every file under ``folder`` (and itself) in 2020: unused for years, by its files."""
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, (_OLD, _OLD), follow_symlinks=False)


@pytest.mark.skipif(sys.platform == "win32", reason="no flock: a folder's age alone counts")
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_prune_leaves_a_live_loads_folder_alone_then_removes_it(tmp_path, warm):
    root = tmp_path / "cache"
    with sandbox.serve(n_icos=5, seed=1) as sb:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
        env |= {f"ICOFRAMES_{k.upper()}": str(v) for k, v in sb.settings().items()}
        env["ICOFRAMES_CACHE_DIR"] = str(root)
        if warm:  # a folder an earlier load made
            subprocess.run([sys.executable, "-c", _CHILD], env=env, input="\n", text=True,
                           check=True, capture_output=True, timeout=HANG_GUARD)
        child = subprocess.Popen([sys.executable, "-c", _CHILD], env=env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None and child.stdin is not None
            folder = Path(child.stdout.readline().strip())  # the load holds it now
            assert folder.is_dir()
            _age(folder)
            report = icoframes.prune_cache(dt.timedelta(days=1), cache_dir=root)
            assert (report.removed, report.skipped) == ([], [])  # in use: used now
            assert folder.is_dir() and (folder / "cache.sqlite3").is_file()
            child.stdin.close()
            assert child.wait(timeout=HANG_GUARD) == 0
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    _age(folder)
    report = icoframes.prune_cache(dt.timedelta(days=1), cache_dir=root)  # no load now
    assert report.removed == [str(folder)] and report.skipped == []
    assert not folder.exists()
