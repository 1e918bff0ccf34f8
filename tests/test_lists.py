"""icoframes.parse.lists: list items and the filter set read by the one id rule and converters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from messy_profiles import clean_profile

from icoframes.parse.lists import filters_frame, list_frame, merge_pages, page_counts
from icoframes.parse.problems import Problems, value_text
from icoframes.parse.profiles import tidy
from icoframes.schema import FILTERS, LIST


def summary(ico_id, **main) -> dict:
    return {"id": ico_id, "main": {"name": f"ICO {ico_id}", "ico_score": "4.5", **main},
            "links": {"url": f"https://dir.example/{ico_id}"}, "finance": {"raised": "1,000"}}


def counts(problems: Problems) -> dict[tuple[str, str], int]:
    return {(r.table, r.column): r.count for r in problems.summary().itertuples()}


def assert_list_schema(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == LIST.names
    assert dict(frame.dtypes) == LIST.dtypes


@pytest.mark.parametrize("bad_id", ["99999999999999999999", 2**63, -5, "-5", 0, "0", 2.5, "2.5",
                                    True, False, None, "", "x", [3], {"id": 3}])
def test_an_item_with_an_unusable_id_is_a_counted_problem_and_the_rest_is_kept(bad_id):
    problems = Problems()
    frame = list_frame([summary(1), summary(bad_id), summary(2)], status="past",
                       problems=problems)
    assert_list_schema(frame)
    assert frame["id"].tolist() == [1, 2]
    assert frame["name"].tolist() == ["ICO 1", "ICO 2"]
    assert frame["raised"].tolist() == [1000.0, 1000.0]
    assert frame["status"].tolist() == ["past", "past"]
    assert counts(problems) == {("list", "id"): 1}
    assert problems.records() == [{"ico_id": None, "table": "list", "column": "id",
                                   "value": value_text(bad_id), "reason": "unreadable_id"}]


def test_a_twenty_digit_id_no_longer_raises_without_a_collector():
    frame = list_frame([summary("99999999999999999999"), summary(3)], status=None)
    assert frame["id"].tolist() == [3] and frame["status"].isna().all()


def test_items_that_are_not_objects_are_counted_under_id():
    problems = Problems()
    frame = list_frame([None, "item", summary(4)], status="ongoing", problems=problems)
    assert frame["id"].tolist() == [4]
    assert counts(problems) == {("list", "id"): 2}


def test_an_unreadable_score_is_missing_and_counted():
    problems = Problems()
    frame = list_frame([summary(1, ico_score="high"), summary(2, ico_score="N/A"), summary(3)],
                       status="past", problems=problems)
    assert frame["id"].tolist() == [1, 2, 3]
    assert np.isnan(frame["ico_score"].iloc[0]) and np.isnan(frame["ico_score"].iloc[1])
    assert frame["ico_score"].iloc[2] == 4.5
    # 'N/A' is how the API says "missing": not a problem; 'high' is one, of ICO 1
    assert problems.records() == [{"ico_id": 1, "table": "list", "column": "ico_score",
                                   "value": "high", "reason": "unreadable_number"}]


def test_list_values_use_the_profile_converters():
    item = summary(5, name="  Foo  ", logo="TBA")
    item["finance"]["raised"] = "$2.5M"
    item["main"]["ico_score"] = 7
    frame = list_frame([item], status="upcoming")
    row = frame.iloc[0]
    assert row["name"] == "Foo" and pd.isna(row["logo"])
    assert row["raised"] == 2_500_000.0 and row["ico_score"] == 7.0


def test_a_malformed_section_is_counted_under_its_name():
    problems = Problems()
    item = summary(6)
    item["main"] = "not a section"
    frame = list_frame([item], status="past", problems=problems)
    assert frame["id"].tolist() == [6] and pd.isna(frame.loc[0, "name"])
    assert problems.records() == [{"ico_id": 6, "table": "list", "column": "main",
                                   "value": "not a section", "reason": "wrong_shape"}]


def test_no_items_give_an_empty_typed_frame():
    frame = list_frame([], status="past", problems=Problems())
    assert_list_schema(frame)
    assert frame.empty


def test_merge_pages_keeps_unreadable_items_for_list_frame_to_count():
    pages = [{"data": [summary(1), summary("99999999999999999999")]},
             {"data": [summary("1", name="New"), summary(2)]}]
    problems = Problems()
    frame = list_frame(merge_pages(pages), status="past", problems=problems)
    assert frame["id"].tolist() == [1, 2]
    assert frame["name"].tolist() == ["New", "ICO 2"]
    assert counts(problems) == {("list", "id"): 1}


@pytest.mark.parametrize(("page", "expected"), [
    ({"total_icos": "41", "total_pages": "3"}, (41, 3)),
    ({"total_icos": 41.0, "total_pages": 3}, (41, 3)),
    ({"total_icos": 0, "total_pages": 0}, (0, 0)),
    ({"total_icos": -1, "total_pages": "2.5"}, (0, 0)),
    ({"total_icos": "99999999999999999999", "total_pages": True}, (0, 0)),
    ({}, (0, 0)),
])
def test_page_counts_are_non_negative_integers_or_zero(page, expected):
    assert page_counts(page) == expected


def test_filters_count_what_they_cannot_read():
    raw = {
        "platform": [{"id": "1", "name": "Ethereum"}, {"id": "one", "name": "Waves"},
                     {"id": 3, "name": ""}, "junk"],
        "category": "not a list",
        "type": {"0": {"id": 7, "name": "ICO"}},  # a PHP list with gaps
        "location": [{"name": " Malta "}, {"id": 9, "name": "Chad"}],
    }
    problems = Problems()
    frame = filters_frame(raw, problems)
    assert list(frame.columns) == FILTERS.names and dict(frame.dtypes) == FILTERS.dtypes
    assert frame.astype(object).where(frame.notna(), None).values.tolist() == [
        ["platform", 1, "Ethereum"], ["platform", None, "Waves"], ["type", 7, "ICO"],
        ["location", None, "Malta"], ["location", None, "Chad"]]
    assert counts(problems) == {("filters", "platform"): 1, ("filters", "category"): 1,
                                ("filters", "name"): 1, ("filters", "id"): 1}
    assert problems.frame()["ico_id"].isna().all()  # the filter set belongs to no ICO


def test_filters_of_nothing_are_empty():
    frame = filters_frame({})
    assert frame.empty and list(frame.columns) == FILTERS.names


# Ids as the API may send them: numbers, text, floats, and everything unusable.
_IDS = st.one_of(
    st.integers(-3, 2**64), st.integers(-3, 2**64).map(str), st.floats(allow_nan=True),
    st.floats(-5, 5).map(str), st.booleans(), st.none(), st.text(max_size=4),
    st.sampled_from(["99999999999999999999", " 7 ", "7.0", "1e3", "0", "-0"]),
)


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(_IDS, max_size=6))
def test_tidy_and_list_frame_agree_on_which_ids_are_readable(ids):
    profiles = tidy([clean_profile(i) for i in ids])
    listing = list_frame([summary(i) for i in ids], status="past")
    assert listing["id"].tolist() == profiles.icos["id"].tolist()
    assert (listing["id"] > 0).all()
