"""An upgrade of icoframes between two snapshot days: a value the new parser reads otherwise,
of a profile fetched again, is no sure change at the service. ``changes()`` keeps such an
event, marks it (``parser_changed``) and warns naming the days and parser versions; events
between days of one parser are unmarked.

The days are real exports of the sandbox; the first two are then made as an older parser
would have written them: their manifests name another parser version, and day 2 holds the
value that parser read otherwise: a hard cap it left missing both days, which the new
parser reads (the reverse of parser 30 reading "30,000" ETH beside a decimal-comma price
and parser 31 leaving it missing; the mark does not depend on the direction). Day 3 is the
new parser's.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.parse.rules import PARSER_VERSION

DAYS = [dt.datetime(2026, 12, d, 3, 15, tzinfo=dt.UTC) for d in (1, 2, 3)]
OLD = PARSER_VERSION - 1


def _folder(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _as_old_parser(folder, *, missing_cap: int | None = None) -> None:
    """The day as the older parser wrote it: its manifest names it, and (``missing_cap``)
    that ICO's hard cap is one it could not read."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.update(parser_version=OLD, parser_fingerprint="an older parser")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    if missing_cap is not None:
        table = pq.read_table(folder / "icos.parquet")
        caps = table.column("hard_cap").to_pylist()
        caps[table.column("id").to_pylist().index(missing_cap)] = None
        at = table.schema.get_field_index("hard_cap")
        table = table.set_column(at, table.schema.field(at), pa.array(caps, pa.float64()))
        pq.write_table(table, folder / "icos.parquet")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Three days; an ICO renamed at the service on day 2 (one parser both days) and another
    on day 3 (across the upgrade); every profile fetched again each day."""
    out = tmp_path_factory.mktemp("parser") / "out"
    with sandbox.serve(n_icos=40, seed=5) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
        try:
            capped = [r.id for r in sb.directory.records()
                      if sb.directory.profile(r.id)["finance"].get("hard_cap")]
            kept_cap, renamed_2, renamed_3 = capped[0], capped[1], capped[2]
            for i, when in enumerate(DAYS):
                if i == 1:
                    sb.update_ico(renamed_2, name="Renamed on day two")
                elif i == 2:
                    sb.update_ico(renamed_3, name="Renamed on day three")
                with time_machine.travel(when, tick=True):
                    icoframes.export_tables(out, snapshot=True, refresh="all", progress=False)
        finally:
            icoframes.reset_configuration()
    for when in DAYS[:2]:
        _as_old_parser(_folder(out, when), missing_cap=kept_cap)
    return out, kept_cap, renamed_2, renamed_3


def _changes(what, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        events = icoframes.changes(what, **kwargs)
    return events, [str(w.message) for w in caught if issubclass(w.category, IcoframesWarning)]


@pytest.mark.parametrize("read", ["path", "frame"])
def test_an_event_across_a_parser_upgrade_is_marked_and_warned_of(tree, read):
    out, kept_cap, renamed_2, renamed_3 = tree
    what = out if read == "path" else icoframes.read_snapshots(out)
    events, said = _changes(what, kinds=["name", "hard_cap"])
    got = {(e.ico_id, e.kind, e.snapshot_date.date().isoformat()): e.parser_changed
           for e in events.itertuples()}
    assert got == {
        (renamed_2, "name", "2026-12-02"): False,  # one parser both days: the service's
        (renamed_3, "name", "2026-12-03"): True,   # the service's too, but read by two
        (kept_cap, "hard_cap", "2026-12-03"): True,  # the parser's alone
    }
    assert str(events["parser_changed"].dtype) == "bool"
    assert len(said) == 1, said
    assert (f"2 event(s) compare values read by two parser versions (2 on 2026-12-03 (parser "
            f"{PARSER_VERSION}) against 2026-12-02 (parser {OLD}))") in said[0]
    assert "parser_changed" in said[0]


def test_days_of_one_parser_mark_nothing_and_say_nothing(tree):
    out, _, renamed_2, _ = tree
    events, said = _changes(out, kinds=["name", "hard_cap"], end="2026-12-02")
    assert events[["ico_id", "kind"]].values.tolist() == [[renamed_2, "name"]]
    assert not events["parser_changed"].any()
    assert said == []
