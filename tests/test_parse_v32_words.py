"""Parser 32: an English word beside a bare number is no unit, and refusals name their reason.

Under an empty unit column, ``"around 5M"`` was 5,000,000 in a unit ``AROUND``, ``"Presale
0.1"`` a price of 0.1 ``PRESALE``, ``"5M hard"`` 5,000,000 ``HARD``, with no problems row, and
the made-up unit spread to the group's other value. Each is now missing and a row. The word
fuzz is an attack review's: 76 words before and after a number in three columns (456 values),
of which 420 were read in a made-up unit.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.profiles import tidy

# the attack review's words: approximations, bounds, labels of a cap or a stage, function words
WORDS = ["around", "circa", "over", "nearly", "almost", "roughly", "estimated", "est", "from",
         "planned", "target", "targeted", "hard", "soft", "hardcap", "softcap", "cap", "goal",
         "raised", "collected", "sold", "expected", "plus", "units", "starting", "initial",
         "current", "presale", "public", "private", "stage", "phase", "round", "fixed", "dynamic",
         "tbd", "unlimited", "limit", "worth", "equivalent", "equiv", "value", "reached",
         "achieved", "funded", "received", "in", "at", "of", "for", "and", "or", "to", "till",
         "until", "below", "under", "above", "beyond", "least", "most", "upto", "exactly", "just",
         "some", "first", "later", "finished", "ended", "closed", "only", "total", "approx",
         "about", "approximately", "apx"]
# written first, these make the amount approximate or bounded (refusals' words of approximation)
APPROXIMATE = ["around", "circa", "over", "nearly", "almost", "roughly", "estimated", "est",
               "from", "under", "below", "above", "beyond", "upto", "approx", "about",
               "approximately", "apx"]
COLUMNS = {"hard_cap": ("{w} 5M", "5M {w}"), "token_price": ("{w} 0.1", "0.1 {w}"),
           "min_purchase": ("{w} 0.1", "0.1 {w}")}
UNITS = {"hard_cap": "caps_unit", "token_price": "token_price_unit",
         "min_purchase": "purchase_unit"}


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _profile(ico_id: int, finance: dict, ticker: str = "XYZ") -> dict:
    return {"id": ico_id, "finance": {"ticker": ticker, **finance}}


def _read(finance: dict, ticker: str = "XYZ") -> tuple[dict, dict]:
    """One profile's icos row, and (column -> (value, reason)) of its problems."""
    tables = tidy([_profile(1, finance, ticker)])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


def test_no_english_word_beside_a_bare_number_is_read_as_its_unit():
    # 420 of these 456 values were read in a unit named after the word, no row
    cases = [(word, column, form.format(w=word)) for word in WORDS
             for column, forms in COLUMNS.items() for form in forms]
    tables = tidy([_profile(i, {column: raw}) for i, (_, column, raw) in enumerate(cases, 1)])
    icos = tables.icos.set_index("id")
    rows = {(i, c): r for i, c, r in tables.problems[["ico_id", "column", "reason"]]
            .itertuples(index=False)}
    silent = [raw for i, (_, column, raw) in enumerate(cases, 1)
              if not _missing(icos.loc[i, column]) or (i, column) not in rows]
    assert silent == []
    assert all(_missing(icos.loc[i, UNITS[column]]) for i, (_, column, _) in enumerate(cases, 1))
    first = [(raw, rows[i, column]) for i, (word, column, raw) in enumerate(cases, 1)
             if word in APPROXIMATE and raw.startswith(word)]
    assert {reason for _, reason in first} == {"vague"}, first


@pytest.mark.parametrize("value", ["around 5M", "Around 5M", "AROUND 5M", "5M HARDCAP",
                                   "Hardcap 20M", "20M hardcap", "Target 20M", "5M soft",
                                   "5M hard", "5M raised", "20M units", "5 Mio. planned",
                                   "5M est."])
def test_a_word_saying_what_the_amount_is_makes_it_vague(value):
    row, problems = _read({"hard_cap": value, "caps_unit": ""})
    assert _missing(row["hard_cap"]) and _missing(row["caps_unit"])
    assert problems == {"hard_cap": (value, "vague")}


