"""icoframes.schema: one declaration of shape and origin, shown by describe() and used by tidy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from messy_profiles import clean_profile, with_

import icoframes
from icoframes import schema
from icoframes.parse.profiles import tidy
from icoframes.schema import (
    EACH,
    FILTERS,
    ICOS,
    KEY,
    LIST,
    PROBLEM_SUMMARY,
    PROBLEMS,
    TABLES,
    TEXT_DTYPE,
    Column,
    TableSchema,
    describe,
)
from icoframes.tables import Tables

ALL = {**TABLES, "problems": PROBLEMS, "problem_summary": PROBLEM_SUMMARY, "list": LIST,
       "filters": FILTERS}


def test_describe_shows_source_and_doc_for_every_icos_column():
    table = describe("icos")
    assert table.columns.tolist() == ["column", "dtype", "source", "doc"]
    assert table["column"].tolist() == ICOS.names
    assert (table["doc"].str.len() > 0).all(), table.loc[table["doc"] == "", "column"].tolist()
    by_column = table.set_index("column")
    assert by_column.loc["caps_unit", "source"] == "finance.caps_unit"
    assert by_column.loc["caps_unit", "doc"] == "unit of soft_cap and hard_cap"
    assert by_column.loc["start_datetime", "source"] == "dates.start_datetime"
    assert by_column.loc["id", "source"] == "id"
    # the icos columns the package derives rather than reads from the profile
    assert by_column.index[by_column["source"].isna()].tolist() == ["status", "fetched_at",
                                                                     "fetched_status"]
    assert all(table[c].dtype == TEXT_DTYPE for c in table.columns)


@pytest.mark.parametrize("name", list(ALL))
def test_every_column_of_every_table_has_a_doc(name):
    docs = describe(name).set_index("column")["doc"]
    assert (docs.str.strip().str.len() > 0).all(), docs[docs == ""].index.tolist()
    assert describe(ALL[name]).equals(describe(name))


def test_sources_are_paths_the_spec_names():
    # spec 2.3: the sections of a profile; the children read maps and lists of them
    sections = {"main", "links", "finance", "dates", "additional"}
    for column in ICOS.columns:
        if column.source is None or column.source == ("id",):
            continue
        assert len(column.source) == 2 and column.source[0] in sections, column
        assert column.source[1] == column.name, column  # spec names = column names
    assert describe("team").set_index("column").loc["role", "source"] == "team.*.role"
    assert describe("advisors").set_index("column").loc["role", "source"] == "advisors.*.role"
    assert [c.source_text for c in TABLES["roadmap"].columns] == [
        "id", "roadmap.<key>", "", "", "roadmap.*"]  # date and precision are derived
    assert [c.source for c in LIST.columns if c.source] == [
        ("id",), ("main", "name"), ("main", "logo"), ("main", "ico_score"), ("links", "url"),
        ("finance", "raised")]
    assert FILTERS.column("name").source == (EACH, EACH, "name")
    assert FILTERS.column("filter").source == (KEY,)


def test_describe_of_an_unknown_table_names_the_known_ones():
    with pytest.raises(KeyError, match=r"no table 'icoss'.*icos, team"):
        describe("icoss")


def _with_column(monkeypatch, column: Column) -> TableSchema:
    """What adding one line to schema.ICOS gives: the same table with one more column."""
    extended = TableSchema("icos", (*ICOS.columns, column), key=ICOS.key, doc=ICOS.doc)
    monkeypatch.setitem(schema.TABLES, "icos", extended)
    return extended


def test_adding_a_sourced_column_is_one_line(monkeypatch, tmp_path):
    extended = _with_column(monkeypatch, Column("token_sale_bonus", "float",
                                                ("finance", "token_sale_bonus"), "bonus, %"))
    profiles = [with_(clean_profile(1), {"finance.token_sale_bonus": "12.5"}),
                with_(clean_profile(2), {"finance.token_sale_bonus": "lots"}),
                clean_profile(3)]
    tables = tidy(profiles)
    assert tables.icos.columns.tolist() == extended.names
    values = tables.icos["token_sale_bonus"].tolist()
    assert values[0] == 12.5 and math.isnan(values[1]) and math.isnan(values[2])
    assert tables.icos["token_sale_bonus"].dtype == np.float64
    assert tables.problems.astype(object).values.tolist() == [
        [2, "icos", "token_sale_bonus", "lots", "unreadable_number"]]
    # the new column also goes through Parquet, empty tables and describe()
    again = Tables.read_parquet(tables.to_parquet(tmp_path))
    pd.testing.assert_frame_equal(again.icos, tables.icos)
    assert Tables.empty().icos.columns.tolist() == extended.names
    assert describe("icos").iloc[-1].tolist() == ["token_sale_bonus", "float64",
                                                  "finance.token_sale_bonus", "bonus, %"]


def test_a_new_column_in_a_new_section_and_a_list_column(monkeypatch):
    _with_column(monkeypatch, Column("audited_by", "list", ("security", "audited_by"), "auditors"))
    profiles = [with_(clean_profile(1), {"security": {"audited_by": ["A", " B "]}}),
                with_(clean_profile(2), {"security": "not a section"})]
    tables = tidy(profiles)
    assert tables.icos["audited_by"].tolist() == [["A", "B"], []]
    assert tables.problems.astype(object).values.tolist() == [
        [2, "icos", "security", "not a section", "wrong_shape"]]


def test_each_load_icos_result_has_empty_child_tables_of_its_own(tmp_path):
    # assemble copies its empty child tables from ones made once: what a caller does to
    # one result's frames (columns added or dropped, attrs) never reaches the next result
    from icoframes.fetch.result import assemble
    from icoframes.store.cache import Cache
    from icoframes.store.derived import DerivedTables

    derived = DerivedTables(Cache(tmp_path, "http://127.0.0.1:9"))  # nothing cached
    listing = schema.empty_frame(LIST)
    first = assemble(derived, listing, only_icos=True)
    first.team["extra"] = pd.Series([], dtype="int64")
    del first.roadmap["precision"]
    first.markets.attrs["icoframes"] = {"queries": []}
    second = assemble(derived, listing, only_icos=True)
    for name, table in TABLES.items():
        frame = second[name]
        assert frame is not first[name] and list(frame.columns) == table.names and frame.empty
        assert frame.attrs == {} and [str(t) for t in frame.dtypes] == [
            str(c.dtype) for c in table.columns]


def test_a_bundle_with_a_column_of_another_dtype_is_refused_naming_it():
    frames = {name: schema.empty_frame(t) for name, t in TABLES.items()}
    frames["team"] = frames["team"].astype({"position": "float64"})
    with pytest.raises(ValueError, match=r"team: columns with undeclared dtypes: "
                                         r"\{'position': 'float64'\}"):
        Tables(**frames)


@pytest.mark.parametrize("name", ["features", " Feature"])
def test_describe_of_features_points_to_describe_features(name):
    # review REV-CL F3: "no table 'features'" named the tables, not where features are
    with pytest.raises(KeyError) as caught:
        icoframes.describe(name)
    assert str(caught.value.args[0]).endswith(
        "problems, problem_summary, list, filters; the columns compute_features adds: "
        "icoframes.describe_features()")
