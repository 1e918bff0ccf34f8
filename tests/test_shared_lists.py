"""A list query is paged once across processes sharing a cache dir: the second load waits
for the first's list (or pages it itself when the first dies)."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap

from waiting import HANG_GUARD

from icoframes import sandbox

WORKERS = 4

# each child loads the past ICOs once its stdin says go, and prints what its result says
_CHILD = textwrap.dedent(f"""
    import json, sys
    import icoframes
    print("ready", flush=True)
    sys.stdin.readline()
    icos = icoframes.load_icos(status="past", progress=False, max_workers={WORKERS})
    report = icos.attrs["icoframes"]
    print(json.dumps({{"rows": len(icos), "complete": report["complete"],
                      "from_cache": report["queries"][0]["from_cache"]}}), flush=True)
""")


def _env(sb, cache_dir) -> dict[str, str]:
    return {**os.environ, **{f"ICOFRAMES_{k.upper()}": str(v) for k, v in sb.settings().items()},
            "ICOFRAMES_CACHE_DIR": str(cache_dir)}


def _start(sb, cache_dir, n: int = 2) -> list[subprocess.Popen]:
    """``n`` children, started together (each imports pandas: seconds under load), ready."""
    children = [subprocess.Popen([sys.executable, "-c", _CHILD], env=_env(sb, cache_dir),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(n)]
    for child in children:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
    return children


def test_two_processes_cold_loading_one_query_page_its_list_once(tmp_path):
    with sandbox.serve(n_icos=300, seed=43, latency=0.02) as sb:
        past = sb.directory.ids("past")
        children = _start(sb, tmp_path / "c")
        sb.stats.reset()
        for child in children:  # both begin within moments of each other
            child.stdin.write("go\n")
            child.stdin.flush()
        results = []
        for child in children:
            out, err = child.communicate(timeout=HANG_GUARD)
            assert child.returncode == 0, err
            results.append(out.strip().splitlines()[-1])
        assert all(f'"rows": {len(past)}, "complete": true' in r for r in results), results
        assert sorted('"from_cache": true' in r for r in results) == [False, True]
        assert sb.stats.requests["icos"] == math.ceil(len(past) / 20)  # one list, paged once
        assert sb.stats.profile_hits.total() <= len(past) + 2 * WORKERS


def test_a_load_waiting_for_a_list_pages_it_when_its_pager_dies(tmp_path):
    with sandbox.serve(n_icos=300, seed=44, latency=0.02) as sb:
        past = sb.directory.ids("past")
        first, second = _start(sb, tmp_path / "c")
        # every request held until the first is dead: however late this thread runs on a
        # loaded machine, the first cannot have paged (and kept) the list by then
        sb.pause()
        try:
            first.stdin.write("go\n")
            first.stdin.flush()
            assert sb.stats.wait_for(lambda s: s.requests.get("icos", 0) >= 1,
                                     timeout=HANG_GUARD)
            second.stdin.write("go\n")  # the list is claimed by the first: the second waits
            second.stdin.flush()
            first.send_signal(signal.SIGKILL)  # dead: its claim lapses at once
            first.communicate()
        finally:
            sb.resume()
        out, err = second.communicate(timeout=HANG_GUARD)
        assert second.returncode == 0, err
        assert f'"rows": {len(past)}, "complete": true' in out
        assert '"from_cache": false' in out  # it paged the list itself


def test_a_list_kept_by_another_process_after_this_load_looked_is_not_paged_again(tmp_path):
    """The race of two cold loads: the other process pages and keeps the list, and releases
    its claim, between this load's look in the cache and its claim: the claim is free, but
    the list is there, and is used as if it had been waited for. Another copy than the one
    the load saw, not a newer clock: a frozen clock (time_machine) must not fool it."""
    from icoframes.fetch.paging import ListQuery
    from icoframes.fetch.sharedlists import SharedLists
    from icoframes.parse.lists import list_frame
    from icoframes.store.cache import Cache

    cache = Cache(tmp_path, "http://127.0.0.1:9")
    params = {"status": "past"}
    with cache.claims() as claims:
        lists = SharedLists(cache, lambda: claims)
        items = [{"id": 7, "main": {"name": "Seven"}}]  # kept by the other process just now
        cache.write_list(params, items, list_frame(items, status="past"), total_icos=1)
        query = ListQuery(dict(params))
        assert lists.claim(query, None) is False  # not paged: the kept list answers it
        assert claims.held == frozenset()  # and the claim went straight back
        arrived, to_page = lists.poll()
        assert arrived == [query] and to_page == []
        assert query.frame["id"].tolist() == [7] and query.from_cache
        # the copy this load saw (refresh=True, in the same instant of a frozen clock): paged
        again = ListQuery(dict(params))
        assert lists.claim(again, cache.read_list(params)) is True
        assert lists.waiting == []


def test_a_list_kept_by_another_process_while_this_load_reads_the_cache_answers_it(tmp_path):
    """The race behind both cold loads paging one list (both ``from_cache: false`` under
    load): the other process keeps the list after this load read the clock and before it
    read the cache, so the list it finds was fetched "after now". That is not a clock
    stepped back: the list answers the load (and its claim is then free, so nothing else
    would stop it paging the list a second time)."""
    import datetime as dt

    import time_machine

    from icoframes.fetch.localquery import cached_query
    from icoframes.fetch.policy import PROFILE_MAX_AGE
    from icoframes.parse.lists import list_frame
    from icoframes.store.cache import Cache
    from icoframes.store.derived import DerivedTables

    params = {"status": "past"}
    items = [{"id": 7, "main": {"name": "Seven"}}]
    other = Cache(tmp_path, "http://127.0.0.1:9")

    class PeerKeepsTheListFirst(Cache):  # the other process is scheduled in between
        def read_list(self, asked):
            traveller.shift(dt.timedelta(seconds=1))  # a moment passes
            other.write_list(asked, items, list_frame(items, status="past"), total_icos=1)
            return super().read_list(asked)

    with time_machine.travel(dt.datetime(2026, 11, 26, 3, tzinfo=dt.UTC), tick=False) as traveller:
        cache = PeerKeepsTheListFirst(tmp_path, "http://127.0.0.1:9")
        query, stored = cached_query(dict(params), cache, DerivedTables(cache), offline=False,
                                     refresh=False, limit=dt.timedelta(hours=1),
                                     ages=PROFILE_MAX_AGE)
    assert stored is not None
    assert query.from_cache and query.frame is not None, query.declined
    assert query.frame["id"].tolist() == [7]


def test_a_list_kept_by_its_pager_between_a_waiting_loads_look_and_claim_is_used(tmp_path):
    """The other race of two cold loads: the load waiting for the list looks in the store
    (not there yet), then the pager keeps the list and releases its claim, then the waiting
    load claims: the claim is free, yet the list is there and answers the load, unpaged."""
    from icoframes.fetch.paging import ListQuery
    from icoframes.fetch.sharedlists import SharedLists, list_claim_id
    from icoframes.parse.lists import list_frame
    from icoframes.store.cache import Cache

    params = {"status": "past"}
    items = [{"id": 7, "main": {"name": "Seven"}}]
    pager = Cache(tmp_path, "http://127.0.0.1:9")
    with pager.claims() as theirs:
        assert theirs.claim([list_claim_id(params)])[0]  # the other process pages the list
        looks: list[bool] = []

        class PagerKeepsItJustAfterTheLook(Cache):
            def read_list(self, asked):
                seen = super().read_list(asked)
                if not looks:  # the look in poll, before its claim
                    pager.write_list(asked, items, list_frame(items, status="past"),
                                     total_icos=1)
                    theirs.release([list_claim_id(asked)])
                looks.append(seen is None)
                return seen

        cache = PagerKeepsItJustAfterTheLook(tmp_path, "http://127.0.0.1:9")
        with cache.claims() as mine:
            lists = SharedLists(cache, lambda: mine)
            query = ListQuery(dict(params))
            assert lists.claim(query, None) is False  # claimed by the pager: waited for
            arrived, to_page = lists.poll()
            assert to_page == [] and arrived == [query]  # not paged a second time
            assert query.from_cache and query.frame["id"].tolist() == [7]
            assert mine.held == frozenset() and lists.waiting == []
