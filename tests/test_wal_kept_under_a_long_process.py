"""A long-lived process (a notebook kernel) keeps its cache connection open between loads,
while other processes (a cron export, a second kernel) open the same cache and exit.

The last connection to close folds the log (``-wal``) into the file and deletes the log and
its index. Which connection is the last is told by POSIX locks, which a process loses all at
once when it closes any descriptor of the file: then another process, exiting, deletes the
log this one still writes to, and every later commit of this one is lost to all others.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox

_OTHER_LOAD = ("import icoframes, warnings; warnings.simplefilter('ignore'); "
               "icoframes.load_icos(status='ongoing', progress=False)")
_COUNT = ("import sqlite3, sys; print(sqlite3.connect(sys.argv[1])"
          ".execute('SELECT count(*) FROM profiles').fetchone()[0])")


def _env(sb, cache_dir: Path) -> dict[str, str]:
    # the children import the icoframes under test, wherever it was imported from here
    return {**os.environ, **{f"ICOFRAMES_{k.upper()}": str(v) for k, v in sb.settings().items()},
            "ICOFRAMES_CACHE_DIR": str(cache_dir),
            "PYTHONPATH": str(Path(icoframes.__file__).parent.parent)}


def _deleted_cache_files(cache_dir: Path) -> list[str]:
    """This process's descriptors of files in ``cache_dir`` that were deleted under it."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(os.path.realpath(cache_dir)) and target.endswith("(deleted)"):
            found.append(target)
    return found


def test_what_a_kernel_keeps_after_another_process_ended_reaches_every_process(tmp_path):
    cache_dir = tmp_path / "cache"
    with sandbox.serve(n_icos=300, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=cache_dir, max_workers=4)
        try:
            icoframes.load_icos(status="ongoing", progress=False)
            [path] = cache_dir.rglob("cache.sqlite3")
            other = subprocess.run([sys.executable, "-c", _OTHER_LOAD], env=_env(sb, cache_dir),
                                   capture_output=True, text=True, timeout=HANG_GUARD)
            assert other.returncode == 0, other.stderr
            served = sb.stats.profile_hits.total()
            icoframes.load_icos(status="upcoming", progress=False)  # fetches and keeps more
            assert sb.stats.profile_hits.total() > served
            deleted = _deleted_cache_files(cache_dir) if Path("/proc/self/fd").is_dir() else []
            fetched = len(sb.stats.profile_hits)  # each profile served is kept, once
        finally:
            icoframes.reset_configuration()
    third = subprocess.run([sys.executable, "-c", _COUNT, str(path)], capture_output=True,
                           text=True, timeout=HANG_GUARD)
    assert third.returncode == 0, third.stderr
    assert (int(third.stdout), deleted) == (fetched, [])
