"""The store: profiles, fetch states and claims in SQLite; real files, real processes, kills."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pandas as pd
import pyarrow as pa
import time_machine
from waiting import HANG_GUARD, run_together

import icoframes
from icoframes import sandbox
from icoframes.cachedir.housekeeping import info
from icoframes.parse.lists import list_frame
from icoframes.schema import ICOS
from icoframes.store import claims as claims_module
from icoframes.store.cache import Cache, ProfileRecord
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


def states(cache: Cache, ids: list[int]) -> dict[int, str]:
    """The fetch state of each id (``not_fetched``: no outcome), from the profile index."""
    index = cache.profile_index()["state"]
    return {i: index.get(i, "not_fetched") for i in ids}


def latest_records(cache: Cache) -> pa.Table:
    """Every copy in use (fetched and gone), raw text included, in version order."""
    with cache.snapshot() as snap:
        return pa.concat_tables(list(snap.copies()))


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
            if not line:  # reaped here: a zombie left behind is some other waiter's child
                self.proc.wait(timeout=HANG_GUARD)
                raise AssertionError(f"the child failed: {self.proc.stderr.read()}")
            if line.strip() == "ready":
                break
            self.lines.append(line.strip())

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


def test_a_recorded_profile_survives_a_sigkill_at_once(tmp_path):
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        seven = json.dumps({"id": 7, "main": {"name": "Seven"}})
        cache.record(ProfileRecord(7, "past", "k7", seven))
        cache.record(ProfileRecord(8, "past", "k8", None, state="failed", reason="HTTP 500"))
    """)
    cache = Cache(tmp_path, URL)
    try:  # live: visible at once, in the tables too
        assert states(cache, [7, 8, 9]) == {7: "fetched", 8: "failed", 9: "not_fetched"}
        assert icos_of(cache)["name"].tolist() == ["Seven"]
    finally:
        child.kill()
    index = Cache(tmp_path, URL).profile_index()
    assert index.loc[7, ["summary", "state", "attempts"]].tolist() == ["k7", "fetched", 0]
    assert index.loc[8, ["state", "reason", "attempts"]].tolist() == ["failed", "HTTP 500", 1]
    icos = icos_of(Cache(tmp_path, URL))
    assert icos["id"].tolist() == [7] and icos["name"].tolist() == ["Seven"]
    assert states_of(tmp_path) == {"fetched": 1, "gone": 0, "failed": 1, "not_fetched": 0}


def states_of(root: Path) -> dict[str, int]:
    return info(Cache(root, URL), None).states


