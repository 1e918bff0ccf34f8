"""The raw store of one service, directly on a real ``cache.sqlite3`` in ``tmp_path`` at
fixed simulated times: what mutants of store/cache.py survived
(``make mutate MODULE=store:cache``).

A service's folder is named after its address; a list answer is kept under a digest of
its parameters with its raw items, parsed frame, completeness, failed pages, problems
and fetch time, and read back as kept (or parsed again from the raw when the frame no
longer reads, or removed with a warning when neither reads); the filter set is never
dropped with the lists; counts say what is stored; copies are read in version order.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import time_machine

from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.parse.lists import filters_frame, list_frame
from icoframes.store import cache as cache_module
from icoframes.store.cache import (
    FILTER_SET,
    Cache,
    ProfileRecord,
    _namespace,
)
from icoframes.store.rows import _utf8

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
URL = "http://127.0.0.1:9"
FILTERS = {"platform": [{"id": "1", "name": "Ethereum"}], "category": [],
           "type": [{"id": 3, "name": "Token"}], "location": [{"name": "Malta"}]}


def _at(when: dt.datetime) -> time_machine.travel:
    return time_machine.travel(when, tick=False)


@pytest.fixture
def cache(tmp_path: Path) -> Cache:
    return Cache(tmp_path, URL)


def _items(n: int = 3) -> list[dict]:
    directory = sandbox.generate_directory(n, seed=2)
    return [directory.summary(i) for i in directory.ids()]


def _sql(cache: Cache, sql: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(cache.path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize(("address", "folder"), [
    ("http://127.0.0.1:8000", "127.0.0.1_8000"),
    ("http://example.org", "example.org_80"),
    ("https://example.org", "example.org_443"),
    ("https://example.org:8443/api/v1/", "example.org_8443_api_v1"),
    ("http://[::1]:8000", "__1_8000"),
    ("http://:8000", "local_8000"),
    ("sandbox-0-1000-0123abcd", "sandbox-0-1000-0123abcd"),
])
def test_a_service_folder_is_named_after_its_address(tmp_path, address, folder):
    assert _namespace(address) == folder
    cache = Cache(str(tmp_path), address)
    assert cache.dir == tmp_path / folder and cache.path == tmp_path / folder / "cache.sqlite3"
    assert cache.tables_dir == tmp_path / folder / "tables"
    assert repr(cache) == f"Cache({str(tmp_path / folder)!r})"


def test_text_is_kept_as_valid_utf8():
    assert _utf8(None) is None and _utf8("plain") == "plain" and _utf8("Zürich") == "Zürich"
    assert _utf8("a\ud800b") == "a\\ud800b"


def test_a_list_is_kept_with_everything_said_about_it_and_read_back(cache):
    items = _items()
    frame = list_frame(items, status="past")
    params = {"status": "past", "page_size": 20}
    problems = [{"ico_id": 1, "field": "x", "reason": "wrong_type"}]
    with _at(T0):
        cache.write_list(params, items, frame, total_icos=40, problems=problems,
                         complete=False, failed_pages={2: "HTTP 500"})
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:24]
    assert Cache.list_key({"page_size": 20, "status": "past"}) == key
    [row] = _sql(cache, "SELECT key, params, total_icos, complete, failed_pages, problems, "
                        "fetched_at FROM lists")
    assert row == (key, '{"status":"past","page_size":20}', 40, 0, '{"2":"HTTP 500"}',
                   json.dumps(problems, separators=(",", ":")), int(T0.timestamp() * 1000))
    stored = cache.read_list(params)
    assert stored is not None
    pd.testing.assert_frame_equal(stored.frame, frame)
    assert stored.fetched_at == T0 and stored.raw == items
    assert stored.meta == {"params": params, "total_icos": 40, "complete": False,
                           "failed_pages": {"2": "HTTP 500"}, "problems": problems,
                           "items": 3}
    assert cache.read_list({"status": "ongoing"}) is None


def test_a_list_kept_without_a_word_is_complete_with_nothing_failed(cache):
    items = _items(2)
    cache.write_list({"status": "past"}, items, list_frame(items, status="past"), total_icos=2)
    stored = cache.read_list({"status": "past"})
    assert stored is not None
    assert stored.meta == {"params": {"status": "past"}, "total_icos": 2, "complete": True,
                           "failed_pages": {}, "problems": [], "items": 2}


def test_a_list_marked_sorted_otherwise_reads_complete_until_written_again(cache):
    """Marked, the list's row holds sorted_otherwise 1 beside its complete 1, and its meta
    says so; only the row of the paging stamped as given is marked (not one written since,
    nor a partial one); the next write of the list clears the mark."""
    items, params = _items(2), {"status": "past", "sort_asc": "end_datetime"}
    frame = list_frame(items, status="past")
    cache.write_list(params, items, frame, total_icos=2, fetched_at=T0)
    assert cache.mark_sorted_otherwise(params, T0 - dt.timedelta(milliseconds=1)) is False
    assert _sql(cache, "SELECT complete, sorted_otherwise FROM lists") == [(1, None)]
    assert cache.mark_sorted_otherwise(params, T0) is True
    stored = cache.read_list(params)
    assert stored is not None and stored.meta["sorted_otherwise"] is True
    assert stored.meta["complete"] is True
    assert _sql(cache, "SELECT complete, sorted_otherwise FROM lists") == [(1, 1)]
    cache.write_list(params, items, frame, total_icos=2, fetched_at=T0)
    stored = cache.read_list(params)
    assert stored is not None and "sorted_otherwise" not in stored.meta
    assert _sql(cache, "SELECT complete, sorted_otherwise FROM lists") == [(1, None)]
    cache.write_list(params, items, frame, total_icos=3, complete=False, fetched_at=T0)
    assert cache.mark_sorted_otherwise(params, T0) is False
    assert _sql(cache, "SELECT complete, sorted_otherwise FROM lists") == [(0, None)]


def test_a_list_whose_frame_no_longer_reads_is_parsed_again_from_its_items(cache):
    items = _items()
    cache.write_list({"status": "past"}, items, list_frame(items, status="past"), total_icos=3)
    with cache.write() as conn:
        conn.execute("UPDATE lists SET frame = ?", (b"not arrow",))
    stored = cache.read_list({"status": "past"})
    assert stored is not None
    pd.testing.assert_frame_equal(stored.frame, list_frame(items, status="past"))
    assert stored.frame["status"].eq("past").all()


def test_an_answer_that_does_not_read_at_all_is_removed_with_a_warning(cache):
    items = _items()
    cache.write_list({"status": "past"}, items, list_frame(items, status="past"), total_icos=3)
    key = Cache.list_key({"status": "past"})
    with cache.write() as conn:
        conn.execute("UPDATE lists SET params = 'not json'")
    with pytest.warns(CacheWarning) as caught:
        assert cache.read_list({"status": "past"}) is None
    assert [str(w.message) for w in caught] == [
        f"icoframes cache: the stored list answer {key} is unreadable (JSONDecodeError); it was "
        "removed and is fetched again"]
    assert _sql(cache, "SELECT count(*) FROM lists") == [(0,)]


def test_the_filter_set_is_kept_and_read_back_and_parsed_again_when_needed(cache):
    assert cache.read_filters() is None
    frame = filters_frame(FILTERS)
    with _at(T0):
        cache.write_filters(FILTERS, frame, problems=[{"field": "filters.id"}])
    stored = cache.read_filters()
    assert stored is not None
    pd.testing.assert_frame_equal(stored.frame, frame)
    assert stored.raw == FILTERS and stored.fetched_at == T0
    assert stored.meta == {"params": FILTER_SET, "total_icos": None, "complete": True,
                           "failed_pages": {}, "problems": [{"field": "filters.id"}]}
    assert _sql(cache, "SELECT key FROM lists") == [(FILTER_SET,)]
    with cache.write() as conn:
        conn.execute("UPDATE lists SET frame = ?", (b"\x00" * 8,))
    again = cache.read_filters()
    assert again is not None
    pd.testing.assert_frame_equal(again.frame, frame)


def test_dropping_lists_keeps_the_filter_set_and_what_was_fetched_since(cache):
    assert cache.drop_lists(fetched_before=T0) == []
    assert not cache.dir.exists()  # nothing made to drop nothing
    items = _items(1)
    frame = list_frame(items, status="past")
    with _at(T0 - dt.timedelta(days=3)):
        cache.write_filters(FILTERS, filters_frame(FILTERS))
        cache.write_list({"status": "past"}, items, frame, total_icos=1)
    with _at(T0):
        cache.write_list({"status": "ongoing"}, items, frame, total_icos=1)
    assert cache.drop_lists(fetched_before=T0) == [Cache.list_key({"status": "past"})]
    assert sorted(row[0] for row in _sql(cache, "SELECT key FROM lists")) == sorted(
        [FILTER_SET, Cache.list_key({"status": "ongoing"})])
    assert cache.drop_lists(fetched_before=T0) == []  # fetched exactly then: kept


def test_counts_say_what_is_stored(cache):
    assert cache.counts() == {"states": {"fetched": 0, "gone": 0, "failed": 0, "not_fetched": 0},
                              "list_queries": 0, "oldest": None, "newest": None}
    items = _items(4)
    ids = [item["id"] for item in items]
    with _at(T0):
        cache.write_filters(FILTERS, filters_frame(FILTERS))
        cache.write_list({"status": "past"}, items, list_frame(items, status="past"),
                         total_icos=4)
        cache.record(ProfileRecord(ids[0], "past", "s", "{}"))
    with _at(T0 + dt.timedelta(hours=1)):
        cache.record(ProfileRecord(ids[1], None, None, None, state="gone"),
                     ProfileRecord(ids[2], None, None, None, state="failed", reason="HTTP 500"))
    assert cache.counts() == {"states": {"fetched": 1, "gone": 1, "failed": 1, "not_fetched": 1},
                              "list_queries": 1, "oldest": T0,
                              "newest": T0 + dt.timedelta(hours=1)}


def test_a_record_needs_a_known_state_and_a_fetched_one_its_text(cache):
    with pytest.raises(ValueError, match=r"^state must be fetched, gone or failed, not 'lost'$"):
        cache.record(ProfileRecord(1, None, None, None, state="lost"))
    with pytest.raises(ValueError, match=r"^a fetched profile needs its raw text \(id 7\)$"):
        cache.record(ProfileRecord(7, "past", "s", None))
    assert cache.version() == 0


def test_the_last_failure_recorded_sets_its_time_even_an_earlier_one(cache):
    given = []

    def stamp(failures: int) -> dt.datetime:  # the failures in a row the record makes
        given.append(failures)
        return T0 + dt.timedelta(minutes={1: 10, 2: 5, 3: 20, 6: 30}[failures])

    failure = ProfileRecord(1, "past", "s", None, state="failed", reason="HTTP 500")

    def kept() -> list[tuple]:
        return _sql(cache, "SELECT attempts, failed_at FROM profiles")

    def minutes(n: int) -> int:
        return int(T0.timestamp() * 1000) + n * 60_000

    with _at(T0 + dt.timedelta(minutes=40)):
        cache.record(failure, failed_at=stamp)
        assert kept() == [(1, minutes(10))]
        cache.record(failure, failed_at=stamp)  # an earlier time (a load begun before)
        assert kept() == [(2, minutes(5))]
        cache.record(failure, failed_at=stamp)  # a later one
        assert kept() == [(3, minutes(20))]
        cache.record(failure, failed_at=lambda _: T0 + dt.timedelta(minutes=15))  # earlier
        assert kept() == [(4, minutes(15))]
    with _at(T0 + dt.timedelta(minutes=100)):
        cache.record(failure)  # now
        assert kept() == [(5, minutes(100))]
    with _at(T0 + dt.timedelta(minutes=99)):  # a clock set back: the kept time is ahead
        cache.record(failure, failed_at=stamp)
    assert kept() == [(6, minutes(30))] and given == [1, 2, 3, 6]
    with _at(T0):
        cache.record(ProfileRecord(1, "past", "s", "{}"))  # a copy: no failure kept
        cache.record(failure, failed_at=stamp)
    assert kept() == [(1, minutes(10))] and given == [1, 2, 3, 6, 1]


def test_a_failure_keeps_the_copy_and_counts_until_a_copy_arrives(cache):
    with _at(T0):
        assert cache.record(ProfileRecord(1, "past", "old", '{"id": 1}')) == [1]
    with _at(T0 + dt.timedelta(hours=1)):
        assert cache.record(ProfileRecord(1, "ongoing", "x", None, state="failed",
                                          reason="HTTP 500"),
                            ProfileRecord(2, "ongoing", "y", None, state="failed",
                                          reason="HTTP 502")) == [0, 0]
    with _at(T0 + dt.timedelta(hours=2)):
        cache.record(ProfileRecord(1, "upcoming", "z", None, state="failed", reason="timeout"),
                     ProfileRecord(2, "past", "w", None, state="failed", reason="HTTP 503"))
    assert _sql(cache, "SELECT id, state, status, summary, raw, fetched_at, version, reason, "
                       "attempts, failed_at FROM profiles ORDER BY id") == [
        (1, "fetched", "past", "old", '{"id": 1}', int(T0.timestamp() * 1000), 1, "timeout", 2,
         int(T0.timestamp() * 1000) + 2 * 3600_000),
        (2, "failed", "past", None, None, None, None, "HTTP 503", 2,
         int(T0.timestamp() * 1000) + 2 * 3600_000)]
    with _at(T0 + dt.timedelta(hours=3)):
        assert cache.record(ProfileRecord(2, None, None, None, state="gone"),
                            ProfileRecord(1, "past", "new", '{"id": 1, "v": 2}')) == [2, 3]
    assert _sql(cache, "SELECT id, state, raw, version, reason, attempts, failed_at "
                       "FROM profiles ORDER BY id") == [
        (1, "fetched", '{"id": 1, "v": 2}', 3, None, 0, None), (2, "gone", None, 2, None, 0, None)]
    assert cache.version() == 3


def test_copies_are_read_in_version_order_in_batches(cache):
    for i in (5, 3, 9):
        cache.record(ProfileRecord(i, "past", "s", f'{{"id": {i}}}'))
    cache.record(ProfileRecord(4, "past", "s", None, state="failed", reason="HTTP 500"))
    cache.record(ProfileRecord(3, "past", "s", '{"id": 3, "v": 2}'))
    with cache.snapshot() as snap:
        assert (snap.version, snap.removed) == (4, 0)
        batches = list(snap.copies(1, batch=1))
        assert [b.column("id").to_pylist() for b in snap.copies(0, batch=2)] == [[5, 9], [3]]
        assert [b.num_rows for b in snap.copies()] == [3]
    assert [b.column("id").to_pylist() for b in batches] == [[9], [3]]
    assert [b.column("version").to_pylist() for b in batches] == [[3], [4]]
    assert batches[1].column("raw").to_pylist() == ['{"id": 3, "v": 2}']
    assert batches[1].column("fetched_at").type.tz == "UTC"
    with Cache(cache.root, "http://127.0.0.1:10").snapshot() as empty:
        assert (empty.version, empty.removed, list(empty.copies())) == (0, 0, [])


def test_quarantine_removes_the_copies_and_counts_a_removal(cache):
    for i in range(1, 13):
        cache.record(ProfileRecord(i, "past", "s", "{}"))
    cache.quarantine({}, "not JSON")  # nothing to do: no write, no warning
    with cache.snapshot() as snap:
        assert snap.removed == 0
    with pytest.warns(CacheWarning) as caught:
        # (each id's version, the copy found unreadable: ids 1 to 12 were kept as 1 to 12)
        cache.quarantine({i: i for i in [12, 3, 1, 2, 4, 5, 6, 7, 8, 9, 10, 3]}, "not JSON")
    assert [str(w.message) for w in caught] == [
        "icoframes cache: 11 stored profile(s) could not be read (not JSON); they were removed "
        "and will be fetched again: ids [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"]
    with cache.snapshot() as snap:
        assert (snap.version, snap.removed) == (13, 13)
    assert list(cache.profile_index().index) == [11]
    with cache.claims() as claims:  # 11 arrived after version 10, 12 was removed
        assert claims.claim([11, 12], arrived_since=10) == ([12], [], [11])


def test_a_kept_frame_is_read_as_it_was_kept_never_parsed_again(cache):
    # a warm read decodes the frame only: the items are parsed again only when the frame
    # no longer reads (here the kept frame says something the items do not)
    items = _items()
    frame = list_frame(items, status="past")
    frame.loc[0, "name"] = "Kept"
    cache.write_list({"status": "past"}, items, frame, total_icos=3)
    stored = cache.read_list({"status": "past"})
    assert stored is not None and stored.meta["items"] == 3
    pd.testing.assert_frame_equal(stored.frame, frame)
    filters = filters_frame(FILTERS)  # the filter set's raw is no list: not counted either
    filters.loc[0, "name"] = "Kept"
    cache.write_filters(FILTERS, filters)
    kept = cache.read_filters()
    assert kept is not None and "items" not in kept.meta
    pd.testing.assert_frame_equal(kept.frame, filters)


def test_a_frame_is_decoded_once_for_its_bytes_and_every_read_gets_its_own(cache,
                                                                          monkeypatch):
    """A load answered from the cache reads every list cached since its source, each load:
    the frame decoded is kept for the bytes it was decoded from. A read changed in place by
    its caller changes no later read; a list kept again under its key reads as kept now."""
    decoded: list[str] = []
    decode = cache_module.frame_from_arrow
    monkeypatch.setattr(cache_module, "frame_from_arrow",
                        lambda schema, *a, **k: decoded.append(schema.name) or decode(schema, *a,
                                                                                      **k))
    items = _items()
    first = list_frame(items, status="past")
    cache.write_list({"status": "past"}, items, first, total_icos=3)
    read = cache.read_list({"status": "past"})
    assert read is not None and decoded == ["list"]
    read.frame.loc[0, "name"] = "Changed"
    again = cache.read_list({"status": "past"})
    assert again is not None and decoded == ["list"]  # not decoded again
    pd.testing.assert_frame_equal(again.frame, first)
    second = first.copy()
    second.loc[1, "name"] = "Renamed"
    cache.write_list({"status": "past"}, items, second, total_icos=3)
    now = cache.read_list({"status": "past"})
    assert now is not None and decoded == ["list", "list"]
    pd.testing.assert_frame_equal(now.frame, second)


def test_text_is_kept_unescaped_and_a_lists_key_stays_the_same_across_versions(cache):
    items = _items(1)
    items[0] = {**items[0], "name": "Café ☕"}
    params = {"status": "past", "name": "Café"}
    cache.write_list(params, items, list_frame(items, status="past"), total_icos=1)
    stored = cache.read_list(params)
    assert stored is not None and "Café ☕" in stored.raw_text
    canonical = json.dumps(params, sort_keys=True, ensure_ascii=False)
    assert Cache.list_key(params) == hashlib.sha256(canonical.encode()).hexdigest()[:24]
    [(raw_params,)] = _sql(cache, "SELECT params FROM lists")
    assert raw_params == '{"status":"past","name":"Café"}'


def test_one_cache_checks_its_folders_once_and_the_next_cache_again(tmp_path):
    # a Cache (one per load) checks the folders when it first opens its database, not at
    # every call (its database checks them again when it opens its file anew)
    cache = Cache(tmp_path / "cache", URL)
    assert cache.record(ProfileRecord(1, "past", "s", "{}")) == [1]
    cache.dir.chmod(0o777)  # opened to others while this load runs
    assert cache.version() == 1 and cache.record(ProfileRecord(2, "past", "s", "{}")) == [2]
    with pytest.raises(CacheError, match=r"cache folder .* others may write to it \(mode 777"):
        Cache(tmp_path / "cache", URL).version()  # the next load is refused


def test_dropping_lists_of_a_folder_without_a_database_makes_none(cache):
    cache.dir.mkdir(parents=True, mode=0o700)
    cache.root.chmod(0o700)
    assert cache.drop_lists(fetched_before=T0) == []
    assert not cache.path.exists()


def test_the_profile_index_has_the_declared_text_dtype_empty_or_not(cache):
    from icoframes.schema import TEXT_DTYPE

    for _ in range(2):  # nothing stored yet, then one copy and one failure
        index = cache.profile_index()
        assert [str(index[c].dtype) for c in ("status", "summary", "state", "reason")] == [
            str(TEXT_DTYPE)] * 4
        cache.record(ProfileRecord(1, "past", "s", "{}"),
                     ProfileRecord(2, "past", None, None, state="failed", reason="HTTP 500"))


def test_syncing_or_recording_nothing_makes_and_counts_nothing(cache):
    assert cache.database(write=False) is None  # nothing to sync
    assert cache.read_list({"status": "past"}) is None and cache.read_filters() is None
    assert not cache.dir.exists()
    assert cache.record() == []  # no copy: no version


def test_record_gives_each_outcome_its_version_in_one_transaction(tmp_path):
    # a load keeps the profiles that arrived together in one transaction, and needs each
    # one's version (its derived tables take the decoded copy of that version only)
    cache = Cache(tmp_path / "cache", URL)
    versions = cache.record(
        ProfileRecord(1, "past", "s", '{"id": 1}'),
        ProfileRecord(2, "past", "s", None, state="failed", reason="HTTP 500"),
        ProfileRecord(3, "past", None, None, state="gone"),
        ProfileRecord(1, "past", "s", '{"id": 1, "v": 2}'))
    assert versions == [1, 0, 2, 3] and cache.version() == 3
    index = cache.profile_index()
    assert index["state"].tolist() == ["fetched", "failed", "gone"]
    assert index["version"].tolist() == [3, pd.NA, 2]
    assert cache.record() == [] and cache.version() == 3
    # a record that cannot be kept rolls back the others of its transaction
    with pytest.raises(ValueError, match="raw text"):
        cache.record(ProfileRecord(4, "past", "s", "{}"), ProfileRecord(5, "past", "s", None))
    assert cache.version() == 3 and 4 not in cache.profile_index().index


@pytest.mark.parametrize(("raw", "listed"), [
    ('[{"id": 7', 0), ('{"id": 7}', 0), ('["x", 7, null, [8], {"id": "y"}, {"id": 8}]', 1)])
def test_counts_read_around_a_stored_list_that_is_no_list_of_items(cache, raw, listed):
    # a list answer that does not read is removed, with a warning, when the load reads it;
    # until then cache_info counts the ids of the items that are objects, and never fails
    items = _items(1)
    cache.write_list({"status": "past"}, items, list_frame(items, status="past"), total_icos=1)
    with cache.write() as conn:
        conn.execute("UPDATE lists SET raw = ?", (raw,))
    assert cache.counts() == {"states": {"fetched": 0, "gone": 0, "failed": 0,
                                         "not_fetched": listed},
                              "list_queries": 1, "oldest": None, "newest": None}
