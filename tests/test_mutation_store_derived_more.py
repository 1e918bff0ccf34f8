"""The derived tables' rebuilds and reads, on a real cache in ``tmp_path``: what the run of
derived.py (``make mutate MODULE=store:derived``, 2026-11-26 13:38 UTC) found no test for.

Each copy's list status reaches ``icos.status``, and each its own fetch time, also when
a stored copy in the middle of a batch has no readable id (no row). Two batches join as
one. A table file of another schema is said to be unreadable, in full, and rebuilt. A
link or FIFO among the table files makes the next read rebuild the tables, as its
warning says, even a read that finds them up to date; a read-only cache says the same
and rebuilds them in memory. The first build makes the folder 0700; one that meets a
copy that does not decode quarantines it ("not JSON") and writes no state; one on a
full disk says so, naming the tables folder, and the next read goes on.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import sqlite3
import stat

import pandas as pd
import pytest
import time_machine
from test_mutation_store_derived import NAMES, T0, URL  # the same cache and clock

from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.parse import profiles
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.connections import close_idle
from icoframes.store.derived import DerivedTables, _concat


@pytest.fixture
def raws() -> list[dict]:
    return sandbox.generate_directory(6, seed=11).profiles()


def _record(cache: Cache, raws: list[dict], status: str = "past",
            when: dt.datetime = T0) -> None:
    with time_machine.travel(when, tick=False):
        cache.record(*(ProfileRecord(int(r["id"]), status, "s", json.dumps(r)) for r in raws))


def _names(frame: pd.DataFrame) -> dict[int, str]:
    return dict(zip(frame["id"], frame["name"], strict=True))


def _tamper(cache: Cache) -> None:
    """Every name in the kept ``icos`` file made wrong: only a rebuild puts it right."""
    path = cache.tables_dir / "icos.parquet"
    wrong = pd.read_parquet(path)
    wrong["name"] = "Wrong"
    wrong.to_parquet(path, index=False)


def test_each_copys_list_status_reaches_icos(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws[:2], "ongoing")
    _record(cache, raws[2:], "upcoming")
    icos = DerivedTables(cache).table("icos").set_index("id")
    assert icos["status"].to_dict() == {
        int(r["id"]): "ongoing" if i < 2 else "upcoming" for i, r in enumerate(raws)}
    _record(cache, [raws[3]], "past", T0 + dt.timedelta(hours=1))  # an update
    assert DerivedTables(cache).table("icos").set_index("id").loc[
        int(raws[3]["id"]), "status"] == "past"


def test_a_copy_without_a_readable_id_in_a_batch_leaves_the_others_fetch_times(
        tmp_path, raws):
    # the middle copy of one batch decodes but has no id tidy can read: no row in icos (it is
    # no profile of its id: quarantined), and the fetch times of the copies after it stay
    # with their own rows
    cache = Cache(tmp_path, URL)
    times = [T0 + dt.timedelta(hours=h) for h in range(3)]
    bad = int(raws[1]["id"])
    for when, raw, ico_id in zip(times, [raws[0], {**raws[1], "id": "no id"}, raws[2]],
                                 [int(raws[0]["id"]), bad, int(raws[2]["id"])], strict=True):
        with time_machine.travel(when, tick=False):
            cache.record(ProfileRecord(ico_id, "past", "s", json.dumps(raw)))
    with pytest.warns(CacheWarning, match=rf"not a profile of its id.*ids \[{bad}\]"):
        icos = DerivedTables(cache).table("icos").set_index("id")
    assert icos["fetched_at"].to_dict() == {int(raws[0]["id"]): pd.Timestamp(times[0]),
                                            int(raws[2]["id"]): pd.Timestamp(times[2])}
    assert str(icos["fetched_at"].dtype) == str(profiles.tidy([]).icos["fetched_at"].dtype)


def test_two_batches_join_as_one(raws):
    parts = [profiles.tidy(raws[:2]), profiles.tidy(raws[2:])]
    joined, whole = _concat(parts), profiles.tidy(raws)
    for name in NAMES:
        pd.testing.assert_frame_equal(joined[name], whole[name], obj=name)
    assert list(joined.icos["id"]) == [int(r["id"]) for r in raws]


def test_a_table_file_of_another_schema_is_said_unreadable_in_full_and_rebuilt(
        tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    path = cache.tables_dir / "icos.parquet"
    pd.DataFrame({"id": [1], "name": ["Other"]}).to_parquet(path, index=False)
    said = (rf"^icoframes cache tables in {re.escape(str(cache.tables_dir))} are unreadable "
            rf"\(ExportMismatch: {re.escape(str(path))}: columns \['id', 'name'\] differ from the "
            r"icos schema .*\); they are rebuilt from the stored profiles$")
    for read in (lambda: derived.table("icos"), lambda: derived.tables().icos):
        pd.DataFrame({"id": [1], "name": ["Other"]}).to_parquet(path, index=False)
        with pytest.warns(CacheWarning, match=said) as warned:
            icos = read()
        assert len(warned) == 1
        assert _names(icos) == {int(r["id"]): r["main"]["name"] for r in raws}


@pytest.mark.parametrize("planted", ["link", "fifo"])
def test_a_link_among_the_table_files_rebuilds_tables_that_were_up_to_date(
        tmp_path, raws, planted):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    _tamper(cache)
    extra = cache.tables_dir / "extra.parquet"
    if planted == "link":
        extra.symlink_to(cache.tables_dir / "icos.parquet")
    else:
        os.mkfifo(extra)
    with pytest.warns(CacheWarning) as warned:
        icos = derived.table("icos")
    assert [str(w.message) for w in warned] == [
        f"icoframes cache entry {extra} is not a plain file or folder; it is removed (never "
        "followed or opened) and the tables are rebuilt"]
    assert _names(icos) == {int(r["id"]): r["main"]["name"] for r in raws}
    assert not extra.exists() and not extra.is_symlink()
    assert _names(pd.read_parquet(cache.tables_dir / "icos.parquet")) == _names(icos)


def test_a_fifo_among_the_table_files_of_a_read_only_cache_is_said_and_left(tmp_path, raws):
    from test_housekeeping import _read_only

    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    DerivedTables(cache).tables()
    _tamper(cache)
    fifo = cache.tables_dir / "planted.parquet"
    os.mkfifo(fifo)
    close_idle(cache.dir, wait=True)
    with _read_only(cache.dir):
        try:
            with pytest.warns(CacheWarning, match=r"planted.parquet is not a plain file or "
                                                  r"folder; it is removed"):
                icos = DerivedTables(cache).table("icos")
        finally:
            close_idle(cache.dir, wait=True)
    assert _names(icos) == {int(r["id"]): r["main"]["name"] for r in raws}  # in memory
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # could not be removed: never opened


def test_the_first_build_makes_the_tables_folder_for_this_user_alone(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    assert not cache.tables_dir.exists()
    umask = os.umask(0o022)  # what a mode left out would give: 0755
    try:
        DerivedTables(cache).tables()
    finally:
        os.umask(umask)
    assert stat.S_IMODE(cache.tables_dir.stat().st_mode) == 0o700


def test_a_first_build_that_meets_a_copy_not_json_quarantines_it_and_keeps_its_state(
        tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    torn = int(raws[2]["id"])
    with contextlib.closing(sqlite3.connect(cache.path)) as conn, conn:
        conn.execute("UPDATE profiles SET raw = '{\"id\": 1, torn' WHERE id = ?", (torn,))
    close_idle(cache.dir, wait=True)
    derived = DerivedTables(cache)
    with pytest.warns(CacheWarning) as warned:
        icos = derived.table("icos")
    assert [str(w.message) for w in warned] == [
        "icoframes cache: 1 stored profile(s) could not be read (not JSON); they were "
        f"removed and will be fetched again: ids [{torn}]"]
    assert sorted(icos["id"]) == sorted(int(r["id"]) for r in raws if int(r["id"]) != torn)
    # the state holds the removal (no other came between): the table read, as of the copies
    # before it (the removal is one step of the counter), is brought up to date, not rebuilt
    state = json.loads((cache.tables_dir / "_state.json").read_text())
    with cache.snapshot() as snap:
        assert state["removed"] == snap.removed == snap.version
    assert state["versions"] == {"icos": cache.version() - 1}
    assert sorted(derived.table("team")["ico_id"].unique()) == sorted(
        profiles.tidy([r for r in raws if int(r["id"]) != torn]).team["ico_id"].unique())
    # the table read is rebuilt and named in the state (the others when they are read)
    assert json.loads((cache.tables_dir / "_state.json").read_text())["versions"] == {
        "icos": cache.version() - 1, "team": cache.version()}


def test_a_rebuild_on_a_full_disk_says_so_naming_the_tables_and_the_next_read_goes_on(
        tmp_path, raws):
    from test_safety import _fill, _small_disk

    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    with _small_disk(cache.tables_dir, "64k") as disk:
        filler = _fill(disk, 0)
        try:
            with pytest.raises(CacheError) as caught:
                derived.tables()
        finally:
            filler.unlink()
        assert str(caught.value) == (
            f"the disk holding the cache {cache.tables_dir} is full: the tables could not be "
            "kept (they are rebuilt next time). What was kept before is whole; free some "
            "space and call again to go on.")
        assert not (disk / "_state.json").exists()  # what was written is not trusted
    assert _names(derived.table("icos")) == {int(r["id"]): r["main"]["name"] for r in raws}

