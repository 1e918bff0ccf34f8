"""Parser 34: a word beside a number is a unit only when it is known; more currencies read.

Each test below fails on parser 33 (main c2d15c1):

- a word no list knew, beside a number under an empty unit column, was that number's unit with
  no row: ``"Price 0.1"`` a price of 0.1 ``PRICE``, ``"5M required"`` 5e6 ``REQUIRED`` (an
  attack review found 81 of 103 English words read so), ``"500 BFC"`` for an ICO of XYZ 500
  ``BFC``; now a word is a unit only when it is a known currency or token code, the ICO's own
  ticker or its unit column's unit, else the value is missing, ``unknown_unit``;
- ``"1 BILL = 1 XLM"`` for an ICO of XYZ was a price of 1 XLM (whose token is BILL?);
- ``"A$10M"``, ``"₩10B"``... were ``unreadable_number``, ``RMB``, ``yuan``, ``SFr.`` kept as
  the units ``RMB``, ``YUAN``, ``SFR``, and a unit column ``"USD ($)"`` named no unit.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from icoframes.parse.base import bad
from icoframes.parse.prices import read_exchange
from icoframes.parse.profiles import tidy
from icoframes.reasons import REASONS

# REV-BP's fresh words (none in REV-BK's fuzz), before and after a number in three columns
WORDS = ["overall", "reserved", "allocated", "needed", "required", "maximal", "minimal",
         "capped", "gross", "net", "pre", "post", "main", "upper", "lower", "bottom", "top",
         "expect", "forecast", "projected", "potential", "lots", "bucks", "cash", "market",
         "price", "rate", "tentative", "preliminary", "confirmed", "announced", "subject",
         "secured", "committed", "pledged", "ceiling", "floor", "upcoming", "hardcapped",
         "softcapped", "presold", "airdrop", "bounty", "team", "wow", "aprox", "approximatly",
         "cca", "appr", "listing", "launch", "discount", "whitelist", "early", "late", "normal",
         "standard", "regular", "special", "best", "new", "old", "now", "then", "still",
         "already", "more", "less", "higher", "one", "two", "tokensale", "sales", "raise",
         "raising", "mvp", "kyc", "tbc", "zero"]
COLUMNS = {"hard_cap": ("caps_unit", "{w} 5M", "5M {w}"),
           "token_price": ("token_price_unit", "{w} 0.1", "0.1 {w}"),
           "min_purchase": ("purchase_unit", "{w} 0.1", "0.1 {w}")}


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _read(finance: dict, ticker: str | None = "XYZ") -> tuple[dict, dict]:
    """One profile's icos row, and (column -> (value, reason)) of its problems."""
    tables = tidy([{"id": 1, "finance": {"ticker": ticker, **finance}}])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


def test_no_word_that_no_list_knows_is_read_as_a_unit():
    # parser 33: most of these 474 values were read in a unit named after the word, no row
    cases = [(column, unit, form.format(w=word)) for word in WORDS
             for column, (unit, *forms) in COLUMNS.items() for form in forms]
    tables = tidy([{"id": i, "finance": {"ticker": "XYZ", column: raw}}
                   for i, (column, _, raw) in enumerate(cases, 1)])
    icos = tables.icos.set_index("id")
    rows = {(i, c): r for i, c, r in tables.problems[["ico_id", "column", "reason"]]
            .itertuples(index=False)}
    read = [raw for i, (column, unit, raw) in enumerate(cases, 1)
            if not _missing(icos.loc[i, column]) or not _missing(icos.loc[i, unit])]
    assert read == []
    assert [raw for i, (column, _, raw) in enumerate(cases, 1) if (i, column) not in rows] == []
    reasons = {rows[i, column] for i, (column, _, _) in enumerate(cases, 1)}
    assert reasons <= {"unknown_unit", "vague", "unreadable_number"}, reasons
    assert sum(rows[i, c] == "unknown_unit" for i, (c, _, _) in enumerate(cases, 1)) > 400


