"""The derived tables' updates, on a real cache in ``tmp_path``: what the full mutation run
of derived.py (``make mutate MODULE=store:derived``, 2026-11-26 11:40 UTC) found no test
for.

Tables built while the store held no copy yet (version 0: a load that kept only its
list) are updated table by table like any others, not rebuilt: reading one table brings
that table alone up to date, and the files of the others stay as they were.
"""

from __future__ import annotations

import datetime as dt
import json

import time_machine

from icoframes import sandbox
from icoframes.schema import PROBLEMS, TABLES
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.derived import DerivedTables

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
URL = "http://127.0.0.1:9"
NAMES = sorted([*TABLES, PROBLEMS.name])


def test_tables_built_before_any_copy_are_updated_one_by_one_not_rebuilt(tmp_path):
    raws = sandbox.generate_directory(4, seed=7).profiles()
    cache = Cache(tmp_path, URL)
    assert cache.record() == 0  # the database, no copy in it yet
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
