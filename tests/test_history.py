"""History from exports: real snapshot exports of a sandbox moved through several days."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox, schema
from icoframes.history import changes, read_export, read_snapshots, snapshot_folders
from icoframes.tables import Tables

DAYS = [dt.date(2026, 11, 1), dt.date(2026, 11, 2), dt.date(2026, 11, 3), dt.date(2026, 11, 4)]


def day(d: dt.date) -> pd.Timestamp:
    return pd.Timestamp(d).as_unit("ms")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Four daily snapshot exports of a sandbox changed between days; what was done, by day."""
    out = tmp_path_factory.mktemp("exports") / "out"
    cache = tmp_path_factory.mktemp("cache")
    done: dict[str, object] = {}
    with sandbox.serve(n_icos=60, seed=1) as sb:
        icoframes.configure(**sb.settings(), cache_dir=cache)
        try:
            ids = {s: sb.directory.ids(s) for s in ("past", "ongoing", "upcoming")}
            upcoming, ongoing, past = ids["upcoming"][0], ids["ongoing"][0], ids["past"]
            done.update(moved=upcoming, ended=ongoing, rescored=past[0], removed=past[1],
                        removed_later=past[2], sizes={})
            for i, when in enumerate(DAYS):
                if i == 1:
                    sb.update_ico(past[0], ico_score=4.9, raised=12_345_000)
                    sb.remove_ico(past[1])
                    done["added"] = sb.add_ico("upcoming")
                    sb.update_ico(upcoming, status="ongoing")
                elif i == 2:
                    sb.update_ico(upcoming, status="past")
                    sb.update_ico(ongoing, status="past")
                elif i == 3:
                    sb.remove_ico(past[2])
                    done["added_later"] = sb.add_ico("past")
                done["sizes"][when] = len(sb.directory)
                noon = dt.datetime.combine(when, dt.time(12), tzinfo=dt.UTC)
                with time_machine.travel(noon):
                    manifest = icoframes.export_tables(out, snapshot=True, refresh=True,
                                                       progress=False)
                assert manifest.path.name == f"snapshot_date={when.isoformat()}"
            done["before"] = {r.id: r for r in sandbox.generate_directory(60, seed=1).records()}
        finally:
            icoframes.reset_configuration()
    return out, done


def test_read_snapshots_rows_per_date_and_dtypes(history):
    out, done = history
    icos = read_snapshots(out)
    assert icos.columns.tolist() == ["snapshot_date", *schema.ICOS.names]
    assert icos.dtypes.to_dict() == {"snapshot_date": np.dtype("datetime64[ms]"),
                                     **schema.ICOS.dtypes}
    counts = icos.groupby("snapshot_date").size()
    assert counts.to_dict() == {day(d): n for d, n in done["sizes"].items()}
    assert icos["snapshot_date"].is_monotonic_increasing
    first = icos[icos["snapshot_date"] == day(DAYS[0])]
    assert first["id"].is_monotonic_increasing
    team = read_snapshots(out, "team")
    assert team.dtypes.to_dict() == {"snapshot_date": np.dtype("datetime64[ms]"),
                                     **schema.TEAM.dtypes}
    assert set(team["snapshot_date"]) == {day(d) for d in DAYS}


def test_changes_lists_new_removed_status_and_values(history):
    out, done = history
    events = changes(out)
    assert events.columns.tolist() == ["ico_id", "snapshot_date", "kind", "old", "new",
                                       "previous_date", "parser_changed"]
    assert not events["parser_changed"].any()  # one parser wrote every day
    assert events.dtypes["ico_id"] == np.dtype("int64")
    assert events.dtypes["snapshot_date"] == np.dtype("datetime64[ms]")
    assert events.dtypes["kind"] == schema.TEXT_DTYPE
    assert not (events["snapshot_date"] == day(DAYS[0])).any()  # the first is the baseline

    def of(ico_id: int) -> list[tuple[pd.Timestamp, str, object, object]]:
        rows = events[events["ico_id"] == ico_id]
        return [(r.snapshot_date, r.kind, r.old if isinstance(r.old, str) else None,
                 r.new if isinstance(r.new, str) else None) for r in rows.itertuples()]

    assert of(done["moved"]) == [(day(DAYS[1]), "status", "upcoming", "ongoing"),
                                 (day(DAYS[2]), "status", "ongoing", "past")]
    assert of(done["ended"]) == [(day(DAYS[2]), "status", "ongoing", "past")]
    assert of(done["removed"]) == [(day(DAYS[1]), "removed", "past", None)]
    assert of(done["removed_later"]) == [(day(DAYS[3]), "removed", "past", None)]
    assert of(done["added"]) == [(day(DAYS[1]), "new", None, "upcoming")]
    assert of(done["added_later"]) == [(day(DAYS[3]), "new", None, "past")]
    before = done["before"][done["rescored"]]
    rescored = of(done["rescored"])
    assert (day(DAYS[1]), "score", None if before.score is None else f"{before.score:g}",
            "4.9") in rescored
    raised = [e for e in rescored if e[1] == "raised"]
    assert len(raised) == 1 and raised[0][3] == "12345000"
    assert raised[0][2] == (None if before.raised is None else str(before.raised))
    # nothing else moved
    touched = {done[k] for k in ("moved", "ended", "removed", "removed_later", "added",
                                 "added_later", "rescored")}
    assert set(events["ico_id"]) == touched
    last = events[events["snapshot_date"] == day(DAYS[3])]
    assert (last["previous_date"] == day(DAYS[2])).all()


