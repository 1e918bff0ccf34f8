"""Parser 29: numbers the parser read wrong silently, or refused for the wrong reason.

Each test failed on bae3eb2 (parser 28): a lone ``"12.500"`` was 12.5 in every amount; a
lowercase ``"1.5m"`` beside ``"3,000 ETH"`` was 1.5 million ETH (it is refused under a
``caps_unit`` ETH); ``"1.5M ETH"`` was refused as milli; a unit column naming no unit was in no
row of ``problems``; ``"-0.0"`` stayed negative zero; ``"1 ETH = 1e400 AQB"`` and
``"1.5x10^7"`` were a ``range``.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.lists import list_frame
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy

_DOUBT = {"raised": "$12.500", "tokens_for_sale": "150.000", "caps_unit": "",
          "soft_cap": "2.500 ETH", "hard_cap": "12.000 ETH",
          "token_price": "1 ETH = 1.000 AQB", "token_price_unit": ""}
_COLUMNS = ("raised", "tokens_for_sale", "soft_cap", "hard_cap", "token_price")


def _icos(finance: dict) -> tuple[dict, dict]:
    """One profile's finance read: its icos row, and (column -> (value, reason)) of problems."""
    tables = tidy([{"id": 1, "finance": {"ticker": "AQB", **finance}}])
    row = tables.icos.iloc[0].to_dict()
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return row, problems


def _numbers(row: dict) -> list:
    return [None if math.isnan(row[c]) else row[c] for c in _COLUMNS]


def test_one_dot_and_three_digits_alone_is_refused_as_ambiguous():
    row, problems = _icos(_DOUBT)
    assert _numbers(row) == [None] * 5  # bae3eb2: 12.5, 150, 2.5, 12, 1.0 ETH, no problem
    assert {c: problems[c] for c in _COLUMNS} == {
        c: (_DOUBT[c], "ambiguous_separator") for c in _COLUMNS}


@pytest.mark.parametrize("shown", ["1.500.000", "1.500,50", "1,5", "€ 1.000.000,00"])
def test_the_ico_grouping_thousands_with_dots_reads_them_as_thousands(shown):
    row, problems = _icos({**_DOUBT, "max_purchase": shown})
    assert _numbers(row) == [12500.0, 150000.0, 2500.0, 12000.0, 0.001]
    assert row["caps_unit"] == row["token_price_unit"] == "ETH" and not problems


@pytest.mark.parametrize("shown", ["1,500,000", "1,000.5", "$ 2,000,000.00"])
def test_the_ico_grouping_thousands_with_commas_reads_a_decimal_point(shown):
    row, problems = _icos({**_DOUBT, "max_purchase": shown})
    assert _numbers(row) == [12.5, 150.0, 2.5, 12.0, 1.0] and not problems


@pytest.mark.parametrize("shown", [["1.500.000", "1,500,000"], ["0.15", "2.5"], ["1,500"]])
def test_both_conventions_or_none_shown_leave_it_ambiguous(shown):
    # a decimal point alone ("0.15") shows nothing (prices are written so in either), nor
    # does one comma group ("1,500": 1.5 in German)
    row, problems = _icos({**_DOUBT, **dict(zip(("min_purchase", "max_purchase"), shown,
                                                strict=False))})
    assert _numbers(row) == [None] * 5
    assert problems["raised"] == ("$12.500", "ambiguous_separator")


@pytest.mark.parametrize("value", ["0.500", "12.5", "1234.567", "1.500e3", "12.5000", 12.5])
def test_values_not_in_doubt_are_read_as_before(value):
    row, problems = _icos({"hard_cap": value, "caps_unit": "USD"})
    assert row["hard_cap"] == float(value) and not problems


