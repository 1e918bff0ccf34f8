"""Housekeeping of a cache dir, directly on real folders in ``tmp_path`` with set file
times and a fixed ``now``: what mutants of cachedir/housekeeping.py survived
(``make mutate MODULE=cachedir:housekeeping``; prune's leftovers: test_mutation_cachedir.py).

Sizes count files and links (never a link's target); a folder's last use is its newest
file; a service folder is one holding an entry the cache writes; the whole dir's
description sorts services by last use; a removal reports what it freed and what it
left alone; the 0.1-style dict reads warn; the ledgers go only when asked.
"""

from __future__ import annotations

import datetime as dt
import errno
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest
import time_machine

from icoframes.cachedir.housekeeping import (
    LOCK_NAME,
    TEMP_GRACE,
    USED_MARK,
    CacheInfo,
    CacheReport,
    clear_all,
    describe,
    info,
    last_used,
    mark_used,
    prune,
    remove_folder,
    scan,
)
from icoframes.errors import InvalidParameter
from icoframes.parse.lists import filters_frame
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.ledger import QuotaLedger

NOW = dt.datetime(2030, 1, 10, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)

#: What an age argument takes, as its refusals say it.
_AGE = "a timedelta, a duration such as '7D' or '12h', seconds"


def _file(path: Path, size: int, age: dt.timedelta) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    then = int((NOW - age).timestamp())
    os.utime(path, (then, then))
    return path


def _age(path: Path, age: dt.timedelta) -> None:
    then = int((NOW - age).timestamp())
    os.utime(path, (then, then), follow_symlinks=False)


def test_a_reports_dict_reads_warn_and_as_dict_does_not(tmp_path):
    report = CacheReport(removed=["a"], freed_bytes=3)
    with pytest.warns(FutureWarning) as caught:
        assert report["freed_bytes"] == 3
        assert "removed" in report and "other" not in report
        assert report.get("skipped") == [] and report.get("none", 7) == 7
        assert report.keys() == ["removed", "freed_bytes", "skipped", "missing", "notes"]
        assert report.items()[0] == ("removed", ["a"])
        with pytest.raises(KeyError):
            report["none"]
    assert str(caught[0].message) == (
        "CacheReport['freed_bytes']: reading it as a dict goes in the next version; use its "
        "attributes (info.profiles) or .as_dict()")
    assert [str(w.message).split(":")[0] for w in caught[1:4]] == [
        "CacheReport", "CacheReport", "CacheReport.get('skipped')"]
    assert "CacheReport: 'removed' in it" in str(caught[1].message)
    assert report.as_dict() == {"removed": ["a"], "freed_bytes": 3, "skipped": [],
                                "missing": None, "notes": []}


def test_sizes_count_files_and_links_never_what_a_link_points_to(tmp_path):
    folder = tmp_path / "svc"
    _file(folder / "a", 10, DAY)
    _file(folder / "tables" / "b", 20, DAY)
    _file(tmp_path / "big", 1000, DAY)
    (folder / "tables" / "link").symlink_to(tmp_path / "big")
    (folder / "dirlink").symlink_to(tmp_path)
    [found], other = scan(tmp_path)
    links = len(str(tmp_path / "big")) + len(str(tmp_path))
    assert found.size_bytes == 30 + links and found.name == "svc" and found.path == folder
    assert sorted(p.name for p in other) == ["big"]


def test_last_use_is_the_newest_file_not_a_folder(tmp_path):
    folder = tmp_path / "svc"
    _file(folder / "tables" / "old", 1, 5 * DAY)
    _file(folder / "newer", 1, 3 * DAY)
    _age(folder / "tables", dt.timedelta(0))
    _age(folder, dt.timedelta(0))
    assert last_used(folder) == NOW - 3 * DAY
    empty = tmp_path / "empty"
    empty.mkdir()
    _age(empty, 2 * DAY)
    assert last_used(empty) == NOW - 2 * DAY