def test_the_tables_follow_a_live_process(tmp_path):
    cache = Cache(tmp_path, URL)
    cache.record(fetched(1, "One"))
    assert icos_of(cache)["id"].tolist() == [1]
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        print("ready", flush=True)
        for line in sys.stdin:  # one profile per line, acknowledged once kept
            ico_id, name = json.loads(line)
            cache.record(ProfileRecord(ico_id, "past", "s",
                                       json.dumps({"id": ico_id, "main": {"name": name}})))
            print("kept", flush=True)
    """)
    try:
        for ico_id, name in [(2, "Two"), (1, "One again")]:
            child.proc.stdin.write(json.dumps([ico_id, name]) + "\n")
            child.proc.stdin.flush()
            assert child.proc.stdout.readline().strip() == "kept"
            icos = icos_of(cache)
        assert icos.set_index("id")["name"].to_dict() == {1: "One again", 2: "Two"}
    finally:
        child.kill()


def _arrived_since(cache, ids, version):
    with cache.claims() as claims:  # (what a crawl asks as it claims ids: released here)
        return set(claims.claim(ids, arrived_since=version)[2])


def test_a_copy_arrived_since_a_version_whoever_kept_it(tmp_path):
    cache = Cache(tmp_path, URL)
    cache.record(fetched(1, "One"))
    planned = cache.version()
    assert cache.record(fetched(2, "Two")) == [planned + 1]
    assert cache.record(failed(3, "HTTP 500")) == [0]  # a failure is no copy: no new version
    assert cache.version() == planned + 1
    assert _arrived_since(cache, [1, 2, 3, 4, 5], planned) == {2}
    child = Child(tmp_path, """
        cache = Cache(cache_dir, URL)
        cache.record(ProfileRecord(4, "past", "s", json.dumps({"id": 4})))
        cache.record(ProfileRecord(5, "past", "s", None, state="failed", reason="HTTP 500"))
        cache.record(ProfileRecord(1, "past", "s", None, state="gone"))
    """)
    try:
        assert _arrived_since(cache, [1, 2, 3, 4, 5], planned) == {1, 2, 4}
        assert _arrived_since(cache, [1, 2, 3, 4, 5], cache.version()) == set()
    finally:
        child.kill()


def at(*args: int) -> time_machine.travel:
    return time_machine.travel(dt.datetime(*args, tzinfo=UTC), tick=False)


def test_the_latest_copy_is_the_last_recorded_whatever_the_clock(tmp_path):
    cache = Cache(tmp_path, URL)

    def used() -> tuple[str, pd.Timestamp]:
        row = Cache(tmp_path, URL).profile_index().loc[5]
        records = latest_records(Cache(tmp_path, URL))
        raw = json.loads(records.column("raw").to_pylist()[0])
        icos = icos_of(Cache(tmp_path, URL))
        assert icos["name"].tolist() == [raw["main"]["name"]]
        assert icos["fetched_at"].iloc[0] == row["fetched_at"]
        return raw["main"]["name"], row["fetched_at"]

    with at(2026, 1, 2):
        cache.record(fetched(5, "A"))
    with at(2025, 1, 1):  # the clock stepped back a year
        cache.record(fetched(5, "B"))
    assert used() == ("B", pd.Timestamp("2025-01-01", tz="UTC"))
    with at(2027, 1, 1):  # then forward
        cache.record(fetched(5, "C"))
    with at(2024, 6, 1):
        cache.record(fetched(5, "D"))
    assert used() == ("D", pd.Timestamp("2024-06-01", tz="UTC"))
    Child(tmp_path, """
        Cache(cache_dir, URL).record(ProfileRecord(5, "past", "s", json.dumps(
            {"id": 5, "main": {"name": "E"}})))
    """).kill()  # another process, with the real clock (later than all of them but 2027)
    assert used()[0] == "E"


def test_fetch_states_count_failures_until_a_copy_arrives(tmp_path):
    cache = Cache(tmp_path, URL)
    with at(2026, 2, 1):
        cache.record(fetched(1, "One", summary="k1"))
        cache.record(ProfileRecord(2, "past", "k2", None, state="gone"))
        cache.record(failed(3, "HTTP 500"))
        cache.record(failed(3, "not JSON"))
        cache.record(fetched(4, "Four", summary="k4"))
    with at(2026, 2, 2):
        cache.record(failed(4, "id mismatch"))  # a failure never replaces a copy
    index = cache.profile_index()
    assert index.index.tolist() == [1, 2, 3, 4]
    assert index["state"].tolist() == ["fetched", "gone", "failed", "fetched"]
    assert index["attempts"].tolist() == [0, 0, 2, 1]
    assert index["reason"].tolist()[2:] == ["not JSON", "id mismatch"]
    assert index["reason"].iloc[:2].isna().all()
    assert pd.isna(index.loc[3, "summary"]) and pd.isna(index.loc[3, "fetched_at"])
    assert index.loc[4, ["summary", "fetched_at", "failed_at"]].tolist() == [
        "k4", pd.Timestamp("2026-02-01", tz="UTC"), pd.Timestamp("2026-02-02", tz="UTC")]
    assert str(index["fetched_at"].dtype) == "datetime64[ms, UTC]"
    assert index["attempts"].dtype == "int64"
    assert states(cache, [4, 3, 99]) == {4: "fetched", 3: "failed", 99: "not_fetched"}

    items = [{"id": i, "main": {"name": f"n{i}"}} for i in range(1, 7)]
    cache.write_list({"status": "past"}, items, list_frame(items, status="past"), total_icos=6)
    assert states_of(tmp_path) == {"fetched": 2, "gone": 1, "failed": 1, "not_fetched": 2}

    cache.record(fetched(3, "Three"))  # a success resets the count
    cache.record(failed(2, "HTTP 502"))
    index = Cache(tmp_path, URL).profile_index()
    assert index.loc[3, ["state", "attempts"]].tolist() == ["fetched", 0]
    assert pd.isna(index.loc[3, "reason"])
    assert index.loc[2, ["state", "attempts", "reason"]].tolist() == ["gone", 1, "HTTP 502"]
    assert icos_of(cache)["id"].tolist() == [1, 4, 3]  # not the gone one, in version order
    found = info(Cache(tmp_path, URL), None)
    assert found.states == {"fetched": 3, "gone": 1, "failed": 0, "not_fetched": 2}
    assert (found.profiles, found.listed_without_profile) == (3, 1)


def test_claims_are_disjoint_and_a_killed_claimer_loses_them_at_once(tmp_path, monkeypatch):
    # leases (20 s) out of reach: the child's start (tens of seconds at a load average of 30)
    # must not let the claims made before it lapse; a killed claimer's go at once anyway
    monkeypatch.setattr(claims_module, "LEASE", HANG_GUARD)
    cache = Cache(tmp_path, URL)
    with cache.claims() as first, cache.claims() as second:
        assert first.claim([1, 2, 3]) == ([1, 2, 3], [], [])
        assert second.claim([3, 4]) == ([4], [3], [])
        assert first.claim([3, 1]) == ([3, 1], [], [])  # held already
        child = Child(tmp_path, f"""
            import icoframes.store.claims
            icoframes.store.claims.LEASE = {HANG_GUARD!r}
            claims = Cache(cache_dir, URL).claims()
            print(json.dumps(claims.claim([4, 5, 6])), flush=True)
        """)
        try:
            assert json.loads(child.lines[0]) == [[5, 6], [4], []]
            assert first.claim([5, 6, 7]) == ([7], [5, 6], [])
        finally:
            child.kill()
        assert first.claim([5, 6]) == ([5, 6], [], [])  # the killed claimer's ids are free
        second.release([4])
        assert first.claim([4]) == ([4], [], [])
        assert second.claim(range(1, 8)) == ([], [1, 2, 3, 4, 5, 6, 7], [])
        first.close()
        assert second.claim([1, 2]) == ([1, 2], [], [])
    with cache.claims() as third:  # closed claims hold nothing
        assert third.claim([1, 2, 4]) == ([1, 2, 4], [], [])
        # a copy kept since a version is not claimed: there is nothing to fetch
        planned = cache.version()
        cache.record(fetched(9, "Nine"))
        assert third.claim([8, 9], arrived_since=planned) == ([8], [], [9])


def test_a_stopped_claimers_leases_lapse_and_a_renewing_one_keeps_them(tmp_path):
    cache = Cache(tmp_path, URL)
    child = Child(tmp_path, """
        claims = Cache(cache_dir, URL).claims()
        print(json.dumps(claims.claim([1, 2])), flush=True)
    """)
    try:
        child.proc.send_signal(signal.SIGSTOP)  # alive, holding its claims, silent
        with cache.claims() as mine:
            assert mine.claim([1, 2, 3]) == ([3], [1, 2], [])
            later = dt.datetime.now(UTC) + dt.timedelta(seconds=mine.lease)
            with time_machine.travel(later):  # the stopped claimer's leases have lapsed
                assert mine.claim([1, 2]) == ([1, 2], [], [])
                mine.renew()  # this live one renews its own in time
            with time_machine.travel(later + dt.timedelta(seconds=mine.lease / 2)), \
                    cache.claims() as other:
                assert other.claim([1, 2, 3]) == ([], [1, 2, 3], [])
            with time_machine.travel(later + dt.timedelta(seconds=mine.lease + 1)), \
                    cache.claims() as other:  # not renewed for longer than a lease
                assert other.claim([1, 2, 3]) == ([1, 2, 3], [], [])
    finally:
        child.proc.send_signal(signal.SIGCONT)
        child.kill()


def test_icos_fetched_at_is_when_the_copy_in_use_was_fetched(tmp_path):
    cache = Cache(tmp_path, URL)
    with at(2026, 3, 4, 5, 6, 7, 890000):
        cache.record(fetched(1, "One"))
    with at(2026, 3, 5):
        cache.record(fetched(2, "Two"))
    with at(2026, 3, 6):
        cache.record(failed(1, "HTTP 500"))  # the copy in use stays the first one
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


_CRAWLER = """
import json, sys, time
from icoframes.store.cache import Cache, ProfileRecord
cache = Cache(sys.argv[1], sys.argv[2])
planned = cache.version()  # planned with nothing cached: every id is to fetch
print("ready", flush=True)
sys.stdin.readline()  # all three start together
todo, fetched, claim_seconds, claims_made = list(range(int(sys.argv[3]))), 0, 0.0, 0
with cache.claims() as claims:
    while todo:
        batch = todo[:4]  # what a crawl asks for each time worker slots free up
        started = time.perf_counter()
        mine, taken, _ = claims.claim(batch, arrived_since=planned)
        claim_seconds, claims_made = claim_seconds + time.perf_counter() - started, claims_made + 1
        for ico_id in mine:
            raw = json.dumps({"id": ico_id, "main": {"name": sys.argv[4]}})
            cache.record(ProfileRecord(ico_id, "past", "s", raw))
            fetched += 1
        claims.release(mine)
        todo = todo[len(batch):] + taken
