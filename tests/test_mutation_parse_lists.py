"""List pages, the filter set and the people of a profile, value by value: what mutants of
``parse/lists.py`` and ``parse/people.py`` survived (`make mutate MODULE=parse:people+lists`).

Pure functions of decoded JSON: no server, no clock. ``merge_pages`` is checked on its
own output (``list_frame`` keeps the last copy of an id anyway, so a test through it
cannot see whether the pages were merged), ``summary_keys`` on its text, and the
problems on their reason and ICO, not only their count.
"""

from __future__ import annotations

import json
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

from icoframes.parse.lists import filters_frame, list_frame, merge_pages, summary_keys
from icoframes.parse.people import people_key
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy
from icoframes.schema import FILTERS, LIST, TABLES

# -- merge_pages ---------------------------------------------------------------------------


def test_merge_pages_keeps_one_copy_of_each_id_at_its_first_place_with_the_last_value():
    pages = [{"data": [{"id": 1, "v": "a"}, {"id": "x"}, {"id": 2}]},
             {"data": [{"id": "1", "v": "b"}, {"id": " 2 ", "v": "c"}]}]
    assert merge_pages(pages) == [{"id": "1", "v": "b"}, {"id": "x"}, {"id": " 2 ", "v": "c"}]


def test_merge_pages_keeps_every_item_without_a_readable_id_each_once():
    pages = [{"data": [{"id": "x"}, {"v": 1}, 7, {"id": 3}]}, {"data": [{"id": "x"}, None]}]
    # two items with the same unreadable id are two items: neither has an id to merge on
    assert merge_pages(pages) == [{"id": "x"}, {"v": 1}, 7, {"id": 3}, {"id": "x"}, None]


@pytest.mark.parametrize("data", [None, "ab", {"id": 1}, 5])
def test_merge_pages_reads_no_items_from_data_that_is_not_a_list(data):
    assert merge_pages([{"data": data}, {}, {"data": [{"id": 4}]}]) == [{"id": 4}]


# -- list_frame ----------------------------------------------------------------------------


def test_list_frame_reads_items_given_as_an_iterator():
    items = iter([{"id": 1, "main": {"name": "A"}}, {"id": "2", "main": {"name": "B"}}])
    frame = list_frame(items, status="past")
    assert frame["id"].tolist() == [1, 2] and frame["name"].tolist() == ["A", "B"]
    assert list(frame.columns) == LIST.names


# -- summary_keys --------------------------------------------------------------------------


def test_summary_keys_are_json_of_name_score_and_raised_with_null_for_missing():
    listing = list_frame([
        {"id": 1, "main": {"name": "A", "ico_score": "4.5"}, "finance": {"raised": "1,000"}},
        {"id": 2, "main": {"ico_score": "N/A"}, "finance": {"raised": 2.5}},
        {"id": 3, "main": {"name": "C", "ico_score": 3}},
    ], status="past")
    keys = summary_keys(listing)
    assert keys == ['["A", 4.5, 1000.0]', '[null, null, 2.5]', '["C", 3.0, null]']
    assert [json.loads(k) for k in keys] == [["A", 4.5, 1000.0], [None, None, 2.5],
                                             ["C", 3.0, None]]


def test_summary_keys_of_no_rows():
    assert summary_keys(list_frame([], status="past")) == []


# -- filters_frame -------------------------------------------------------------------------


def test_a_nameless_or_unreadable_filter_name_is_reported_with_its_reason_in_order():
    problems = Problems()
    frame = filters_frame({"platform": [{"id": 1, "name": ["x"]}, {"id": 2, "name": "\ud800"},
                                        {"id": 3}, {"id": 4, "name": "A"},
                                        {"id": 5, "name": True}]}, problems)
    # a lone surrogate is read with U+FFFD and reported; a list or a flag is no name
    assert frame.astype(object).values.tolist() == [["platform", 2, "\ufffd"],
                                                    ["platform", 4, "A"]]
    assert [(r["column"], r["value"], r["reason"]) for r in problems.records()] == [
        ("name", '["x"]', "wrong_type"), ("name", "\ufffd", "surrogate"),
        ("name", "null", "no_name"), ("name", "true", "wrong_type")]
    assert list(frame.columns) == FILTERS.names and dict(frame.dtypes) == FILTERS.dtypes


def test_an_empty_filter_entry_is_no_filter_and_no_problem():
    problems = Problems()
    frame = filters_frame({"platform": "", "category": None, "type": [{"id": 7, "name": "ICO"}]},
                          problems)
    assert frame.astype(object).values.tolist() == [["type", 7, "ICO"]]
    assert len(problems) == 0


@pytest.mark.parametrize("raw", [["platform"], "platform", None, 3])
def test_a_filter_set_that_is_not_an_object_is_empty(raw):
    problems = Problems()
    frame = filters_frame(raw, problems)
    assert frame.empty and list(frame.columns) == FILTERS.names and len(problems) == 0


# -- people --------------------------------------------------------------------------------


def test_people_key_names_the_list_of_people_or_refuses_a_table_without_one():
    assert people_key(TABLES["team"]) == "team"
    assert people_key(TABLES["advisors"]) == "advisors"
    with pytest.raises(ValueError, match=r"^icos: its columns name no single list of people: "
                                         r"set\(\)$"):
        people_key(TABLES["icos"])


@pytest.mark.parametrize("team", ["junk", 5, True, "0"])
def test_a_team_that_is_no_list_of_people_is_a_problem_of_its_ico(team):
    t = tidy([{"id": 1, "team": [{"name": "Ann"}]}, {"id": 2, "team": team}])
    assert t.team[["ico_id", "name"]].values.tolist() == [[1, "Ann"]]
    problems = t.problems
    assert problems.astype(object).values.tolist() == [
        [2, "team", "team", team if isinstance(team, str) else json.dumps(team), "wrong_shape"]]


@pytest.mark.parametrize("team", [None, "", {}, []])
def test_an_empty_team_is_no_one_and_no_problem(team):
    t = tidy([{"id": 1, "team": team}])
    assert t.team.empty and t.problems.empty


def test_people_given_as_a_tuple_or_a_map_or_one_person():
    t = tidy([{"id": 1, "team": ({"name": "Ann"}, {"name": "Bob"})},
              {"id": 2, "team": {"0": {"name": "Cy"}, "2": {"name": "Di"}}},
              {"id": 3, "advisors": {"name": "Ed", "role": "CTO"}}])
    assert t.team[["ico_id", "position", "name"]].values.tolist() == [
        [1, 0, "Ann"], [1, 1, "Bob"], [2, 0, "Cy"], [2, 1, "Di"]]
    assert t.advisors[["ico_id", "position", "name"]].values.tolist() == [[3, 0, "Ed"]]
    assert t.problems.empty
    assert np.array_equal(t.team["ico_id"].to_numpy(), np.array([1, 1, 2, 2]))
    assert not pd.isna(t.team["name"]).any()


def test_people_that_are_other_mappings_are_read_and_non_people_leave_a_gap():
    t = tidy([{"id": 1, "team": [MappingProxyType({"name": "Ann"}), "junk",
                                 {"name": "Bob", "social": {"x": "https://x/bob"}}]}])
    assert t.team[["ico_id", "position", "name"]].values.tolist() == [[1, 0, "Ann"],
                                                                      [1, 2, "Bob"]]
    assert t.social[["ico_id", "owner", "position", "network"]].astype(object).values.tolist() \
        == [[1, "team", 2, "x"]]
    assert t.problems.astype(object).values.tolist() == [[1, "team", "team", "junk",
                                                          "wrong_shape"]]
