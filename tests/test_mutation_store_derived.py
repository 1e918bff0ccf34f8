"""The derived tables, directly on a real cache in ``tmp_path``: what mutants of
store/derived.py survived (``make mutate MODULE=store:derived``).

Nothing cached gives empty tables and makes no folder; the state file says what every
table was built from; a table file that no longer reads, a state of another parser or
of another removal count, or a link or FIFO among the files is rebuilt from the stored
copies without a request; a copy this load decoded is tidied from that object (that
copy only, and at most the first 2000); each copy's fetch time reaches ``icos``; a
full disk says so; batches join in order.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
from pathlib import Path

import pandas as pd
import pytest
import time_machine

from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.parse import profiles
from icoframes.schema import PROBLEMS, TABLES
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.derived import _DECODED, DerivedTables, _concat, _full, parser_fingerprint

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
URL = "http://127.0.0.1:9"
NAMES = sorted([*TABLES, PROBLEMS.name])


@pytest.fixture
def raws() -> list[dict]:
    return sandbox.generate_directory(6, seed=5).profiles()


def _record(cache: Cache, raws: list[dict], when: dt.datetime = T0) -> None:
    with time_machine.travel(when, tick=False):
        cache.record(*(ProfileRecord(int(r["id"]), "past", "s", json.dumps(r)) for r in raws))


def _names(derived: DerivedTables) -> dict[int, str]:
    icos = derived.table("icos")
    return dict(zip(icos["id"], icos["name"], strict=True))


def test_nothing_cached_gives_empty_tables_and_makes_no_folder(tmp_path):
    derived = DerivedTables(Cache(tmp_path / "cache", URL))
    assert derived.table("icos").empty and list(derived.table("icos").columns) == list(
        profiles.tidy([]).icos.columns)
    assert sorted(name for name in derived.tables()) == NAMES
    assert not (tmp_path / "cache").exists()
    with pytest.raises(KeyError, match="'nope'"):
        derived.table("nope")
    assert repr(derived) == f"DerivedTables({str(tmp_path / 'cache' / '127.0.0.1_9' / 'tables')!r})"


def test_the_state_says_what_every_table_was_built_from(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    tables = DerivedTables(cache).tables()
    state = json.loads((cache.tables_dir / "_state.json").read_text())
    assert state == {"versions": dict.fromkeys([*TABLES, "icos", PROBLEMS.name], 6),
                     "removed": 0, "fingerprint": parser_fingerprint()}
    assert sorted(p.name for p in cache.tables_dir.iterdir()) == sorted(
        ["_state.json", *(f"{n}.parquet" for n in NAMES)])
    assert list(tables.icos["fetched_at"]) == [pd.Timestamp(T0)] * 6
    assert len(parser_fingerprint()) == 16 and int(parser_fingerprint(), 16) >= 0


def test_each_copys_fetch_time_reaches_icos_after_an_update(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    later = T0 + dt.timedelta(hours=5)
    _record(cache, [{**raws[2], "main": {**raws[2]["main"], "name": "Later"}}], later)
    cache.record(ProfileRecord(int(raws[3]["id"]), None, None, None, state="gone"))
    icos = derived.table("icos").set_index("id")
    assert icos.loc[int(raws[2]["id"]), "fetched_at"] == pd.Timestamp(later)
    assert icos.loc[int(raws[2]["id"]), "name"] == "Later"
    assert icos.loc[int(raws[0]["id"]), "fetched_at"] == pd.Timestamp(T0)
    assert int(raws[3]["id"]) not in icos.index and len(icos) == 5
    assert str(icos["fetched_at"].dtype) == str(profiles.tidy([]).icos["fetched_at"].dtype)


@pytest.mark.parametrize("change", ["fingerprint", "removed", "versions"])
def test_a_state_of_another_parser_or_removal_is_rebuilt(tmp_path, raws, change):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    state_path = cache.tables_dir / "_state.json"
    state = json.loads(state_path.read_text())
    state[change] = {"fingerprint": "0" * 16, "removed": 5, "versions": {}}[change]
    state_path.write_text(json.dumps(state))
    # the kept file is wrong; only a rebuild from the stored copies puts it right
    pd.DataFrame({"id": [1]}).to_parquet(cache.tables_dir / "icos.parquet")
    assert sorted(_names(derived)) == sorted(int(r["id"]) for r in raws)
    assert json.loads(state_path.read_text())["fingerprint"] == parser_fingerprint()


def test_a_table_file_that_does_not_read_is_rebuilt_with_a_warning(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    (cache.tables_dir / "team.parquet").write_bytes(b"not parquet")
    with pytest.warns(CacheWarning, match=r"cache tables in .* are unreadable \(ArrowInvalid: "):
        team = derived.table("team")
    assert len(team) == len(profiles.tidy(raws).team)
    (cache.tables_dir / "team.parquet").unlink()
    assert len(derived.table("team")) == len(team)  # a missing file: rebuilt quietly


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_link_or_fifo_among_the_table_files_is_removed_and_the_tables_rebuilt(
        tmp_path, raws, kind):
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    planted = cache.tables_dir / "_state.json"
    planted.unlink()
    if kind == "link":
        victim = tmp_path / "victim"
        victim.write_text("mine")
        planted.symlink_to(victim)
    else:
        os.mkfifo(planted)
    with pytest.warns(CacheWarning, match=r"_state.json is not a plain file or folder; it is "
                                          r"removed \(never followed or opened\)"):
        assert len(derived.table("icos")) == 6
    assert planted.is_file() and not planted.is_symlink()
    if kind == "link":
        assert victim.read_text() == "mine"


def test_a_copy_decoded_by_this_load_is_tidied_from_that_object(tmp_path, raws):
    cache = Cache(tmp_path, URL)
    derived = DerivedTables(cache)
    _record(cache, raws[:2])
    first, second = (int(r["id"]) for r in raws[:2])
    derived.keep_decoded(first, 1, {**raws[0], "main": {**raws[0]["main"], "name": "Decoded"}})
    derived.keep_decoded(second, 1, {**raws[1], "main": {**raws[1]["main"], "name": "Stale"}})
    assert _names(derived) == {first: "Decoded", second: raws[1]["main"]["name"]}


def test_at_most_the_first_2000_decoded_copies_are_remembered(tmp_path, raws):
    derived = DerivedTables(Cache(tmp_path, URL))
    for i in range(_DECODED):
        derived.keep_decoded(10_000 + i, 1, {})
    derived.keep_decoded(1, 1, {"late": True})
    derived.keep_decoded(10_000, 2, {"again": True})  # one already kept: replaced
    assert _DECODED == 2000 and len(derived._decoded) == 2000
    assert 1 not in derived._decoded and derived._decoded[10_000] == (2, {"again": True})


def test_a_full_disk_while_keeping_the_tables_says_so():
    folder = Path("/cache/tables")
    full = _full(OSError(errno.ENOSPC, "No space left on device"), folder)
    assert isinstance(full, CacheError) and str(full).startswith(
        "the disk holding the cache /cache/tables is full: the tables could not be kept (they "
        "are rebuilt next time).")
    other = OSError(errno.EACCES, "Permission denied")
    assert _full(other, folder) is other
    said = CacheError("already said")
    assert _full(said, folder) is said


def test_batches_join_in_order_as_one(raws):
    parts = [profiles.tidy(raws[:2]), profiles.tidy(raws[2:3]), profiles.tidy([])]
    joined, whole = _concat(parts), profiles.tidy(raws[:3])
    for name in NAMES:
        pd.testing.assert_frame_equal(joined[name], whole[name], obj=name)
    assert _concat([parts[0]]) is parts[0]
    empty = _concat([])
    assert all(empty[name].empty for name in NAMES)
    both_empty = _concat([profiles.tidy([]), profiles.tidy([])])
    assert list(both_empty.icos.columns) == list(empty.icos.columns)


def test_a_table_the_state_has_no_version_of_is_rebuilt_not_updated(tmp_path, raws):
    # a state written before that table existed: its file is not trusted, even for copies
    # older than the other tables' versions
    cache = Cache(tmp_path, URL)
    _record(cache, raws)
    derived = DerivedTables(cache)
    derived.tables()
    first = int(raws[0]["id"])
    path = cache.tables_dir / "icos.parquet"
    icos = pd.read_parquet(path)
    icos.loc[icos["id"] == first, "name"] = "Wrong"
    icos.to_parquet(path, index=False)
    state_path = cache.tables_dir / "_state.json"
    state = json.loads(state_path.read_text())
    del state["versions"]["icos"]
    state_path.write_text(json.dumps(state))
    _record(cache, [raws[5]], T0 + dt.timedelta(hours=1))  # the others are stale too
    assert _names(derived)[first] == raws[0]["main"]["name"]


def test_stale_tables_of_a_read_only_cache_are_rebuilt_in_memory(tmp_path, raws):
    from test_housekeeping import _read_only

    from icoframes.store.connections import close_idle

    cache = Cache(tmp_path, URL)
    _record(cache, raws[:3])
    DerivedTables(cache).tables()
    _record(cache, raws[3:])
    close_idle(cache.dir, wait=True)
    kept = sorted(p.name for p in cache.tables_dir.iterdir())
    with _read_only(cache.dir):
        try:
            names = _names(DerivedTables(cache))
        finally:
            close_idle(cache.dir, wait=True)
    assert sorted(names) == sorted(int(r["id"]) for r in raws)
    assert sorted(p.name for p in cache.tables_dir.iterdir()) == kept


def test_a_full_disk_while_updating_the_tables_says_so(tmp_path, raws, monkeypatch):
    # no disk can be filled here on purpose: the write of the updated table fails as one
    # on a full disk does
    from icoframes.store import derived as derived_module

    cache = Cache(tmp_path, URL)
    _record(cache, raws[:3])
    derived = DerivedTables(cache)
    derived.tables()
    _record(cache, raws[3:])

    def full(table: object, path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(derived_module, "atomic_write_table", full)
    with pytest.raises(CacheError) as caught:
        derived.table("icos")
    assert str(caught.value).startswith(
        f"the disk holding the cache {cache.tables_dir} is full: the tables could not be kept")


def test_the_fingerprint_changes_with_the_parsers_version(monkeypatch):
    from icoframes.parse import rules

    before = parser_fingerprint()
    monkeypatch.setattr(rules, "PARSER_VERSION", f"{rules.PARSER_VERSION}-next")
    assert parser_fingerprint() != before and len(parser_fingerprint()) == 16
