"""Parser 27 (review REVU L6): one rule for every amount, raised too.

Each test below failed on 9516946 (parser 26): ``hard_cap`` ``"1.2B"`` under a ``caps_unit``
``USD`` was ``unreadable_number`` while ``raised`` ``"1.2B"`` (in USD) was 1.2e9; ``raised``
``"5000 ETH"`` was ``unreadable_number`` (an amount in ETH: a ``unit_conflict``, as
``tokens_for_sale`` ``"5 ETH"`` and ``hard_cap`` ``"$5"`` under ETH are); ``raised`` ``"10
cents"`` was ``unreadable_number`` (0.1 USD in the caps); an ``accepting`` list of one
comma-joined item (``["BTC, ETH"]``) was one ticker ``"BTC, ETH"``.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group
from test_parse_v26_units import _corpus

from icoframes.parse.lists import list_frame
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import PARSER_VERSION

_BARE = [f"{number}{space}{scale}" for number in ("4.1", "5", "1,200") for space in ("", " ")
         for scale in ("B", "b", "B.", "bn", "M", "m", "K", "k", "mln", "Mln", "billion", "MM")]


def _value(table, column: str, problems) -> tuple[object, ...]:
    """Per row: the number (None when missing) and its problem's reason (None: none)."""
    why = dict(zip(problems["ico_id"], problems["reason"], strict=True))
    return tuple((None if math.isnan(number) else number, why.get(ico_id))
                 for ico_id, number in zip(table["id"], table[column], strict=True))


def _read(values: list, column: str, **finance) -> tuple[object, ...]:
    tables = tidy([{"id": i + 1, "finance": {column: value, "ticker": "XYZ", **finance}}
                   for i, value in enumerate(values)])
    problems = tables.problems[tables.problems["column"] == column]
    return _value(tables.icos, column, problems)


def _listed(values: list) -> tuple[object, ...]:
    log = Problems()
    frame = list_frame([{"id": i + 1, "finance": {"raised": value}}
                        for i, value in enumerate(values)], status=None, problems=log)
    return _value(frame, "raised", log.frame())


def test_raised_reads_every_text_as_the_caps_read_it_under_a_caps_unit_usd():
    # 9516946: 5,665 of these 15,565 texts differed: 23 numbers ("4.1B", "5 b", "1,200B": read
    # in raised, unreadable_number in hard_cap) and 67 in cents ("4.1 cents", "4.1k cents": the
    # other way round), and 5,575 reasons ("4.1 ETH": unreadable_number, not unit_conflict)
    values = list(dict.fromkeys([*_corpus(), *_BARE]))
    raised = _read(values, "raised")
    assert raised == _read(values, "hard_cap", caps_unit="USD")
    assert raised == _read(values, "min_purchase", purchase_unit="US Dollar")
    # a list summary's raised alike, as a profile's with no ticker (parser 34: "5 XYZ" is
    # the ICO's own token, a unit_conflict, only for the ICO of XYZ; else unknown_unit)
    assert _read(values, "raised", ticker="") == _listed(values)
    read = dict(zip(values, raised, strict=True))
    assert read["1,200 B"] == (1.2e12, None) and read["4.1 cents"] == (0.041, None)


@pytest.mark.parametrize("unit", ["USD", "usd.", "$", "EUR", "ETH", "BTC", "XYZ"])
@pytest.mark.parametrize("value", ["1.2B", "1.2 b", "1.2B."])
def test_a_lone_b_after_a_number_is_billions_of_any_unit_column(value, unit):
    # 9516946: unreadable_number under USD, EUR, ETH, BTC (1.2e9 under "$" and XYZ only)
    assert _group([value, "2 bn"], unit)[0] == [1.2e9, 2e9]


@pytest.mark.parametrize(("value", "unit"), [("5m", "ETH"), ("5 B USD", ""), ("5 BUSD$", ""),
                                             ("5 B ETH", ""), ("5B USD", "USD")])
def test_a_scale_beside_a_written_currency_keeps_its_rule(value, unit):
    # unchanged: "5m" of ETH (milli?); a B beside the letters of BUSD, BETH (a token?)
    amounts, _, unread = _group([value], unit)
    assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


@pytest.mark.parametrize("value", ["5000 ETH", "5,000 eth.", "500 BFC", "$5 EUR", "5 XYZ",
                                   "5 BUSD", "1 mln ETH", "€5M"])
