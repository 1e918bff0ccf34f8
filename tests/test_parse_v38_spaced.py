"""Parser 38: an amount grouped by spaces or apostrophes with one mark and three digits after
it (``"1 500.000"``, ``"1'500,000"``) is read by the ICO's convention, as ``"12.500"`` and
``"1,500"`` are, and missing (``ambiguous_separator``) where nothing decides (REV-RV H1).

On 9bc57721 (parser 36) every such value was read as a decimal, 1,000 times too small beside
dots grouping, with no row: ``"1 500.000"`` beside ``"2.000.000"`` was 1500.0. Each case
failed there; the guards (a mark of one, two or four digits; a comma group before a dot)
passed there too.
"""

from __future__ import annotations

import math

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from messy_profiles import clean_profile

import icoframes
from icoframes.parse.version import PARSER_VERSION


def _read(finance: dict) -> tuple[dict, dict]:
    """The icos row of a clean profile with ``finance`` changed, and column -> (value, reason)."""
    profile = clean_profile()
    profile["finance"].update(finance)
    tables = icoframes.tidy([profile])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


@pytest.mark.parametrize(("soft", "hard", "read"), [
    ("1 500.000", "2.000.000", 1_500_000.0),  # dots group: 9bc57721 read 1500.0
    ("1'500.000", "2.000.000", 1_500_000.0),
    ("12 500.000", "2.000.000", 12_500_000.0),
    ("1 500.000", "1.500,5", 1_500_000.0),
    ("1 500,000", "2,000,000", 1_500_000.0),  # commas group: 9bc57721 read 1500.0
    ("1'500,000", "2,000,000", 1_500_000.0),
    ("1\u2019500,000", "2,000,000", 1_500_000.0),
    ("1\u00a0500,000", "2,000,000", 1_500_000.0),
    ("1 500.000", "2,000,000", 1500.0),  # commas group: the dot is a decimal point
    ("1 500 000.000", "2,000,000", 1_500_000.0),
    ("1 500,000", "2.000.000", 1500.0),  # dots group: the comma is a decimal comma
])
def test_a_spaced_amount_is_read_by_the_icos_convention(soft, hard, read):
    row, problems = _read({"soft_cap": soft, "hard_cap": hard, "caps_unit": "EUR"})
    assert row["soft_cap"] == read
    assert problems == {}
    assert PARSER_VERSION >= 38  # cached profiles are parsed again, with no request


@pytest.mark.parametrize("soft", ["1 500.000", "1 500,000", "1'500.000", "1'500,000",
                                  "12 500.000", "1 500 000.000", "€1 500.000"])
def test_a_spaced_amount_nothing_decides_is_an_ambiguous_separator(soft):
    row, problems = _read({"soft_cap": soft, "hard_cap": 15_000_000, "caps_unit": "EUR"})
    assert math.isnan(row["soft_cap"]) and row["hard_cap"] == 15_000_000.0
    assert problems == {"soft_cap": (soft, "ambiguous_separator")}  # 9bc57721: read, no row


def test_both_conventions_or_a_decimal_comma_alone_decide_nothing_for_a_comma():
    row, problems = _read({"soft_cap": "1 500.000", "hard_cap": "2.000.000",
                           "max_purchase": "1,000,000", "caps_unit": "EUR"})
    assert math.isnan(row["soft_cap"])
    assert problems["soft_cap"] == ("1 500.000", "ambiguous_separator")
    row, problems = _read({"soft_cap": "1 500,000", "hard_cap": 15_000_000,
                           "token_price": "0,15", "caps_unit": "EUR"})
    assert math.isnan(row["soft_cap"]) and row["token_price"] == 0.15
    assert problems == {"soft_cap": ("1 500,000", "ambiguous_separator")}


def test_a_scale_word_after_a_spaced_group_is_refused():
    row, problems = _read({"soft_cap": "1 500.000M", "hard_cap": "2.000.000"})
    assert math.isnan(row["soft_cap"])
    assert problems == {"soft_cap": ("1 500.000M", "ambiguous_separator")}


@pytest.mark.parametrize(("price", "hard", "read"), [
    ("1 ETH = 1 500.000 AQB", "2.000.000", 1 / 1_500_000),
    ("1 ETH = 1 500.000 AQB", "2,000,000", 1 / 1500),
])
def test_a_price_is_read_by_the_same_rule(price, hard, read):
    row, problems = _read({"token_price": price, "token_price_unit": "", "hard_cap": hard})
    assert (row["token_price"], row["token_price_unit"]) == (pytest.approx(read), "ETH")
    assert problems == {}


def test_a_spaced_price_nothing_decides_is_an_ambiguous_separator():
    row, problems = _read({"token_price": "1 ETH = 1 500.000 AQB", "token_price_unit": ""})
    assert math.isnan(row["token_price"])  # 9bc57721: 1/1500 ETH, no row
    assert problems == {"token_price": ("1 ETH = 1 500.000 AQB", "ambiguous_separator")}


@pytest.mark.parametrize("soft", ["1 500.5", "1 500.50", "1 500.0000", "1,500.000",
                                  "1 500 000", "1'000'000.50", "1 500,5"])
def test_a_spaced_amount_with_another_tail_is_no_doubt(soft):
    row, problems = _read({"soft_cap": soft, "hard_cap": 15_000_000})
    expected = {"1 500.5": 1500.5, "1 500.50": 1500.5, "1 500.0000": 1500.0,
                "1,500.000": 1500.0, "1 500 000": 1_500_000.0, "1'000'000.50": 1_000_000.5,
                "1 500,5": 1500.5}[soft]
    assert row["soft_cap"] == expected and problems == {}


def _profile(h):
    asked = int(h.request_json()["id"])
    finance = {1: {"soft_cap": "1 500.000", "hard_cap": "2.000.000", "caps_unit": "EUR"},
               2: {"soft_cap": "1 500,000", "hard_cap": "2,000,000", "caps_unit": "USD"},
               3: {"soft_cap": "1 500.000", "hard_cap": 15_000_000, "caps_unit": "USD"}}[asked]
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"},
                                        "finance": finance}})(h)


def test_spaced_caps_through_a_load(configure):
    with HostileServer({LIST: paged_list(3), PROFILE: _profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
    icos = tables.icos.set_index("id")
    assert icos["soft_cap"].tolist()[:2] == [1_500_000.0, 1_500_000.0]  # 9bc57721: 1500, 1500
    assert math.isnan(icos.loc[3, "soft_cap"])
    cap = tables.problems[tables.problems["column"] == "soft_cap"]
    assert cap[["ico_id", "value", "reason"]].values.tolist() == [
        [3, "1 500.000", "ambiguous_separator"]]
