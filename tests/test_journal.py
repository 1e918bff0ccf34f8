"""The store's journal, fetch states and claims: real files, real processes, real kills."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheWarning
from icoframes.schema import ICOS, LIST
from icoframes.store.cache import GONE, Cache, ProfileRecord
from icoframes.store.derived import DerivedTables

ROOT = Path(__file__).resolve().parent.parent
URL = "http://127.0.0.1:9"  # never contacted: the store only names its folder after it
UTC = dt.UTC


def profile(ico_id: int, name: str) -> str:
    return json.dumps({"id": ico_id, "main": {"name": name}})


def fetched(ico_id: int, name: str, summary: str = "s") -> ProfileRecord:
    return ProfileRecord(ico_id, "past", summary, profile(ico_id, name))


def failed(ico_id: int, reason: str) -> ProfileRecord:
    return ProfileRecord(ico_id, "past", "s", None, state="failed", reason=reason)


def icos_of(cache: Cache) -> pd.DataFrame:
    return DerivedTables(cache).table("icos")


class Child:
    """A Python process running ``code`` (with ``cache_dir`` and ``URL`` defined) that
    prints one line when it is ready, then waits for its stdin to close or to be killed."""

    def __init__(self, cache_dir: Path, code: str) -> None:
        script = (f"import json, sys\nfrom icoframes.store.cache import Cache, ProfileRecord\n"
                  f"cache_dir, URL = {str(cache_dir)!r}, {URL!r}\n"
                  + textwrap.dedent(code) + "\nprint('ready', flush=True)\nsys.stdin.read()\n")
        self.proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the child failed: {self.proc.stderr.read()}")
            if line.strip() == "ready":
                break
            self.lines.append(line.strip())

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


def test_an_appended_profile_survives_a_sigkill_before_any_fold(tmp_path):
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        seven = json.dumps({"id": 7, "main": {"name": "Seven"}})
        cache.append(ProfileRecord(7, "past", "k7", seven))
        cache.append(ProfileRecord(8, "past", "k8", None, state="failed", reason="HTTP 500"))
    """)
    cache = Cache(tmp_path, URL)
    try:
        # live: visible at once, in the tables too, and not folded by another process
        assert cache.states([7, 8, 9]) == {7: "fetched", 8: "failed", 9: "not_fetched"}
        assert icos_of(cache)["name"].tolist() == ["Seven"]
        cache.fold()
        assert cache.part_files() == [] and len(cache.journal_files()) == 1
    finally:
        child.kill()
    fresh = Cache(tmp_path, URL)
    index = fresh.profile_index()
    assert index.loc[7, ["summary", "state", "attempts"]].tolist() == ["k7", "fetched", 0]
    assert index.loc[8, ["state", "reason", "attempts"]].tolist() == ["failed", "HTTP 500", 1]
    assert fresh.part_files() == []  # read from the orphaned journal itself
    fresh.fold()  # the orphan is folded by the next fold of anyone
    assert len(fresh.part_files()) == 1 and fresh.journal_files() == []
    assert not list(fresh.profiles_dir.glob("writer-*.lock"))
    pd.testing.assert_frame_equal(Cache(tmp_path, URL).profile_index(), index)
    icos = icos_of(Cache(tmp_path, URL))
    assert icos["id"].tolist() == [7] and icos["name"].tolist() == ["Seven"]
    assert fresh.info()["states"] == {"fetched": 1, "gone": 0, "failed": 1, "not_fetched": 0}


