"""The derived tables' updates, on a real cache in ``tmp_path``: what the full mutation run
of derived.py (``make mutate MODULE=store:derived``, 2026-11-26 11:40 UTC) found no test
for.

Tables built while the store held no copy yet (version 0: a load that kept only its
list) are updated table by table like any others, not rebuilt: reading one table brings
that table alone up to date, and the files of the others stay as they were. A state file
that is missing, not JSON or not an object is no state: the tables are rebuilt from the
stored copies and a new state written. A table the state names no version of is never
taken as up to date, even at the store's first version. The parser's fingerprint follows
the text of every source file of the parser and of the vocabulary. A link in place of the
tables folder is removed and never followed: what the folder it points to holds stays.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
import time_machine

from icoframes import sandbox
from icoframes.errors import CacheWarning
from icoframes.schema import PROBLEMS, TABLES
from icoframes.store import derived as derived_module
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.derived import DerivedTables, parser_fingerprint

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
URL = "http://127.0.0.1:9"
NAMES = sorted([*TABLES, PROBLEMS.name])


def test_tables_built_before_any_copy_are_updated_one_by_one_not_rebuilt(tmp_path):
    raws = sandbox.generate_directory(4, seed=7).profiles()
    cache = Cache(tmp_path, URL)
    assert cache.record() == []  # the database, no copy in it yet
    derived = DerivedTables(cache)
    assert derived.tables().icos.empty
    state_path = cache.tables_dir / "_state.json"
    assert json.loads(state_path.read_text())["versions"] == dict.fromkeys(NAMES, 0)
    files = {name: (cache.tables_dir / f"{name}.parquet").read_bytes() for name in NAMES}
    with time_machine.travel(T0, tick=False):
        cache.record(*(ProfileRecord(int(r["id"]), "past", "s", json.dumps(r)) for r in raws))
    icos = derived.table("icos")
    assert sorted(icos["id"]) == sorted(int(r["id"]) for r in raws)
    assert json.loads(state_path.read_text())["versions"] == {
        **dict.fromkeys(NAMES, 0), "icos": 4}
    assert {name: (cache.tables_dir / f"{name}.parquet").read_bytes() for name in NAMES
            if name != "icos"} == {name: data for name, data in files.items() if name != "icos"}
    team = derived.table("team")  # brought up to date when read
    assert set(team["ico_id"]) <= {int(r["id"]) for r in raws} and len(team)
    assert json.loads(state_path.read_text())["versions"] == {
        **dict.fromkeys(NAMES, 0), "icos": 4, "team": 4}


def _cache_of(tmp_path, raws: list[dict]) -> Cache:
    cache = Cache(tmp_path, URL)
    with time_machine.travel(T0, tick=False):
        cache.record(*(ProfileRecord(int(r["id"]), "past", "s", json.dumps(r)) for r in raws))
    return cache


@pytest.mark.parametrize("state", [None, b"{not json", b"null", b"[1, 2]"])
def test_a_state_file_missing_or_not_an_object_is_no_state_the_tables_are_rebuilt(
        tmp_path, state):
    raws = sandbox.generate_directory(3, seed=7).profiles()
    cache = _cache_of(tmp_path, raws)
    derived = DerivedTables(cache)
    derived.tables()
    state_path = cache.tables_dir / "_state.json"
    icos_path = cache.tables_dir / "icos.parquet"
    wrong = pd.read_parquet(icos_path)
    wrong["name"] = "Wrong"  # what a rebuild replaces: the file is not trusted without a state
    wrong.to_parquet(icos_path, index=False)
    if state is None:
        state_path.unlink()
    else:
        state_path.write_bytes(state)
    names = dict(zip(*(derived.table("icos")[c] for c in ("id", "name")), strict=True))
    assert names == {int(r["id"]): r["main"]["name"] for r in raws}
    # the table read is rebuilt and named; the others are rebuilt when read
    assert json.loads(state_path.read_text())["versions"] == {"icos": 3}
    derived.tables()
    assert json.loads(state_path.read_text())["versions"] == dict.fromkeys(NAMES, 3)


def test_a_table_without_a_version_is_stale_even_at_the_first_version(tmp_path):
    raws = sandbox.generate_directory(1, seed=7).profiles()
    cache = _cache_of(tmp_path, raws)
    assert cache.version() == 1
    derived = DerivedTables(cache)
    derived.tables()
    icos_path = cache.tables_dir / "icos.parquet"
    wrong = pd.read_parquet(icos_path)
    wrong["name"] = "Wrong"
    wrong.to_parquet(icos_path, index=False)
    state_path = cache.tables_dir / "_state.json"
    state = json.loads(state_path.read_text())
    del state["versions"]["icos"]  # a state written before that table existed
    state_path.write_text(json.dumps(state))
    assert list(derived.table("icos")["name"]) == [raws[0]["main"]["name"]]


def test_the_fingerprint_follows_the_text_of_every_parser_source_file(tmp_path, monkeypatch):
    # a copy of the parser's sources, read as the parser's (rules.__file__ points there):
    # a change to any one of them, or to the vocabulary beside them, changes the fingerprint
    from icoframes.parse import rules

    package = Path(rules.__file__).resolve().parent
    copy = tmp_path / "icoframes" / "parse"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(package.parent / "vocabulary.py", copy.parent / "vocabulary.py")
    clear = getattr(derived_module._parse_sources, "cache_clear", lambda: None)
    monkeypatch.setattr(rules, "__file__", str(copy / "rules.py"))
    clear()
    try:
        same = parser_fingerprint()
        seen = {same}
        for changed in (copy / "units.py", copy / "rules.py", copy.parent / "vocabulary.py"):
            text = changed.read_text(encoding="utf-8")
            changed.write_text(text + "# changed\n", encoding="utf-8")
            clear()
            seen.add(parser_fingerprint())
            changed.write_text(text, encoding="utf-8")
        clear()
        assert parser_fingerprint() == same and len(seen) == 4
    finally:
        monkeypatch.undo()
        clear()


def test_a_link_in_place_of_the_tables_folder_is_removed_never_followed(tmp_path):
    raws = sandbox.generate_directory(2, seed=7).profiles()
    cache = _cache_of(tmp_path, raws)
    derived = DerivedTables(cache)
    derived.tables()
    elsewhere = tmp_path / "elsewhere"
    shutil.move(cache.tables_dir, elsewhere)
    os.mkfifo(elsewhere / "planted.parquet")
    (elsewhere / "linked.parquet").symlink_to(tmp_path / "victim")
    cache.tables_dir.symlink_to(elsewhere)
    before = sorted(os.listdir(elsewhere))
    with pytest.warns(CacheWarning) as warned:
        assert len(derived.table("icos")) == 2
    assert [str(w.message) for w in warned] == [
        f"icoframes cache entry {cache.tables_dir} is not a plain file or folder; it is removed "
        "(never followed or opened) and the tables are rebuilt"]
    assert cache.tables_dir.is_dir() and not cache.tables_dir.is_symlink()
    assert sorted(os.listdir(elsewhere)) == before  # nothing removed through the link


def _files(cache: Cache) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(cache.tables_dir.iterdir())}


def test_a_first_build_writes_the_table_read_alone_the_others_when_they_are_read(tmp_path):
    from icoframes.parse import profiles

    raws = sandbox.generate_directory(5, seed=7).profiles()
    cache = _cache_of(tmp_path, raws)
    derived = DerivedTables(cache)
    icos = derived.table("icos")  # a cold load_icos: the table it returns, nothing more
    assert sorted(icos["id"]) == sorted(int(r["id"]) for r in raws)
    assert sorted(_files(cache)) == ["_state.json", "icos.parquet"]
    assert json.loads((cache.tables_dir / "_state.json").read_text())["versions"] == {"icos": 5}
    tables = derived.tables()  # the rest, built when read (icos with them: one rebuild)
    assert sorted(_files(cache)) == sorted(["_state.json", *(f"{n}.parquet" for n in NAMES)])
    assert json.loads((cache.tables_dir / "_state.json").read_text())["versions"] == (
        dict.fromkeys(NAMES, 5))
    expected = profiles.tidy(raws, statuses={int(r["id"]): "past" for r in raws})
    for name in NAMES:  # every table as a tidy of every stored profile has it
        key = "id" if name == "icos" else "ico_id"
        assert sorted(tables[name][key].tolist()) == sorted(expected[name][key].tolist()), name


def test_a_rebuild_of_one_table_keeps_what_the_state_said_of_the_others(tmp_path):
    from icoframes.parse import profiles

    raws = sandbox.generate_directory(4, seed=7).profiles()
    cache = _cache_of(tmp_path, raws[:3])
    derived = DerivedTables(cache)
    derived.tables()
    state_path = cache.tables_dir / "_state.json"
    assert json.loads(state_path.read_text())["versions"] == dict.fromkeys(NAMES, 3)
    with time_machine.travel(T0, tick=False):
        cache.record(ProfileRecord(int(raws[3]["id"]), "past", "s", json.dumps(raws[3])))
    before = _files(cache)
    (cache.tables_dir / "icos.parquet").write_bytes(b"not parquet")  # its update cannot read it
    icos = derived.table("icos")  # rebuilt: icos alone, the others left as they were
    assert sorted(icos["id"]) == sorted(int(r["id"]) for r in raws)
    assert json.loads(state_path.read_text())["versions"] == {
        **dict.fromkeys(NAMES, 3), "icos": 4}
    after = _files(cache)
    assert {n: d for n, d in after.items() if n not in ("icos.parquet", "_state.json")} == {
        n: d for n, d in before.items() if n not in ("icos.parquet", "_state.json")}
    team = derived.table("team")  # then brought up to date from version 3, as any update
    assert sorted(team["ico_id"]) == sorted(profiles.tidy(raws).team["ico_id"])
    assert json.loads(state_path.read_text())["versions"] == {
        **dict.fromkeys(NAMES, 3), "icos": 4, "team": 4}