def test_a_list_summary_has_no_other_amount_and_refuses_it():
    log = Problems()
    frame = list_frame([{"id": 1, "finance": {"raised": "$12.500"}},
                        {"id": 2, "finance": {"raised": "$12.5"}}], status=None, problems=log)
    assert frame["raised"].tolist()[1] == 12.5 and math.isnan(frame["raised"].tolist()[0])
    assert log.frame()["reason"].tolist() == ["ambiguous_separator"]


def test_scores_and_shares_are_no_amounts_and_keep_their_decimals():
    tables = tidy([{"id": 1, "main": {"ico_score": "7.500"},
                    "finance": {"distribution": {"Team": "12.500%", "Sale": "87.500%"}}}])
    assert tables.icos["ico_score"].tolist() == [7.5]
    assert tables.distribution["percent"].tolist() == [12.5, 87.5] and tables.problems.empty


@pytest.mark.parametrize(("finance", "column"), [
    ({"soft_cap": "3,000 ETH", "hard_cap": "1.5m"}, "hard_cap"),
    ({"soft_cap": "5m", "hard_cap": "ETH 30,000"}, "soft_cap"),
    ({"min_purchase": "0.1 ETH", "max_purchase": "5 m"}, "max_purchase"),
    ({"soft_cap": "1.5m", "hard_cap": "3,000 BTC"}, "soft_cap"),
])
def test_a_unit_taken_from_the_other_value_obeys_the_rule_of_scale_words(finance, column):
    # as under a caps_unit ETH: "1.5m" of ETH, milli or million? (bae3eb2: 1.5e6 ETH)
    row, problems = _icos(finance)
    assert math.isnan(row[column]) and problems == {column: (finance[column],
                                                             "unreadable_number")}
    unit = "caps_unit" if "cap" in column else "purchase_unit"
    under, under_problems = _icos({column: finance[column], unit: row[unit]})
    assert math.isnan(under[column]) and under_problems == problems


def test_a_unit_taken_from_the_other_value_still_scales_what_it_may():
    row, problems = _icos({"soft_cap": "$500k", "hard_cap": "1.5m"})
    assert (row["soft_cap"], row["hard_cap"], row["caps_unit"]) == (5e5, 1.5e6, "USD")
    assert not problems


@pytest.mark.parametrize(("finance", "number", "unit"), [
    ({"hard_cap": "1.5M ETH"}, 1.5e6, "ETH"), ({"hard_cap": "5M BTC"}, 5e6, "BTC"),
    ({"hard_cap": "5M", "caps_unit": "ETH"}, 5e6, "ETH"),
    ({"hard_cap": "5", "caps_unit": "ETH M"}, 5e6, "ETH"),
    ({"soft_cap": "3,000 ETH", "hard_cap": "15M"}, 15e6, "ETH"),
])
def test_a_capital_m_is_millions_of_any_currency(finance, number, unit):
    # SI's milli is a lowercase m (bae3eb2 refused these as unreadable_number: milli?)
    row, problems = _icos(finance)
    assert (row["hard_cap"], row["caps_unit"]) == (number, unit) and not problems


@pytest.mark.parametrize(("finance", "value"), [
    ({"hard_cap": "1.5m ETH"}, "1.5m ETH"), ({"hard_cap": "5m", "caps_unit": "ETH"}, "5m"),
    ({"hard_cap": "5", "caps_unit": "ETH m"}, "5")])
def test_a_lowercase_m_beside_a_currency_not_fiat_stays_unreadable(finance, value):
    row, problems = _icos(finance)
    assert math.isnan(row["hard_cap"]) and problems["hard_cap"][0] == value


@pytest.mark.parametrize("unit", ["Singapore dollars", "ETH, BTC", "USD/ETH", " mln "])
def test_a_unit_column_naming_no_unit_is_a_row_of_its_own(unit):
    # bae3eb2: the unit text was in no row, and the numbers' rows said unreadable_number
    row, problems = _icos({"caps_unit": unit, "soft_cap": "3000000", "hard_cap": 15000000})
    assert math.isnan(row["soft_cap"]) and math.isnan(row["hard_cap"])
    assert problems == {"caps_unit": (unit, "unreadable_unit"),
                        "soft_cap": ("3000000", "unreadable_unit"),
                        "hard_cap": ("15000000", "unreadable_unit")}