def test_what_is_a_service_folder_and_what_is_left_alone(tmp_path):
    for name in ("cache.sqlite3", "tables", LOCK_NAME, USED_MARK, "profiles", "lists",
                 "filters.parquet"):
        _file(tmp_path / f"svc-{name}" / name / "x" if name in ("tables", "profiles", "lists")
              else tmp_path / f"svc-{name}" / name, 1, DAY)
    _file(tmp_path / "notes" / "readme.txt", 1, DAY)
    _file(tmp_path / "quota" / "ledger.sqlite3", 1, DAY)
    _file(tmp_path / ".probe.tmp", 1, DAY)  # no write of the cache leaves one there
    _file(tmp_path / ".write-test-x", 1, DAY)  # the writability probe's
    _file(tmp_path / "file.txt", 1, DAY)
    (tmp_path / "link").symlink_to(tmp_path / "svc-tables")
    folders, other = scan(tmp_path)
    assert len(folders) == 7 and all(f.name.startswith("svc-") for f in folders)
    assert [p.name for p in other] == [".probe.tmp", "file.txt", "link", "notes"]
    assert scan(tmp_path / "none") == ([], [])


def test_describe_sorts_services_by_last_use_and_counts_the_ledgers(tmp_path):
    _file(tmp_path / "old" / USED_MARK, 5, 3 * DAY)
    _file(tmp_path / "new" / USED_MARK, 7, DAY)
    _file(tmp_path / "mid" / USED_MARK, 11, 2 * DAY)
    _file(tmp_path / "notes" / "x", 1, DAY)
    QuotaLedger(tmp_path, "k1").take()
    QuotaLedger(tmp_path, "k2").take()
    ledgers = sum(p.stat().st_size for p in (tmp_path / "quota").iterdir())
    with time_machine.travel(NOW, tick=False):
        described = describe(tmp_path, configured=tmp_path / "mid")
    assert [(s.name, s.age, s.configured) for s in described.services] == [
        ("new", DAY, False), ("mid", 2 * DAY, True), ("old", 3 * DAY, False)]
    assert described.size_bytes == 23 + ledgers
    assert (described.path, described.ledgers, described.other) == (
        str(tmp_path), 2, [str(tmp_path / "notes")])


def test_info_says_what_one_service_holds_and_todays_count(tmp_path):
    cache = Cache(tmp_path, "http://127.0.0.1:9")
    empty = info(cache, None)
    assert empty == CacheInfo(str(cache.dir), 0, 0, 0, 0, None, None,
                              {"fetched": 0, "gone": 0, "failed": 0, "not_fetched": 0})
    with time_machine.travel(NOW, tick=False):
        cache.record(ProfileRecord(1, "past", "s", "{}"), ProfileRecord(2, "past", "s", "{}"),
                     ProfileRecord(3, None, None, None, state="gone"))
        ledger = QuotaLedger(tmp_path, "k", service="x")
        ledger.take()
        found = info(cache, ledger)
        state = ledger.state()
    assert (found.profiles, found.listed_without_profile, found.list_queries) == (2, 1, 0)
    assert found.oldest_profile == found.newest_profile == NOW
    assert found.requests_today == 1 and found.quota == state
    assert found.size_bytes == sum(p.stat().st_size for p in cache.dir.rglob("*")
                                   if p.is_file())


