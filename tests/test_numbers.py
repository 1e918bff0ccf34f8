"""Numbers as people write them (issue 20 part 2), on hand-built profiles through ``tidy``.

Decimal commas, dot groups, zero-width characters and full-width digits are
read; ranges, several amounts, a ``%`` outside a share, negative amounts and
shares outside 0-100 are missing *and* a row of ``problems`` with its reason
(``range``, ``vague``, ``percent``, ``negative``, ``out_of_bounds``...), never
collapsed to one number. The property tests say that no numeric parse changes when
zero-width characters are inserted or a value is written in an NFKC-equivalent
form.
"""

from __future__ import annotations

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from messy_profiles import clean_profile, with_

from icoframes.parse.base import Bad
from icoframes.parse.columns import to_float
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import parse_amount
from icoframes.parse.text import ZERO_WIDTH
from icoframes.parse.units import read_amount_group
from icoframes.tables import Tables


def problem_values(tables: Tables, column: str) -> list[tuple[str, str]]:
    """(value, reason) of each problem row of ``column``."""
    frame = tables.problems
    mine = frame[frame["column"] == column]
    return list(zip(mine["value"], mine["reason"], strict=True))


def read(changes: dict, column: str) -> tuple[object, list[str], Tables]:
    tables = tidy([with_(clean_profile(), changes)])
    return tables.icos.loc[0, column], problem_values(tables, column), tables


# --------------------------------------------------------------------------- decimal comma


@pytest.mark.parametrize(("raw", "number", "unit"), [
    ("0,003 ETH", 0.003, "ETH"),  # was read as 3 ETH
    ("0,001 ETH", 0.001, "ETH"),  # was read as 1 ETH
    ("0,1 ETH", 0.1, "ETH"),
    ("1,5 ETH", 1.5, "ETH"),
    ("12,50 EUR", 12.5, "EUR"),
    ("1,5", 1.5, "USD"),
    ("0,065", 0.065, "USD"),
    ("1.500,50 EUR", 1500.5, "EUR"),
    ("1.500.000", 1_500_000.0, "USD"),
    ("1,500", 1500.0, "USD"),  # a group of three after a first group that is not 0
    ("1,500,000.25", 1_500_000.25, "USD"),
    ("10 000,5", 10000.5, "USD"),
    ("0\u200b.25 ETH", 0.25, "ETH"),  # zero-width space inside the number
    ("1 \u200bETH", 1.0, "ETH"),
    ("１,５ ＥＴＨ", 1.5, "ETH"),  # full-width forms
    ("0.5 ЕТН", 0.5, "ETH"),  # Cyrillic look-alike unit
    ("\ufeff100", 100.0, "USD"),
])
def test_min_purchase_as_people_write_it(raw, number, unit):
    changes = {"finance.min_purchase": raw, "finance.purchase_unit": ""}
    if unit == "USD":
        changes["finance.purchase_unit"] = "USD"
    value, problems, tables = read(changes, "min_purchase")
    assert value == pytest.approx(number) and problems == []
    assert tables.icos.loc[0, "purchase_unit"] == unit


@pytest.mark.parametrize("raw", [
    "1,500,5", "1.500.000,00.5", "1,5,0", "0,003,000", "12,34,567", "1.2.3", "2 5",
])
def test_ambiguous_grouping_is_a_problem(raw):
    value, problems, _ = read({"finance.hard_cap": raw}, "hard_cap")
    assert math.isnan(value) and problems == [(raw, "grouping")]


# --------------------------------------------------------------------------- never collapsed


@pytest.mark.parametrize(("raw", "reason"), [
    ("100-200", "range"), ("$5M - $10M", "range"), ("5M–10M", "range"),
    ("5,000 to 10,000", "range"), ("500 ETH / 1000 ETH", "range"),
    ("1000 ETH + 500 BTC", "range"), ("10M (stage 1), 20M", "range"),
    ("~3,500,000", "vague"), ("approx. 2M", "vague"), ("up to 10M", "vague"),
    ("> 5M", "vague"), ("5M+", "vague"), ("5M (soft)", "vague"),
    ("60%", "percent"), ("60 %", "percent"),
    ("2.5 Mio. EUR", "unit_conflict"),  # the caps unit is USD
    ("$5 EUR", "unit_conflict"), ("lots", "unreadable_number"),
    ("500 tokens", "unreadable_number"), ("1e999", "infinite"), (True, "wrong_type"),
])
def test_ranges_stages_several_amounts_and_percent_signs_are_problems(raw, reason):
    value, problems, _ = read({"finance.hard_cap": raw}, "hard_cap")
    shown = raw if isinstance(raw, str) else "true"
    assert math.isnan(value) and problems == [(shown, reason)]


@pytest.mark.parametrize(("path", "column"), [
    ("finance.raised", "raised"), ("finance.tokens_for_sale", "tokens_for_sale"),
    ("finance.min_purchase", "min_purchase"), ("finance.token_price", "token_price"),
])
def test_a_percent_sign_outside_a_share_is_a_problem(path, column):
    value, problems, _ = read({path: "60%"}, column)
    assert math.isnan(value) and problems == [("60%", "percent")]


@pytest.mark.parametrize(("path", "column", "raw"), [
    ("finance.hard_cap", "hard_cap", "-5000"),
    ("finance.hard_cap", "hard_cap", -5000),
    ("finance.soft_cap", "soft_cap", "-$1M"),
    ("finance.raised", "raised", -1),
    ("finance.raised", "raised", "-1"),
    ("finance.raised", "raised", "\u22121000"),  # the minus sign U+2212
    ("finance.tokens_for_sale", "tokens_for_sale", "-10"),
    ("finance.min_purchase", "min_purchase", "-0.1"),
    ("finance.token_price", "token_price", -0.5),
])
def test_negative_amounts_are_problems(path, column, raw):
    value, problems, _ = read({path: raw}, column)
    assert math.isnan(value)
    assert problems == [(raw if isinstance(raw, str) else str(raw), "negative")]


