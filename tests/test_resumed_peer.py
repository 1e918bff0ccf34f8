"""A load stopped (SIGSTOP: Ctrl-Z, a debugger, ``docker pause``) past its lease, whose list
another process paged and kept meanwhile, pays none of that list's pages once resumed: before
each page it looks whether its claim on the list is still its own, and when another process
took it and kept the list, it takes that list.

Real processes against the sandbox on 127.0.0.1: load A is stopped by the test when its
page 1 reaches the server (its answer held until A is resumed); its claims are then made to
lapse in the store, as a stop past the lease does (both children start on one clock, the
test's: the copies B keeps are not from A's future), load B runs and ends; then A is resumed,
its clock moved on past the lease, as a stop's is (it renews its claims once a third of a
lease). Requests are counted at the server, B's apart from what A asks once resumed.
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
from waiting import HANG_GUARD, wait_until

from icoframes import sandbox
from icoframes.config import SETTINGS
from icoframes.sandbox import service
from icoframes.store.cache import Cache


def _child(sb, tmp_path: Path, status: str = "past", before: str = "") -> subprocess.Popen:
    """``load_icos(status=status)`` in a child on this process's clock (2 workers), after
    ``before`` (run on that clock: ``_moved``, the child's moved clock)."""
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update({f"ICOFRAMES_{name.upper()}": str(value)
                for name, value in sb.settings().items() if value is not None})
    env.update(ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), ICOFRAMES_TIMEOUT="3600",
               ICOFRAMES_MAX_WORKERS="2")
    load = f"import icoframes\nicoframes.load_icos(status={status!r}, progress=False)\n"
    return subprocess.Popen([sys.executable, "-c", on_this_clock(before + load)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_STOP_PAST_THE_LEASE = """import signal as _s
from icoframes.store.claims import LEASE as _lease
# a stop past the lease moves the wall clock on by it: so does this child's, once resumed
_s.signal(_s.SIGCONT, lambda *_: _moved.shift(2 * _lease))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX signals")
def test_a_resumed_load_takes_the_list_another_process_kept_while_it_was_stopped(tmp_path):
    with noon(), sandbox.serve(n_icos=60, seed=1) as sb:  # 48 past ICOs: 3 pages
        n_past = len(sb.directory.ids("past"))
        asked: list[str] = []  # the status of every list request the server answered
        lock, children, b_said = threading.Lock(), [], []
        lapsed: list[int] = []  # claims of A's made to lapse
        by_b: dict[str, object] = {}  # what the server answered until B ended
        real_query = sb.directory.query

        def query(wire):  # the server's look-up for one list request
            with lock:
                asked.append(wire.get("status"))
                first = len(asked) == 1
            if first:  # A's page 1: A is stopped, B runs past A's lease, then A resumes
                a = children[0]
                os.kill(a.pid, signal.SIGSTOP)
                os.waitpid(a.pid, os.WUNTRACED)  # (returns once A is stopped)
                # the folder the children use (named by the service, not by its address)
                cache = Cache(tmp_path / "cache", sb.settings()["service_name"])
                db = cache.database()
                assert db is not None

                def lapse() -> bool:  # A's lease ran out (A claims the list before page 1)
                    with db.write() as conn:
                        lapsed.append(conn.execute("UPDATE claims SET expires = 0 WHERE pid = ?",
                                                   (a.pid,)).rowcount)
                    return lapsed[-1] > 0

                assert wait_until(lapse)
                b = _child(sb, tmp_path)
                b_said.append(b.communicate(timeout=HANG_GUARD)[1])
                b_said.append(b.returncode)
                by_b.update(lists=Counter(asked), profiles=sum(sb.stats.profile_hits.values()))
                os.kill(a.pid, signal.SIGCONT)
            return real_query(wire)

        sb.directory.query = query  # (the sandbox's own object, dropped with it)
        children.append(_child(sb, tmp_path, before=_STOP_PAST_THE_LEASE))
        _, log_a = children[0].communicate(timeout=HANG_GUARD)
        assert b_said[1:] == [0], b_said
        assert children[0].returncode == 0, log_a
        assert lapsed[-1] >= 1, lapsed  # A's list claim, in the folder the children use
        # B paged the list (A's page 1 was asked before its stop) and fetched every profile
        assert by_b == {"lists": {"past": 1 + 3}, "profiles": n_past}, (by_b, b_said[0])
        # A, resumed, paid none of the pages B paid, and no profile again
        assert Counter(asked) - by_b["lists"] == {}, (asked, log_a)  # type: ignore[operator]
        assert sum(sb.stats.profile_hits.values()) - n_past == 0, log_a
        assert sb.stats.requests["icos"] == 3 + 1


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX signals")
def test_a_resumed_load_sends_no_profile_it_claimed_that_another_process_fetched_since(
        tmp_path, monkeypatch):
    """Load A (2 workers: it claims 2 profiles at a time) is stopped when its 3rd profile
    request reaches the server: its 1st request is held, so the 3rd is the first of a new
    pair, and the other of that pair waits in A's queue, claimed. A's claims are made to
    lapse in the store; load B fetches every profile; A is resumed (its clock moved on past
    its lease, as a stop's is). A sends none of the profiles B fetched: the queued one is
    checked against its claim before it goes (it was sent)."""
    with noon(), sandbox.serve(n_icos=120, seed=1) as sb:  # 13 ongoing ICOs: 1 list page
        ongoing = sb.directory.ids("ongoing")
        hits: dict[str, list[int]] = {"A": [], "B": [], "A resumed": []}
        lock, held, children, b_said, lapsed = threading.Lock(), threading.Event(), [], [], []
        phase = ["A"]
        real_profile = service.Service._profile

        def profile(self, params):  # the server's answer to one profile request
            with lock:
                hits[phase[0]].append(int(params["id"]))
                first, third = (phase[0] == "A" and len(hits["A"]) == n for n in (1, 3))
            if first:  # A's 1st: answered once A is resumed (its worker kept busy)
                assert held.wait(HANG_GUARD)
            elif third:  # A stopped, its claims lapse, B runs, then A resumes
                a = children[0]
                os.kill(a.pid, signal.SIGSTOP)
                os.waitpid(a.pid, os.WUNTRACED)  # (returns once A is stopped)
                db = Cache(tmp_path / "cache", sb.settings()["service_name"]).database()
                assert db is not None
                with db.write() as conn:
                    lapsed.append(conn.execute("UPDATE claims SET expires = 0 WHERE pid = ?",
                                               (a.pid,)).rowcount)
                phase[0] = "B"
                b = _child(sb, tmp_path, status="ongoing")
                b_said.extend([b.communicate(timeout=HANG_GUARD)[1], b.returncode])
                phase[0] = "A resumed"
                os.kill(a.pid, signal.SIGCONT)
                held.set()
            return real_profile(self, params)

        monkeypatch.setattr(service.Service, "_profile", profile)
        children.append(_child(sb, tmp_path, status="ongoing", before=_STOP_PAST_THE_LEASE))
        _, log_a = children[0].communicate(timeout=HANG_GUARD)
        assert b_said[1:] == [0], b_said
        assert children[0].returncode == 0, log_a
        # A's claims on the held profile and on the pair it sent the 3rd of lapsed
        assert lapsed[0] >= 3, lapsed
        assert sorted(set(hits["A"]) | set(hits["B"])) == sorted(ongoing), hits
        assert hits["A resumed"] == [], (hits, log_a)


def test_a_page_in_flight_that_fails_after_another_list_answers_the_query_marks_nothing(
        tmp_path):
    """A page asked before the load took another process's list (its claim lapsed), which
    then fails for good, is no failed page of that list: the list it answers with was
    kept complete by that process."""
    from icoframes.fetch.paging import ListQuery
    from icoframes.parse.lists import list_frame

    cache = Cache(tmp_path, "http://127.0.0.1:9")
    params = {"status": "past"}
    query = ListQuery(dict(params))
    query.paging = True
    assert query.next_page() == (1, 1)  # in flight
    items = [{"id": 7, "main": {"name": "Seven"}}]  # kept by the other process meanwhile
    cache.write_list(params, items, list_frame(items, status="past"), total_icos=1)
    kept = cache.read_list(params)
    assert kept is not None
    query.use_cached(kept)  # (what SharedLists.taken_over does)
    query.paging = False
    query.on_failure(1, "HTTP 503 after 3 tries")
    assert (query.failed_pages, query.complete, query.in_flight) == ({}, True, 0)
