"""Token prices in more forms of an exchange, read the right way round (parser 37).

On 9bc57721 each text of :data:`price_texts.NEW` was missing, a row of ``problems``: token
words after the ticker on a side (``"1 ETH = 5000 XYZ tokens"``: unreadable_price), the ticker
before its price (``"XYZ 0.0004 USD"``: unit_conflict), tokens per currency (``"5000 XYZ per
ETH"``: unreadable_number; ``"5000 XYZ tokens per 1 ETH"``: range) and a ticker beginning with
a digit (the public ICObench-derived set's ``"1 2GT = 0.05 EUR"``: grouping). Now each is its
price per token in the currency it names (1 ETH = 5000 XYZ is 0.0002 ETH a token), never
converted; what names no direction or no currency of the token stays missing.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from messy_profiles import clean_profile, with_
from price_texts import ALL, BEFORE, MISSING, NEW

import icoframes
from icoframes.parse.pertoken import as_exchange
from icoframes.parse.prices import read_exchange, without_token_words
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import PARSER_VERSION
from icoframes.parse.units import read_price


def _ids(rows):
    return [f"{row.raw}|{row.unit}|{row.ticker}" for row in rows]


@pytest.mark.parametrize("row", ALL, ids=_ids(ALL))
def test_each_realistic_price_text_reads_as_a_careful_reader_would(row):
    prices, units, bad = read_price([row.raw], [row.unit], tickers=[row.ticker])
    assert units.tolist() == [row.currency]
    if math.isnan(row.price):
        assert math.isnan(prices[0])
        assert (bad.rows, bad.values, bad.reasons) == ([0], [row.raw], [row.reason])
    else:
        assert prices[0] == pytest.approx(row.price, rel=1e-12) and prices.dtype == "float64"
        assert not bad.rows


def test_the_fixture_counts_what_the_changelog_says():
    assert (len(NEW), len(BEFORE), len(MISSING)) == (24, 7, 6)
    assert PARSER_VERSION >= 39  # cached profiles are parsed again, with no request


@pytest.mark.parametrize(("text", "exchange"), [
    ("5000 XYZ per ETH", "1 ETH = 5000 XYZ"), ("5000 tokens/ETH", "1 ETH = 5000 tokens"),
    ("5000 per ETH", "1 ETH = 5000"), ("10 XYZ per dollar", "1 dollar = 10 XYZ"),
    ("5000 XYZ tokens per 1 ETH", "5000 XYZ tokens = 1 ETH"),
    ("XYZ 0.0004 USD", "1 XYZ = 0.0004 USD"), ("xyz: $0.0004", "1 XYZ = $0.0004"),
    ("XYZ Tokens = 0.05 EUR", "1 XYZ = 0.05 EUR"), ("$0.0004 per XYZ token", "1 XYZ = $0.0004"),
    # as written: another ticker, no amount, a rate per what is no currency, an exchange
    ("ABC 0.0004 USD", "ABC 0.0004 USD"), ("XYZ", "XYZ"), ("$5/month", "$5/month"),
    ("1 ETH = 5000 XYZ", "1 ETH = 5000 XYZ"), ("XYZ 1 ETH = 5000 XYZ", "XYZ 1 ETH = 5000 XYZ")])
def test_as_exchange_writes_each_form_as_its_exchange(text, exchange):
    assert as_exchange(text, "XYZ") == exchange


def test_a_ticker_before_a_price_needs_the_ico_s_ticker():
    assert as_exchange("XYZ 0.0004 USD", None) == "XYZ 0.0004 USD"
    prices, units, bad = read_price(["XYZ 0.0004 USD"], [""], tickers=[None])
    assert units.tolist() == [None]
    assert math.isnan(prices[0]) and bad.reasons == ["unknown_unit"]  # XYZ: no unit known


@pytest.mark.parametrize(("side", "own", "bare"), [
    ("5000 XYZ tokens", "XYZ", "5000 XYZ"), ("1 xyz Coin.", "XYZ", "1 xyz"),
    ("5000XYZ tokens", "XYZ", "5000XYZ"), ("5000 AXYZ tokens", "XYZ", "5000 AXYZ tokens"),
    ("5000 XYZ tokens", None, "5000 XYZ tokens"), ("5000 tokens", "XYZ", "5000 tokens"),
    ("1 2GT tokens", "2GT", "1 2GT"), ("1 2GT Token.", "2GT", "1 2GT"),
    ("12GT tokens", "2GT", "12GT tokens")])
def test_token_words_after_the_own_ticker_name_it_again(side, own, bare):
    assert without_token_words(side, own) == bare


def test_token_words_after_a_ticker_starting_with_a_digit_name_it_again():
    # "2GT" whole is the ticker, not 2 of a unit GT: read as "1 2GT = 0.05 EUR" is
    prices, units, bad = read_price(["1 2GT tokens = 0.05 EUR", "1 2GT = 0.05 EUR"],
                                    ["", ""], tickers=["2GT", "2GT"])
    assert prices.tolist() == [0.05, 0.05] and units.tolist() == ["EUR", "EUR"]
    assert not bad.rows


def test_the_direction_of_an_exchange_is_read_never_guessed():
    # the side naming the token is the token's, whichever side it is written on
    assert read_exchange("5000 XYZ tokens = 1 ETH", "XYZ") == (0.0002, "ETH")
    assert read_exchange("1 ETH = 5000 XYZ tokens", "XYZ") == (0.0002, "ETH")
    assert read_exchange("1 XYZ token = 5000 ETH", "XYZ") == (5000.0, "ETH")  # as written


def test_tidy_reads_the_forms_from_profiles():
    profiles = [with_(clean_profile(i), {"finance.ticker": row.ticker,
                                         "finance.token_price": row.raw,
                                         "finance.token_price_unit": row.unit})
                for i, row in enumerate(NEW, start=1)]
    tables = tidy(profiles)
    assert tables.icos["token_price"].tolist() == pytest.approx([r.price for r in NEW])
    assert tables.icos["token_price_unit"].tolist() == [r.currency for r in NEW]
    assert (tables.problems["column"] == "token_price").sum() == 0


def test_a_load_reads_each_form_and_reports_what_stays_missing(configure):
    rows = NEW + MISSING
    finances = {i: {"ticker": row.ticker, "token_price": row.raw, "token_price_unit": row.unit}
                for i, row in enumerate(rows, start=1)}

    def profile(h):
        asked = int(h.request_json()["id"])
        data = with_(clean_profile(asked), {f"finance.{k}": v
                                            for k, v in finances[asked].items()})
        json_reply({"error": None, "data": data})(h)

    with HostileServer({LIST: paged_list(len(rows)), PROFILE: profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
        assert (srv.hits[LIST], srv.hits[PROFILE]) == (2, len(rows))
    icos = tables.icos.set_index("id").sort_index()
    assert icos["token_price"].dtype == "float64"
    got = icos["token_price"].tolist()
    assert got[:len(NEW)] == pytest.approx([row.price for row in NEW], rel=1e-12)
    assert all(math.isnan(price) for price in got[len(NEW):])
    assert [None if pd.isna(unit) else unit for unit in icos["token_price_unit"]] == [
        row.currency for row in rows]
    problems = tables.problems[tables.problems["column"] == "token_price"]
    assert problems[["ico_id", "value", "reason"]].values.tolist() == [
        [i, row.raw, row.reason] for i, row in enumerate(rows, start=1) if row.reason]


@pytest.mark.parametrize("text", [
    "0.05/0.07", "0.05 USD / 0.07 USD", "$0.05 / $0.07", "$0.1/$0.2", "0.05 per 0.07", "1/2",
    "$20M hard / $5M soft"])
def test_two_prices_apart_by_a_slash_or_per_stay_a_range(text):
    # "per" between amounts of two units, one a currency, is an exchange; else two prices
    prices, units, bad = read_price([text], [""], tickers=["XYZ"])
    assert math.isnan(prices[0]) and units.tolist() == [None] and bad.reasons == ["range"]