def test_status_transitions_are_one_filter_away(history):
    out, _ = history
    events = changes(out, kinds=["status"])
    moves = events[events["kind"] == "status"]
    assert sorted(zip(moves["old"], moves["new"], strict=True)) == [
        ("ongoing", "past"), ("ongoing", "past"), ("upcoming", "ongoing")]
    assert set(events["kind"]) == {"status", "new", "removed"}
    # the same events from the stacked frame as from the path
    frame = read_snapshots(out)
    pd.testing.assert_frame_equal(changes(frame, kinds=["status"]), events)


def test_read_export_one_snapshot_and_a_plain_export(history, tmp_path):
    out, done = history
    folders = snapshot_folders(out)
    assert list(folders.index) == [day(d) for d in DAYS]
    tables = read_export(folders.iloc[-1])
    assert isinstance(tables, Tables)
    assert len(tables.icos) == done["sizes"][DAYS[-1]]
    manifest = json.loads((out / f"snapshot_date={DAYS[-1]}" / "manifest.json").read_text())
    assert manifest["rows"]["icos"] == len(tables.icos)
    plain = tmp_path / "plain"
    tables.to_parquet(plain)
    (plain / "manifest.json").write_text("{}")
    pd.testing.assert_frame_equal(read_export(plain).icos, tables.icos)


def test_clear_errors_for_what_is_not_an_export(history, tmp_path):
    out, _ = history
    with pytest.raises(FileNotFoundError, match="no export folder"):
        read_export(tmp_path / "nope")
    with pytest.raises(ValueError, match=r"4 snapshots.*read_snapshots.*snapshot_date=2026-11-04"):
        read_export(out)
    (tmp_path / "half").mkdir()
    Tables.empty().to_parquet(tmp_path / "half")
    with pytest.raises(FileNotFoundError, match=r"missing manifest\.json"):
        read_export(tmp_path / "half")
    (tmp_path / "half" / "manifest.json").write_text("{}")
    (tmp_path / "half" / "team.parquet").unlink()
    with pytest.raises(FileNotFoundError, match=r"missing team\.parquet"):
        read_export(tmp_path / "half")
    with pytest.raises(ValueError, match=r"no snapshot_date=YYYY-MM-DD folder.*read_export"):
        read_snapshots(tmp_path / "half")
    with pytest.raises(KeyError, match="did you mean 'icos'"):
        read_snapshots(out, "ico")
    with pytest.raises(ValueError, match="did you mean 'score'"):
        changes(out, kinds=["scor"])
    (tmp_path / "bad" / "snapshot_date=yesterday").mkdir(parents=True)
    with pytest.raises(ValueError, match="not YYYY-MM-DD"):
        read_snapshots(tmp_path / "bad")


def test_missing_values_and_lists_compare_sensibly():
    dates = pd.to_datetime(["2026-11-01"] * 3 + ["2026-11-02"] * 3, format="%Y-%m-%d")
    frame = pd.DataFrame({
        "snapshot_date": dates.astype("datetime64[ms]"),
        "id": [1, 2, 3, 1, 2, 3],
        "status": ["past"] * 6,
        "raised": [np.nan, 5.0, np.nan, np.nan, np.nan, 7.5],
        "markets": [["a"], [], ["b"], ["a"], ["c"], ["b"]],
    })
    events = changes(frame, kinds=["raised", "markets"])
    got = [(r.ico_id, r.kind, r.old if isinstance(r.old, str) else None,
            r.new if isinstance(r.new, str) else None) for r in events.itertuples()]
    assert got == [(2, "raised", "5", None), (2, "markets", "", "c"), (3, "raised", None, "7.5")]


def test_duckdb_reads_the_snapshot_tree(history):
    duckdb = pytest.importorskip("duckdb")
    out, done = history
    rows = duckdb.sql(
        f"select snapshot_date, count(*) from read_parquet('{out}/*/icos.parquet', "
        "hive_partitioning=true) group by 1 order by 1").fetchall()
    assert [(str(d), n) for d, n in rows] == [(d.isoformat(), done["sizes"][d]) for d in DAYS]