def test_the_tables_follow_a_live_process_that_has_not_folded(tmp_path):
    cache = Cache(tmp_path, URL)
    cache.write_profiles([fetched(1, "One")])
    assert icos_of(cache)["id"].tolist() == [1]
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        print("ready", flush=True)
        for line in sys.stdin:  # one profile per line, acknowledged once durable
            ico_id, name = json.loads(line)
            cache.append(ProfileRecord(ico_id, "past", "s",
                                       json.dumps({"id": ico_id, "main": {"name": name}})))
            print("appended", flush=True)
    """)
    try:
        for ico_id, name in [(2, "Two"), (1, "One again")]:
            child.proc.stdin.write(json.dumps([ico_id, name]) + "\n")
            child.proc.stdin.flush()
            assert child.proc.stdout.readline().strip() == "appended"
            icos = icos_of(cache)
        assert icos.set_index("id")["name"].to_dict() == {1: "One again", 2: "Two"}
    finally:
        child.kill()


def test_arrivals_are_read_only_when_another_process_wrote_since_the_marker(tmp_path, monkeypatch):
    cache = Cache(tmp_path, URL)
    cache.write_profiles([fetched(1, "One")])
    marker = cache.marker()
    reads = []
    monkeypatch.setattr(cache.log, "states", lambda ids: reads.append(ids) or
                        type(cache.log).states(cache.log, ids))
    cache.append(fetched(2, "Two"))  # this process's own appends and folds are not news
    cache.fold()
    cache.append(failed(3, "HTTP 500"))
    assert cache.arrived_since([3, 4, 5], marker) == set() and reads == []
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        cache.append(ProfileRecord(4, "past", "s", json.dumps({"id": 4})))
        cache.append(ProfileRecord(5, "past", "s", None, state="failed", reason="HTTP 500"))
    """)
    try:
        assert cache.arrived_since([3, 4, 5], marker) == {4}  # live journal of another
        assert reads == [[3, 4, 5]]
        grown = cache.marker()
        assert grown != marker and cache.arrived_since([3, 5], grown) == set()
    finally:
        child.kill()
    cache.fold()  # the orphan folded here: its journal is gone, which the marker shows
    assert cache.marker() != grown and cache.arrived_since([4], grown) == {4}


