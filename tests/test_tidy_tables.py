"""tidy(tables=...): the tables asked for, each exactly as a whole tidy builds it, the
others empty; a name that is no table refused."""

from __future__ import annotations

import pandas as pd
import pytest
from messy_profiles import (
    clean_profile,
    minimal_profile,
    people_profile,
    sparse_profile,
    wrong_sections_profile,
)

from icoframes import sandbox
from icoframes.errors import InvalidParameter, UnknownName
from icoframes.parse.profiles import tidy
from icoframes.schema import LONG_LISTS, PROBLEMS, TABLES


@pytest.fixture(scope="module")
def raws() -> list[dict]:
    """The sandbox's mess and the hand-made shapes (wrong sections, people, a duplicate id)."""
    made = [clean_profile(), minimal_profile(), sparse_profile(), wrong_sections_profile(),
            people_profile(), {**clean_profile(), "main": "oops"}, "not a profile"]
    return [*sandbox.generate_directory(150, seed=11).profiles(), *made]


@pytest.fixture(scope="module")
def whole(raws):
    return tidy(raws, statuses={101: "past"})


@pytest.mark.parametrize("names", [(name,) for name in TABLES]
                         + [("team", "roadmap"), ("social", "icos")])
def test_each_table_asked_for_is_tidys_and_the_others_are_empty(raws, whole, names):
    some = tidy(raws, statuses={101: "past"}, tables=names)
    for name in TABLES:
        if name in names:
            pd.testing.assert_frame_equal(some[name], whole[name], obj=name)
            assert len(some[name]) or name in LONG_LISTS  # (the check reads rows)
        elif not some[name].empty:  # built with one asked for (icos and its long tables,
            pd.testing.assert_frame_equal(some[name], whole[name], obj=name)  # the people)
            assert not set(names).isdisjoint({"icos", *LONG_LISTS, "social"}), name
        else:
            assert list(some[name].dtypes) == list(whole[name].dtypes), name
    # the problems of the tables built are tidy's, in its order
    assert set(map(str, some.problems.to_dict("records"))) <= set(
        map(str, whole.problems.to_dict("records")))


@pytest.mark.parametrize("names", [None, (PROBLEMS.name,), (PROBLEMS.name, "icos")])
def test_all_or_the_problems_build_every_table(raws, whole, names):
    every = tidy(raws, statuses={101: "past"}, tables=names)
    for name in (*TABLES, PROBLEMS.name):
        pd.testing.assert_frame_equal(every[name], whole[name], obj=name)


def test_no_table_or_no_profile_builds_nothing(raws):
    for tables in (tidy(raws, tables=()), tidy([], tables="icos")):
        assert all(tables[name].empty for name in TABLES)


def test_the_empty_tables_are_each_results_own(raws):
    first, second = (tidy(raws[:3], tables=["icos"]) for _ in range(2))
    del first.team["name"]
    assert list(second.team.columns) == list(tidy([]).team.columns)


def test_a_name_that_is_no_table_is_refused_with_a_did_you_mean(raws):
    with pytest.raises(UnknownName, match=r"'teams' is not a table .*did you mean 'team'"):
        tidy(raws[:3], tables=["icos", "teams"])
    with pytest.raises(InvalidParameter, match="names no tables"):
        tidy(raws[:3], tables=5)
    assert not tidy(raws[:3], tables="icos").icos.empty  # one name as text
