"""Converting a cache of icoframes 0.1's layout, on files written here in 0.1's formats
(Parquet parts, journals, list and filter files, JSON ledgers) in ``tmp_path``: what
mutants of cachedir/legacy.py survived (``make mutate MODULE=cachedir:legacy``).

Events replay in 0.1's order (parts by number, a misnamed part first, then journals,
lines in order), each once; a torn last line, a bad line, an unreadable part and a
misnamed journal are lost alone; a part row without a state is ``gone`` when its raw
is ``null``; naive times are UTC; lists keep their items, rows and metadata; the filter
set its entries; ledgers their counts (the larger on the same day); the old files go.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icoframes.cachedir.legacy import _events, convert
from icoframes.errors import CacheWarning
from icoframes.parse.lists import list_frame
from icoframes.store.cache import FILTER_SET, Cache
from icoframes.store.ledger import QuotaLedger

FIXTURE = Path(__file__).parent / "data" / "cache-0.1" / "cache" / "sandbox-3-40-f05ed6a6"
T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
MS = int(T0.timestamp() * 1000)


def _part(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def _row(ico_id: int, event: str, minutes: int = 0, **extra: object) -> dict:
    return {"id": ico_id, "status": "past", "summary": "s", "raw": f'{{"id": {ico_id}}}',
            "fetched_at": T0 + dt.timedelta(minutes=minutes), "event": event, "reason": None,
            **extra}


def _line(n: int, ico_id: int, text: str | None, **extra: object) -> bytes:
    head = json.dumps({"n": n, "id": ico_id, "status": "past", "summary": "s",
                       "state": "fetched", "reason": None, "at": MS + n, **extra})
    return head.encode() + (b"" if text is None else b"\t" + text.encode()) + b"\n"


def test_events_replay_in_the_order_0_1_read_them_each_once(tmp_path):
    profiles = tmp_path / "profiles"
    _part(profiles / "part-0000000010.parquet", [_row(1, "w:2", 2)])
    _part(profiles / "part-0000000002.parquet", [_row(1, "w:0"), _row(2, "abcdefabcdef:0", 1)])
    _part(profiles / "part-old.parquet", [_row(9, "old:0")])
    (profiles / "part-0000000003.parquet").write_bytes(b"not parquet")
    (profiles / "journal-0000000003-abcdefabcdef.log").write_bytes(
        _line(0, 2, '{"id": 2, "dup": 1}')          # already in a part: once
        + _line(1, 3, '{"id": 3, "t": "\u00e9"}')
        + b"not json\t{}\n"
        + _line(2, 4, None, raw='{"id": 4, "kept": "in the head"}')
        + _line(3, 5, '{"id": 5}')[:-1])             # torn: no newline
    (profiles / "journal-3-abcdefabcdef.log").write_bytes(_line(0, 8, "{}"))  # misnamed
    events = _events(profiles)
    assert [(e["event"], e["id"]) for e in events] == [
        ("old:0", 9), ("w:0", 1), ("abcdefabcdef:0", 2), ("w:2", 1), ("abcdefabcdef:1", 3),
        ("abcdefabcdef:2", 4)]
    assert events[4]["raw"] == '{"id": 3, "t": "\u00e9"}'
    assert events[4]["fetched_at"] == T0 + dt.timedelta(milliseconds=1)
    assert events[5]["raw"] == '{"id": 4, "kept": "in the head"}'
    assert events[2]["raw"] == '{"id": 2}'


def test_a_part_row_without_a_state_is_gone_when_its_raw_is_null(tmp_path):
    profiles = tmp_path / "profiles"
    _part(profiles / "part-0000000001.parquet", [_row(1, "w:0"), _row(2, "w:1", raw="null")])
    _part(profiles / "part-0000000002.parquet", [_row(3, "w:2", state="failed", raw=None)])
    assert [e.get("state") for e in _events(profiles)] == ["fetched", "gone", "failed"]


def _old_folder(root: Path) -> Cache:
    cache = Cache(root, "sandbox-old")
    cache.dir.mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    return cache


def test_a_folder_is_converted_with_times_states_and_copies_as_they_were(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    naive = dt.datetime(2030, 1, 1, 12, 0)
    _part(cache.dir / "profiles" / "part-0000000001.parquet", [
        {**_row(1, "w:0"), "fetched_at": naive, "state": "fetched"},
        {**_row(2, "w:1", 5), "state": "gone", "raw": "null"},
        {**_row(3, "w:2", 6), "state": "failed", "raw": None, "reason": "HTTP 500"}])
    (cache.dir / "claims").mkdir()
    with pytest.warns(CacheWarning) as caught:
        convert(cache)
    assert [str(w.message) for w in caught] == [
        f"icoframes cache folder {cache.dir} was converted from icoframes 0.1's layout: 3 "
        "profile outcomes, 0 lists; nothing is fetched again"]
    with sqlite3.connect(cache.path) as conn:
        rows = conn.execute("SELECT id, state, status, raw, fetched_at, reason, attempts, "
                            "failed_at FROM profiles ORDER BY id").fetchall()
        converted = conn.execute("SELECT value FROM meta WHERE key = 'converted'").fetchone()
    assert rows == [(1, "fetched", "past", '{"id": 1}', MS, None, 0, None),
                    (2, "gone", "past", None, MS + 300_000, None, 0, None),
                    (3, "failed", "past", None, None, "HTTP 500", 1, MS + 360_000)]
    assert converted == (1,)
    assert sorted(p.name for p in cache.dir.iterdir() if not p.name.startswith("cache.")) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        convert(cache)  # once


def test_lists_and_the_filter_set_keep_their_rows_items_and_times(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    shutil.copytree(FIXTURE / "lists", cache.dir / "lists")
    shutil.copy(FIXTURE / "filters.parquet", cache.dir / "filters.parquet")
    old_list = pq.read_table(sorted((FIXTURE / "lists").glob("*.parquet"))[0])
    meta = json.loads(old_list.schema.metadata[b"icoframes"])
    old_filters = pq.read_table(FIXTURE / "filters.parquet")
    with pytest.warns(CacheWarning, match=r": 0 profile outcomes, 2 lists, the filter set; "):
        convert(cache)
    stored = cache.read_list(meta["params"])
    assert stored is not None
    assert stored.fetched_at == dt.datetime.fromisoformat(meta["fetched_at"]).replace(
        microsecond=dt.datetime.fromisoformat(meta["fetched_at"]).microsecond // 1000 * 1000)
    assert stored.meta == {"params": meta["params"], "total_icos": meta["total_icos"],
                           "complete": meta["complete"], "failed_pages": {},
                           "problems": meta["problems"], "items": old_list.num_rows}
    expected = old_list.to_pandas()
    assert stored.frame["id"].tolist() == expected["id"].tolist()
    # the items rebuilt from the rows read back as the same rows
    again = list_frame(stored.raw, status=meta["params"]["status"])
    pd.testing.assert_frame_equal(again, stored.frame)
    assert all(set(item) <= {"id", "main", "links", "finance"} for item in stored.raw)
    assert stored.raw[0]["main"]["name"] == expected["name"][0]
    filters = cache.read_filters()
    assert filters is not None and len(filters.frame) == old_filters.num_rows
    raw = filters.raw
    assert sorted(raw) == ["category", "location", "platform", "type"]
    assert all("id" not in entry for entry in raw["location"])
    assert all(isinstance(entry["id"], int) for entry in raw["platform"])
    assert not (cache.dir / "lists").exists() and not (cache.dir / "filters.parquet").exists()


def test_a_folder_another_process_converted_is_not_converted_twice(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    with cache.write() as conn:
        conn.execute("INSERT INTO meta VALUES ('converted', 1)")
    _part(cache.dir / "profiles" / "part-0000000001.parquet", [_row(1, "w:0")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        convert(cache)
    assert cache.profile_index().empty and not (cache.dir / "profiles").exists()


def _only_this_folder_stays(tmp_path: Path, name: str) -> None:
    """A service folder holding only the folder ``name``: converting it warns of nothing and
    leaves ``name`` as the only thing in it."""
    cache = _old_folder(tmp_path / "cache")
    (cache.dir / name).mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        convert(cache)
    assert [p.name for p in cache.dir.iterdir()] == [name]


def test_a_cache_without_old_files_is_left_as_it_is(tmp_path):
    _only_this_folder_stays(tmp_path, "tables")


def test_old_ledgers_keep_their_counts_and_their_files_go(tmp_path):
    # 0.1 named a ledger by 16 hex digits of its key's hash: those alone are converted
    a, b, c, d, e = (letter * 16 for letter in "abcde")
    root = tmp_path / "cache"
    quota = root / "quota"
    quota.mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    today = QuotaLedger(root, "k1")
    with today.database().write() as conn:  # type: ignore[union-attr]
        conn.executemany("INSERT INTO ledgers (key, day, sent) VALUES (?, ?, ?)",
                         [(a, "2030-01-01", 10), (b, "2030-01-01", 50),
                          (c, "2029-12-31", 5)])
    for key, day, used in ((a, "2030-01-01", 30), (b, "2030-01-01", 20),
                           (c, "2030-01-01", 7), (d, "2030-01-01", 3)):
        (quota / f"{key}.json").write_text(json.dumps({"day": day, "used": used}))
        (quota / f"{key}.lock").write_text("")
    (quota / f"{e}.json").write_text("{not json")
    (quota / "eeee.json").write_text("{not json")  # no name of 0.1's: a user's, kept
    with pytest.warns(CacheWarning, match=f"{e}.json of icoframes 0.1 does not read"):
        convert(Cache(root, "sandbox-none"))
    with sqlite3.connect(today.path) as conn:
        rows = conn.execute("SELECT key, day, sent FROM ledgers ORDER BY key").fetchall()
    assert rows == [(a, "2030-01-01", 30), (b, "2030-01-01", 50),
                    (c, "2029-12-31", 5), (d, "2030-01-01", 3)]
    assert sorted(p.name for p in quota.iterdir() if not p.name.startswith("ledger.")) == [
        "eeee.json", f"{e}.json.unread"]


def test_a_partial_list_and_the_problems_of_a_list_and_the_filter_set_are_kept(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    (cache.dir / "lists").mkdir()
    old_list = pq.read_table(sorted((FIXTURE / "lists").glob("*.parquet"))[0])
    meta = {**json.loads(old_list.schema.metadata[b"icoframes"]), "complete": False,
            "problems": [{"ico_id": 1, "field": "raised", "reason": "range"}]}
    pq.write_table(old_list.replace_schema_metadata({"icoframes": json.dumps(meta)}),
                   cache.dir / "lists" / "partial.parquet")
    old_filters = pq.read_table(FIXTURE / "filters.parquet")
    fmeta = {**json.loads(old_filters.schema.metadata[b"icoframes"]),
             "problems": [{"field": "filters.id", "reason": "unreadable_id"}]}
    pq.write_table(old_filters.replace_schema_metadata({"icoframes": json.dumps(fmeta)}),
                   cache.dir / "filters.parquet")
    with pytest.warns(CacheWarning, match="1 lists, the filter set"):
        convert(cache)
    stored = cache.read_list(meta["params"])
    assert stored is not None
    assert stored.meta["complete"] is False and stored.meta["problems"] == meta["problems"]
    filters = cache.read_filters()
    assert filters is not None and filters.meta["problems"] == fmeta["problems"]
    names = {entry["name"] for entries in filters.raw.values() for entry in entries}
    assert names == set(old_filters.column("name").to_pylist())


def test_unreadable_old_ledgers_are_left_out_each_alone(tmp_path):
    # each file of 0.1's name unreadable in its own way is left out: a folder and JSON that
    # is no ledger of 0.1's (a key missing, a count of the wrong type) stay as they are, a
    # file that is no JSON (torn) is kept aside and said; the readable one is converted
    # even without its lock file
    a, b, c, d, e = (letter * 16 for letter in "abcde")
    root = tmp_path / "cache"
    quota = root / "quota"
    quota.mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    (quota / f"{a}.json").write_text(json.dumps({"day": "2030-01-01", "used": 4}))
    (quota / f"{b}.json").mkdir()
    (quota / f"{c}.json").write_text("{")
    (quota / f"{d}.json").write_text(json.dumps({"day": "2030-01-01"}))
    (quota / f"{e}.json").write_text(json.dumps({"day": "2030-01-01", "used": None}))
    with pytest.warns(CacheWarning, match=f"{c}.json of icoframes 0.1 does not read"):
        convert(Cache(root, "sandbox-none"))
    with sqlite3.connect(QuotaLedger(root, "k").path) as conn:
        rows = conn.execute("SELECT key, day, sent FROM ledgers ORDER BY key").fetchall()
    assert rows == [(a, "2030-01-01", 4)]
    assert sorted(p.name for p in quota.iterdir() if not p.name.startswith("ledger.")) == [
        f"{b}.json", f"{c}.json.unread", f"{d}.json", f"{e}.json"]


def test_unreadable_journal_lines_and_a_misnamed_journal_first_are_lost_alone(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "journal-0-misnamed.log").write_bytes(_line(0, 7, "{}"))  # sorts first
    (profiles / "journal-0000000001-abcdefabcdef.log").write_bytes(
        b'{"n": 0, "id": 1}\t{}\n'                         # no time
        + _line(1, 2, "{}", at="noon")                     # a time of the wrong type
        + _line(2, 3, '{"id": 3}'))
    assert [(e["event"], e["id"]) for e in _events(profiles)] == [("abcdefabcdef:2", 3)]


def test_a_time_with_an_offset_keeps_its_instant_and_the_summary_is_kept(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    plus_two = dt.timezone(dt.timedelta(hours=2))
    _part(cache.dir / "profiles" / "part-0000000001.parquet", [
        {**_row(1, "w:0", summary="a summary"), "state": "fetched",
         "fetched_at": T0.astimezone(plus_two)}])
    with pytest.warns(CacheWarning, match=": 1 profile outcomes, 0 lists; "):
        convert(cache)
    with sqlite3.connect(cache.path) as conn:
        rows = conn.execute("SELECT id, summary, fetched_at FROM profiles").fetchall()
    assert rows == [(1, "a summary", MS)]


def test_unreadable_list_files_are_left_out_and_a_list_without_its_flag_is_complete(
        tmp_path):
    cache = _old_folder(tmp_path / "cache")
    lists = cache.dir / "lists"
    lists.mkdir()
    old_list = pq.read_table(sorted((FIXTURE / "lists").glob("*.parquet"))[0])
    meta = json.loads(old_list.schema.metadata[b"icoframes"])
    del meta["complete"]
    pq.write_table(old_list.replace_schema_metadata({"icoframes": json.dumps(meta)}),
                   lists / "a.parquet")
    (lists / "b.parquet").write_bytes(b"not parquet")
    pq.write_table(old_list.replace_schema_metadata(None), lists / "c.parquet")  # no metadata
    pq.write_table(old_list.replace_schema_metadata({"other": "{}"}), lists / "d.parquet")
    pq.write_table(old_list.replace_schema_metadata({"icoframes": "{"}), lists / "e.parquet")
    with pytest.warns(CacheWarning, match=": 0 profile outcomes, 1 lists; "):
        convert(cache)
    stored = cache.read_list(meta["params"])
    assert stored is not None and stored.meta["complete"] is True


def test_the_filter_set_is_kept_complete_under_its_own_key(tmp_path):
    cache = _old_folder(tmp_path / "cache")
    shutil.copy(FIXTURE / "filters.parquet", cache.dir / "filters.parquet")
    with pytest.warns(CacheWarning, match=": 0 profile outcomes, 0 lists, the filter set; "):
        convert(cache)
    filters = cache.read_filters()
    assert filters is not None
    assert filters.meta["complete"] is True and filters.meta["params"] == FILTER_SET


def test_a_folder_with_only_a_claims_folder_of_0_1_is_left_as_it_is(tmp_path):
    _only_this_folder_stays(tmp_path, "claims")