def test_a_fold_stopped_before_removing_its_journal_counts_each_event_once(tmp_path):
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        cache.append(ProfileRecord(9, "past", "s", None, state="failed", reason="HTTP 500"))
        cache.append(ProfileRecord(9, "past", "s", None, state="failed", reason="not JSON"))
        ten = json.dumps({"id": 10, "main": {"name": "Ten"}})
        cache.append(ProfileRecord(10, "past", "s", ten))
    """)
    cache = Cache(tmp_path, URL)
    [journal] = cache.journal_files()
    child.kill()
    kept = tmp_path / "journal-copy"
    shutil.copy(journal, kept)
    cache.fold()
    # as if the fold had been killed after writing its part: the journal is back
    shutil.copy(kept, journal)
    for _ in range(2):  # read beside the part, then folded into a second part
        index = Cache(tmp_path, URL).profile_index()
        assert index.loc[9, ["state", "attempts", "reason"]].tolist() == ["failed", 2, "not JSON"]
        assert icos_of(Cache(tmp_path, URL))["id"].tolist() == [10]
        cache.fold()
    assert len(cache.part_files()) == 2
    cache.append(fetched(9, "Nine"))
    with cache.lock():
        cache.compact_locked(cache.part_files())
    index = Cache(tmp_path, URL).profile_index()
    assert index.loc[9, ["state", "attempts"]].tolist() == ["fetched", 0]
    assert icos_of(cache).set_index("id")["name"].to_dict() == {9: "Nine", 10: "Ten"}


def at(*args: int) -> time_machine.travel:
    return time_machine.travel(dt.datetime(*args, tzinfo=UTC), tick=False)


def test_the_latest_copy_is_the_last_appended_whatever_the_clock(tmp_path):
    cache = Cache(tmp_path, URL)

    def used() -> tuple[str, pd.Timestamp]:
        row = Cache(tmp_path, URL).profile_index().loc[5]
        records = Cache(tmp_path, URL).latest_records()
        raw = json.loads(records.column("raw").to_pylist()[0])
        icos = icos_of(Cache(tmp_path, URL))
        assert icos["name"].tolist() == [raw["main"]["name"]]
        assert icos["fetched_at"].iloc[0] == row["fetched_at"]
        return raw["main"]["name"], row["fetched_at"]

    with at(2026, 1, 2):
        cache.append(fetched(5, "A"))
    with at(2025, 1, 1):  # the clock stepped back a year
        cache.append(fetched(5, "B"))
    assert used() == ("B", pd.Timestamp("2025-01-01", tz="UTC"))
    cache.fold()
    assert used() == ("B", pd.Timestamp("2025-01-01", tz="UTC"))
    with at(2027, 1, 1):  # then forward, folded into a part of its own
        cache.write_profiles([fetched(5, "C")])
    with at(2024, 6, 1):
        cache.write_profiles([fetched(5, "D")])
    assert len(cache.part_files()) == 3
    assert used() == ("D", pd.Timestamp("2024-06-01", tz="UTC"))
    with cache.lock():
        cache.compact_locked(cache.part_files())
    assert len(cache.part_files()) == 1
    assert used() == ("D", pd.Timestamp("2024-06-01", tz="UTC"))
    with at(2023, 1, 1):  # after a compaction, a copy appended with an even older clock
        cache.append(fetched(5, "E"))
    assert used() == ("E", pd.Timestamp("2023-01-01", tz="UTC"))


def test_fetch_states_count_failures_until_a_copy_arrives(tmp_path):
    cache = Cache(tmp_path, URL)
    with at(2026, 2, 1):
        cache.append(fetched(1, "One", summary="k1"))
        cache.append(ProfileRecord(2, "past", "k2", GONE, state="gone"))
        cache.append(failed(3, "HTTP 500"))
        cache.append(failed(3, "not JSON"))
        cache.append(fetched(4, "Four", summary="k4"))
    with at(2026, 2, 2):
        cache.append(failed(4, "id mismatch"))  # a failure never replaces a copy
    index = cache.profile_index()
    assert index.index.tolist() == [1, 2, 3, 4]
    assert index["state"].tolist() == ["fetched", "gone", "failed", "fetched"]
    assert index["attempts"].tolist() == [0, 0, 2, 1]
    assert index["reason"].tolist()[2:] == ["not JSON", "id mismatch"]
    assert index["reason"].iloc[:2].isna().all()
    assert pd.isna(index.loc[3, "summary"]) and pd.isna(index.loc[3, "fetched_at"])
    assert index.loc[4, ["summary", "fetched_at"]].tolist() == [
        "k4", pd.Timestamp("2026-02-01", tz="UTC")]
    assert str(index["fetched_at"].dtype) == "datetime64[ms, UTC]"
    assert index["attempts"].dtype == "int64"
    assert cache.states([4, 3, 99]) == {4: "fetched", 3: "failed", 99: "not_fetched"}

    listing = pd.DataFrame({"id": [1, 2, 3, 4, 5, 6]}).assign(
        **{c.name: pd.Series([None] * 6, dtype=c.dtype) for c in LIST.columns if c.name != "id"})
    cache.write_list({"status": "past"}, listing[LIST.names], LIST, total_icos=6)
    assert cache.info()["states"] == {"fetched": 2, "gone": 1, "failed": 1, "not_fetched": 2}
    cache.fold()
    pd.testing.assert_frame_equal(Cache(tmp_path, URL).profile_index(), index)

    cache.append(fetched(3, "Three"))  # a success resets the count
    cache.append(failed(2, "HTTP 502"))
    index = Cache(tmp_path, URL).profile_index()
    assert index.loc[3, ["state", "attempts"]].tolist() == ["fetched", 0]
    assert pd.isna(index.loc[3, "reason"])
    assert index.loc[2, ["state", "attempts", "reason"]].tolist() == ["gone", 1, "HTTP 502"]
    assert icos_of(cache)["id"].tolist() == [1, 4, 3]  # not the gone one, in append order
    info = Cache(tmp_path, URL).info()
    assert info["states"] == {"fetched": 3, "gone": 1, "failed": 0, "not_fetched": 2}
    assert (info["profiles"], info["listed_without_profile"]) == (3, 1)


def test_claims_are_disjoint_and_a_killed_claimer_loses_them(tmp_path):
    cache = Cache(tmp_path, URL)
    with cache.claims() as first, cache.claims() as second:
        assert first.claim([1, 2, 3]) == ([1, 2, 3], [])
        assert second.claim([3, 4]) == ([4], [3])
        assert first.claim([3, 1]) == ([3, 1], [])  # held already
        child = Child(tmp_path, """
            claims = Cache(cache_dir, URL).claims()
            print(json.dumps(claims.claim([4, 5, 6])), flush=True)
        """)
        try:
            assert json.loads(child.lines[0]) == [[5, 6], [4]]
            assert first.claim([5, 6, 7]) == ([7], [5, 6])
        finally:
            child.kill()
        assert first.claim([5, 6]) == ([5, 6], [])  # the killed claimer's ids are free
        second.release([4])
        assert first.claim([4]) == ([4], [])
        assert second.claim(range(1, 8)) == ([], [1, 2, 3, 4, 5, 6, 7])
        first.close()
        assert second.claim([1, 2]) == ([1, 2], [])
    with cache.claims() as third:  # closed claims hold nothing
        assert third.claim([1, 2, 4]) == ([1, 2, 4], [])
    assert not list(cache.claims_dir.glob("*.claim"))


def test_claims_are_files_where_links_cannot_be_made_and_both_kinds_are_read(tmp_path,
                                                                               monkeypatch):
    cache = Cache(tmp_path, URL)
    with cache.claims() as linked:
        assert linked.claim([1]) == ([1], [])
        assert (cache.claims_dir / "1.claim").is_symlink()
        # a file system without symbolic links (or Windows without the right): files
        monkeypatch.setattr(os, "symlink", lambda *a: (_ for _ in ()).throw(PermissionError()))
        with cache.claims() as filed:
            assert filed.claim([1, 2]) == ([2], [1])
            claim = cache.claims_dir / "2.claim"
            assert claim.is_file() and not claim.is_symlink()
            assert claim.read_text() == filed.token
            assert linked.claim([2]) == ([], [2])
        assert not claim.exists()  # released on close
        monkeypatch.undo()
        assert linked.claim([2]) == ([2], []) and claim.is_symlink()


def test_icos_fetched_at_is_when_the_copy_in_use_was_fetched(tmp_path):
    cache = Cache(tmp_path, URL)
    with at(2026, 3, 4, 5, 6, 7, 890000):
        cache.append(fetched(1, "One"))
    with at(2026, 3, 5):
        cache.append(fetched(2, "Two"))
    with at(2026, 3, 6):
        cache.append(failed(1, "HTTP 500"))  # the copy in use stays the first one
    icos = icos_of(cache)
    assert icos["fetched_at"].dtype == ICOS.column("fetched_at").dtype
    assert icos.set_index("id")["fetched_at"].to_dict() == {
        1: pd.Timestamp("2026-03-04 05:06:07.890", tz="UTC"),
        2: pd.Timestamp("2026-03-05", tz="UTC")}
    describe = icoframes.describe("icos").set_index("column")
    assert describe.loc["fetched_at", "dtype"] == "datetime64[ms, UTC]"
    assert pd.isna(describe.loc["fetched_at", "source"])


def test_load_icos_returns_when_each_profile_was_fetched(tmp_path):
    with sandbox.serve(n_icos=40, seed=21) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            before = pd.Timestamp.now(tz="UTC").floor("ms")
            icos = icoframes.load_icos(status="ongoing", progress=False)
            after = pd.Timestamp.now(tz="UTC")
            again = icoframes.load_icos(status="ongoing", progress=False)
        finally:
            icoframes.reset_configuration()
    assert len(icos) == len(sb.directory.ids("ongoing")) > 0
    assert icos["fetched_at"].dtype == ICOS.column("fetched_at").dtype
    assert icos["fetched_at"].between(before, after).all()
    pd.testing.assert_series_equal(again["fetched_at"], icos["fetched_at"])  # from the cache


def test_parts_of_the_first_layout_are_read_and_come_first(tmp_path):
    cache = Cache(tmp_path, URL)
    old = pa.table({"id": [1, 2], "status": ["past", "past"], "summary": ["k1", "k2"],
                    "fetched_at": pa.array([dt.datetime(2030, 1, 1, tzinfo=UTC)] * 2,
                                           pa.timestamp("ms", tz="UTC")),
                    "raw": [profile(1, "Old one"), GONE]})
    cache.profiles_dir.mkdir(parents=True)
    pq.write_table(old, cache.profiles_dir / "part-20300101T000000000000-0123abcd.parquet")
    assert cache.states([1, 2]) == {1: "fetched", 2: "gone"}
    cache.write_profiles([fetched(1, "New one")])  # dated before the old part's time
    assert icos_of(cache)["name"].tolist() == ["New one"]


_CRAWLER = """
import json, sys, time
from icoframes.store.cache import Cache, ProfileRecord
cache = Cache(sys.argv[1], sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()  # all three start together
todo, fetched, claim_seconds, claims_made = list(range(int(sys.argv[3]))), 0, 0.0, 0
with cache.claims() as claims:
    while todo:
        batch = todo[:4]  # what a crawl asks for each time worker slots free up
        started = time.perf_counter()
        mine, taken = claims.claim(batch)
        claim_seconds, claims_made = claim_seconds + time.perf_counter() - started, claims_made + 1
        state = cache.states(mine)  # an id claimed after its fetcher released it has arrived
        for ico_id in mine:
            if state[ico_id] == "not_fetched":
                raw = json.dumps({"id": ico_id, "main": {"name": sys.argv[4]}})
                cache.append(ProfileRecord(ico_id, "past", "s", raw))
                fetched += 1
        claims.release(mine)
        arrived = {i for i, s in cache.states(taken).items() if s != "not_fetched"}
        todo = todo[len(batch):] + [i for i in taken if i not in arrived]
        if fetched % 50 == 0:
            cache.fold()
cache.fold()
print(json.dumps({"fetched": fetched, "claim_ms": 1000 * claim_seconds / claims_made}))
"""


def test_three_processes_sharing_a_cache_dir_record_each_profile_once(tmp_path):
    n = 300
    crawlers = [subprocess.Popen([sys.executable, "-c", _CRAWLER, str(tmp_path), URL, str(n),
                                  f"crawler {k}"], cwd=ROOT, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for k in range(3)]
    for crawler in crawlers:
        assert crawler.stdout.readline().strip() == "ready", crawler.stderr.read()
    for crawler in crawlers:
        crawler.stdin.write("go\n")
        crawler.stdin.flush()
    results = []
    for crawler in crawlers:
        out, err = crawler.communicate(timeout=300)
        assert crawler.returncode == 0, err
        results.append(json.loads(out))
    assert sum(r["fetched"] for r in results) == n
    cache = Cache(tmp_path, URL)
    events = cache.read_events().events.to_pandas()
    assert events["id"].value_counts().max() == 1 and len(events) == n
    assert (cache.profile_index()["state"] == "fetched").sum() == n
    assert cache.journal_files() == [] and not list(cache.claims_dir.glob("*.claim"))
    # shown with -s: how the work split, and what a claim cost under contention
    print("fetched, claim() ms:", [(r["fetched"], round(r["claim_ms"], 3)) for r in results])


def test_appends_from_many_threads_while_folding_lose_nothing(tmp_path):
    cache = Cache(tmp_path, URL)
    go = threading.Barrier(9)

    def fetcher(first: int) -> None:
        go.wait()
        for ico_id in range(first, first + 50):
            cache.append(fetched(ico_id, f"n{ico_id}"))

    def folder() -> None:
        go.wait()
        for _ in range(20):
            cache.fold()

    threads = [threading.Thread(target=fetcher, args=(k * 50,)) for k in range(8)]
    threads.append(threading.Thread(target=folder))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cache.fold()
    assert cache.journal_files() == [] and cache.part_files()
    events = Cache(tmp_path, URL).read_events(raw=True).events
    assert sorted(events.column("id").to_pylist()) == list(range(400))
    names = {json.loads(raw)["main"]["name"] for raw in events.column("raw").to_pylist()}
    assert names == {f"n{i}" for i in range(400)}


def test_an_orphan_with_a_torn_last_line_keeps_its_complete_lines(tmp_path):
    cache = Cache(tmp_path, URL)
    now = dt.datetime(2026, 5, 1, tzinfo=UTC)
    lines = [fetched(i, f"n{i}").encode(i, now, "0123456789ab")[0] for i in (1, 2)]
    orphan = cache.profiles_dir / "journal-0000000001-0123456789ab.log"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(lines[0] + lines[1][:30])  # killed in the middle of its second line
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # a torn last line is no news
        assert cache.states([1, 2]) == {1: "fetched", 2: "not_fetched"}
        cache.fold()
    assert not orphan.exists() and icos_of(cache)["id"].tolist() == [1]
    # a broken line that is not the last one is reported, and the rest is kept
    orphan.write_bytes(b"not an event\n" + lines[1])
    with pytest.warns(CacheWarning, match="1 unreadable line"):
        assert Cache(tmp_path, URL).states([1, 2]) == {1: "fetched", 2: "fetched"}