def test_mark_used_touches_the_mark_and_never_through_a_link(tmp_path):
    folder = tmp_path / "svc"
    folder.mkdir()
    victim = _file(tmp_path / "victim", 4, 5 * DAY)
    (folder / USED_MARK).symlink_to(victim)
    mark_used(folder)
    mark = folder / USED_MARK
    assert mark.is_file() and not mark.is_symlink()
    assert stat.S_IMODE(mark.stat().st_mode) == 0o600  # (made new: the link was removed)
    assert victim.read_bytes() == b"xxxx" and victim.stat().st_mtime == (NOW - 5 * DAY).timestamp()
    _age(mark, 2 * DAY)
    mark_used(folder)  # an existing mark: touched (by the file system's clock: not NOW's)
    assert mark.stat().st_mtime != (NOW - 2 * DAY).timestamp()
    linked = tmp_path / "linked"
    linked.symlink_to(folder)
    _age(mark, 3 * DAY)
    mark_used(linked)  # never through a link to the folder either
    assert mark.stat().st_mtime == (NOW - 3 * DAY).timestamp()
    mark_used(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()


def test_remove_folder_reports_what_it_freed_and_the_ledger_it_forgot(tmp_path):
    folder = tmp_path / "svc"
    _file(folder / "tables" / "a.parquet", 10, DAY)
    _file(folder / "cache.sqlite3", 5, DAY)
    ledger = QuotaLedger(tmp_path, "k")
    ledger.take()
    report = remove_folder(folder, ledger=ledger)
    assert report.removed == [str(folder), f"{ledger.path}#{ledger.key}"]
    assert report.freed_bytes == 15 and report.skipped == []
    assert not folder.exists() and ledger.count() == 0
    assert remove_folder(folder, ledger=ledger).removed == []  # gone: nothing to do
    target = tmp_path / "target"
    _file(target / "cache.sqlite3", 3, DAY)
    (tmp_path / "link").symlink_to(target)
    report = remove_folder(tmp_path / "link")
    assert report.removed == [] and report.skipped == [{
        "path": str(tmp_path / "link"),
        "reason": "a symbolic link: never followed out of the cache dir"}]
    assert (target / "cache.sqlite3").exists()


def test_a_report_removes_a_link_as_a_link_and_a_folder_whole(tmp_path):
    target = _file(tmp_path / "target", 9, DAY)
    (tmp_path / "link").symlink_to(target)
    _file(tmp_path / "tree" / "x", 2, DAY)
    report = CacheReport()
    report._remove(tmp_path / "link", 4)
    report._remove(tmp_path / "tree", 2)
    report._remove(tmp_path / "missing", 0)
    assert target.exists() and not (tmp_path / "link").is_symlink()
    assert not (tmp_path / "tree").exists()
    assert report.freed_bytes == 6 and len(report.removed) == 3


def test_prune_keeps_folders_used_since_and_drops_their_old_lists(tmp_path):
    used = Cache(tmp_path, "used")
    with time_machine.travel(NOW - 40 * DAY, tick=False):
        used.write_filters({"platform": []}, filters_frame({"platform": []}))
    _file(used.dir / USED_MARK, 0, dt.timedelta(0))
    _file(tmp_path / "old" / USED_MARK, 3, 31 * DAY)
    _file(tmp_path / "edge" / USED_MARK, 3, 30 * DAY)  # used exactly 30 days ago: kept
    report = prune(tmp_path, 30 * DAY, now=NOW)
    assert report.removed == [str(tmp_path / "old")]
    assert (tmp_path / "edge").is_dir() and used.read_filters() is not None


def test_ledgers_go_only_when_asked_and_after_a_day_at_least(tmp_path):
    _file(tmp_path / "svc" / USED_MARK, 0, dt.timedelta(0))
    for key, when in (("old", NOW - 2 * DAY), ("yesterday", NOW - DAY), ("today", NOW)):
        with time_machine.travel(when, tick=False):
            QuotaLedger(tmp_path, key).take()
    ledgers = QuotaLedger(tmp_path, "any")
    assert prune(tmp_path, 0, now=NOW).removed == [] and ledgers.count() == 3
    report = prune(tmp_path, 0, ledgers=True, now=NOW)  # nothing for a day at least
    assert report.removed == [f"{ledgers.path}#{QuotaLedger(tmp_path, 'old').key}"]
    assert ledgers.count() == 2
    with time_machine.travel(NOW, tick=False):
        assert len(clear_all(tmp_path).removed) == 1 and ledgers.count() == 2
        report = clear_all(tmp_path, ledgers=True)
    assert ledgers.count() == 0 and len(report.removed) == 2


def test_keys_and_items_warn_naming_the_read(tmp_path):
    report = CacheReport(removed=["a"])
    with pytest.warns(FutureWarning) as caught:
        report.keys()
        report.items()
    assert [str(w.message) for w in caught] == [
        f"CacheReport{read}: reading it as a dict goes in the next version; use its "
        "attributes (info.profiles) or .as_dict()" for read in (".keys()", ".items()")]


def test_clearing_everything_reports_every_folder_and_the_ledgers(tmp_path):
    _file(tmp_path / "a" / USED_MARK, 3, DAY)
    _file(tmp_path / "b" / USED_MARK, 4, DAY)
    with time_machine.travel(NOW, tick=False):
        ledger = QuotaLedger(tmp_path, "k")
        ledger.take()
        report = clear_all(tmp_path, ledgers=True)
    assert report.removed == [str(tmp_path / "a"), str(tmp_path / "b"),
                              f"{ledger.path}#{ledger.key}"]
    assert report.freed_bytes == 7 and report.skipped == []


def test_clearing_everything_removes_old_leftovers_of_the_cache_dir_and_keeps_new_ones(
        tmp_path):
    old = _file(tmp_path / "quota" / "ledger.sqlite3.corrupt", 1, 2 * TEMP_GRACE)
    new = _file(tmp_path / ".x.tmp", 1, TEMP_GRACE / 2)
    with time_machine.travel(NOW, tick=False):
        report = clear_all(tmp_path)
    assert report.removed == [str(old)] and not old.exists() and new.exists()


def test_the_size_of_a_cache_dir_without_ledgers_is_its_folders(tmp_path):
    _file(tmp_path / "a" / USED_MARK, 5, DAY)
    with time_machine.travel(NOW, tick=False):
        assert describe(tmp_path).size_bytes == 5


def test_links_and_other_entries_are_reported_and_a_linked_ledger_folder_never_entered(
        tmp_path):
    outside = tmp_path / "outside"
    corrupt = _file(outside / "ledger.sqlite3.corrupt", 1, 40 * DAY)
    root = tmp_path / "cache"
    root.mkdir()
    (root / "quota").symlink_to(outside)
    (root / "link").symlink_to(outside)
    _file(root / "notes.txt", 1, DAY)
    report = prune(root, DAY, now=NOW)
    assert corrupt.exists() and report.removed == []
    assert report.skipped == [
        {"path": str(root / "link"),
         "reason": "a symbolic link: never followed out of the cache dir"},
        {"path": str(root / "notes.txt"), "reason": "not a cache folder"},
        {"path": str(root / "quota"),
         "reason": "a symbolic link: never followed out of the cache dir"}]


def test_prune_refuses_negative_seconds_naming_them():
    from icoframes.errors import InvalidParameter

    with pytest.raises(InvalidParameter) as caught:
        prune(Path("unused"), -5, now=NOW)
    assert str(caught.value) == f"older_than must be {_AGE}, 0 or more; got -5"


@pytest.mark.parametrize("older_than", [float("inf"), float("nan"), 1e300,
                                        (dt.timedelta.max.days + 1) * 86_400])
def test_prune_refuses_seconds_no_timedelta_holds_naming_them(older_than):
    from icoframes.errors import InvalidParameter

    with pytest.raises(InvalidParameter) as caught:  # inf was a bare OverflowError
        prune(Path("unused"), older_than, now=NOW)
    why = " (more seconds than a timedelta holds: below 8.64e+13)" if older_than < math.inf else ""
    assert str(caught.value) == (  # (NaN < inf is False: NaN gets no reason either)
        f"older_than must be {_AGE}, 0 or more; got {older_than!r}{why}")


def test_prune_takes_numpy_seconds_as_it_takes_python_ones(tmp_path):
    folder = tmp_path / "127.0.0.1_8000" / "tables"
    _file(folder / "icos.parquet", 1, 3 * DAY)
    kept = prune(tmp_path, np.int64(4 * 86_400), now=NOW)  # InvalidParameter before
    assert kept.removed == [] and kept.skipped == []
    assert prune(tmp_path, np.timedelta64(2, "D"), now=NOW).removed == [str(folder.parent)]


def test_prune_with_an_age_longer_than_the_epoch_removes_nothing_old(tmp_path):
    folder = tmp_path / "127.0.0.1_8000" / "tables"
    _file(folder / "icos.parquet", 1, 40 * 365 * DAY)
    _age(folder, 40 * 365 * DAY)
    _age(folder.parent, 40 * 365 * DAY)
    longest = (dt.timedelta.max.days + 1) * 86_400 - 1
    for older_than in (dt.timedelta.max, longest, NOW - dt.datetime(1970, 1, 2, tzinfo=dt.UTC)):
        assert prune(tmp_path, older_than, now=NOW).removed == []  # OverflowError before
    # the lock the first prune made is no use: the folder was last used 40 years ago
    assert (folder.parent / LOCK_NAME).exists()
    assert prune(tmp_path, 39 * 365 * DAY, now=NOW).removed == [str(folder.parent)]


def test_what_cannot_be_removed_in_a_read_only_folder_is_reported_and_the_rest_goes(tmp_path):
    from test_housekeeping import _read_only

    from icoframes.store.connections import close_idle

    used = Cache(tmp_path, "used")  # a database, used now: pruning drops its old lists
    with time_machine.travel(NOW - 40 * DAY, tick=False):
        used.write_filters({"platform": []}, filters_frame({"platform": []}))
    _file(used.dir / USED_MARK, 0, dt.timedelta(0))
    close_idle(used.dir, wait=True)
    reasons = {os.strerror(e) for e in (errno.EROFS, errno.EACCES, errno.EBUSY,
                                        errno.ENOTEMPTY, errno.EPERM)}
    with _read_only(used.dir):
        try:
            report = CacheReport()
            report._remove(used.dir / USED_MARK, 1)
            assert report.removed == [] and report.freed_bytes == 0
            assert [entry["path"] for entry in report.skipped] == [str(used.dir / USED_MARK)]
            assert report.skipped[0]["reason"] in reasons
            _file(tmp_path / "old" / USED_MARK, 3, 40 * DAY)
            report = prune(tmp_path, 30 * DAY, now=NOW)  # its lists cannot be dropped
            assert report.removed == [str(tmp_path / "old")] and report.freed_bytes == 3
            assert report.skipped == [{
                "path": str(used.dir),
                "reason": f"the cache {used.dir} is read-only here: nothing can be kept. Use "
                          "offline=True, or a writable cache_dir."}]
            _file(tmp_path / "zzz" / USED_MARK, 4, DAY)
            report = clear_all(tmp_path)  # nothing of it can be removed: each entry said
            assert report.removed == [str(tmp_path / "zzz")] and report.freed_bytes == 4
            assert {entry["path"] for entry in report.skipped} == {
                str(used.dir), *(str(p) for p in used.dir.iterdir() if p.name != LOCK_NAME)}
            assert all(entry["reason"] in reasons for entry in report.skipped)
        finally:
            close_idle(used.dir, wait=True)


def test_a_folder_last_used_just_after_the_epoch_is_no_older_than_the_longest_age(tmp_path):
    # an age is capped at the time since the epoch (nothing here is older): a folder last
    # used half a millisecond after the epoch was not unused for longer, one before it was
    folder = tmp_path / "127.0.0.1_8000"
    mark = _file(folder / USED_MARK, 0, DAY)
    os.utime(mark, ns=(500_000, 500_000))
    assert prune(tmp_path, dt.timedelta.max, now=NOW).removed == []
    os.utime(mark, (-1, -1))
    assert prune(tmp_path, dt.timedelta.max, now=NOW).removed == [str(folder)]


def test_prunes_refusal_of_an_age_written_as_text_says_what_it_means(tmp_path):
    with pytest.raises(InvalidParameter) as refused:
        prune(tmp_path, "1 week")
    assert str(refused.value) == (f"older_than must be {_AGE}, 0 or more; got '1 week'; "
                                  "did you mean '1W'?")


@pytest.mark.parametrize("sweep", ["clear_all", "prune"])
def test_what_the_cache_never_writes_stays_in_its_service_folder(tmp_path, sweep):
    # a file of the user's in a service folder was removed with the cache's
    folder = tmp_path / "svc"
    ours = ["cache.sqlite3", "cache.sqlite3-wal", "cache.sqlite3-shm", "cache.sqlite3.corrupt",
            "cache.sqlite3-wal.corrupt", ".lock", USED_MARK, ".cache.sqlite3.0a1b.tmp",
            "tables/icos.parquet", "profiles/1.json", "lists/a.parquet", "filters.parquet"]
    for name in ours:
        _file(folder / name, 2, 40 * DAY)
    theirs = [_file(folder / "notes.txt", 3, 40 * DAY), _file(folder / "mine" / "a", 4, 40 * DAY),
              _file(folder / "cache.sqlite3.bak", 5, 40 * DAY)]
    with time_machine.travel(NOW, tick=False):
        report = clear_all(tmp_path) if sweep == "clear_all" else prune(tmp_path, DAY, now=NOW)
    assert sorted(p.name for p in folder.iterdir()) == ["cache.sqlite3.bak", "mine", "notes.txt"]
    assert [p.read_bytes() for p in theirs] == [b"xxx", b"xxxx", b"xxxxx"]
    assert report.skipped == [
        {"path": str(path), "reason": "not the cache's (a name the cache never writes): move "
                                      "it elsewhere"}
        for path in sorted((folder / "cache.sqlite3.bak", folder / "mine", folder / "notes.txt"))]
    assert report.freed_bytes == 2 * (len(ours) - 1)  # all but the lock, which goes unsaid
    assert sorted(report.removed) == sorted(str(folder / name) for name in {
        n.split("/")[0] for n in ours if n != ".lock"})


@pytest.mark.parametrize("sweep", ["clear_all", "prune"])
def test_a_users_files_in_the_tables_folder_or_named_like_the_database_stay(tmp_path, sweep):
    # tables/my-notes.txt, tables/myproj/data.csv and cache.sqlite3-mine were removed with
    # the cache's, the clear saying only "removed .../tables" (review REVE L2)
    folder, tables = tmp_path / "svc", tmp_path / "svc" / "tables"
    ours = ["cache.sqlite3", "cache.sqlite3-journal", "tables/icos.parquet",
            "tables/_state.json", "tables/.icos.parquet.0a1b.tmp"]
    for name in ours:
        _file(folder / name, 2, 40 * DAY)
    theirs = [_file(tables / "my-notes.txt", 3, 40 * DAY),
              _file(tables / "myproj" / "data.csv", 4, 40 * DAY),
              _file(tables / "myproj" / "b.parquet", 5, 40 * DAY),  # in a folder of theirs
              _file(folder / "cache.sqlite3-mine", 6, 40 * DAY)]
    with time_machine.travel(NOW, tick=False):
        report = clear_all(tmp_path) if sweep == "clear_all" else prune(tmp_path, DAY, now=NOW)
    assert sorted(p.name for p in folder.iterdir()) == ["cache.sqlite3-mine", "tables"]
    assert sorted(p.name for p in tables.iterdir()) == ["my-notes.txt", "myproj"]
    assert [p.read_bytes() for p in theirs] == [b"x" * n for n in (3, 4, 5, 6)]
    assert report.skipped == [
        {"path": str(path), "reason": "not the cache's (a name the cache never writes): move "
                                      "it elsewhere"}
        for path in (folder / "cache.sqlite3-mine", tables / "my-notes.txt", tables / "myproj")]
    assert report.freed_bytes == 2 * len(ours)
    assert report.removed == [str(folder / name) for name in ours[:2]] + [
        str(tables / name) for name in (".icos.parquet.0a1b.tmp", "_state.json", "icos.parquet")]
    for path in (*theirs, tables / "myproj"):  # moved away: the next clear removes the
        path.rename(tmp_path / f"{path.name}-moved")  # folder, named once
    assert clear_all(tmp_path).removed == [str(folder)] and not folder.exists()


def test_prune_removes_leftovers_only_where_the_cache_writes_them(tmp_path):
    # in a folder still in use, prune removed any old ".*.tmp" and "*.corrupt" anywhere
    # under it: a user's mine/.draft.tmp, tables/myproj/.x.tmp, notes.txt.corrupt
    folder = tmp_path / "svc"
    _file(folder / "cache.sqlite3", 1, dt.timedelta(0))  # used now: the folder stays
    ours = [_file(folder / name, 2, 40 * DAY) for name in (
        ".cache.sqlite3.0a1b.tmp", "cache.sqlite3.corrupt", "cache.sqlite3-wal.corrupt",
        "tables/.icos.parquet.0a1b.tmp")]
    theirs = [_file(folder / name, 3, 40 * DAY) for name in (
        "mine/.draft.tmp", "mine/photo.corrupt", "tables/myproj/.x.tmp", "notes.txt.corrupt")]
    with time_machine.travel(NOW, tick=False):
        report = prune(tmp_path, DAY, now=NOW)
    assert sorted(report.removed) == sorted(map(str, ours))
    assert [path.exists() for path in theirs] == [True] * 4
    assert report.freed_bytes == 2 * len(ours)


@pytest.mark.parametrize("sweep", ["prune", "clear"])
def test_leftovers_at_the_top_and_in_quota_are_only_what_the_cache_writes_there(
        tmp_path, sweep):
    # REVK M3: prune and clear(all) removed a user's old *.corrupt and .*.tmp at the cache
    # dir's top and in quota/, naming notes.txt.corrupt both removed and left alone
    root = tmp_path / "cäche dir ✓"
    ours = [_file(root / name, 2, 40 * DAY) for name in (
        ".write-test-0a1b2c3d",  # the writability probe (fetch.service.check_writable)
        "quota/ledger.sqlite3.corrupt", "quota/ledger.sqlite3-wal.corrupt",  # set aside
        "quota/.0123456789abcdef.json.0a1b.tmp")]  # 0.1's ledger's interrupted write
    theirs = [_file(root / name, 3, 40 * DAY) for name in (
        "notes.txt.corrupt", ".draft.tmp", "quota/notes.corrupt", "quota/.x.tmp",
        "quota/mine.txt", "mydir/a.corrupt", "mydir/.b.tmp")]
    with time_machine.travel(NOW, tick=False):
        report = prune(root, DAY, now=NOW) if sweep == "prune" else clear_all(root)
    assert sorted(report.removed) == sorted(map(str, ours)) and report.freed_bytes == 8
    assert [path.name for path in theirs if not path.exists()] == []
    assert report.skipped == [{"path": str(root / name), "reason": "not a cache folder"}
                              for name in (".draft.tmp", "mydir", "notes.txt.corrupt")]
    assert scan(root)[1] == [root / ".draft.tmp", root / "mydir", root / "notes.txt.corrupt"]