def test_a_price_unit_naming_no_unit_is_a_row_too_and_a_value_writing_its_own_is_read():
    row, problems = _icos({"token_price_unit": "USD/ETH", "token_price": "0.1",
                           "caps_unit": "USD¹", "hard_cap": "$5M", "soft_cap": ""})
    assert math.isnan(row["token_price"]) and (row["hard_cap"], row["caps_unit"]) == (5e6, "USD")
    assert problems == {"token_price_unit": ("USD/ETH", "unreadable_unit"),
                        "token_price": ("0.1", "unreadable_unit"),
                        "caps_unit": ("USD¹", "unreadable_unit")}


def test_ethereum_classic_is_etc():
    row, problems = _icos({"caps_unit": "Ethereum Classic", "hard_cap": 5000})
    assert (row["hard_cap"], row["caps_unit"]) == (5000.0, "ETC") and not problems


@pytest.mark.parametrize("finance", [
    {"hard_cap": "-0.0", "caps_unit": "USD"}, {"hard_cap": -0.0, "caps_unit": "USD"},
    {"hard_cap": "-0.0 ETH"}, {"token_price": "-0.0", "token_price_unit": "USD"},
    {"raised": "-0.0"}, {"tokens_for_sale": "-0.0"}])
def test_negative_zero_is_zero(finance):
    (column,) = (c for c in finance if not c.endswith("unit"))
    row, problems = _icos(finance)
    # bae3eb2: -0.0, written "-0.0" in frames and files
    assert row[column] == 0.0 and math.copysign(1.0, row[column]) == 1.0 and not problems


def test_a_score_of_negative_zero_is_zero():
    tables = tidy([{"id": 1, "main": {"ico_score": "-0.0"}}])
    assert math.copysign(1.0, tables.icos["ico_score"].iloc[0]) == 1.0


@pytest.mark.parametrize(("finance", "column", "reason"), [
    ({"token_price": "1 ETH = 1e400 AQB", "token_price_unit": ""}, "token_price", "infinite"),
    ({"hard_cap": "1.5x10^7", "caps_unit": "USD"}, "hard_cap", "unreadable_number"),
    ({"hard_cap": "1.5 × 10^7 USD"}, "hard_cap", "unreadable_number"),
    ({"raised": "1.5*10**7"}, "raised", "unreadable_number"),
])
def test_one_number_out_of_reach_is_no_range(finance, column, reason):
    # bae3eb2: range (the exponent's digits read as a second number)
    row, problems = _icos(finance)
    assert math.isnan(row[column]) and problems == {column: (finance[column], reason)}


def test_an_exchange_side_reads_an_exponent_as_an_amount_does():
    row, problems = _icos({"token_price": "1 ETH = 1e3 AQB", "token_price_unit": ""})
    assert (row["token_price"], row["token_price_unit"]) == (0.001, "ETH") and not problems


def test_a_power_of_ten_is_told_in_linear_time():
    import subprocess
    import sys

    from waiting import HANG_GUARD

    # a run of spaces before no "x10^": each of its starts tried it again (200,000 spaces:
    # 30 s with the first form of the rule); the dots' rule scans long text once too
    child = ("from icoframes.parse.rules import amount_reason as r\n"
             "from icoframes.parse.separators import decimal_marks as d, settle as s\n"
             "v = ['1' + ' ' * 200_000 + 'x', 'a' + ' ' * 200_000 + 'x', '1.000' * 100_000]\n"
             "print([r(t) for t in v[:2]], d([v]), s(v)[1])")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=HANG_GUARD, check=True)
    assert done.stdout.split() == ["['unreadable_number',", "'unreadable_number']", "[None,",
                                   "None,", "None]", "{}"]