print(json.dumps({"fetched": fetched, "claim_ms": 1000 * claim_seconds / claims_made}))
"""


def test_three_processes_sharing_a_cache_dir_record_each_profile_once(tmp_path):
    n = 300
    outcomes = run_together([[sys.executable, "-c", _CRAWLER, str(tmp_path), URL, str(n),
                              f"crawler {k}"] for k in range(3)], cwd=ROOT)
    results = []
    for code, out, err in outcomes:
        assert code == 0, err
        results.append(json.loads(out))
    assert sum(r["fetched"] for r in results) == n
    cache = Cache(tmp_path, URL)
    index = cache.profile_index()  # each id recorded once: n copies, n versions
    assert (index["state"] == "fetched").sum() == n and index["version"].max() == n
    with contextlib.closing(sqlite3.connect(cache.path)) as conn:
        assert conn.execute("SELECT count(*) FROM claims").fetchone() == (0,)
    # shown with -s: how the work split, and what a claim cost under contention
    print("fetched, claim() ms:", [(r["fetched"], round(r["claim_ms"], 3)) for r in results])


def test_records_from_many_threads_lose_nothing(tmp_path):
    cache = Cache(tmp_path, URL)
    go = threading.Barrier(8)

    def fetcher(first: int) -> None:
        go.wait()
        for ico_id in range(first, first + 50):
            cache.record(fetched(ico_id, f"n{ico_id}"))

    threads = [threading.Thread(target=fetcher, args=(k * 50,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = latest_records(Cache(tmp_path, URL))
    assert sorted(records.column("id").to_pylist()) == list(range(400))
    assert sorted(records.column("version").to_pylist()) == list(range(1, 401))
    names = {json.loads(raw)["main"]["name"] for raw in records.column("raw").to_pylist()}
    assert names == {f"n{i}" for i in range(400)}
