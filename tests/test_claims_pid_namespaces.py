"""Two loads sharing a cache dir from two containers of one hostname, each Python as PID 1 of
its own PID namespace, fetch each profile once.

Their claims carry the same (pid, host). A claim of this pid and host under a token this
process never made is another process's, live until its lease ends; only a token this
process made and closed lapses at once (REVJ M1, a regression of 0e36def: the other
load's claims lapsed at once, and the two loads fetched every profile twice, 79 requests
for 40 ICOs). Run under ``unshare --pid --fork`` (root, or a user namespace where the
kernel allows one), skipped where neither works.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.config import SETTINGS

# each child loads the past ICOs with one worker once its stdin says go
_CHILD = textwrap.dedent("""
    import json, os, sys
    import icoframes
    print("ready", flush=True)
    sys.stdin.readline()
    icos = icoframes.load_icos(status="past", progress=False, max_workers=1)
    report = icos.attrs["icoframes"]
    print(json.dumps({"pid": os.getpid(), "rows": len(icos), "complete": report["complete"],
                      "requests": report["requests"]["ico"]}), flush=True)
""")


def _namespaced() -> list[str] | str:
    """A command prefix running its command as PID 1 of a new PID namespace, or why none."""
    if shutil.which("unshare") is None:
        return "no `unshare` command here (util-linux 2.32 or later)"
    # --kill-child: a child left by a failing test (its unshare killed) is killed with it
    for prefix in (["unshare", "--pid", "--fork", "--kill-child"],  # root
                   ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child"]):
        try:
            done = subprocess.run([*prefix, sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True, timeout=HANG_GUARD)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0 and done.stdout.strip() == "1":
            return prefix
    return ("no PID namespace here: `unshare --pid --fork --kill-child` needs root (or user "
            "namespaces, which this kernel or container refuses) and util-linux 2.32 or later")


def _line(stream, timeout: float) -> str | None:
    """The next line of ``stream``, or None when none came within ``timeout`` seconds (a
    child stuck before its first line must fail the test, not hang it)."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return got[0] if got else None


class Gate:
    """The first profile request (the first load's, with its one worker) is held until the
    next one arrives: the second load has claimed by then, while the first held its claim."""

    def __init__(self, directory) -> None:
        self.asked = 0
        self.first, self.next = threading.Event(), threading.Event()
        self._lock = threading.Lock()
        profile = directory.profile

        def held(ico_id):
            with self._lock:
                self.asked += 1
                first = self.asked == 1
            if first:
                self.first.set()
                self.next.wait(HANG_GUARD)
            else:
                self.next.set()
            return profile(ico_id)

        directory.profile = held


def test_loads_as_pid_1_of_two_namespaces_on_one_host_fetch_each_profile_once(
        tmp_path, monkeypatch):
    prefix = _namespaced()
    if isinstance(prefix, str):
        pytest.skip(prefix)
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    with sandbox.serve(n_icos=60, seed=5, quota=None) as sb:
        past = sb.directory.ids("past")
        for key, value in {**sb.settings(), "cache_dir": tmp_path / "cache"}.items():
            monkeypatch.setenv(f"ICOFRAMES_{key.upper()}", str(value))
        # the children's: the same settings, and a client timeout beyond the longest the
        # first request is held (Gate): one timed out on a slow machine would be asked again,
        # by either load, and counted as asked by both
        env = {**os.environ, "ICOFRAMES_TIMEOUT": str(2 * HANG_GUARD)}
        icoframes.reset_configuration()
        try:  # the list cached first: the loads only fetch profiles (none waits for a list)
            assert len(icoframes.load_list(status="past", progress=False)) == len(past)
        finally:
            icoframes.reset_configuration()
        pages = sb.stats.requests["icos"]
        gate = Gate(sb.directory)
        children = [subprocess.Popen([*prefix, sys.executable, "-c", _CHILD], env=env,
                                     cwd=tmp_path, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    for _ in range(2)]
        try:
            for child in children:  # (each imports pandas first: seconds under load)
                line = _line(child.stdout, HANG_GUARD)
                assert line is not None, f"no 'ready' from a child in {HANG_GUARD} s"
                if line.strip() != "ready":  # (it ended: its stderr says why)
                    child.kill()
                    pytest.fail(f"the child said {line!r}: {child.communicate()[1]}")
            first, second = children
            first.stdin.write("go\n")
            first.stdin.flush()
            assert gate.first.wait(HANG_GUARD)  # the first load holds a claim, its request held
            second.stdin.write("go\n")
            second.stdin.flush()
            done = [child.communicate(timeout=HANG_GUARD) for child in children]
        finally:
            for child in children:
                child.kill()
                child.communicate()
    reports = []
    for child, (out, err) in zip(children, done, strict=True):
        assert child.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["pid"] for r in reports] == [1, 1]  # the premise: one pid, one hostname
    assert [(r["rows"], r["complete"]) for r in reports] == [(len(past), True)] * 2
    hits = sb.stats.profile_hits
    assert sb.stats.requests["icos"] == pages
    assert sorted(hits) == sorted(past)
    assert {i: n for i, n in hits.items() if n > 1} == {}  # was: the first id asked by both
    assert sum(r["requests"] for r in reports) == len(past)
