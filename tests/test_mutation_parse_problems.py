"""The collector of unreadable values (``parse/problems.py``), value by value.

How a raw value is written as text, what ``Problems`` records and refuses, the ICO ids it
accepts, records of older versions, the order of its frame and a load's problems. Pure:
no server, no clock (`make mutate MODULE=parse:problems`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from icoframes.parse.base import Unread
from icoframes.parse.problems import WIDTH, Problems, problems_of_load, value_text
from icoframes.schema import PROBLEMS

# -- value_text ----------------------------------------------------------------------------


def test_value_text_writes_text_as_it_is_and_the_rest_as_json_without_escapes():
    assert value_text(" a\tb ") == " a\tb "
    assert value_text({"é": [1, None, 2.5, False]}) == '{"é": [1, null, 2.5, false]}'
    assert value_text("ü") == "ü" and value_text(["ü"]) == '["ü"]'
    assert value_text(None) == "null"


def test_value_text_of_what_json_cannot_write_is_its_repr():
    assert value_text({1.5: "a"}) == '{"1.5": "a"}'  # json writes a float key as text
    assert value_text({(1, 2): "a"}) == "{(1, 2): 'a'}"  # a tuple key: TypeError -> repr
    loop: list = []
    loop.append(loop)
    assert value_text(loop) == "[[...]]"  # circular: ValueError -> repr
    assert value_text({1, 2}) == '"{1, 2}"'  # not JSON at all: default=repr, as a JSON string


def test_value_text_cuts_at_the_width_and_replaces_lone_surrogates():
    assert WIDTH == 100
    assert value_text("x" * 100) == "x" * 100
    assert value_text("x" * 101) == "x" * 99 + "…"
    assert value_text("a\ud800b") == "a\ufffdb"
    assert value_text(["\udcff"]) == '["\ufffd"]'


# -- Problems.add and its refusals ---------------------------------------------------------


def test_problems_count_and_name_what_they_hold():
    found = Problems()
    assert len(found) == 0 and repr(found) == "Problems()"
    found.add("icos", "kyc", (v for v in ["a", "b"]), ids=iter([1, 2]), reason="unknown_flag")
    found.add("list", "id", [], reason="unreadable_id")
    found.add("icos", "kyc", ["c"], ids=[3], reason="unknown_flag")
    found.add("list", "id", ["x"], reason="unreadable_id")
    assert len(found) == 4
    assert repr(found) == "Problems(icos.kyc 3, list.id 1)"
    assert found.frame().astype(object).values.tolist() == [
        [1, "icos", "kyc", "a", "unknown_flag"], [2, "icos", "kyc", "b", "unknown_flag"],
        [3, "icos", "kyc", "c", "unknown_flag"], [pd.NA, "list", "id", "x", "unreadable_id"]]


def test_add_refuses_with_messages_naming_the_column():
    found = Problems()
    with pytest.raises(ValueError, match=r"^icos\.kyc: 1 reasons for 2 values$"):
        found.add("icos", "kyc", ["a", "b"], reason=["unknown_flag"])
    with pytest.raises(ValueError, match=r"^icos\.kyc: undeclared reasons \['because', 'why'\]; "
                                         r"declare them in icoframes\.reasons$"):
        found.add("icos", "kyc", ["a", "b", "c"],
                  reason=["why", "because", "unknown_flag"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^icos\.kyc: 3 ids for 2 values$"):
        found.add("icos", "kyc", ["a", "b"], ids=np.array([1, 2, 3]), reason="unknown_flag")
    with pytest.raises(ValueError, match=r"^icos\.kyc: 1 ids for 2 values$"):
        found.add("icos", "kyc", ["a", "b"], ids=[1], reason="unknown_flag")
    assert len(found) == 0


def test_add_unread_names_each_value_by_its_row_or_not_at_all():
    found = Problems()
    found.add_unread("icos", "kyc", Unread.none(), np.array([1, 2]))
    assert len(found) == 0
    found.add_unread("icos", "kyc", Unread([0, 2], ["a", "c"], ["unknown_flag", "wrong_type"]),
                     np.array([7, 8, 9]))
    found.add_unread("filters", "id", Unread([1], ["x"], ["unreadable_id"]), None)
    assert found.frame().astype(object).values.tolist() == [
        [7, "icos", "kyc", "a", "unknown_flag"], [9, "icos", "kyc", "c", "wrong_type"],
        [pd.NA, "filters", "id", "x", "unreadable_id"]]


# -- ids ------------------------------------------------------------------------------------


def test_only_positive_int64_ids_name_an_ico():
    ids = [7, np.int64(8), 9.0, np.float64(10.0), 2**63 - 1, 1, 1.0, True, False, None,
           float("nan"), 0, -1, 2**63, 2.5, float(2**63), "11", pd.NA, 0.0, -3.0]
    found = Problems()
    found.add("icos", "kyc", list(range(len(ids))), ids=ids, reason="unknown_flag")
    frame = found.frame()
    assert frame["ico_id"].dtype == PROBLEMS.dtypes["ico_id"]
    assert frame["ico_id"].astype(object).tolist() == [
        7, 8, 9, 10, 2**63 - 1, 1, 1, *[pd.NA] * 13]


def test_a_list_of_ints_is_checked_id_by_id():
    found = Problems()
    found.add("icos", "kyc", ["a", "b", "c"], ids=[0, -5, 6], reason="unknown_flag")
    found.add("icos", "kyc", ["d"], ids=(True,), reason="unknown_flag")
    assert found.frame()["ico_id"].astype(object).tolist() == [pd.NA, pd.NA, 6, pd.NA]


def test_int_id_arrays_are_read_as_they_are():
    found = Problems()
    found.add("icos", "kyc", ["a", "b"], ids=np.array([3, 4], dtype=np.int32),
              reason="unknown_flag")
    found.add("icos", "kyc", ["c"], ids=np.array([5], dtype=np.uint64), reason="unknown_flag")
    found.add("icos", "kyc", ["d"], reason="unknown_flag")
    assert found.frame()["ico_id"].astype(object).tolist() == [3, 4, 5, pd.NA]


# -- records and extend --------------------------------------------------------------------


def test_records_are_plain_values_with_none_for_missing():
    found = Problems()
    found.add("list", "id", ["x"], reason="unreadable_id")
    found.add("list", "ico_score", ["high"], ids=[7], reason="unreadable_number")
    assert found.records() == [
        {"ico_id": None, "table": "list", "column": "id", "value": "x",
         "reason": "unreadable_id"},
        {"ico_id": 7, "table": "list", "column": "ico_score", "value": "high",
         "reason": "unreadable_number"}]
    assert type(found.records()[1]["ico_id"]) is int


def test_extend_reads_records_of_every_version():
    found = Problems()
    found.extend([
        {"ico_id": 7, "table": "list", "column": "ico_score", "value": "high",
         "reason": "unreadable_number"},
        {"ico_id": None, "table": "list", "column": "id", "value": None, "reason": None},
        {"table": "list", "column": "id", "value": 5},  # before reasons: missing, kept as text
        {"table": "icos", "column": "kyc", "count": 3, "examples": ["'a'", "'b'", "'c'", "'d'"]},
        {"table": "icos", "column": "kyc", "count": 2, "examples": ["'e'"]},
        {"table": "icos", "column": "mvp", "count": 0, "examples": ["'f'"]},
        {"table": "icos", "column": "mvp", "examples": ["'g'"]},
        {"table": "icos", "column": "scam", "count": 1},
    ])
    frame = found.frame()
    assert frame.astype(object).where(frame.notna(), None).values.tolist() == [
        [None, "icos", "kyc", "'a'", None], [None, "icos", "kyc", "'b'", None],
        [None, "icos", "kyc", "'c'", None], [None, "icos", "kyc", "'e'", None],
        [None, "icos", "kyc", None, None], [None, "icos", "scam", None, None],
        [7, "list", "ico_score", "high", "unreadable_number"],
        [None, "list", "id", None, None], [None, "list", "id", "5", None]]
    assert len(found) == 9


# -- frame, summary, problems_of_load ------------------------------------------------------


def test_frame_lists_tables_in_schema_order_then_others_in_the_order_added():
    found = Problems()
    found.add("filters", "name", ["f"], reason="no_name")
    found.add("list", "id", ["l"], reason="unreadable_id")
    found.add("roadmap", "date", ["r"], ids=[2], reason="unreadable_date")
    found.add("icos", "kyc", ["k"], ids=[1], reason="unknown_flag")
    found.add("team", "team", ["t"], ids=[3], reason="wrong_shape")
    found.add("icos", "mvp", ["m"], ids=[1], reason="unknown_flag")
    frame = found.frame()
    assert frame[["table", "column"]].values.tolist() == [
        ["icos", "kyc"], ["icos", "mvp"], ["team", "team"], ["roadmap", "date"],
        ["filters", "name"], ["list", "id"]]
    assert dict(frame.dtypes) == PROBLEMS.dtypes and list(frame.columns) == PROBLEMS.names


def test_the_summary_counts_each_column_with_its_first_examples():
    found = Problems()
    found.add("list", "id", ["x", "y", "x", "z", "w"], reason="unreadable_id")
    found.add("icos", "kyc", ["a"], ids=[1], reason="unknown_flag")
    assert found.summary().astype(object).values.tolist() == [
        ["icos", "kyc", 1, ["a"]], ["list", "id", 5, ["x", "y", "z"]]]


def test_problems_of_load_keeps_its_icos_and_every_problem_of_its_queries():
    found = Problems()
    found.add("icos", "kyc", ["a", "b", "c"], ids=[1, 2, None], reason="unknown_flag")
    queries = [{"problems": [{"ico_id": 9, "table": "list", "column": "ico_score",
                              "value": "high", "reason": "unreadable_number"}]},
               {"problems": None}, {},
               {"problems": [{"ico_id": None, "table": "list", "column": "id", "value": "x",
                              "reason": "unreadable_id"}]}]
    out = problems_of_load(found.frame(), iter([2, 9]), queries)
    assert out.astype(object).values.tolist() == [
        [2, "icos", "kyc", "b", "unknown_flag"],
        [9, "list", "ico_score", "high", "unreadable_number"],
        [pd.NA, "list", "id", "x", "unreadable_id"]]
    assert list(out.index) == [0, 1, 2] and dict(out.dtypes) == PROBLEMS.dtypes


@pytest.mark.parametrize("ids", [[], [5]])
def test_problems_of_load_of_nothing_is_the_empty_typed_frame(ids):
    found = Problems()
    found.add("icos", "kyc", ["a"], ids=[1], reason="unknown_flag")
    out = problems_of_load(found.frame(), ids, [{"problems": []}])
    assert out.empty and dict(out.dtypes) == PROBLEMS.dtypes
    only_list = problems_of_load(Problems().frame(), [], [{"problems": [
        {"ico_id": 4, "table": "list", "column": "id", "value": "x", "reason": "unreadable_id"}]}])
    assert only_list.astype(object).values.tolist() == [[4, "list", "id", "x", "unreadable_id"]]
    assert dict(only_list.dtypes) == PROBLEMS.dtypes
