"""Parser defects left by parser 20 (parser 21): values real directories write.

Each test of a reading failed on parser 20: a unit column ``"USD mln"`` or ``"lakh"`` became a
made-up unit, ``"0.1 per token"`` and ``"500 tokens."`` were unreadable, ``"01.03.18"`` was
reported as having no year, and digits of other scripts were read (``"٣ ETH"`` was 3 ETH).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from messy_profiles import clean_profile

from icoframes.parse.base import Bad
from icoframes.parse.columns import to_int
from icoframes.parse.dates import parse_datetime, read_label, to_label_date
from icoframes.parse.lists import list_frame
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import MULTIPLIERS, parse_amount, parse_id
from icoframes.parse.supply import read_tokens
from icoframes.parse.units import read_amount_group, read_price


def _group(values: list, unit: str, ticker: str | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


# --------------------------------------------------------------------------- 1. unit columns


@pytest.mark.parametrize(("unit", "code", "factor"), [
    ("USD mln", "USD", 1e6), ("$ mln", "USD", 1e6), ("USD millions", "USD", 1e6),
    ("USD Mln.", "USD", 1e6), ("US Dollar bn", "USD", 1e9), ("EUR k", "EUR", 1e3),
    ("ETH thousand", "ETH", 1e3), ("USD M", "USD", 1e6),
])
def test_a_unit_column_of_a_currency_then_a_scale_word_scales_that_currency(unit, code, factor):
    # parser 20: 5 in a made-up unit "USD MLN" (and "$7" a unit_conflict with it); "2.5k"
    # there is unreadable since parser 23 (it was multiplied twice: test_parse_v23)
    amounts, codes, unread = _group([5, "5", "2.5"], unit)
    assert amounts == [5 * factor, 5 * factor, 2.5 * factor]
    assert codes == [code] * 3 and unread == []


def test_a_value_writing_its_currency_under_a_scaled_unit_column_is_read_as_written():
    # as under "kUSD": "$7" writes its unit, so it is 7 USD, not 7 million
    assert _group(["$7", "7 USD"], "USD mln") == ([7.0, 7.0], ["USD", "USD"], [])
    amounts, codes, unread = _group(["7 ETH"], "USD mln")
    assert math.isnan(amounts[0]) and codes == ["USD"] and unread == [("7 ETH", "unit_conflict")]


@pytest.mark.parametrize("unit", ["mil", "MIL", "lakh", "Lakhs", "crore", "kk", "Mrd",
                                  "Mrd.", "USD mil", "mil USD", "EUR Mrd", "crore INR"])
def test_a_unit_column_with_a_scale_word_of_another_language_names_no_unit(unit):
    # parser 20: 5 MIL, 5 LAKH, 5 CRORE, 5 KK, 5 MRD, 5 "USD MIL": made-up units
    amounts, codes, unread = _group([5, "5"], unit)
    assert all(math.isnan(a) for a in amounts) and codes == [None, None]
    assert unread == [(5, "unreadable_unit"), ("5", "unreadable_unit")]


@pytest.mark.parametrize(("unit", "ticker"), [
    # ("K USD" is thousands of USD since parser 23, as the value "5 K USD": test_parse_v23)
    ("USD MLN", None), ("XYZ mln", None), ("m ETH", None), ("MLN USD", None),
    ("USD mln", "MLN"), ("USD k", "K"), ("$ Mn", "MN"),
])
def test_a_multiplier_word_beside_another_word_that_cannot_be_told_names_no_unit(unit, ticker):
    # "USD MLN": USD, or the token MLN? "USD mln" for MLN: millions, or its token? parser 20
    # read each as a made-up unit
    amounts, codes, unread = _group([5], unit, ticker)
    assert math.isnan(amounts[0]) and codes == [None]
    assert unread == [(5, "unreadable_unit")]


def test_scaled_units_that_were_read_before_still_are():
    assert _group([5], "mln USD")[:2] == ([5e6], ["USD"])
    assert _group([5], "K USD")[:2] == ([5e3], ["USD"])  # "kUSD": unreadable, parser 26
    assert _group([5], "USD mln", "KIN")[:2] == ([5e6], ["USD"])  # another ICO's ticker
    assert _group([5], "cents")[:2] == ([0.05], ["USD"])
    assert _group([5], "MLN")[:2] == ([5.0], ["MLN"])  # the token Melon
    assert _group([5], "XYZ")[:2] == ([5.0], ["XYZ"])
    assert _group([5], "US Dollar")[:2] == ([5.0], ["USD"])


def test_tidy_reads_a_scaled_unit_column_and_reports_one_that_names_no_unit():
    scaled, foreign = clean_profile(1), clean_profile(2)
    scaled["finance"].update(caps_unit="USD mln", soft_cap="2", hard_cap=5)
    foreign["finance"].update(caps_unit="lakh", soft_cap="2", hard_cap=5)
    tables = tidy([scaled, foreign])
    icos = tables.icos.set_index("id")
    assert icos.loc[1, ["soft_cap", "hard_cap"]].tolist() == [2e6, 5e6]
    assert icos.loc[1, "caps_unit"] == "USD"
    assert icos.loc[2, ["soft_cap", "hard_cap"]].isna().all()
    assert pd.isna(icos.loc[2, "caps_unit"])  # parser 20: "LAKH"
    problems = tables.problems[tables.problems["ico_id"] == 2]
    assert sorted(problems[["column", "value", "reason"]].values.tolist()) == [
        ["caps_unit", "lakh", "unreadable_unit"], ["hard_cap", "5", "unreadable_unit"],
        ["soft_cap", "2", "unreadable_unit"]]  # parser 28: the numbers unreadable_number


# --------------------------------------------------------------------------- 2. per token


def test_a_price_per_token_without_a_currency_is_in_the_unit_columns_unit():
    # parser 20: unreadable_price ("0.1 USD per token" was read)
    prices, codes, unread = read_price(
        ["0.1 per token", "0.1 USD per token", "$0.1 per token", "0,5 / XYZ", "5k per token"],
        ["USD", "USD", "USD", "ETH", "EUR"], tickers=["ABC", "ABC", "ABC", "XYZ", "ABC"])
    assert prices.tolist() == [0.1, 0.1, 0.1, 0.5, 5000.0]
    # (a unit column that is no currency leaves it unreadable since parser 23: test_parse_v23)
    assert codes.tolist() == ["USD", "USD", "USD", "ETH", "EUR"] and unread.rows == []


def test_a_number_per_something_else_is_still_no_price():
    prices, _, unread = read_price(["0.1 per month", "lots per token", "0.1 ETH per token"],
                                   ["USD", "USD", "USD"], tickers=["ABC"] * 3)
    assert math.isnan(prices[0]) and math.isnan(prices[1])
    assert unread.rows == [0, 1, 2] and unread.reasons[1] == "unreadable_number"


# --------------------------------------------------------------------------- 3. final dot


def test_tokens_for_sale_with_a_final_dot_after_the_word_tokens_is_read():
    # parser 20: unreadable_number
    numbers, unread = read_tokens(["500 tokens.", "5M Tokens.", "500 KIN.", "500 tokens.."],
                                  ["KIN"] * 4)
    assert numbers.tolist()[:3] == [500.0, 5e6, 500.0]
    assert unread.values == ["500 tokens.."]  # one final dot, as after any unit


# --------------------------------------------------------------------------- 4. short years


@pytest.mark.parametrize("text", ["01.03.18", "1.3.18", "01-03-18", "01/03/18",
                                  "01.03.18 12:00:00", "31.12.99"])
def test_a_two_digit_year_is_a_short_year_never_guessed(text):
    # parser 20 said no_year: the year is there, but 1 March 2018 or 18 March 2001?
    read = parse_datetime(text)
    assert isinstance(read, Bad) and read.reason == "short_year"


def test_a_short_year_roadmap_key_is_reported_as_such_and_other_dates_keep_their_reason():
    dates, precision, unread = to_label_date(["01-03-18", "Q3'18", "20 Sep", "01.13.2018"])
    assert str(dates[1])[:10] == "2018-07-01"
    assert precision[1] == "quarter"  # a quarter of '18 names one year only: still read
    assert unread.values == ["01-03-18", "20 Sep", "01.13.2018"]
    assert unread.reasons == ["short_year", "no_year", "us_order"]


def test_tidy_reports_a_start_date_with_a_two_digit_year():
    profile = clean_profile(3)
    profile["dates"]["start_datetime"] = "01.03.18"
    tables = tidy([profile])
    assert tables.icos["start_datetime"].isna().all()
    problem = tables.problems[tables.problems["value"] == "01.03.18"]
    assert problem["reason"].tolist() == ["short_year"]


# --------------------------------------------------------------------------- 6. digits


@pytest.mark.parametrize(("text", "reason"), [
    ("٣", "unreadable_number"), ("٣ ETH", "unreadable_number"), ("$٣", "unreadable_number"),
    ("१०", "unreadable_number"), ("1_000", "grouping"), ("1_000 USD", "grouping"),
])
def test_digits_of_other_scripts_and_underscores_are_no_number(text, reason):
    # parser 20: "٣" was 3 and "1_000" 1000 (what Python's float() reads)
    read = parse_amount(text)
    assert isinstance(read, Bad) and read.reason == reason
    amounts, _, unread = _group([text], "")
    assert math.isnan(amounts[0]) and unread == [(text, reason)]


def test_full_width_digits_are_still_read_after_nfkc():
    assert parse_amount("１２") == 12.0 and parse_id("１２") == 12
    assert _group(["５ ETH"], "")[:2] == ([5.0], ["ETH"])


def test_an_id_of_other_digits_is_unreadable():
    # parser 20: parse_id("٣") was the id 3, "1_0" the id 10
    assert parse_id("٣") is None and parse_id("1_0") is None and parse_id(" 7 ") == 7
    with pytest.raises(ValueError, match="not a non-negative integer"):  # a count: read first
        to_int(["٣"])
    problems = Problems()
    frame = list_frame([{"id": "٣", "main": {"name": "A"}}, {"id": "3", "main": {"name": "B"}}],
                       status=None, problems=problems)
    assert frame["id"].tolist() == [3]
    assert problems.records()[0]["value"] == "٣"
    assert problems.records()[0]["reason"] == "unreadable_id"


def test_dates_of_other_digits_are_unreadable():
    # parser 20: the roadmap key "٠١-٠٣-٢٠١٨" was 1 March 2018
    assert read_label("٠١-٠٣-٢٠١٨") == (None, None) and read_label("Q3 ٢٠١٨") == (None, None)
    assert isinstance(parse_datetime("٠١.٠٣.٢٠١٨ ١٢:٠٠:٠٠"), Bad)


# --------------------------------------------------------------------------- declared once


def test_every_multiplier_word_is_read_with_its_factor_and_mln_in_capitals_is_a_ticker():
    for word, factor in MULTIPLIERS.items():
        for spelling in {word, word.title()}:
            assert parse_amount(f"5 {spelling}") == 5 * factor, spelling
    assert isinstance(parse_amount("5 MLN"), Bad) and isinstance(parse_amount("5 BLN"), Bad)
    assert parse_amount("5 MILLIONS") == 5e6 and parse_amount("5 MIO") == 5e6


# --------------------------------------------------------------------------- 5. list copies


def _item(ico_id: object, name: object, score: object = 3.5, raised: object = "") -> dict:
    return {"id": ico_id, "main": {"name": name, "ico_score": score},
            "finance": {"raised": raised}}


def test_list_copies_that_read_as_the_same_row_are_no_duplicate_id():
    # parser 20: a score "3.5" and 3.5 (raised "1,000" and 1000) were a duplicate_id
    problems = Problems()
    frame = list_frame([_item(7, "A", "3.5", "1,000"), _item("7", "A", 3.5, 1000),
                        _item(8, "B", " 4 "), _item(8, "B", 4.0)], status=None,
                       problems=problems)
    assert frame["id"].tolist() == [7, 8] and frame["ico_score"].tolist() == [3.5, 4.0]
    assert frame["raised"].tolist()[0] == 1000.0
    assert problems.records() == []


def test_list_copies_that_read_otherwise_are_still_reported_in_order():
    problems = Problems()
    list_frame([_item(9, "C", 1), _item(8, "B", "high"), _item(9, "C", 2), _item(8, "B", "High")],
               status=None, problems=problems)
    copies = [r for r in problems.records() if r["reason"] == "duplicate_id"]
    # 9: another row; 8: the same row (a score unreadable either way) but another value lost
    assert [r["ico_id"] for r in copies] == [9, 8]
    assert '"ico_score": 1' in copies[0]["value"] and '"high"' in copies[1]["value"]
    assert [r["value"] for r in problems.records() if r["column"] == "ico_score"] == ["High"]


def test_only_the_copies_of_a_repeated_id_are_read_to_compare_them():
    # parser 20 encoded every record once one id repeated (5,000 profiles: 170 ms, now 4 ms)
    from icoframes.parse.sources import select

    read: list[object] = []

    def content(record):
        read.append(record["id"])
        return str(record.get("v"))

    items = [{"id": i, "v": i} for i in range(1, 50)] + [{"id": 7, "v": 7}, {"id": "x"}, 3]
    kept, ids = select(items, problems := Problems(), "icos", content)
    assert sorted(read) == [7, 7] and len(kept) == 49 and ids.tolist()[-1] == 7
    assert [r["reason"] for r in problems.records()] == ["unreadable_id", "wrong_shape"]


def test_a_ticker_beginning_with_a_foreign_scale_word_is_still_a_ticker():
    # only a whole word is a scale word of another language ("KKX", "MILX" are tokens)
    assert _group([5], "KKX")[:2] == ([5.0], ["KKX"])
    assert _group([5], "MILX")[:2] == ([5.0], ["MILX"])


def test_a_currency_of_two_words_then_the_icos_ticker_as_a_scale_word_names_no_unit():
    amounts, codes, unread = _group([5], "US Dollar mln", "MLN")  # millions, or MLN?
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(5, "unreadable_unit")]
    assert _group([5], "US Dollar mln", "DOLLAR")[:2] == ([5e6], ["USD"])
