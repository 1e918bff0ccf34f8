"""``accepted_currencies`` reads a token's name as the parser reads it in data: one word, one
ticker across the package.

On main (7759c04) the parser read ``"Tron"`` as TRX, but the filter sent ``"Tron"`` as a
ticker (which matches no ICO's ``accepting``), and a misspelled token name (``"Cardono"``)
went out as a ticker too, with no hint. The misspellings the parser reads in data stay
refused as arguments (``"Etherium"``: did you mean 'ETH'?).
"""

from __future__ import annotations

import pytest

from icoframes.currencyfilter import tickers
from icoframes.errors import InvalidParameter
from icoframes.parse.units import written_amount
from icoframes.queries import build_queries
from icoframes.vocabulary import TOKEN_NAMES


def _no_filter_set():
    raise AssertionError("a currency filter reads no filter set")


@pytest.mark.parametrize(("given", "sent"), [
    ("Tron", ["TRX"]), (["Cardano", "chainlink"], ["ADA", "LINK"]),
    (["Bitcoin Gold", "ZENCASH"], ["BTG", "ZEN"]), (["Ether", "TRX", "abc"], ["ABC", "ETH", "TRX"]),
    ("pounds", ["GBP"])])
def test_a_token_s_name_is_sent_as_its_ticker(given, sent):
    assert build_queries("past", {"accepted_currencies": given}, _no_filter_set) == [
        {"accepted_currencies": sent, "status": "past"}]


def test_every_name_the_parser_reads_for_a_token_is_taken():
    for code, names in TOKEN_NAMES.items():
        assert tickers(list(names), list(names)) == [code] * len(names)
        assert [written_amount(f"5 {name}", None) for name in names] == [(5.0, code)] * len(names)


@pytest.mark.parametrize(("given", "meant"), [
    ("Cardono", "'ADA'"), ("Polkadott", "'DOT'"), ("chainlnk", "'LINK'"), ("Bitcoin Gld", "'BTG'"),
    ("Etherium", "'ETH'"), ("Tron, Cardano", "['TRX', 'ADA']")])
def test_a_near_miss_of_a_name_is_refused_with_what_it_means(given, meant):
    with pytest.raises(InvalidParameter) as caught:
        build_queries("past", {"accepted_currencies": given}, _no_filter_set)
    assert str(caught.value).endswith(f"{given!r} is not one; did you mean {meant}?")
    assert "UNIT_ALIASES and TOKEN_NAMES ('Ether', 'Bitcoin', 'Tron')" in str(caught.value)


@pytest.mark.parametrize(("given", "meant"), [("Tronn", "'TRX'"), ("Tezoz", "'XTZ'"),
                                              ("links", "'LINK'"), ("lisks", "'LSK'")])
def test_a_short_near_miss_not_in_capitals_is_refused_before_any_request(given, meant):
    # under 6 letters a word was sent as a ticker, for an empty answer (REV-CE L3): a ticker
    # is written in capitals, a name misspelled is not
    with pytest.raises(InvalidParameter) as caught:
        build_queries("past", {"accepted_currencies": given}, _no_filter_set)
    assert str(caught.value).endswith(f"{given!r} is not one; did you mean {meant}?")


@pytest.mark.parametrize("given", ["TRONN", "TEZOZ", "LINKS", "abc", "usdc"])
def test_a_short_ticker_in_capitals_or_near_no_name_is_sent_as_given(given):
    assert build_queries("past", {"accepted_currencies": given}, _no_filter_set) == [
        {"accepted_currencies": [given.upper()], "status": "past"}]