def test_zero_amounts_and_scores_are_fine_but_a_negative_score_is_not():
    # a score is on the scale the list filters by, 1-10 (spec 4.2): -1 is off it (version 28)
    tables = tidy([with_(clean_profile(), {"main.ico_score": 0, "finance.raised": 0,
                                           "finance.hard_cap": "0"})])
    assert tables.icos.loc[0, ["ico_score", "raised", "hard_cap"]].tolist() == [0.0, 0.0, 0.0]
    assert tables.problems.empty
    negative = tidy([with_(clean_profile(), {"main.ico_score": -1})])
    assert negative.problems[["column", "value", "reason"]].values.tolist() == [
        ["ico_score", "-1", "negative"]]


@pytest.mark.parametrize(("raw", "reason"), [
    ("60%", None), (100, None), ("0", None), (0.5, None), ("120%", "out_of_bounds"),
    (-5, "negative"), ("100.5", "out_of_bounds"), ("-0.1%", "negative"),
    ("10-20%", "range"), ("about 5%", "vague"), ("lots", "unreadable_number"),
])
def test_distribution_shares_outside_0_100_are_problems(raw, reason):
    tables = tidy([with_(clean_profile(), {"finance.distribution": {"Sale": raw}})])
    share = tables.distribution["percent"].iloc[0]
    assert math.isnan(share) is (reason is not None)
    assert problem_values(tables, "percent") == ([] if reason is None else [(str(raw), reason)])


def test_ticker_with_lookalike_letters_and_zero_width_characters():
    tables = tidy([with_(clean_profile(), {"finance.ticker": "К\u200bВХ",
                                           "finance.accepting": ["ЕТН", "B\u200bTC"]})])
    assert tables.icos.loc[0, "ticker"] == "KBX"
    assert tables.icos.loc[0, "accepting"] == ["ETH", "BTC"]


# --------------------------------------------------------------------------- properties

NUMBER_TEXTS = st.one_of(
    st.integers(-10**12, 10**12).map(str),
    st.floats(-1e9, 1e9, allow_nan=False).map(lambda f: f"{f:.4f}"),
    st.integers(1, 999_999_999).map(lambda n: f"{n:,}"),
    st.tuples(st.integers(0, 9999), st.integers(0, 999)).map(lambda t: f"{t[0]},{t[1]:03d}"),
    st.tuples(st.integers(0, 99), st.sampled_from(["", "K", "M", "B", " million"]))
    .map(lambda t: f"{t[0]}{t[1]}"),
    st.tuples(st.integers(0, 10**6), st.sampled_from(["$", "US$", ""]),
              st.sampled_from(["", " USD", " ETH", " eth"]))
    .map(lambda t: f"{t[1]}{t[0]}{t[2]}"),
    st.sampled_from(["0,003", "1,5", "1.500,50", "1.500.000", "1 000 000", "60%", "100-200",
                     "~3", "1e6", "N/A", "TBA", "", "abc", "2.5 Mio.", "10M"]),
)


def _insert(text: str, positions: list[int], chars: list[str]) -> str:
    out = list(text)
    for position, char in sorted(zip(positions, chars, strict=False), reverse=True):
        out.insert(position % (len(out) + 1), char)
    return "".join(out)


def _same(a: object, b: object) -> bool:
    if isinstance(a, Bad) or isinstance(b, Bad) or a is None or b is None:
        return a is b  # one Bad per reason: the same reason too
    return a == b or (isinstance(a, float) and isinstance(b, float) and np.isclose(a, b))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(NUMBER_TEXTS, st.lists(st.integers(0, 40), max_size=4),
       st.lists(st.sampled_from(list(ZERO_WIDTH)), min_size=4, max_size=4))
def test_zero_width_characters_change_no_number(text, positions, chars):
    noisy = _insert(text, positions, chars)
    assert _same(parse_amount(text), parse_amount(noisy))
    plain, why = to_float([text])
    read_noisy, why_noisy = to_float([noisy])
    assert np.array_equal(plain, read_noisy, equal_nan=True)
    assert why.reasons == why_noisy.reasons
    caps = read_amount_group({"hard_cap": [text, noisy]}, ["", ""])[0]["hard_cap"]
    assert np.array_equal(caps[:1], caps[1:], equal_nan=True)


# Characters whose NFKC form is an ASCII character of numbers: full-width digits,
# signs and letters, and the no-break and narrow spaces.
_WIDE = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFF01, 0xFF5F)}
_WIDE.update({"\u00a0": " ", "\u202f": " ", "\u2007": " "})
_TO_WIDE = {v: k for k, v in _WIDE.items() if len(v) == 1}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(NUMBER_TEXTS, st.lists(st.booleans(), min_size=40, max_size=40))
def test_nfkc_equivalent_forms_change_no_number(text, which):
    wide = "".join(_TO_WIDE.get(c, c) if which[i % len(which)] else c
                   for i, c in enumerate(text))
    assert unicodedata.normalize("NFKC", wide) == unicodedata.normalize("NFKC", text)
    assert _same(parse_amount(text), parse_amount(wide))
    caps = read_amount_group({"hard_cap": [text, wide]}, ["", ""])
    assert np.array_equal(caps[0]["hard_cap"][:1], caps[0]["hard_cap"][1:], equal_nan=True)
    assert caps[1][0] == caps[1][1]