@pytest.mark.parametrize(("finance", "column"), [
    ({"token_price": "Price 0.1", "token_price_unit": ""}, "token_price"),
    ({"token_price": "0.1 rate", "token_price_unit": ""}, "token_price"),
    ({"hard_cap": "5M required", "caps_unit": ""}, "hard_cap"),
    ({"hard_cap": "capped 5M", "caps_unit": ""}, "hard_cap"),
    ({"hard_cap": "500 BFC", "caps_unit": ""}, "hard_cap"),
    ({"hard_cap": "Аround 5M", "caps_unit": ""}, "hard_cap"),  # a Cyrillic А
    ({"hard_cap": "5M required", "caps_unit": "USD"}, "hard_cap"),  # was a unit_conflict
    ({"min_purchase": "0.1 bucks", "purchase_unit": ""}, "min_purchase"),
    ({"tokens_for_sale": "500 BFC"}, "tokens_for_sale"),  # was a unit_conflict
    ({"raised": "500 BFC"}, "raised"),  # was a unit_conflict
    ({"token_price": "1 XYZ = 5 BFC", "token_price_unit": ""}, "token_price"),
])
def test_a_word_naming_no_unit_known_is_unknown_unit(finance, column):
    row, problems = _read(finance)
    assert _missing(row[column])
    assert problems[column] == (finance[column], "unknown_unit")


def test_the_made_up_unit_no_longer_spreads_to_the_clean_value():
    # parser 33: the soft cap 1,000,000 was 1,000,000 REQUIRED, no row
    row, problems = _read({"soft_cap": "1,000,000", "hard_cap": "5M required", "caps_unit": ""})
    assert row["soft_cap"] == 1e6 and _missing(row["caps_unit"]) and _missing(row["hard_cap"])
    assert problems == {"hard_cap": ("5M required", "unknown_unit")}


@pytest.mark.parametrize(("finance", "ticker", "column", "number", "unit"), [
    ({"hard_cap": "500 BFC", "caps_unit": ""}, "BFC", "hard_cap", 500.0, "BFC"),  # its own
    ({"hard_cap": "500 bfc", "caps_unit": ""}, "BFC", "hard_cap", 500.0, "BFC"),
    ({"hard_cap": "500 BFC", "caps_unit": "BFC"}, "XYZ", "hard_cap", 500.0, "BFC"),  # column
    ({"hard_cap": "5 link", "caps_unit": ""}, "XYZ", "hard_cap", 5.0, "LINK"),  # known tokens
    ({"hard_cap": "4,000,000 ICX", "caps_unit": ""}, "XYZ", "hard_cap", 4e6, "ICX"),
    ({"hard_cap": "5 BUSD", "caps_unit": ""}, None, "hard_cap", 5.0, "BUSD"),
    ({"hard_cap": "500M HARD", "caps_unit": ""}, "HARD", "hard_cap", 5e8, "HARD"),
    ({"token_price": "$1 = 6820 KIN", "token_price_unit": ""}, None, "token_price", 1 / 6820,
     "USD"),  # no ticker: the token side as written
    ({"token_price": "1 ETH = 1000 XYZ", "token_price_unit": ""}, "XYZ", "token_price", 0.001,
     "ETH"),
    ({"token_price": "1 XYZ = 0.5 LINK", "token_price_unit": ""}, "XYZ", "token_price", 0.5,
     "LINK"),
])
def test_known_codes_the_own_ticker_and_the_unit_column_stay_units(finance, ticker, column,
                                                                   number, unit):
    row, problems = _read(finance, ticker)
    unit_column = "token_price_unit" if column == "token_price" else "caps_unit"
    assert row[column] == pytest.approx(number) and row[unit_column] == unit
    assert problems == {}


