"""icoframes.tables.Tables: shape, repr, validation, and exact Parquet round trips."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import ItemsView, KeysView, Mapping, ValuesView

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from messy_profiles import clean_profile, people_profile, sparse_profile, with_

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter
from icoframes.parse.profiles import tidy
from icoframes.roworder import in_key_order
from icoframes.schema import LONG_LISTS, PROBLEMS, TABLE_NAMES, TABLES
from icoframes.tables import Tables, read_table


@pytest.fixture(scope="module")
def messy() -> Tables:
    """Tables with lists (empty too), NaT, missing text, missing Int and problems."""
    profiles = [
        clean_profile(1),
        sparse_profile(2),
        people_profile(3),
        with_(clean_profile(4), {"finance.token_price": "1 BILL = 1 XLM",
                                 "dates.start_datetime": "31.02.2018 00:00:00",
                                 "finance.tokens_for_sale": 10**20,
                                 "main.location": "Curaçao",
                                 "roadmap": {"Q3 2018": "Launch", "someday": ""}}),
    ]
    tables = tidy(profiles, statuses={1: "past", 4: "ongoing"})
    # the fixture must hold what the round trip has to preserve
    assert tables.icos["start_datetime"].isna().any()
    assert tables.icos["status"].isna().any() and tables.social["position"].isna().any()
    assert (tables.icos["markets"].map(len) == 0).any() and len(tables.problems) > 0
    return tables


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=80, seed=13) as server:
        yield server


def assert_same(left: Tables, right: Tables) -> None:
    for (name, a), (other, b) in zip(left.items(), right.items(), strict=True):
        assert name == other
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=name)
        assert dict(a.dtypes) == dict(b.dtypes), name
        lists = [c.name for c in TABLES.get(name, PROBLEMS).columns if c.kind == "list"]
        for column in lists:  # (by kind: on pandas 2.2 text is object too)
            assert all(type(v) is list for v in b[column]), (name, column)
            assert a[column].tolist() == b[column].tolist(), (name, column)


# --------------------------------------------------------------------------- the bundle


def test_empty_has_every_table_with_declared_columns_and_dtypes():
    tables = Tables.empty()
    assert list(tables) == [*TABLE_NAMES, "problems"]
    for name, frame in tables.items():
        schema = TABLES.get(name, PROBLEMS)
        assert frame.shape == (0, len(schema.columns))
        assert list(frame.columns) == schema.names
        assert dict(frame.dtypes) == schema.dtypes


def test_iteration_attributes_and_indexing_agree(messy):
    for name in TABLES:  # the schema's tables, without problems
        frame = messy[name]
        assert getattr(messy, name) is frame
        assert messy[name] is frame
    assert messy["problems"] is messy.problems
    with pytest.raises(KeyError):
        messy["nope"]


def test_is_frozen(messy):
    with pytest.raises(dataclasses.FrozenInstanceError):
        messy.icos = messy.icos  # type: ignore[misc]


def test_repr_shows_row_counts_and_a_problems_summary(messy):
    text = repr(messy)
    assert text.splitlines()[0] == "Tables(4 ICOs)"
    for name in TABLES:  # the schema's tables, without problems
        frame = messy[name]
        assert f"{name}" in text and f"{len(frame):,} rows" in text
    assert "problems:" in text and "icos.token_price 1" in text
    assert "problems" not in repr(tidy([clean_profile()]))


def test_rejects_frames_that_break_the_schema(messy):
    frames = dict(messy)
    with pytest.raises(ValueError, match="columns"):
        Tables(**{**frames, "team": frames["team"].drop(columns="photo")})
    with pytest.raises(ValueError, match="dtypes"):
        Tables(**{**frames, "icos": frames["icos"].astype({"raised": "object"})})
    with pytest.raises(ValueError, match="DataFrame"):
        Tables(**{**frames, "bonuses": None})


# --------------------------------------------------------------------------- Parquet


def test_parquet_round_trip_is_exact(messy, tmp_path):
    assert messy.to_parquet(tmp_path / "out") == tmp_path / "out"
    assert_same(messy, Tables.read_parquet(tmp_path / "out"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_read_leaves_no_file_open_on_return(messy, tmp_path):
    # pq.read_table(path) left closing the file to an Arrow I/O thread, a moment after it
    # returned (about 1 read in 3 still had it open at return): a read-only cache folder
    # could then not be unmounted right after a load (test_migration's 'target is busy')
    messy.to_parquet(tmp_path)

    def open_here() -> list[str]:
        held = []
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # an fd closed meanwhile
                if (target := os.readlink(f"/proc/self/fd/{fd}")).startswith(str(tmp_path)):
                    held.append(target)
        return held

    for _ in range(20):  # each read: the file is closed when the call returns
        Tables.read_parquet(tmp_path)
        assert open_here() == []
        read_table(tmp_path, "icos")
        assert open_here() == []


def test_parquet_round_trip_of_empty_tables(tmp_path):
    Tables.empty().to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path)
    assert_same(Tables.empty(), back)


def test_parquet_round_trip_keeps_exact_values(messy, tmp_path):
    messy.to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path)
    row = back.icos.set_index("id").loc[4]
    assert row["tokens_for_sale"] == 1e20 and row["location"] == "Curaçao"
    assert pd.isna(row["start_datetime"]) and row["markets"] == messy.icos.loc[3, "markets"]
    assert back.social["position"].dtype == pd.Int64Dtype()
    assert back.problems["ico_id"].dtype == pd.Int64Dtype()
    assert back.problems["ico_id"].tolist() == messy.problems["ico_id"].tolist()


def test_files_use_the_schema_arrow_types(messy, tmp_path):
    messy.to_parquet(tmp_path)
    for name, table in [*TABLES.items(), ("problems", PROBLEMS)]:
        schema = pq.read_schema(tmp_path / f"{name}.parquet")
        expected = table.arrow_schema()
        assert schema.names == expected.names
        assert [f.type for f in schema] == [f.type for f in expected], name


def test_duckdb_reads_the_right_types(messy, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    messy.to_parquet(tmp_path)
    con = duckdb.connect()

    def describe(name: str) -> dict[str, str]:
        rows = con.execute(
            f"DESCRIBE SELECT * FROM read_parquet('{tmp_path / name}.parquet')").fetchall()
        return {row[0]: row[1] for row in rows}

    types = describe("icos")
    assert types["id"] == "BIGINT"
    assert types["ico_score"] == "DOUBLE" and types["raised"] == "DOUBLE"
    assert types["start_datetime"].startswith("TIMESTAMP")
    assert types["kyc"] == "BOOLEAN"
    assert types["markets"] == "VARCHAR[]" and types["name"] == "VARCHAR"
    social = describe("social")
    assert social["position"] == "BIGINT" and social["ico_id"] == "BIGINT"
    n, missing = con.execute(
        f"SELECT count(*), count(*) - count(position) FROM "
        f"read_parquet('{tmp_path / 'social.parquet'}')").fetchone()
    assert (n, missing) == (len(messy.social), int(messy.social["position"].isna().sum()))
    joined = con.execute(
        f"SELECT count(*) FROM read_parquet('{tmp_path / 'team.parquet'}') t "
        f"JOIN read_parquet('{tmp_path / 'icos.parquet'}') i ON t.ico_id = i.id").fetchone()[0]
    assert joined == len(messy.team)


def test_polars_reads_the_right_types(messy, tmp_path):
    pl = pytest.importorskip("polars")
    messy.to_parquet(tmp_path)
    icos = pl.read_parquet(tmp_path / "icos.parquet")
    assert icos.schema["id"] == pl.Int64
    assert icos.schema["ico_score"] == pl.Float64
    assert icos.schema["start_datetime"] == pl.Datetime("ms")
    assert icos.schema["kyc"] == pl.Boolean
    assert icos.schema["markets"] == pl.List(pl.String)
    assert icos.schema["name"] == pl.String
    assert icos["accepting"].to_list() == messy.icos["accepting"].tolist()
    social = pl.read_parquet(tmp_path / "social.parquet")
    assert social.schema["position"] == pl.Int64
    assert social["position"].null_count() == int(messy.social["position"].isna().sum())


def test_writes_are_atomic_and_leave_no_temporary_files(messy, tmp_path, monkeypatch):
    messy.to_parquet(tmp_path)
    before = (tmp_path / "icos.parquet").read_bytes()

    def broken_write(table, where, **kwargs):
        where.write(b"PAR1 half a file")  # the temporary file's handle
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken_write)
    with pytest.raises(OSError, match="disk full"):
        tidy([clean_profile(9)]).to_parquet(tmp_path)
    assert (tmp_path / "icos.parquet").read_bytes() == before  # the old file is untouched
    assert sorted(os.listdir(tmp_path)) == sorted(f"{n}.parquet" for n in
                                                  [*TABLE_NAMES, "problems"])


def test_read_parquet_without_problems_file_reads_no_problems(messy, tmp_path):
    messy.to_parquet(tmp_path)
    (tmp_path / "problems.parquet").unlink()
    back = Tables.read_parquet(tmp_path)
    assert back.problems.empty and list(back.problems.columns) == PROBLEMS.names
    assert len(back.icos) == len(messy.icos)


def test_read_parquet_rejects_files_of_another_schema(messy, tmp_path):
    messy.to_parquet(tmp_path)
    old = pa.table({"ico_id": pa.array([1], pa.int64()), "name": pa.array(["x"])})
    pq.write_table(old, tmp_path / "bonuses.parquet")
    with pytest.raises(ValueError, match="bonuses"):
        Tables.read_parquet(tmp_path)


def test_read_parquet_of_a_missing_table_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        Tables.read_parquet(tmp_path)


def test_read_back_frames_are_independent_of_the_files(messy, tmp_path):
    messy.to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path)
    back.icos.loc[0, "markets"].append("changed")
    assert Tables.read_parquet(tmp_path).icos.loc[0, "markets"] == messy.icos.loc[0, "markets"]
    assert np.array_equal(back.icos["id"].to_numpy(), messy.icos["id"].to_numpy())


@pytest.mark.parametrize(
    ("column", "values"),
    [("id", pa.array([1.7], pa.float64())), ("name", pa.array([1], pa.int64())),
     ("start_datetime", pa.array([0], pa.timestamp("us")))],
)
def test_reading_a_file_of_other_types_is_an_error_not_a_cast(tmp_path, column, values):
    Tables.empty().to_parquet(tmp_path)
    path = tmp_path / "icos.parquet"
    good = pq.read_table(path)
    row = {name: pa.nulls(1, good.schema.field(name).type) for name in good.schema.names}
    row["id"] = pa.array([1], pa.int64())
    row.update({name: pa.array([False]) for name in good.schema.names
                if pa.types.is_boolean(good.schema.field(name).type)})
    row[column] = values
    pq.write_table(pa.table(row), path)
    with pytest.raises(ValueError, match=column):
        read_table(tmp_path, "icos")


# --------------------------------------------------------------------------- in a notebook


def test_is_a_mapping_of_every_table_name_to_its_frame(messy):
    names = [*TABLE_NAMES, "problems"]
    assert isinstance(messy, Mapping)
    assert list(messy) == list(messy.keys()) == names
    assert len(messy) == len(Tables.empty()) == len(names)  # tables, not ICOs
    assert bool(Tables.empty())  # an empty result still holds its 11 frames
    assert isinstance(messy.keys(), KeysView) and isinstance(messy.items(), ItemsView)
    assert isinstance(messy.values(), ValuesView)
    assert all(name in messy for name in names) and "icos" in messy.keys()  # noqa: SIM118
    assert "nope" not in messy and 3 not in messy and ["icos"] not in messy
    assert messy.get("nope") is None and messy.get("nope", "default") == "default"
    assert messy.get("problems") is messy.problems
    assert [name for name, _ in messy.items()] == names
    assert all(frame is getattr(messy, name) for name, frame in messy.items())
    assert [id(v) for v in messy.values()] == [id(messy[name]) for name in names]
    assert ("team", messy.team) in messy.items() and messy.icos in messy.values()


def test_dict_round_trips(messy):
    plain = dict(messy)
    assert type(plain) is dict and list(plain) == list(messy)
    again = Tables(**plain)
    assert_same(again, messy)
    assert all(again[name] is frame for name, frame in plain.items())
    # equality is identity: frames compare element-wise, a bundle has no value equality
    assert messy == messy and again != messy and {messy: 1}[messy] == 1


def test_subset_by_ids_filters_every_table_and_the_problems(messy):
    sub = messy.subset([4, 1])
    assert sub.icos["id"].tolist() == [1, 4]  # the bundle's order, not the ids'
    for name, frame in messy.items():
        if name == "icos":
            continue
        want = frame[frame["ico_id"].isin([1, 4]).fillna(False)].reset_index(drop=True)
        pd.testing.assert_frame_equal(sub[name], want, check_exact=True, obj=name)
    assert set(sub.problems["ico_id"]) == {4} and set(messy.problems["ico_id"]) == {3, 4}
    assert set(messy.subset([3]).team["ico_id"]) == {3} and 3 not in set(sub.team["ico_id"])
    assert_same(messy.subset(messy.icos["id"]), messy)
    assert all(frame.empty for frame in messy.subset([]).values())


def test_subset_by_mask_is_the_subset_by_those_ids(messy):
    mask = messy.icos["id"] > 2
    by_ids = messy.subset([3, 4])
    assert_same(messy.subset(mask), by_ids)
    assert_same(messy.subset(mask.to_numpy()), by_ids)
    assert_same(messy.subset(mask.tolist()), by_ids)
    assert_same(messy.subset(np.array([3, 4])), by_ids)
    assert_same(messy.subset(pd.Index([4, 3])), by_ids)


@pytest.mark.parametrize("bad, message", [
    ([1, 99], r"1 id\(s\) not in icos.id: \[99\]"),
    ([True, False], "mask of 2 values for 4 ICOs"),
    (pd.Series([True] * 4, index=[10, 11, 12, 13]), "index of icos"),
    ([1.5], "whole numbers"),
    ("1", "ids or a boolean mask"),
    (7, "ids or a boolean mask"),
    ([[1, 2]], "one-dimensional"),
])
def test_subset_refuses_what_is_neither_ids_nor_a_mask(messy, bad, message):
    with pytest.raises(InvalidParameter, match=message):
        messy.subset(bad)


def test_subset_of_a_load_keeps_its_report(cfg):
    tables = icoframes.load_tables(status="past", progress=False)
    ids = tables.icos["id"].tolist()[:5]
    sub = tables.subset(ids)
    assert sub.icos["id"].tolist() == ids
    assert sub.icos.attrs["icoframes"] == tables.icos.attrs["icoframes"]
    assert set(sub.team["ico_id"]) <= set(ids) and len(sub.team) < len(tables.team)


def test_html_shows_every_table_its_rows_and_columns_and_the_problems(messy):
    page = messy._repr_html_()
    for name in TABLES:  # the schema's tables, without problems
        frame = messy[name]
        assert f"<td>{name}</td><td>{len(frame):,}</td>" in page
    assert "ico_id, position, value" in page  # the long tables' columns
    total, columns = len(messy.problems), len(messy.problem_summary())
    assert total > columns > 0 and f"problems: {total:,} unreadable values in {columns}" in page
    assert "query" not in page  # built by tidy: no load to describe


def test_html_escapes_what_it_shows():
    tables = tidy([clean_profile(1)]).with_report(icoframes.LoadReport.from_dict({
        "queries": [{"params": {"status": "past", "name": "<b>x</b>"}, "complete": False,
                     "from_cache": False, "rows": 0, "fetched_at": None, "problems": []}],
        "requests": {}}))
    page = tables._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "<td>NO</td>" in page  # an incomplete query says so


# --------------------------------------------------------------------------- long tables


def exploded(icos: pd.DataFrame, field: str) -> list[tuple[int, int, str]]:
    """The list column as (ico_id, position, value) rows, computed independently."""
    return [(ico_id, position, value)
            for ico_id, values in zip(icos["id"].tolist(), icos[field].tolist(), strict=True)
            for position, value in enumerate(values)]


def rows_of(frame: pd.DataFrame) -> list[tuple[int, int, str]]:
    return list(zip(frame["ico_id"].tolist(), frame["position"].tolist(),
                    frame["value"].tolist(), strict=True))


@pytest.mark.parametrize("field", LONG_LISTS)
def test_long_tables_are_the_list_columns_exploded(messy, field):
    long = messy[field]
    assert rows_of(long) == exploded(messy.icos, field)
    assert long.dtypes.to_dict() == TABLES[field].dtypes
    assert not long.duplicated(["ico_id", "position"]).any()
    assert long.drop_duplicates().shape == long.shape  # hashable: one value per cell


def test_long_tables_use_the_list_columns_normaliser():
    profile = with_(clean_profile(5), {"finance.accepting": [" ETH", "", "N/A", "BTC "],
                                       "finance.markets": "https://x.example",
                                       "finance.restricted_areas": {"0": "US", "2": "China"}})
    tables = tidy([profile])
    assert tables.icos.loc[0, "accepting"] == ["ETH", "BTC"]
    assert rows_of(tables.accepting) == [(5, 0, "ETH"), (5, 1, "BTC")]
    assert rows_of(tables.markets) == [(5, 0, "https://x.example")]
    assert rows_of(tables.restricted_areas) == [(5, 0, "US"), (5, 1, "China")]


def test_long_tables_round_trip_through_parquet_and_duckdb(messy, tmp_path):
    messy.to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path)
    for field in LONG_LISTS:
        pd.testing.assert_frame_equal(back[field], messy[field], check_exact=True)
    con = duckdb.connect()
    types = dict(con.execute(f"SELECT column_name, column_type FROM "
                             f"(DESCRIBE SELECT * FROM '{tmp_path}/accepting.parquet')").fetchall())
    assert types == {"ico_id": "BIGINT", "position": "BIGINT", "value": "VARCHAR"}
    got = con.execute(f"SELECT ico_id, position, value FROM '{tmp_path}/accepting.parquet' "
                      "ORDER BY ico_id, position").fetchall()
    assert got == sorted(exploded(messy.icos, "accepting"))


def test_a_load_and_an_export_carry_the_long_tables(cfg, tmp_path):
    tables = icoframes.load_tables(status="past", progress=False)
    assert len(tables.icos) == len(cfg.directory.ids("past"))
    for field in LONG_LISTS:
        assert len(tables[field]) > 0, field  # the sandbox fills every list somewhere
        # the loaders keep the cache's order of ICOs in child tables: compare as sets of rows
        assert sorted(rows_of(tables[field])) == sorted(exploded(tables.icos, field))
    manifest = icoframes.export_tables(tmp_path / "out", status="past", progress=False)
    assert {f: manifest.rows[f] for f in LONG_LISTS} == {f: len(tables[f]) for f in LONG_LISTS}
    back = Tables.read_parquet(tmp_path / "out")
    ordered = in_key_order(tables)  # an export's rows: by ico_id and position, not cache order
    for field in LONG_LISTS:
        pd.testing.assert_frame_equal(back[field], ordered[field], check_exact=True)
    joined = duckdb.connect().execute(
        f"SELECT count(*) FROM '{tmp_path}/out/markets.parquet' m "
        f"JOIN '{tmp_path}/out/icos.parquet' i ON i.id = m.ico_id "
        "WHERE list_extract(i.markets, m.position + 1) = m.value").fetchone()[0]
    assert joined == len(tables.markets)


def test_html_of_a_load_shows_the_query_and_when_it_was_fetched(cfg):
    tables = icoframes.load_tables(status="past", progress=False)
    page = tables._repr_html_()
    query = tables.icos.attrs["icoframes"]["queries"][0]
    past = len(cfg.directory.ids("past"))
    # complete, listed, without a row, the list, from where
    assert f"<td>status=past</td><td>yes</td><td>{past:,}</td><td>0</td><td>whole</td>" \
           "<td>service</td>" in page
    assert f"<td>service</td><td>{query['fetched_at']}</td>" in page
    assert f"<td>icos</td><td>{len(tables.icos):,}</td>" in page
    assert "requests spent: " in page and "ico " in page
    cached = icoframes.load_tables(status="past", progress=False)
    again = cached._repr_html_()
    assert "<td>0</td><td>whole</td><td>cache</td>" in again
    fetched_at = cached.icos.attrs["icoframes"]["queries"][0]["fetched_at"]
    # the time of the data (the first load's, stamped once), not of this call
    assert fetched_at == query["fetched_at"]
    assert f"<td>{fetched_at}</td>" in again
    assert "requests spent: none" in again


@pytest.mark.parametrize("mask", [np.array([], dtype=bool), pd.array([], dtype="boolean"),
                                  np.array([True, False, True], dtype=bool)])
def test_subset_refuses_a_boolean_array_of_another_length_even_empty(messy, mask):
    # np.array([], dtype=bool) was read as "no ids": an empty bundle, without a word
    with pytest.raises(InvalidParameter, match=rf"mask of {len(mask)} values for 4 ICOs"):
        messy.subset(mask)
    assert all(frame.empty for frame in messy.subset([]).values())  # a list: no ids


def test_dict_plus_with_report_round_trips_and_report_is_no_argument(messy):
    # Tables(**dict(t)) lost the report without saying how to keep it
    report = icoframes.LoadReport.from_dict({"queries": [], "requests": {"icos": 2}})
    loaded = messy.with_report(report)
    again = Tables(**dict(loaded)).with_report(loaded.report)
    assert again.report is report and all(again[n] is f for n, f in loaded.items())
    assert Tables(**dict(loaded)).report is None  # dict(t) holds the frames only
    assert "report" not in dict(loaded) and "report" not in loaded
    assert loaded.subset([1]).report is report
    with pytest.raises(TypeError):  # not an argument: never taken for a table
        Tables(**dict(loaded), report=report)
    with pytest.raises(InvalidParameter, match="with_report takes a LoadReport or None"):
        loaded.with_report({"queries": []})