def test_raised_in_another_unit_than_usd_is_a_unit_conflict(value):
    # 9516946: unreadable_number (the value names an amount: in a unit raised does not hold);
    # a token no list knows is a unit only for the ICO of that ticker (XYZ; parser 34)
    other = "unknown_unit" if value == "500 BFC" else "unit_conflict"
    assert _read([value, "$5M"], "raised") == ((None, other), (5e6, None))
    assert _listed([value]) == ((None, "unknown_unit" if "XYZ" in value else other),)
    assert _read([value], "hard_cap", caps_unit="USD") == ((None, other),)


@pytest.mark.parametrize(("value", "reason"), [
    ("lots", "unreadable_number"), ("5000 ETH or more", "vague"),
    ("~5000 ETH", "vague"), ("100-200 ETH", "range"), ("-5 cents", "negative"),
    ("5 mUSD", "unreadable_number"), ("٣ ETH", "unreadable_number")])
def test_raised_that_names_no_amount_says_why(value, reason):
    assert _read([value], "raised") == ((None, reason),)


@pytest.mark.parametrize(("value", "ticker", "reason"), [
    ("5 PCT tokens", "PCT", "unit_conflict"), ("5 PCT tokens.", "PCT", "unit_conflict"),
    ("5 XYZ tokens", "XYZ", "unit_conflict"), ("5 PCT", "PCT", "percent"),
    ("5 PCT tokens", "XYZ", "percent"), ("5%", "XYZ", "percent"),
    ("5 percent", "PCT", "percent"), ("5% USD", "XYZ", "percent")])
def test_raised_of_the_own_tokens_is_a_unit_conflict_when_the_ticker_is_a_percent_word(
        value, ticker, reason):
    # review REVA L5: "5 PCT tokens" for PCT was a percent (parse_amount read the word PCT),
    # "5 XYZ tokens" for XYZ unreadable_number: tokens of the ICO (parser 26's rule), as caps
    def read(column: str, **finance) -> tuple[object, ...]:
        tables = tidy([{"id": 1, "finance": {column: value, "ticker": ticker, **finance}}])
        return _value(tables.icos, column, tables.problems)

    assert read("raised") == read("hard_cap", caps_unit="USD") == ((None, reason),)


def test_raised_in_cents_is_read_as_the_caps_read_it():
    # 9516946: unreadable_number, while hard_cap "10 cents" was 0.1 USD
    assert _read(["10 cents", "5k cents", "20¢"], "raised") == (
        (0.1, None), (50.0, None), (0.2, None))


def test_raised_of_a_multiplier_that_is_the_own_ticker_stays_unreadable():
    tables = tidy([{"id": 1, "finance": {"raised": "5 mln", "ticker": "MLN"}},
                   {"id": 2, "finance": {"raised": "5 mln ETH", "ticker": "MLN"}}])
    assert tables.icos["raised"].isna().all()
    assert tables.problems["reason"].tolist() == ["unreadable_number", "unit_conflict"]


@pytest.mark.parametrize(("accepting", "items"), [
    (["BTC, ETH"], ["BTC", "ETH"]), (["BTC; ETH", "LTC"], ["BTC", "ETH", "LTC"]),
    (["BTC, ETH, and Fiat currency"], ["BTC", "ETH", "Fiat currency"]),
    (["ЕТН, BTC"], ["ETH", "BTC"]), (["BTC,", "ETH"], ["BTC", "ETH"]),
    ("BTC, ETH", ["BTC", "ETH"]), (["BTC", "ETH"], ["BTC", "ETH"])])
def test_an_accepting_item_of_several_tickers_is_split_as_a_lone_string_is(accepting, items):
    # 9516946: ["BTC, ETH"] was the one ticker "BTC, ETH" (a lone string "BTC, ETH" was split)
    tables = tidy([{"id": 1, "finance": {"accepting": accepting}}])
    assert tables.icos.loc[0, "accepting"] == items
    assert tables.accepting["value"].tolist() == items
    assert tables.accepting["position"].tolist() == list(range(len(items)))
    assert tables.problems.empty


def test_a_restricted_area_listed_with_a_comma_is_kept_as_listed():
    # a country's name may hold a comma: an item the service listed is one place
    tables = tidy([{"id": 1, "finance": {"restricted_areas": [
        "Bonaire, Sint Eustatius and Saba", "USA"]}}])
    assert tables.icos.loc[0, "restricted_areas"] == ["Bonaire, Sint Eustatius and Saba", "USA"]


def test_the_parser_version_says_the_rules_changed():
    assert PARSER_VERSION >= 27  # 28: test_parse_v28
