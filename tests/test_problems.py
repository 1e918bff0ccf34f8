"""Problems with an address and a reason: one row per unreadable value, with the ICO it
belongs to and why it was not read (a code of ``icoframes.reasons.REASONS``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, profile_reply
from messy_profiles import (
    clean_profile,
    people_profile,
    sparse_profile,
    with_,
    wrong_sections_profile,
)

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning
from icoframes.parse import rules
from icoframes.parse.problems import Problems, value_text
from icoframes.parse.profiles import tidy
from icoframes.reasons import REASONS
from icoframes.sandbox.directory import generate_directory
from icoframes.schema import EACH, KEY, PROBLEM_SUMMARY, PROBLEMS, TABLES
from icoframes.tables import Tables

# --------------------------------------------------------------------------- helpers


def _walk(node: Any, path: tuple[str, ...]) -> Iterator[Any]:
    """The raw values at ``path``: ``*`` each entry, ``<key>`` each key; lists are stepped into."""
    if not path:
        yield node
        return
    step, rest = path[0], path[1:]
    if isinstance(node, list) and step not in (EACH, KEY):
        for item in node:  # team.social: the social of every person
            yield from _walk(item, path)
    elif step == EACH:
        entries = list(node.values()) if isinstance(node, dict) else node
        for entry in entries if isinstance(entries, list) else []:
            yield from _walk(entry, rest)
    elif step == KEY:
        yield from node if isinstance(node, dict) else []
    elif isinstance(node, dict) and step in node:
        yield from _walk(node[step], rest)


def raw_texts(profile: dict, table: str, column: str) -> set[str]:
    """What a problem of ``table.column`` of this profile may report: the values at its source.

    A column's source path (every entry of a map or list), or, for a malformed
    entry, the source field the column names (``main``, ``team``,
    ``team.social``); the items of a list or map found there count too (an
    unreadable market, a person that is not a dict).
    """
    schema = TABLES[table]
    names = {c.name: c.source for c in schema.columns}
    if names.get(column):
        paths = [names[column]]
        if table == "social":  # the people's links have the shape of links.social
            paths += [(who, *names[column][1:]) for who in ("team", "advisors")]
    else:
        paths = [tuple(column.split("."))]
    found: list[Any] = []
    for path in paths:
        for value in _walk(profile, path):
            found.append(value)
            if isinstance(value, list | dict):
                found.extend(value.values() if isinstance(value, dict) else value)
    return {value_text(v) for v in found}


def assert_problems_point_at_their_values(tables: Tables, profiles: list) -> None:
    """Every row names the ICO whose raw profile holds exactly the reported value there."""
    by_id = {rules.parse_id(p.get("id")): p for p in profiles if isinstance(p, dict)}
    assert len(tables.problems) > 0
    for row in tables.problems.itertuples():
        if pd.isna(row.ico_id):  # only the id itself can leave a problem without an id
            assert (row.table, row.column) == ("icos", "id")
            assert row.value in {value_text(p.get("id") if isinstance(p, dict) else p)
                                 for p in profiles}
            continue
        assert row.ico_id in set(tables.icos["id"])
        texts = raw_texts(by_id[row.ico_id], row.table, row.column)
        assert row.value in texts, (row, texts)


def assert_schema(frame: pd.DataFrame) -> None:
    assert frame.columns.tolist() == PROBLEMS.names
    assert dict(frame.dtypes) == PROBLEMS.dtypes
    assert set(frame["reason"].dropna()) <= set(REASONS)


MESSY = [
    with_(clean_profile(1), {"finance.token_price": "1 BILL = 1 XLM", "main.kyc": "maybe",
                             "finance.distribution": {"Team": "lots", "Sale": "60%"}}),
    sparse_profile(2),
    people_profile(3),
    with_(clean_profile(4), {"main": "oops", "finance.markets": ["https://a.example", {"x": 1}],
                             "dates.end_datetime": "31.02.2018 00:00:00"}),
    clean_profile("not an id"),
    wrong_sections_profile(5),
    with_(clean_profile(6), {"finance.soft_cap": "$2,000,000", "finance.caps_unit": "ETH"}),
]


# --------------------------------------------------------------------------- tidy


def test_every_problem_names_the_ico_whose_raw_value_it_reports():
    tables = tidy(MESSY)
    assert_schema(tables.problems)
    assert_problems_point_at_their_values(tables, MESSY)
    # the planted values, each at its ICO
    rows = set(tables.problems.astype(object).itertuples(index=False, name=None))
    assert {(1, "icos", "token_price", "1 BILL = 1 XLM", "unreadable_price"),  # BILL: whose?
            (1, "icos", "kyc", "maybe", "unknown_flag"),
            (1, "distribution", "percent", "lots", "unreadable_number"),
            (4, "icos", "main", "oops", "wrong_shape"),
            (4, "icos", "markets", '{"x": 1}', "wrong_type"),
            (4, "icos", "end_datetime", "31.02.2018 00:00:00", "impossible_date"),
            (3, "team", "team", "Bo Chen", "wrong_shape"),
            (3, "advisors", "advisors", "42", "wrong_shape"),
            (3, "social", "team.social", "https://twitter.example/di", "wrong_shape"),
            (6, "icos", "soft_cap", "$2,000,000", "unit_conflict"),
            (pd.NA, "icos", "id", "not an id", "unreadable_id")} <= rows
    assert tables.problems["reason"].notna().all()  # tidy gives every problem its reason
    # sparse_profile is the API's way of saying "nothing": no problem of ICO 2
    assert 2 not in set(tables.problems["ico_id"].dropna())


def test_problems_of_sandbox_profiles_name_their_icos():
    directory = generate_directory(300, seed=5)
    profiles = json.loads(json.dumps(directory.profiles()))
    tables = tidy(profiles)
    assert tables.problems["ico_id"].notna().all()  # every sandbox profile has a readable id
    assert_problems_point_at_their_values(tables, profiles)


def test_the_summary_counts_the_rows_of_each_column():
    tables = tidy(MESSY)
    summary = tables.problem_summary()
    assert summary.columns.tolist() == PROBLEM_SUMMARY.names
    assert dict(summary.dtypes) == PROBLEM_SUMMARY.dtypes
    rows = tables.problems.groupby(["table", "column"]).size().to_dict()
    assert dict(zip(zip(summary["table"], summary["column"], strict=True), summary["count"],
                    strict=True)) == rows
    assert not summary.duplicated(["table", "column"]).any()
    for row in summary.itertuples():
        values = tables.problems.loc[(tables.problems["table"] == row.table)
                                     & (tables.problems["column"] == row.column), "value"]
        assert row.examples == list(dict.fromkeys(values))[:3]


def test_no_problems_give_the_empty_typed_frames():
    tables = tidy([clean_profile(1), sparse_profile(2)])
    assert tables.problems.empty
    assert_schema(tables.problems)
    assert tables.problem_summary().empty
    assert dict(tables.problem_summary().dtypes) == PROBLEM_SUMMARY.dtypes
    assert_schema(Tables.empty().problems)
    assert_schema(Problems().frame())


def test_long_values_are_cut_and_values_that_are_not_text_are_json():
    long = "x" * 500
    tables = tidy([with_(clean_profile(1), {"main.name": ["a", None], "main.kyc": long})])
    values = dict(zip(tables.problems["column"], tables.problems["value"], strict=True))
    assert values["name"] == '["a", null]'
    assert len(values["kyc"]) == 100 and values["kyc"] == "x" * 99 + "…"


# --------------------------------------------------------------------------- Parquet


def test_parquet_round_trip_keeps_every_row_and_dtype(tmp_path):
    tables = tidy(MESSY)
    back = Tables.read_parquet(tables.to_parquet(tmp_path))
    pd.testing.assert_frame_equal(back.problems, tables.problems, check_exact=True)
    assert back.problems["ico_id"].isna().sum() == 1
    schema = pq.read_schema(tmp_path / "problems.parquet")
    assert [f.type for f in schema] == [f.type for f in PROBLEMS.arrow_schema()]


def test_a_problems_file_of_an_older_version_reads_as_rows_without_ids(tmp_path):
    Tables.empty().to_parquet(tmp_path)
    old = pa.table({"table": ["icos", "list"], "column": ["kyc", "id"], "count": [3, 1],
                    "examples": [["'maybe'", "'no idea'"], ["'x'"]]})
    pq.write_table(old, tmp_path / "problems.parquet")
    problems = Tables.read_parquet(tmp_path).problems
    assert_schema(problems)
    assert problems["ico_id"].isna().all()
    assert problems["column"].tolist() == ["kyc", "kyc", "kyc", "id"]
    assert problems["value"].iloc[:2].tolist() == ["'maybe'", "'no idea'"]
    assert problems["value"].isna().tolist() == [False, False, True, False]
    assert problems["reason"].isna().all()


def test_a_problems_file_from_before_reasons_reads_with_the_reason_missing(tmp_path):
    tables = tidy(MESSY)
    tables.to_parquet(tmp_path)
    old = pq.read_table(tmp_path / "problems.parquet").drop_columns(["reason"])
    pq.write_table(old, tmp_path / "problems.parquet")  # as icoframes 0.1.0 wrote it
    back = Tables.read_parquet(tmp_path).problems
    assert_schema(back)
    assert back["reason"].isna().all()
    pd.testing.assert_frame_equal(back.drop(columns="reason"),
                                  tables.problems.drop(columns="reason"))
    assert back.attrs["columns"]["reason"].description.startswith("why it was not read")


def test_records_round_trip_and_old_records_keep_their_count():
    found = Problems()
    found.add("list", "ico_score", ["high", True], ids=[7, 8],
              reason=["unreadable_number", "wrong_type"])
    found.add("list", "id", ["99999999999999999999"], reason="unreadable_id")
    again = Problems()
    again.extend(json.loads(json.dumps(found.records())))  # as stored in the list cache
    pd.testing.assert_frame_equal(again.frame(), found.frame())
    assert again.frame()["reason"].tolist() == ["unreadable_number", "wrong_type",
                                                "unreadable_id"]
    old = Problems()
    old.extend([{"table": "list", "column": "id", "count": 2, "examples": ["'x'"]}])
    assert len(old) == 2 and old.frame()["ico_id"].isna().all()
    assert old.frame()["reason"].isna().all()
    before = Problems()  # a record stored before reasons: the reason is missing, not made up
    before.extend([{"ico_id": 7, "table": "list", "column": "ico_score", "value": "high"}])
    row = before.frame().astype(object).iloc[0]
    assert row.tolist()[:4] == [7, "list", "ico_score", "high"] and pd.isna(row["reason"])


# --------------------------------------------------------------------------- loads


def test_a_load_returns_the_problems_of_the_loaded_icos_only(tmp_path):
    with sandbox.serve(n_icos=120, seed=5) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path)
        try:
            everything = icoframes.load_tables(progress=False)
            spent = sb.stats.requests.total()
            past = icoframes.load_tables(status="past", progress=False)  # from the cache
        finally:
            icoframes.reset_configuration()
    assert sb.stats.requests.total() == spent
    assert everything.problems["reason"].notna().all()  # from the cache too: every reason kept
    assert past.problems["reason"].notna().all()
    past_ids = set(past.icos["id"])
    other = everything.problems[~everything.problems["ico_id"].isin(past_ids)]
    assert len(other) > 0  # the cache holds problems of ICOs this load does not return
    assert_schema(past.problems)
    assert set(past.problems["ico_id"]) <= past_ids
    mine = everything.problems[everything.problems["ico_id"].isin(past_ids)]
    pd.testing.assert_frame_equal(past.problems, mine.reset_index(drop=True))
    assert past.problem_summary()["count"].sum() == len(past.problems)


PAGE = {
    "total_icos": "3", "total_pages": 1, "current_page": 1, "error": None,
    "data": [
        {"id": 11, "main": {"name": "Good"}},
        {"id": "99999999999999999999", "main": {"name": "Huge id"}},
        {"id": 12, "main": {"name": "Odd score", "ico_score": "high"}},
    ],
}


def _profile(asked: Any) -> dict:
    return with_(clean_profile(asked), {"main.kyc": f"maybe {asked}"})


def test_a_load_keeps_the_problems_of_its_list_pages(tmp_path):
    with HostileServer({LIST: json_reply(PAGE), PROFILE: profile_reply(_profile)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path)
        try:
            with pytest.warns(IncompleteWarning, match="partial"):
                tables = icoframes.load_tables(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    assert tables.icos["id"].tolist() == [11, 12]
    rows = tables.problems.astype(object).values.tolist()
    # the profiles' problems and this query's list pages', by ICO in the order of icos (an
    # ICO's by table, then column), then the one of no ICO
    assert rows == [[11, "icos", "kyc", "maybe 11", "unknown_flag"],
                    [12, "icos", "kyc", "maybe 12", "unknown_flag"],
                    [12, "list", "ico_score", "high", "unreadable_number"],
                    [pd.NA, "list", "id", "99999999999999999999", "unreadable_id"]]


def test_add_takes_one_id_per_value_or_none():
    found = Problems()
    found.add("icos", "kyc", ["a"], reason="unknown_flag")
    assert found.frame()["ico_id"].isna().all()
    with pytest.raises(ValueError, match="1 ids for 2 values"):
        found.add("icos", "kyc", ["a", "b"], ids=[5], reason="unknown_flag")


def test_add_requires_a_declared_reason_for_every_value():
    found = Problems()
    with pytest.raises(TypeError, match="reason"):
        found.add("icos", "kyc", ["a"])  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"undeclared reasons.*'because'"):
        found.add("icos", "kyc", ["a"], reason="because")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1 reasons for 2 values"):
        found.add("icos", "kyc", ["a", "b"], reason=["unknown_flag"])
    assert len(found) == 0


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_an_int_id_array_names_no_ico_by_0_or_a_negative_id(dtype):
    # an ICO id is >= 1 (rules.parse_id): an int array reads like a list (0 was ico_id 0)
    found = Problems()
    found.add("icos", "kyc", ["a", "b", "c"], ids=np.array([0, 7, -1], dtype=dtype),
              reason="unknown_flag")
    found.add("icos", "kyc", ["d", "e", "f"], ids=[0, 7, -1], reason="unknown_flag")
    assert found.frame()["ico_id"].astype(object).tolist() == [pd.NA, 7, pd.NA] * 2
    assert [r["ico_id"] for r in found.records()] == [None, 7, None] * 2


def test_an_unsigned_id_beyond_int64_names_no_ico():
    found = Problems()  # 2**64 - 1 was ico_id -1 (cast to int64)
    found.add("icos", "kyc", ["a", "b", "c"], ids=np.array([2**64 - 1, 2**63, 2**63 - 1],
                                                           dtype=np.uint64),
              reason="unknown_flag")
    assert found.frame()["ico_id"].astype(object).tolist() == [pd.NA, pd.NA, 2**63 - 1]


def test_a_missing_problem_value_is_the_schema_s_missing_text_on_every_pandas():
    """A value the problems row cannot show is NaN, as in a table read back from the cache:
    on pandas 2.2 (object text) it was None, so an online and an offline load's problems
    held two kinds of missing value."""
    from icoframes.parse.problems import Problems

    found = Problems()  # (records as a list page's are kept: a value None is not known)
    found.extend([{"ico_id": None, "table": "list", "column": "id", "value": None,
                   "reason": "unreadable_id"},
                  {"ico_id": 3, "table": "list", "column": "id", "value": "x", "reason": None}])
    frame = found.frame()
    assert frame["value"].isna().tolist() == [True, False]
    assert [type(v) for v in frame["value"] if not isinstance(v, str)] == [float]
    assert frame["value"].dtype == frame["reason"].dtype