@pytest.mark.parametrize("value", ["Presale 0.1", "0.1 fixed", "0.1 initial", "around 0.1"])
def test_a_price_with_a_word_is_no_price_in_that_word(value):
    row, problems = _read({"token_price": value, "token_price_unit": ""})
    assert _missing(row["token_price"]) and _missing(row["token_price_unit"])
    assert problems == {"token_price": (value, "vague")}


@pytest.mark.parametrize(("finance", "column", "sibling"), [
    ({"soft_cap": "1,000,000", "hard_cap": "around 5M", "caps_unit": ""}, "hard_cap",
     "soft_cap"),
    ({"soft_cap": "1M", "hard_cap": "5M hard", "caps_unit": ""}, "hard_cap", "soft_cap"),
    ({"min_purchase": "0.1", "max_purchase": "over 100", "purchase_unit": ""}, "max_purchase",
     "min_purchase")])
def test_the_word_spreads_to_no_sibling(finance, column, sibling):
    row, problems = _read(finance)
    unit = {"hard_cap": "caps_unit", "max_purchase": "purchase_unit"}[column]
    assert _missing(row[unit])  # was AROUND, HARD, OVER for both values
    assert not _missing(row[sibling])  # read, in no unit: the profile wrote none
    assert problems == {column: (finance[column], "vague")}


@pytest.mark.parametrize("unit", ["mixed", "Mixed", "ERC20", "erc-20", "various"])
def test_a_unit_column_of_an_english_word_or_a_token_standard_names_no_unit(unit):
    row, problems = _read({"hard_cap": "15000", "caps_unit": unit})
    assert _missing(row["hard_cap"]) and _missing(row["caps_unit"])  # was 15000 MIXED, ERC20
    assert problems == {"caps_unit": (unit, "unreadable_unit"),
                        "hard_cap": ("15000", "unreadable_unit")}


@pytest.mark.parametrize("value", ["over 5M", "circa 5M", "around 5M", "roughly 5M"])
def test_an_approximation_under_a_unit_column_is_vague_not_a_conflict(value):
    _, problems = _read({"hard_cap": value, "caps_unit": "USD"})
    assert problems == {"hard_cap": (value, "vague")}  # was unit_conflict (a unit OVER)


def test_two_caps_with_their_words_are_a_range_not_a_conflict():
    _, problems = _read({"hard_cap": "$20M hard / $5M soft", "caps_unit": ""})
    assert problems == {"hard_cap": ("$20M hard / $5M soft", "range")}  # was unit_conflict: SOFT


@pytest.mark.parametrize("value", ["CHF 1'000'000.-", "20'000'000.-", "1’000’000.-"])
def test_swiss_groups_are_one_number_not_a_range(value):
    _, problems = _read({"hard_cap": value, "caps_unit": ""})
    assert problems == {"hard_cap": (value, "unreadable_number")}  # was range


@pytest.mark.parametrize("value", ["1 ETH : 1000 XYZ", "1 ETH → 1000 XYZ", "1 ETH -> 1000 XYZ",
                                   "1 ETH => 1000 XYZ", "1000 tokens per 1 ETH",
                                   "1000 XYZ per 1 ETH"])
def test_an_exchange_with_another_sign_is_read_as_one(value):
    row, problems = _read({"token_price": value, "token_price_unit": ""})
    assert (row["token_price"], row["token_price_unit"]) == (0.001, "ETH")
    assert problems == {}  # was missing, a range
    _, problems = _read({"hard_cap": value, "caps_unit": ""})
    assert problems == {"hard_cap": (value, "unreadable_number")}  # an exchange outside a price


@pytest.mark.parametrize("value", ["4.5/5", "8/10", "4.5 out of 5", "85/100", "8 / 10"])
def test_a_score_over_its_scale_is_unreadable_not_a_range(value):
    tables = tidy([{"id": 1, "main": {"ico_score": value}}])
    assert math.isnan(tables.icos.loc[0, "ico_score"])
    assert tables.problems[["column", "value", "reason"]].values.tolist() == [
        ["ico_score", value, "unreadable_number"]]  # was range


# --- guards: readings that do not change


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("5 link", 5.0, "LINK"), ("5 steem", 5.0, "STEEM"), ("500 BFC", 500.0, "BFC"),
    ("5M USD", 5e6, "USD"), ("5 Link", 5.0, "LINK")])
