"""Parser 26's third review, folded into parser 26 (unreleased): one rule of case and scale.

Each reading test below failed on 2ffb71f: ``"usdck"`` was the ticker USDCK while ``"usdk"`` was
refused; ``"5KUSD$"`` for an ICO whose ticker is KUSD was 5,000 USD (and ``"5k$"`` for K 5,000
USD while ``"$5k"`` for K was a problem); the unit columns ``"%"``, ``"percent"``, ``"5M+"``,
``"8.3M"`` were the made-up units %, PERCENT, 5M+, 8.3M; ``"5 XYZ tokens"`` for XYZ was
unreadable while the column ``"XYZ tokens"`` was XYZ; ``"5 USD ."`` was 5 USD in caps and
unreadable in ``raised``, and ``"5 $k.."`` 5,000 USD in caps, though ``"5 USD.."`` is none.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group
from parse_reading import reason as _reason
from test_parse_v26_units import _LEFT, _corpus

from icoframes.parse.base import Bad
from icoframes.parse.prices import read_exchange
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import parse_amount
from icoframes.parse.supply import read_tokens
from icoframes.parse.unitcols import column_text
from icoframes.parse.units import read_price


def _read(values: list, unit: str, ticker: str | None = None) -> tuple:
    """:func:`parse_reading.group` with None for NaN, comparable with ``==``."""
    amounts, codes, unread = _group(values, unit, ticker)
    return [None if math.isnan(a) else a for a in amounts], codes, unread


def _nan_row(read: tuple) -> None:
    """A group of the one number 5 left it missing and unitless: its unit is unreadable."""
    amounts, codes, unread = read
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(5, "unreadable_unit")]


def _no_unit(unit: str, ticker: str | None = None) -> None:
    """The unit column ``unit`` names no unit: its number 5 is unreadable, as a price under it."""
    _nan_row(_group([5], unit, ticker))
    price, codes, unread = read_price([0.1], [unit], [ticker])
    assert math.isnan(price[0]) and codes.tolist() == [None] and unread.rows == [0]


def _raised(rows: list[tuple[object, str]]) -> tuple[list[float], list[tuple[object, str]]]:
    """``raised`` of ICOs with these (raised, ticker): the numbers, and its problems."""
    tables = tidy([{"id": i + 1, "finance": {"raised": raised, "ticker": ticker}}
                   for i, (raised, ticker) in enumerate(rows)])
    problems = tables.problems[tables.problems["column"] == "raised"]
    return tables.icos["raised"].tolist(), list(zip(problems["value"], problems["reason"],
                                                    strict=True))


# -------------------------------------- 1. a scale word glued after letters: one rule of case


@pytest.mark.parametrize("letters", ["usdc", "USDC", "Usdc", "xyz", "XYZ", "usd", "USD", "eur"])
@pytest.mark.parametrize("scale", ["k", "K", "m", "M", "mln", "Mln", "MLN", "mm", "bn"])
def test_letters_and_a_glued_scale_are_a_ticker_in_capitals_and_never_a_made_up_one(letters,
                                                                                     scale):
    # one rule whatever the letters: a lone letter in capitals a ticker (USDK, USDCK; "USDMLN",
    # "XYZMLN": millions, or a token?); in any other case
    # a scale of them, or a ticker? never the ticker (2ffb71f: "usdck", "usdcK", "xyzmln" were
    # the units USDCK, XYZMLN while "usdk", "usdK", "eurmln" were refused); a known currency
    # may be scaled ("USDmln"), a token's letters never ("XYZmln"); a name is a name ("Usdck")
    # all in lowercase only after a currency's letters (revM: "xyzk", "xyzmln" are tickers, as
    # "link", "steem": 8de907b refused them)
    # (parser 34: in a value, such a ticker is no known code nor the ICO's own: unknown_unit)
    unit = letters + scale
    column = _group([5], unit)
    for read in (column, _group([f"5 {unit}"], ""), _group([f"5{unit}"], "")):
        if (unit.isupper() and len(scale) == 1) or (
                unit.istitle() and letters.upper() not in ("USD", "EUR")) or (
                unit.islower() and letters == "xyz"):
            assert read[:2] == ([5.0], [unit.upper()]) if read is column else (
                read[1] == [None] and [why for _, why in read[2]] == ["unknown_unit"])
        else:
            assert read[1] != [unit.upper()]
            assert read[1] == [None] or (letters.isupper() and letters in ("USD", "EUR"))


@pytest.mark.parametrize("unit", ["usdck", "usdcK", "tusdk", "eursm", "usdcmln", "XYZmln"])
def test_a_scale_word_glued_after_a_tickers_letters_in_lowercase_names_no_unit(unit):
    # 2ffb71f: the units USDCK, TUSDK... (in capitals "USDCk" already named none); all in
    # lowercase only after letters holding a currency's code (revM: 8de907b also refused
    # "daik", "xyzmln", "xyzk", "steem", "lsk", the tickers of test_parse_v26_revm)
    _nan_row(_group([5], unit))
    amounts, codes, unread = _group([f"5 {unit}", f"5{unit}"], "")
    assert all(map(math.isnan, amounts)) and codes == [None, None]
    assert [why for _, why in unread] == ["unreadable_number"] * 2
    assert _reason(read_exchange(f"1 ABC = 0.1 {unit}", "ABC")[0]) == "unreadable_price"


@pytest.mark.parametrize("unit", ["ak", "xk", "xmln"])
def test_one_letter_and_a_glued_scale_word_stay_a_ticker(unit):
    # a ticker has two letters or more: no token's letters to scale before the scale word (in
    # a value, the ICO's own ticker: parser 34 reads no other unknown ticker there)
    assert _group([5], unit) == _group([f"5 {unit}"], "", unit.upper()) == (
        [5.0], [unit.upper()], [])


@pytest.mark.parametrize(("unit", "ticker"), [("steem", "STEEM"), ("usdck", "USDCK"),
                                              ("Steem", None), ("Usdck", None)])
def test_the_own_ticker_in_lowercase_and_a_name_stay_units(unit, ticker):
    # the ICO's own ticker in any case is its token; a name with one capital first is a name
    # (in a value, of a known token or the ICO's own: parser 34)
    assert _group([5], unit, ticker) == ([5.0], [unit.upper()], [])
    if ticker is not None or unit.upper() == "STEEM":
        assert _group([f"5 {unit}"], "", ticker) == ([5.0], [unit.upper()], [])
    else:
        assert _group([f"5 {unit}"], "", ticker)[1:] == ([None], [(f"5 {unit}", "unknown_unit")])


# ---------------------------------------- 2. the own ticker glued to a symbol: a problem


@pytest.mark.parametrize(("value", "ticker"), [
    ("5KUSD$", "KUSD"), ("5 KUSD$", "KUSD"), ("5kUSD$", "KUSD"), ("5 kusd$", "KUSD"),
    ("5K$", "K"), ("5 k$", "K"), ("5M$", "M"), ("5 mln$", "MLN"), ("5KUS$", "KUS"),
    ("5K€", "K")])
def test_the_own_ticker_glued_to_a_symbol_is_a_problem(value, ticker):
    # 2ffb71f: 5,000 USD (5e6 for M, MLN), while "$5k" for K and "5 USD k" for K were problems:
    # 5 of the token and a dollar sign, or thousands of USD? The value, the unit column and
    # raised alike; for another ICO it is the amount of USD it reads
    amounts, codes, unread = _group([value], "", ticker)
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(value, "unreadable_number")]
    _no_unit(value.removeprefix("5").strip(), ticker)
    amounts, codes, unread = _group([value], "", "XYZ")
    assert (amounts, codes, unread) == _group([value], "", None) and amounts[0] > 5
    assert codes[0] in ("USD", "EUR")


@pytest.mark.parametrize(("unit", "ticker"), [("k", "K"), ("K", "K"), ("mln", "MLN"),
                                              ("Mln", "MLN")])
def test_a_scale_word_alone_as_the_unit_column_of_its_ticker_names_no_unit(unit, ticker):
    # thousands of what, or the token K? (as "USD k" for K); never its token by the own ticker
    _no_unit(unit, ticker)


def test_raised_of_the_own_ticker_glued_to_a_symbol_is_a_problem_as_in_caps():
    numbers, problems = _raised([("5KUSD$", "KUSD"), ("5KUSD$", "XYZ"), ("5k$", "K"),
                                 ("$5k", "K"), ("5k$", "KIN"), ("5 KUSD", "KUSD")])
    assert numbers[1] == 5000.0 and numbers[4] == 5000.0
    assert all(math.isnan(numbers[i]) for i in (0, 2, 3, 5))
    assert sorted(problems) == sorted([("5KUSD$", "unreadable_number"),
                                       ("5k$", "unreadable_number"), ("$5k", "unreadable_number"),
                                       ("5 KUSD", "unit_conflict")])  # its token (parser 27)


# ------------------------------------------ 3. a number, a sign or a percent is no unit


@pytest.mark.parametrize("unit", ["%", "percent", "Percent", "pct", "percentage", "per cent",
                                  "5M+", "8.3M", "5", "1ST", "+", "50%", "5 USD"])
def test_a_unit_column_of_a_number_or_a_percent_names_no_unit(unit):
    # 2ffb71f: the made-up units %, PERCENT, PCT, 5M+, 8.3M, 5, +... (a unit names a currency or
    # a token; a value's unit already had to begin with a letter: "500 1ST" was unreadable)
    _no_unit(unit)


@pytest.mark.parametrize(("unit", "code"), [("B2B", "B2B"), ("C20", "C20"), ("¢", "USD"),
                                            ("$", "USD")])
def test_a_ticker_with_digits_and_a_symbol_stay_units(unit, code):
    assert _group([5], unit)[1] == [code]


@pytest.mark.parametrize("unit", ["1ST", "2GIVE", "0xBTC"])
def test_the_own_ticker_beginning_with_a_digit_stays_its_unit(unit):
    # an ICO whose ticker begins with a digit: its purchase limits may be in its token
    assert _group([5, "5M"], unit, unit.upper()) == ([5.0, 5e6], [unit.upper()] * 2, [])
    _no_unit(unit, "XYZ")


@pytest.mark.parametrize("value", ["5 percent", "5 Percent", "5 pct", "5 per cent",
                                   "5 percentage", "5percent"])
def test_a_percent_written_in_words_is_a_percent(value):
    # 2ffb71f: the unit PERCENT (5 PCT...), or unreadable_number; as "5%" it is no amount
    assert _reason(parse_amount(value)) == "percent"
    assert _read([value], "") == ([None], [None], [(value, "percent")])


def test_a_share_written_in_percent_words_is_read_as_with_a_sign():
    # 2ffb71f: "20 percent" and "5 pct" were unreadable_number ("60%" was 60)
    tables = tidy([{"id": 1, "finance": {"distribution": {
        "Team": "20 percent", "Sale": "60%", "Bounty": "5 Pct", "Reserve": "10percent",
        "Advisors": "150 percent", "Other": "5 USDpct"}}}])
    assert tables.distribution["percent"].tolist()[:4] == [20.0, 60.0, 5.0, 10.0]
    assert all(map(math.isnan, tables.distribution["percent"].tolist()[4:]))
    assert sorted(tables.problems[["value", "reason"]].values.tolist()) == [
        ["150 percent", "out_of_bounds"], ["5 USDpct", "unreadable_number"]]


@pytest.mark.parametrize("ticker", [None, "XYZ"])
@pytest.mark.parametrize("unit", ["N/A", "n/a", "-"])
def test_a_unit_column_written_missing_leaves_its_numbers_unitless(unit, ticker):
    # 2ffb71f: "N/A" was read as a rate (a slash: per what?) and its numbers unreadable, while
    # "-" or "" left them in no unit
    assert _group([5, "5M", "$5"], unit, ticker) == _group([5, "5M", "$5"], "", ticker) == (
        [5.0, 5e6, 5.0], [None, None, "USD"], [])


# --------------------------------------------- 4. the own ticker then token words, in a value


@pytest.mark.parametrize(("value", "number"), [("5 XYZ tokens", 5.0), ("5M XYZ tokens", 5e6),
                                               ("5 xyz Coins", 5.0), ("5 XYZ token.", 5.0),
                                               ("5k XYZ tokens", 5e3)])
def test_a_value_in_the_own_ticker_then_token_words_is_in_that_token(value, number):
    # 2ffb71f: unreadable, while the unit column "XYZ tokens" for XYZ was XYZ
    assert _group([value], "", "XYZ") == ([number], ["XYZ"], [])
    assert _group([value], "XYZ tokens", "XYZ") == ([number], ["XYZ"], [])
    assert _group([value.replace(" tokens", "").replace(" token.", "").replace(" Coins", "")],
                  "", "XYZ") == ([number], ["XYZ"], [])


@pytest.mark.parametrize(("value", "ticker", "reason"), [
    ("5 XYZ tokens", "ABC", "unreadable_number"), ("5 XYZ tokens", None, "unreadable_number"),
    ("5 XYZ per token", "XYZ", "unreadable_number"), ("$5 XYZ tokens", "XYZ", "unit_conflict"),
    ("5 XYZ/token", "XYZ", "unreadable_number"), ("5 XYZ/tokens", "XYZ", "unreadable_number"),
    ("5 XYZ tokens bonus", "XYZ", "unreadable_number"),
    ("5 XYZ tokens..", "XYZ", "unreadable_number")])
def test_token_words_after_another_ticker_or_a_rate_stay_unread(value, ticker, reason):
    assert _read([value], "", ticker) == ([None], [None], [(value, reason)])
    if "/" in value or " per " in value:  # a rate: a unit column of it names no unit either
        _no_unit(value.removeprefix("5 "), ticker)


@pytest.mark.parametrize(("value", "unit", "number"), [
    ("5 PCT tokens", "", 5.0), ("5M PCT tokens", "", 5e6), ("5 pct Coins", "", 5.0),
    ("5", "PCT tokens", 5.0), ("5 PCT tokens", "PCT tokens", 5.0)])
def test_the_own_ticker_then_token_words_is_that_token_when_it_is_a_percent_word(
        value, unit, number):
    # the ticker PCT is the percent word "pct": "5 PCT tokens" for PCT was a percent problem,
    # the unit column "PCT tokens" no unit (its 5 unreadable); tokens of PCT are no share
    assert _group([value], unit, "PCT") == ([number], ["PCT"], [])
    tables = tidy([{"id": 1, "finance": {"ticker": "PCT", "tokens_for_sale": "500 PCT tokens",
                                         "soft_cap": value, "caps_unit": unit}}])
    assert tables.icos[["tokens_for_sale", "soft_cap", "caps_unit"]].values.tolist() == [
        [500.0, number, "PCT"]]
    assert tables.problems.empty


@pytest.mark.parametrize(("value", "unit", "ticker", "reason"), [
    ("5 PCT", "", "PCT", "percent"),  # the ticker alone: 5 PCT, or 5 percent? as before
    ("5 PCT tokens", "", "ABC", "percent"),  # another ICO's: as before
    ("5 % tokens", "", "PCT", "percent"), ("5 percent tokens", "", "PCT", "percent"),
    ("$5 PCT tokens", "", "PCT", "unit_conflict"),  # was percent: as "$5 XYZ tokens" for XYZ
    ("5% XYZ tokens", "", "XYZ", "percent"), ("5 ‰ XYZ tokens", "", "XYZ", "unreadable_number"),
    ("5 XYZ tokens %", "", "XYZ", "percent"),  # were 5 XYZ: a share of tokens, not 5 of them
    (5, "PCT", "PCT", "unreadable_unit")])  # a unit column of the ticker alone (28: _number)
def test_a_percent_word_that_is_no_own_token_stays_unread(value, unit, ticker, reason):
    assert _read([value], unit, ticker) == ([None], [None], [(value, reason)])
    if isinstance(value, str) and value.startswith("5"):  # a supply of tokens alike
        numbers, unread = read_tokens([value.replace("5", "500", 1)], [ticker])
        assert math.isnan(numbers[0]) and unread.reasons == [reason]


# ------------------------------------------------------ 5. a final dot, after a space or two


@pytest.mark.parametrize(("value", "number"), [("5 USD .", 5.0), ("5M USD .", 5e6),
                                               ("5 USD mln .", 5e6), ("5 USD$ .", 5.0),
                                               ("$5 USD .", 5.0), ("5 usd .", 5.0)])
def test_a_final_dot_after_a_space_is_read_by_raised_as_by_caps(value, number):
    # 2ffb71f: unreadable_number in raised, 5 USD in caps (and the unit column "USD ." is USD)
    assert parse_amount(value) == number
    assert _group([value], "") == ([number], ["USD"], [])
    assert _group([5], "USD .") == ([5.0], ["USD"], [])


@pytest.mark.parametrize("value", ["5 $k..", "5 $ k. .", "$5 mln..", "5 USD k. .", "5 .",
                                   "5 USD. ."])
def test_more_than_one_final_dot_is_read_by_neither(value):
    # 2ffb71f: caps read "5 $k.." as 5,000 USD (the regex took one dot, split_scale another),
    # though "5 USD.." was none
    assert isinstance(parse_amount(value), Bad)
    amounts, codes, unread = _group([value], "")
    assert math.isnan(amounts[0]) and codes == [None] and len(unread) == 1


def test_parse_amount_and_the_value_reader_agree_with_final_dots_and_spaces():
    # test_parse_v26_units' corpus, each text also ending in " ." and in another "."
    # (2ffb71f: 3,954 of these 48,204 differed)
    differ = []
    for base in _corpus():
        for value in (base + " .", base + ".", base):
            number = parse_amount(value)
            amounts, codes, _ = _group([value], "")
            read = None if math.isnan(amounts[0]) or codes[0] not in (None, "USD") else amounts[0]
            if (number if isinstance(number, float) else None) != read and not (
                    _LEFT.match(value) and isinstance(number, Bad)):
                differ.append((value, number, read))
    assert differ == []


# ------------------------------------- 6. mutants of the rule of units that survived (make mutate)


@pytest.mark.parametrize("unit", [".USD", ".$", "mil. XYZ", "kk. XYZ", "Mrd. XYZ"])
def test_a_dot_before_a_currency_or_after_a_foreign_scale_word_names_no_unit(unit):
    # ".USD" was the made-up unit .USD (a dot was no mark beside a currency); "mil. XYZ" is
    # thousands or millions of XYZ? as "mil XYZ" (a scale word's own dot is no part of it)
    _no_unit(unit)


@pytest.mark.parametrize(("value", "unit"), [("5m", "ETH per token"), ("5m", "ETH/token")])
def test_a_price_unit_per_token_obeys_the_scale_rule_of_its_currency(value, unit):
    # "5m" under "ETH per token" is milli or million ETH? as under "ETH"; "5 B" under "USD per
    # token" is 5e9 USD as under "USD" (parser 27: the B written beside no ticker's letters)
    price, codes, unread = read_price([value], [unit], ["XYZ"])
    assert math.isnan(price[0]) and codes.tolist() == [unit[:3]]
    assert unread.reasons == ["unreadable_number"]
    assert read_price(["5k"], [unit], ["XYZ"])[0].tolist() == [5000.0]


def test_a_unit_column_is_read_per_token_only_as_a_price():
    assert column_text("USD per token") == "USD per token"
    assert column_text("USD per token", price=True) == "USD"
    price, codes, _ = read_price([0.1], ["XYZ per token"], ["ABC"])  # per token of what?
    assert math.isnan(price[0]) and codes.tolist() == [None]
