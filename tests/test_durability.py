"""Nothing fetched twice (issue 10, item 7): kills and concurrent processes on one cache dir.

The bounds are the issue's: after each SIGKILL the next load refetches at most
``max_workers`` profiles (the ones in flight when it died), and three processes
loading one query into one cache dir send at most N + 3 x ``max_workers``
profile requests in total.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import warnings

from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheWarning

WORKERS = 4

_CHILD = textwrap.dedent(f"""
    import icoframes
    icoframes.load_icos(status="past", progress=False, max_workers={WORKERS})
    print("done")
""")


def _env(sb, cache_dir) -> dict[str, str]:
    return {**os.environ, **{f"ICOFRAMES_{k.upper()}": str(v) for k, v in sb.settings().items()},
            "ICOFRAMES_CACHE_DIR": str(cache_dir)}


def _load_in_process(sb, cache_dir):
    icoframes.configure(**sb.settings(), cache_dir=cache_dir)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", CacheWarning)
            return icoframes.load_icos(status="past", progress=False)
    finally:
        icoframes.reset_configuration()


def test_sigkill_rounds_refetch_at_most_the_requests_in_flight(tmp_path, monkeypatch):
    kills = 4
    with sandbox.serve(n_icos=300, seed=41, latency=0.02) as sb:
        past = sb.directory.ids("past")
        step = len(past) // (kills + 1)
        # the sandbox holds every later request once the round's target is served (in the
        # serving thread): however late this thread wakes on a loaded machine, the child
        # cannot have fetched the rest and ended before it is killed
        hold_at: list[int] = []  # the round's target, while a round runs
        served = sb.stats.record_profile

        def record_profile(ico_id: int) -> None:
            served(ico_id)
            if hold_at and sb.stats.profile_hits.total() >= hold_at[0]:
                sb.pause()

        monkeypatch.setattr(sb.stats, "record_profile", record_profile)
        for round_no in range(1, kills + 1):
            target = min(len(past) - 1, round_no * step)
            hold_at[:] = [target]
            child = subprocess.Popen([sys.executable, "-c", _CHILD],
                                     env=_env(sb, tmp_path / "c"),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                reached = sb.stats.wait_for(lambda s, t=target: s.profile_hits.total() >= t,
                                            timeout=HANG_GUARD)
                assert reached and child.poll() is None, child.stderr.read().decode()
                child.send_signal(signal.SIGKILL)
                child.communicate()
            finally:
                hold_at.clear()
                sb.resume()
        icos = _load_in_process(sb, tmp_path / "c")
        assert sorted(icos["id"]) == sorted(past)
        assert icos.attrs["icoframes"]["complete"] is True
        hits = sb.stats.profile_hits
        # every profile once, plus at most the requests each kill left in flight
        assert hits.total() <= len(past) + kills * WORKERS, hits.total()
        assert max(hits.values()) <= 1 + kills


def test_three_processes_on_one_cache_dir_fetch_each_profile_once(tmp_path):
    with sandbox.serve(n_icos=300, seed=42, latency=0.01) as sb:
        past = sb.directory.ids("past")
        children = [subprocess.Popen([sys.executable, "-c", _CHILD],
                                     env=_env(sb, tmp_path / "c"),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                    for _ in range(3)]
        for child in children:
            out, err = child.communicate(timeout=HANG_GUARD)
            assert child.returncode == 0, err.decode()
            assert b"done" in out
        hits = sb.stats.profile_hits.total()
        assert hits <= len(past) + 3 * WORKERS, hits
        before = sum(sb.stats.requests.values())
        icos = _load_in_process(sb, tmp_path / "c")
        assert sum(sb.stats.requests.values()) == before  # all there: nothing sent
        assert sorted(icos["id"]) == sorted(past)
