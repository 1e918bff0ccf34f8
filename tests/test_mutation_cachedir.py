"""The cache dir: the boundaries mutants of housekeeping survived (`make mutate MODULE=cachedir`).

Pruning a service folder in use, on real files with set modification times and a
fixed ``now`` (no clock read): a temporary file a writer may still be writing is
spared for an hour whatever ``older_than`` says, a longer ``older_than`` spares it
longer, a file exactly at the limit is kept, ``*.corrupt`` files follow
``older_than`` alone, and nothing else is touched.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from icoframes.cachedir.housekeeping import TEMP_GRACE, USED_MARK, prune

NOW = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)


def _file(path: Path, age: dt.timedelta) -> Path:
    """A file last written ``age`` before NOW (whole seconds: exact on every file system)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"partial")
    then = int((NOW - age).timestamp())
    os.utime(path, (then, then))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A service folder used at NOW (its use mark), with nothing else yet."""
    service = tmp_path / "127.0.0.1_8000"
    (service / "tables").mkdir(parents=True)
    _file(service / USED_MARK, dt.timedelta(0))
    return service


def _left(folder: Path, *names: str) -> list[str]:
    return sorted(name for name in names if (folder / name).exists())


def test_a_temporary_file_is_spared_for_an_hour_even_when_pruning_everything_older(folder):
    names = {"tables/.icos.parquet.1.tmp": TEMP_GRACE - MINUTE,   # a write may be under way
             "tables/.team.parquet.2.tmp": TEMP_GRACE,            # exactly at the limit: kept
             "tables/.bonuses.parquet.3.tmp": TEMP_GRACE + dt.timedelta(seconds=1),
             ".write-test-abc": 2 * TEMP_GRACE,
             ".cache.sqlite3.4.tmp": 3 * TEMP_GRACE}
    for name, age in names.items():
        _file(folder / name, age)
    report = prune(folder.parent, dt.timedelta(0), now=NOW)
    assert _left(folder, *names) == ["tables/.icos.parquet.1.tmp", "tables/.team.parquet.2.tmp"]
    assert sorted(report.removed) == sorted(
        str(folder / n) for n in ("tables/.bonuses.parquet.3.tmp", ".write-test-abc",
                                  ".cache.sqlite3.4.tmp"))
    assert report.freed_bytes == 3 * len(b"partial")


def test_a_longer_older_than_spares_temporary_files_longer(folder):
    names = {"tables/.icos.parquet.1.tmp": 2 * TEMP_GRACE,
             "tables/.team.parquet.2.tmp": 4 * TEMP_GRACE}
    for name, age in names.items():
        _file(folder / name, age)
    prune(folder.parent, 3 * TEMP_GRACE, now=NOW)
    assert _left(folder, *names) == ["tables/.icos.parquet.1.tmp"]


def test_corrupt_files_follow_older_than_alone(folder):
    # what the cache sets aside (its database and side files, db._set_aside); a user's
    # *.corrupt file is theirs, never pruned (test_mutation_cachedir_housekeeping)
    names = {"cache.sqlite3.corrupt": 9 * MINUTE,
             "cache.sqlite3-wal.corrupt": 11 * MINUTE,
             "cache.sqlite3-shm.corrupt": 10 * MINUTE}   # exactly at the limit: kept
    for name, age in names.items():
        _file(folder / name, age)
    prune(folder.parent, 10 * MINUTE, now=NOW)
    assert _left(folder, *names) == ["cache.sqlite3-shm.corrupt", "cache.sqlite3.corrupt"]


def test_other_files_and_look_alikes_are_never_leftovers(folder):
    names = {"tables/icos.parquet": 1000 * TEMP_GRACE,
             "notes.tmp": 1000 * TEMP_GRACE,            # not hidden: not a write's temp file
             ".corrupt.txt": 1000 * TEMP_GRACE,
             "tables/.icos.parquet.1.TMP": 1000 * TEMP_GRACE}   # case matters
    for name, age in names.items():
        _file(folder / name, age)
    prune(folder.parent, dt.timedelta(0), now=NOW)
    assert _left(folder, *names) == sorted(names)


def test_leftovers_in_the_cache_dir_itself_but_not_below_other_folders(folder):
    root = folder.parent
    top = _file(root / ".write-test-abc", 2 * TEMP_GRACE)  # the writability probe's
    theirs = _file(root / ".draft.tmp", 2 * TEMP_GRACE)  # no write of the cache's
    foreign = _file(root / "not-a-cache" / ".x.tmp", 2 * TEMP_GRACE)
    report = prune(root, dt.timedelta(0), now=NOW)
    assert not top.exists() and foreign.exists() and theirs.exists()
    assert {"path": str(root / "not-a-cache"), "reason": "not a cache folder"} \
        in report.skipped


def test_a_folder_used_exactly_at_the_limit_is_kept(folder):
    _file(folder / USED_MARK, dt.timedelta(days=30))
    prune(folder.parent, dt.timedelta(days=30), now=NOW)
    assert folder.is_dir()
    prune(folder.parent, dt.timedelta(days=30) - dt.timedelta(seconds=1), now=NOW)
    assert not folder.exists()


@pytest.mark.parametrize("older_than", [-1, -0.5, dt.timedelta(seconds=-1), True, "1 month"])
def test_prune_refuses_an_age_that_is_not_one(folder, older_than):
    from icoframes.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="older_than must be a timedelta, a duration"):
        prune(folder.parent, older_than, now=NOW)
    assert folder.is_dir()


def test_prune_takes_seconds_of_a_day_or_more_and_durations_under_a_day(folder):
    _file(folder / USED_MARK, dt.timedelta(days=1, seconds=100))
    prune(folder.parent, 86_500, now=NOW)
    assert folder.is_dir()
    prune(folder.parent, "99.5s", now=NOW)  # under a day, its unit written: taken
    assert not folder.exists()


@pytest.mark.parametrize(("older_than", "meant"), [
    (30, "30D"), ("30", "30D"), (" 30 ", "30D"), (0.5, "0.5D"), ("\u0663\u0660", "30D"),
    (3600, "3600s"), (86_399, "86399s")])
def test_prune_refuses_seconds_under_a_day_deleting_nothing(folder, older_than, meant):
    # `icoframes cache prune --older-than 30` is 30 days: prune(30) deleted every folder
    # unused for 30 seconds, the profiles and the requests they cost
    from icoframes.errors import InvalidParameter

    _file(folder / USED_MARK, dt.timedelta(hours=1))
    with pytest.raises(InvalidParameter) as caught:
        prune(folder.parent, older_than, now=NOW)
    assert str(caught.value) == (
        "older_than: a count of seconds under a day needs its unit (a count without one is "
        "seconds here, but days to `icoframes cache prune --older-than`; 0, or a day or more, "
        f"is taken as seconds); got {older_than!r}; did you mean '{meant}'?")
    assert folder.is_dir() and (folder / USED_MARK).is_file()
    prune(folder.parent, 0, now=NOW)  # 0: all no load holds now, as before
    assert not folder.exists()