@pytest.mark.parametrize("text", ["1 BILL = 1 XLM", "1 ETH = 1000 ABC", "$1 = 5 BFC"])
def test_an_exchange_for_another_unknown_ticker_is_no_price_of_this_ico(text):
    # parser 33: 1 XLM, 0.001 ETH, 0.2 USD for the ICO of XYZ, no row
    assert read_exchange(text, "XYZ") == (bad("unreadable_price"), None)
    assert read_exchange(text, None)[1] is not None  # without a ticker, as before


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("A$10M", 1e7, "AUD"), ("AU$10M", 1e7, "AUD"), ("C$10M", 1e7, "CAD"),
    ("HK$10M", 1e7, "HKD"), ("S$10M", 1e7, "SGD"), ("NZ$10M", 1e7, "NZD"),
    ("R$10M", 1e7, "BRL"), ("₩10B", 1e10, "KRW"), ("₽100M", 1e8, "RUB"), ("A$10B", 1e10, "AUD"),
    ("10M HK$", 1e7, "HKD"), ("100M ₽", 1e8, "RUB"), ("10 yuan", 10.0, "CNY"),
    ("10 RMB", 10.0, "CNY"), ("10 SFr.", 10.0, "CHF"), ("10M Swiss francs", 1e7, "CHF"),
    ("10 U.S. dollars", 10.0, "USD"), ("10 円", 10.0, "JPY"),
])
def test_other_countries_dollars_won_rouble_yuan_and_franc_are_read(value, number, unit):
    row, problems = _read({"hard_cap": value, "caps_unit": ""})
    assert (row["hard_cap"], row["caps_unit"]) == (number, unit) and problems == {}


@pytest.mark.parametrize(("column", "code"), [
    ("A$", "AUD"), ("S$", "SGD"), ("HK$", "HKD"), ("₩", "KRW"), ("yuan", "CNY"),
    ("RMB", "CNY"), ("SFr.", "CHF"), ("USD ($)", "USD"), ("$ (USD)", "USD"),
    ("Ether (ETH)", "ETH"), ("Ethereum (ETH)", "ETH"), ("Dollar (USD)", "USD"),
    ("U.S. dollars", "USD"), ("in USD", "USD"), ("In ETH", "ETH")])
def test_unit_columns_of_these_currencies_and_of_one_named_twice_are_read(column, code):
    row, problems = _read({"hard_cap": 5000, "caps_unit": column})
    assert (row["hard_cap"], row["caps_unit"]) == (5000.0, code) and problems == {}


@pytest.mark.parametrize("column", ["USD (ETH)", "ETH ($)", "in %", "USD (mln)"])
def test_two_currencies_or_a_scale_in_brackets_still_name_no_unit(column):
    row, problems = _read({"hard_cap": 5000, "caps_unit": column})
    assert _missing(row["hard_cap"]) and _missing(row["caps_unit"])
    assert problems == {"caps_unit": (column, "unreadable_unit"),
                        "hard_cap": ("5000", "unreadable_unit")}


def test_the_exchange_signs_are_declared_once():
    # the price reader reads as "=" exactly the signs the refusals tell an exchange by
    from icoframes.parse import prices, refusals

    assert not hasattr(prices, "_SIGN_RE")
    for sign in (":", "→", "⇒", "->", "=>", "per"):
        text = f"1 ETH {sign} 1000 XYZ"
        assert refusals.exchange_sign(text)
        assert refusals.EXCHANGE_SIGNS_RE.sub("=", text) == "1 ETH = 1000 XYZ"
        assert read_exchange(text, "XYZ") == (0.001, "ETH")


def test_the_new_reason_is_documented():
    assert "unknown_unit" in REASONS and "Price 0.1" in REASONS["unknown_unit"]


@pytest.mark.parametrize("word", ["млн", "млрд", "тыс"])
def test_russian_scale_words_are_no_unit(word):
    # a foreign scale word: the value stays unreadable_number, never unknown_unit, and a unit
    # column of one names no unit (parser 33: the unit МЛН...)
    _, problems = _read({"hard_cap": f"20 {word}", "caps_unit": ""})
    assert problems == {"hard_cap": (f"20 {word}", "unreadable_number")}
    row, problems = _read({"hard_cap": 20, "caps_unit": word})
    assert _missing(row["hard_cap"]) and _missing(row["caps_unit"])
    assert problems == {"caps_unit": (word, "unreadable_unit"),
                        "hard_cap": ("20", "unreadable_unit")}
