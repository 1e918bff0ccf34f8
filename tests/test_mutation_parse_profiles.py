"""Raw profiles into tables (``parse/profiles.py``), value by value.

What ``make mutate MODULE=parse:profiles`` found no test pinning down: which bonus terms
say "none" (so the bonus is no row), how a child table's map source is found in its
schema, the ICO and source of each problem of a map, and a JSON integer too big for a
float (it raised OverflowError out of tidy). Pure functions of decoded JSON: no server, no clock.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from icoframes.parse.base import bad
from icoframes.parse.columns import to_float
from icoframes.parse.profiles import _MapSource, tidy
from icoframes.parse.rules import parse_amount
from icoframes.schema import EACH, KEY, TABLES, Column, TableSchema


def _rows(frame: pd.DataFrame, *columns: str) -> list[list[object]]:
    return [[None if v is pd.NA or (isinstance(v, float) and v != v) else v for v in row]
            for row in frame[list(columns)].values.tolist()]


# -- bonuses: terms that say none --------------------------------------------------------


def test_a_bonus_whose_terms_are_null_blank_or_a_none_word_is_not_a_row():
    tables = tidy([{"id": 1, "additional": {"bonuses": {
        "null": None, "blank": "  ", "marker": " TBA ", "word": " NO ", "folded": "none",
        "kept": " 10% "}}}])
    assert _rows(tables.bonuses, "ico_id", "name", "terms") == [[1, "kept", "10%"]]
    assert tables.problems.empty


def test_bonus_terms_that_are_not_text_are_a_row_read_as_text_or_reported():
    tables = tidy([{"id": 1, "additional": {"bonuses": {"number": 10, "list": ["x"],
                                                        "flag": False}}}])
    assert _rows(tables.bonuses, "name", "terms") == [["number", "10"], ["list", None],
                                                      ["flag", None]]
    assert _rows(tables.problems, "table", "column", "value", "reason") == [
        ["bonuses", "terms", '["x"]', "wrong_type"], ["bonuses", "terms", "false", "wrong_type"]]


# -- _MapSource.of: the map a child table is read from -----------------------------------


def test_each_child_table_is_read_from_its_map_by_its_key_and_value_columns():
    found = {name: _MapSource.of(TABLES[name])
             for name in ("social", "distribution", "bonuses", "roadmap")}
    assert {name: (s.table, s.path, s.key, s.value) for name, s in found.items()} == {
        "social": (TABLES["social"], ("links", "social"), "network", "url"),
        "distribution": (TABLES["distribution"], ("finance", "distribution"), "part",
                         "percent"),
        "bonuses": (TABLES["bonuses"], ("additional", "bonuses"), "name", "terms"),
        "roadmap": (TABLES["roadmap"], ("roadmap",), "label", "description"),
    }


def _table(*columns: tuple[str, tuple[str, ...] | None]) -> TableSchema:
    return TableSchema("t", tuple(Column(name, "text", source) for name, source in columns),
                       ("k",))


def test_a_table_without_exactly_one_column_of_map_keys_is_refused():
    none = _table(("v", ("m", EACH)), ("x", None))
    with pytest.raises(ValueError, match=r"^t: expected one column of map keys, got \[\]$"):
        _MapSource.of(none)
    two = _table(("k", ("m", KEY)), ("j", ("n", KEY)), ("v", ("m", EACH)))
    with pytest.raises(ValueError, match=r"^t: expected one column of map keys, got \[Column"
                                         r"\(name='k'.*Column\(name='j'"):
        _MapSource.of(two)


def test_a_table_without_exactly_one_column_of_the_maps_values_is_refused():
    none = _table(("k", ("m", KEY)), ("v", ("other", EACH)))
    with pytest.raises(ValueError, match=r"^t: expected one column of map values, got \[\]$"):
        _MapSource.of(none)
    two = _table(("k", ("m", KEY)), ("v", ("m", EACH)), ("w", ("m", EACH)))
    with pytest.raises(ValueError,
                       match=r"^t: expected one column of map values, got \['v', 'w'\]$"):
        _MapSource.of(two)
    one = _MapSource.of(_table(("k", ("a", "m", KEY)), ("v", ("a", "m", EACH)), ("x", None)))
    assert (one.path, one.key, one.value) == (("a", "m"), "k", "v")


# -- amounts and their unit column ---------------------------------------------------------


def test_a_unit_column_that_is_not_text_is_a_problem_of_its_ico():
    tables = tidy([{"id": 4, "finance": {"caps_unit": "USD", "purchase_unit": "ETH"}},
                   {"id": 5, "finance": {"caps_unit": ["USD"], "soft_cap": "$5",
                                         "hard_cap": "$10", "purchase_unit": {"u": 1}}}])
    assert _rows(tables.problems, "ico_id", "table", "column", "value", "reason") == [
        [5, "icos", "caps_unit", '["USD"]', "wrong_type"],
        [5, "icos", "purchase_unit", '{"u": 1}', "wrong_type"]]
    # the values still name their currency: it fills the unit column left unread
    assert _rows(tables.icos, "id", "soft_cap", "hard_cap", "caps_unit", "purchase_unit") == [
        [4, None, None, "USD", "ETH"], [5, 5.0, 10.0, "USD", None]]


# -- maps of the wrong shape, and map keys that cannot be written --------------------------


def test_social_maps_of_the_wrong_shape_are_problems_of_their_ico_under_their_source():
    tables = tidy([{"id": 2, "links": {"social": {"tw": "https://t/2"}}},
                   {"id": 3, "links": {"social": "https://x"},
                    "team": [{"name": "A", "social": ["y"]}],
                    "advisors": [{"name": "B", "social": "z"},
                                 {"name": "C", "social": {"fb": "https://f/c"}}]}])
    assert _rows(tables.problems, "ico_id", "table", "column", "value", "reason") == [
        [3, "social", "links.social", "https://x", "wrong_shape"],
        [3, "social", "team.social", '["y"]', "wrong_shape"],
        [3, "social", "advisors.social", "z", "wrong_shape"]]
    assert _rows(tables.social, "ico_id", "owner", "position", "network", "url") == [
        [2, "ico", None, "tw", "https://t/2"], [3, "advisor", 1, "fb", "https://f/c"]]


def test_a_map_key_with_a_lone_surrogate_is_kept_and_reported_at_its_ico():
    tables = tidy([{"id": 2, "links": {"social": {"tw": "https://t/2"}},
                    "finance": {"distribution": {"team": "10%"}}},
                   {"id": 3, "links": {"social": {"tw\ud800": "https://t/3"}},
                    "advisors": [{"name": "C", "social": {"f\udc80b": "https://f/c"}}],
                    "finance": {"distribution": {"te\ud800am": "50%"}},
                    "additional": {"bonuses": {"b\ud801": "5%"}},
                    "roadmap": {"Q1 2018\ud802": "launch"}}])
    assert _rows(tables.problems, "ico_id", "table", "column", "reason") == [
        [3, "social", "network", "surrogate"], [3, "social", "network", "surrogate"],
        [3, "distribution", "part", "surrogate"], [3, "bonuses", "name", "surrogate"],
        [3, "roadmap", "label", "surrogate"], [3, "roadmap", "date", "unreadable_date"]]
    assert _rows(tables.social, "ico_id", "network") == [[2, "tw"], [3, "tw\ufffd"],
                                                         [3, "f\ufffdb"]]
    assert _rows(tables.distribution, "ico_id", "part", "percent") == [
        [2, "team", 10.0], [3, "te\ufffdam", 50.0]]
    assert _rows(tables.bonuses, "ico_id", "name") == [[3, "b\ufffd"]]
    assert _rows(tables.roadmap, "ico_id", "label") == [[3, "Q1 2018\ufffd"]]


# -- a JSON integer beyond float64 ---------------------------------------------------------

_HUGE = json.loads("1" + "0" * 400)  # a JSON number Python reads as an int too big for a float


def test_an_integer_too_big_for_a_float_is_an_infinite_amount_not_an_error():
    assert parse_amount(_HUGE) == bad("infinite") and parse_amount(-_HUGE) == bad("infinite")
    assert parse_amount(10**308) == 1e308
    numbers, unread = to_float([1, _HUGE, "2", None])
    assert numbers.tolist()[::2] == [1.0, 2.0] and math.isnan(numbers[1])
    assert unread == ([1], [_HUGE], ["infinite"])


def test_tidy_reads_an_integer_too_big_for_a_float_as_a_problem_of_its_value():
    tables = tidy([{"id": 1, "main": {"ico_score": _HUGE},
                    "finance": {"raised": _HUGE, "hard_cap": _HUGE, "caps_unit": "USD",
                                "token_price": -_HUGE, "distribution": {"a": _HUGE}}},
                   {"id": 2, "main": {"ico_score": 3}, "finance": {"raised": 5}}])
    assert _rows(tables.icos, "id", "ico_score", "raised", "hard_cap", "token_price") == [
        [1, None, None, None, None], [2, 3.0, 5.0, None, None]]
    assert _rows(tables.problems, "ico_id", "table", "column", "reason") == [
        # the amounts read by the rule of units first (raised too: parser 27), then the
        # other columns
        [1, "icos", "hard_cap", "infinite"], [1, "icos", "token_price", "infinite"],
        [1, "icos", "raised", "infinite"], [1, "icos", "ico_score", "infinite"],
        [1, "distribution", "percent", "infinite"]]


# -- no readable profile; child maps of the wrong shape ------------------------------------


def test_input_without_a_readable_profile_gives_empty_tables_and_its_problems():
    tables = tidy([{"id": "x"}, "nope", {"id": None}])
    assert {name: len(frame) for name, frame in tables.items() if len(frame)} == {"problems": 3}
    assert _rows(tables.problems, "ico_id", "table", "column", "value", "reason") == [
        [None, "icos", "id", "x", "unreadable_id"], [None, "icos", "id", "nope", "wrong_shape"],
        [None, "icos", "id", "null", "unreadable_id"]]


def test_child_maps_of_the_wrong_shape_are_problems_of_their_ico_under_their_source():
    tables = tidy([{"id": 2, "finance": {"distribution": "50%"},
                    "additional": {"bonuses": ["a"]}, "roadmap": "Q1"},
                   {"id": 3, "finance": {"distribution": {"a": "5"}}}])
    assert _rows(tables.problems, "ico_id", "table", "column", "value", "reason") == [
        [2, "distribution", "finance.distribution", "50%", "wrong_shape"],
        [2, "bonuses", "additional.bonuses", '["a"]', "wrong_shape"],
        [2, "roadmap", "roadmap", "Q1", "wrong_shape"]]
    assert _rows(tables.distribution, "ico_id", "part", "percent") == [[3, "a", 5.0]]