def test_tickers_stay_units(value, number, unit):
    # (a ticker no list knows only as the ICO's own: "500 BFC" for BFC; parser 34)
    row, _ = _read({"hard_cap": value, "caps_unit": ""}, "BFC" if unit == "BFC" else "XYZ")
    assert row["hard_cap"] == number or (math.isnan(number) and _missing(row["hard_cap"]))
    assert row["caps_unit"] == unit or (unit is None and _missing(row["caps_unit"]))


def test_the_own_ticker_written_as_it_is_stays_its_token():
    # an ICO whose ticker is an English word: written as the ticker, it is its token
    row, problems = _read({"tokens_for_sale": "500M HARD", "hard_cap": "5M HARD",
                           "token_price": "$1 = 5 HARD"}, ticker="HARD")
    assert (row["tokens_for_sale"], row["hard_cap"], row["caps_unit"]) == (5e8, 5e6, "HARD")
    assert (row["token_price"], row["token_price_unit"]) == (0.2, "USD")
    assert problems == {}


@pytest.mark.parametrize("ticker", ["HARD", "FOR", "THE", "ERC20", "EST", "OVER", "FROM"])
def test_the_own_ticker_as_a_unit_column_is_its_token(ticker):
    # a caps_unit naming the ICO's own ticker, a listed word, is its token (was unreadable_unit)
    row, problems = _read({"hard_cap": "500000000", "caps_unit": ticker}, ticker=ticker)
    assert (row["hard_cap"], row["caps_unit"], problems) == (5e8, ticker, {})


@pytest.mark.parametrize("ticker", ["EST", "OVER", "FROM", "UNDER"])
def test_an_own_ticker_that_is_a_word_of_approximation_stays_its_token(ticker):
    # written as the ticker, a bound word is the token, as a label word is (were unreadable)
    row, problems = _read({"token_price": f"1 ETH = 1000 {ticker}", "tokens_for_sale":
                           f"500M {ticker}", "min_purchase": f"100 {ticker}"}, ticker=ticker)
    assert (row["token_price"], row["token_price_unit"]) == (0.001, "ETH")
    assert (row["tokens_for_sale"], row["min_purchase"], row["purchase_unit"]) == (
        5e8, 100.0, ticker)
    assert problems == {}


def test_min_max_about_approx_stay_no_unit_even_as_the_own_ticker():
    # never read as a unit, nor on the parser before these words were listed
    _, problems = _read({"hard_cap": "500000000", "caps_unit": "MIN"}, ticker="MIN")
    assert problems["hard_cap"][1] == "unreadable_unit"


def test_the_own_ticker_in_lowercase_is_the_word():
    _, problems = _read({"hard_cap": "5M hard"}, ticker="HARD")  # "hard cap", or HARD?
    assert problems == {"hard_cap": ("5M hard", "vague")}  # was 5e6 HARD, no row


@pytest.mark.parametrize(("value", "reason"), [
    ("Stage 1: 0.1, Stage 2: 0.2", "range"), ("Soft cap: 5M, Hard cap: 20M", "range"),
    ("10M (stage 1), 20M", "range"),
    ("5000 min", "unreadable_number"), ("Dynamic, see whitepaper", "unreadable_number"),
    ("100 ETH: 20%", "percent")])
def test_other_refusals_keep_their_reason(value, reason):
    _, problems = _read({"hard_cap": value, "caps_unit": ""})
    assert problems == {"hard_cap": (value, reason)}


@pytest.mark.parametrize(("value", "reason"), [
    ("1 ETH: 1000 XYZ (+20% bonus)", "vague"), ("1 ETH = 1000 XYZ : 2", "unreadable_price"),
    ("Presale 1 ETH: 1200 XYZ, ICO 1 ETH: 1000 XYZ", "range"), ("1 ETH: 1.000 XYZ",
                                                                 "ambiguous_separator")])
def test_an_exchange_with_another_sign_is_refused_as_one_with_an_equals_sign(value, reason):
    row, problems = _read({"token_price": value, "token_price_unit": ""})
    assert _missing(row["token_price"]) and problems == {"token_price": (value, reason)}
