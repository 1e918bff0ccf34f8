"""Reading columns out of records by their source paths (``parse/sources.py``), value by value.

The functions every table is read through: which paths are plain fields, which records
are kept and why the others are not, the values read at each path, sections and maps
that are not dicts, and the conversion of raw columns with their problems. Pure
functions of decoded JSON: no server, no clock (`make mutate MODULE=parse:sources`).
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np
import pytest

from icoframes.parse.problems import Problems
from icoframes.parse.sources import (
    as_dict,
    as_dicts,
    convert,
    field_paths,
    flatten,
    gather,
    id_column,
    read_fields,
    select,
)
from icoframes.schema import FILTERS, LIST, TABLES, Column, TableSchema


def _found(problems: Problems) -> list[tuple]:
    return [(r["ico_id"], r["table"], r["column"], r["value"], r["reason"])
            for r in problems.records()]


# -- field_paths, id_column ----------------------------------------------------------------


def test_field_paths_are_the_paths_of_one_or_two_keys_without_a_step_into_entries():
    assert field_paths(LIST) == {"id": ("id",), "name": ("main", "name"),
                                 "logo": ("main", "logo"), "ico_score": ("main", "ico_score"),
                                 "url": ("links", "url"), "raised": ("finance", "raised")}
    # ('roadmap', '<key>') has two keys but takes a map's keys; ('<key>',) of the filter set too
    assert field_paths(TABLES["roadmap"]) == {"ico_id": ("id",)}
    assert field_paths(TABLES["team"]) == {"ico_id": ("id",)}
    assert field_paths(FILTERS) == {}


def test_a_path_of_three_plain_keys_is_no_field_path():
    table = TableSchema("t", (Column("a", "text", ("x", "y", "z")), Column("b", "text", ("x",)),
                              Column("c", "text", None)), ("b",))
    assert field_paths(table) == {"b": ("x",)}


def test_id_column_is_the_column_read_from_the_id():
    assert (id_column(TABLES["icos"]), id_column(TABLES["team"]), id_column(LIST),
            id_column(FILTERS)) == ("id", "ico_id", "id", None)


# -- select --------------------------------------------------------------------------------


def test_select_keeps_the_last_copy_of_each_id_in_the_order_of_last_copies():
    problems = Problems()
    kept, ids = select([{"id": 2, "v": 1}, {"id": 1}, {"id": "2", "v": 2}, {"id": 3}],
                       problems, "list")
    assert kept == [{"id": 1}, {"id": "2", "v": 2}, {"id": 3}]
    assert ids.dtype == np.int64 and ids.tolist() == [1, 2, 3]
    # parser 20: the dropped copy that differs is reported (it was dropped silently)
    assert problems.records() == [{"ico_id": 2, "table": "list", "column": "id",
                                   "value": '{"id": 2, "v": 1}', "reason": "duplicate_id"}]


def test_select_says_why_a_record_is_left_out():
    problems = Problems()
    kept, ids = select([7, {"id": "x"}, None, {"v": 1}, {"id": 4}], problems, "icos")
    assert kept == [{"id": 4}] and ids.tolist() == [4]
    assert _found(problems) == [(None, "icos", "id", "7", "wrong_shape"),
                                (None, "icos", "id", "x", "unreadable_id"),
                                (None, "icos", "id", "null", "wrong_shape"),
                                (None, "icos", "id", "null", "unreadable_id")]


def test_select_gives_plain_dicts_for_other_mappings():
    kept, ids = select([MappingProxyType({"id": 5, "v": "a"}), {"id": 6}], Problems(), "list")
    assert [type(k) for k in kept] == [dict, dict] and kept == [{"id": 5, "v": "a"}, {"id": 6}]
    assert ids.tolist() == [5, 6]


def test_select_of_nothing_readable():
    kept, ids = select([{"id": 0}], Problems(), "list")
    assert kept == [] and ids.dtype == np.int64 and len(ids) == 0


# -- read_fields, gather -------------------------------------------------------------------


def test_read_fields_of_one_field():
    assert read_fields([{"a": 1}, {}, {"a": None, "b": 2}], ("a",)) == {"a": [1, None, None]}


def test_read_fields_of_several_fields_with_some_missing():
    values = read_fields([{"a": 1, "b": 2}, {"b": 3}, {"a": 4, "b": 5, "c": 6}], ("a", "b"))
    assert {k: list(v) for k, v in values.items()} == {"a": [1, None, 4], "b": [2, 3, 5]}


@pytest.mark.parametrize("fields", [("a",), ("a", "b")])
def test_read_fields_of_no_records(fields):
    assert {k: list(v) for k, v in read_fields([], fields).items()} == {key: [] for key in fields}


def test_gather_reads_fields_and_sections_and_reports_a_section_that_is_no_dict():
    problems = Problems()
    records = [{"id": 1, "main": {"name": "A", "logo": "L"}, "x": 5},
               {"id": 2, "main": "oops"}, {"id": 3, "main": None}, {"id": 4}]
    values = gather(records, [("x",), ("main", "name"), ("main", "logo"), ("id",)], problems,
                    "list", np.array([1, 2, 3, 4]))
    assert {k: list(v) for k, v in values.items()} == {
        ("x",): [5, None, None, None], ("id",): [1, 2, 3, 4],
        ("main",): [{"name": "A", "logo": "L"}, "oops", None, None],
        ("main", "name"): ["A", None, None, None], ("main", "logo"): ["L", None, None, None]}
    assert _found(problems) == [(2, "list", "main", "oops", "wrong_shape")]


def test_gather_reads_a_section_whole_and_its_fields_in_any_order_of_paths():
    records = [{"id": 1, "main": {"name": "A"}}, {"id": 2}]
    for paths in ([("main",), ("main", "name")], [("main", "name"), ("main",)]):
        values = gather(records, paths, Problems(), "list", np.array([1, 2]))
        assert {k: list(v) for k, v in values.items()} == {
            ("main",): [{"name": "A"}, None], ("main", "name"): ["A", None]}


def test_gather_refuses_a_path_of_three_keys():
    with pytest.raises(ValueError, match=r"^not a field path: \('a', 'b', 'c'\)$"):
        gather([{}], [("a", "b", "c")], Problems(), "list", np.array([1]))


# -- as_dicts, as_dict, flatten ------------------------------------------------------------


def test_as_dicts_returns_dicts_as_they_are_and_empties_the_rest():
    values = [{"a": 1}, {"b": 2}]
    assert as_dicts(values, Problems(), ("icos", "links"), np.array([1, 2])) is values
    problems = Problems()
    assert as_dicts([{"a": 1}, "x", MappingProxyType({"c": 3}), []], problems,
                    ("icos", "links"), np.array([5, 6, 7, 8])) == [{"a": 1}, {}, {"c": 3}, {}]
    assert _found(problems) == [(6, "icos", "links", "x", "wrong_shape")]


@pytest.mark.parametrize("value", [None, [], (), "", " ", "TBA", " n/a ", "No", "none", "NONE"])
def test_as_dict_of_an_empty_value_is_empty_and_no_problem(value):
    problems = Problems()
    assert as_dict(value, problems, ("social", "links.social"), 9) == {}
    assert len(problems) == 0


@pytest.mark.parametrize(("value", "text"), [("oops", "oops"), (5, "5"), ([1], "[1]"),
                                             (("a",), '["a"]'), (True, "true"), (0, "0")])
def test_as_dict_of_a_value_that_is_no_map_is_a_problem_of_its_ico(value, text):
    problems = Problems()
    assert as_dict(value, problems, ("social", "links.social"), 9) == {}
    assert _found(problems) == [(9, "social", "links.social", text, "wrong_shape")]


def test_as_dict_copies_a_mapping_into_a_dict():
    value = MappingProxyType({"a": 1})
    out = as_dict(value, Problems(), ("icos", "main"), 1)
    assert type(out) is dict and out == {"a": 1}


def test_flatten_counts_entries_and_lists_keys_and_values_in_order():
    problems = Problems()
    counts, keys, values = flatten([{"a": 1, "b": 2}, {}, "junk", None, {"c": 3}], problems,
                                   ("social", "links.social"), np.array([1, 2, 3, 4, 5]))
    assert counts.dtype == np.int64 and counts.tolist() == [2, 0, 0, 0, 1]
    assert keys == ["a", "b", "c"] and values == [1, 2, 3]
    assert _found(problems) == [(3, "social", "links.social", "junk", "wrong_shape")]


def test_flatten_reads_a_mapping_that_is_not_a_dict():
    counts, keys, values = flatten([MappingProxyType({"x": "y"})], Problems(), ("a", "b"),
                                   np.array([1]))
    assert counts.tolist() == [1] and keys == ["x"] and values == ["y"]


# -- convert -------------------------------------------------------------------------------


def test_convert_checks_bounds_and_names_the_ico_of_each_problem():
    problems = Problems()
    frame = convert(TABLES["distribution"],
                    {"ico_id": np.array([7, 8, 9]), "part": ["Team", "Sale", "Bounty"],
                     "percent": ["25", "150", "-1"]}, problems)
    assert frame["percent"].tolist()[0] == 25.0 and frame["percent"].isna().tolist() == [
        False, True, True]
    assert frame["part"].tolist() == ["Team", "Sale", "Bounty"]
    assert _found(problems) == [(8, "distribution", "percent", "150", "out_of_bounds"),
                                (9, "distribution", "percent", "-1", "negative")]
    assert list(frame.columns) == TABLES["distribution"].names


def test_convert_uses_arrays_as_they_are_and_reports_without_an_id_where_there_is_none():
    problems = Problems()
    frame = convert(FILTERS, {"filter": ["platform", "type"], "id": ["1", "x"],
                              "name": np.array([" A ", "TBA"], dtype=object)}, problems)
    assert frame["id"].astype(object).tolist()[0] == 1 and frame["id"].isna().tolist() == [
        False, True]
    assert frame["name"].tolist() == [" A ", "TBA"]  # an array is not read again
    assert _found(problems) == [(None, "filters", "id", "x", "unreadable_id")]
