"""A fixture of realistic, messy ICO records with a truth table (issue 20, "Done when").

The values are written the way real directories write them (ICObench's
``Available`` flags and ``1 KBX = 0.00011 ETH`` prices, ICOdrops' ``btc``
social key, calendars' ``Q3 2018`` roadmaps, curated lists' ``No``
restrictions...), each with what a careful reader makes of it: the value the
tables must hold and whether the value must also be a row of ``problems``.
:func:`records` draws :data:`N_RECORDS` profiles from these catalogues with a
fixed seed, so the fixture is the same on every run, and returns the truth of
every value it wrote.

A truth row is ``Truth(ico_id, table, column, raw, expected, reason)``:
``expected`` is the cell (NaN for missing), or for a list column the list,
or for a child table the tuple of rows the ICO must have there; ``reason``
is the reason code (:data:`icoframes.reasons.REASONS`) of the row of
``problems`` the raw value must be for that column, or None when it must be
none.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple

from messy_profiles import clean_profile, with_

from icoframes.parse.scales import KNOWN_UNITS

N_RECORDS = 240
NAN = math.nan


class Truth(NamedTuple):
    ico_id: int
    table: str
    column: str
    raw: object
    expected: object
    reason: str | None


# (raw, expected, reported) per kind of field -------------------------------------

FLAGS = [
    ("Available", True, None), ("available", True, None), ("Yes", True, None),
    ("YES", True, None), ("✓", True, None), ("✔", True, None), (True, True, None),
    ("1", True, None), (1, True, None), ("true", True, None),
    ("No", False, None), ("no", False, None), ("Not available", False, None),
    ("N/A", False, None), ("Not set", False, None), ("TBA", False, None),
    ("", False, None), (None, False, None), (False, False, None), (0, False, None),
    ("✗", False, None), ("Unknown", False, None),
    ("YES (UNTIL 11 SEP)", True, "qualified_flag"),
    ("Yes (till 30 June)", True, "qualified_flag"),
    ("Available - testnet", True, "qualified_flag"), ("No (planned Q3)", False, "qualified_flag"),
    ("maybe", False, "unknown_flag"), ("partially", False, "unknown_flag"),
    ("beta", False, "unknown_flag"), ([True], False, "wrong_type"),
]

# (raw, unit column, expected amount, expected unit, reported)
PURCHASES = [
    ("0,003 ETH", "", 0.003, "ETH", None), ("0,001 ETH", "", 0.001, "ETH", None),
    ("0,1 ETH", "", 0.1, "ETH", None), ("1,5 ETH", "", 1.5, "ETH", None),
    ("0.1", "ETH", 0.1, "ETH", None), (0.5, "ETH", 0.5, "ETH", None),
    ("$100", "USD", 100.0, "USD", None), ("100 USD", "", 100.0, "USD", None),
    ("500 BFC", "", 500.0, "BFC", None), ("10,000 XYZ", "", 10000.0, "XYZ", None),
    ("0\u200b.25 ETH", "", 0.25, "ETH", None), ("1 \u200bETH", "", 1.0, "ETH", None),
    ("０.５ ＥＴＨ", "", 0.5, "ETH", None), ("0.2 ЕТН", "", 0.2, "ETH", None),
    ("N/A", "ETH", NAN, "ETH", None), ("", "USD", NAN, "USD", None),
    ("100 USD", "ETH", NAN, "ETH", "unit_conflict"), ("-1", "ETH", NAN, "ETH", "negative"),
    ("~0.1 ETH", "ETH", NAN, "ETH", "vague"), ("0.1-1 ETH", "ETH", NAN, "ETH", "range"),
    ("0.1 ETH (0.5 ETH presale)", "ETH", NAN, "ETH", "vague"),
    ("50%", "USD", NAN, "USD", "percent"), ("500 tokens", "", NAN, None, "unreadable_number"),
    ("0.500 ETH", "", 0.5, "ETH", None),  # a leading zero: a decimal, never a thousand
    ("0.1", "ETH or BTC", NAN, None, "unreadable_unit"),  # a unit column naming no one unit
]

CAPS = [
    ("$15,000,000", "", 15e6, "USD", None), ("15M", "USD", 15e6, "USD", None),
    ("15 000 000", "USD", 15e6, "USD", None), (30000, "ETH", 30000.0, "ETH", None),
    ("30,000 ETH", "", 30000.0, "ETH", None), ("4,000,000 ICX", "", 4e6, "ICX", None),
    ("6,535,424 TAY", "", 6535424.0, "TAY", None), ("1.500.000", "EUR", 1.5e6, "EUR", None),
    ("2,5 Mio. EUR", "EUR", 2.5e6, "EUR", None), ("12,5M", "USD", 12.5e6, "USD", None),
    ("1,500", "ETH", 1500.0, "ETH", None), ("TBA", "USD", NAN, "USD", None),
    ("-5000", "USD", NAN, "USD", "negative"), ("60%", "USD", NAN, "USD", "percent"),
    ("~3,500,000", "USD", NAN, "USD", "vague"),
    ("2.5 Mio. EUR", "USD", NAN, "USD", "unit_conflict"),
    ("$5M - $10M", "USD", NAN, "USD", "range"), ("1,500,5", "USD", NAN, "USD", "grouping"),
    ("30,000 ETH", "BTC", NAN, "BTC", "unit_conflict"),
    ("1.5M ETH", "", 1.5e6, "ETH", None), ("5M", "ETH", 5e6, "ETH", None),  # capital M: millions
    ("1,000.500", "USD", 1000.5, "USD", None),  # a dot after a comma group: a decimal point
    ("5", "Singapore dollars", NAN, None, "unreadable_unit"),
]

# (raw, unit column, ticker, expected price, expected unit, reported)
PRICES = [
    ("1 KBX = 0.00011 ETH", "", "KBX", 0.00011, "ETH", None),
    ("1 HIX = 0.01 EUR", "", "HIX", 0.01, "EUR", None),
    ("1 TNT = $0.071", "", "TNT", 0.071, "USD", None),
    ("1 UTRUST = $0,065", "", "UTRUST", 0.065, "USD", None),
    ("50 AIR = $1", "", "AIR", 0.02, "USD", None),
    ("$1 = 6820 KIN", "", "KIN", 1 / 6820, "USD", None),
    ("5 USD = 1 FIL", "", "FIL", 5.0, "USD", None),
    ("1 ETH = 3,000 XYZ", "ETH", "XYZ", 1 / 3000, "ETH", None),
    ("1 ETH = 4000 ABC", "", "", 1 / 4000, "ETH", None),
    ("1 EOS = 0.01 ETH", "", "EOS", 0.01, "ETH", None),
    ("0.15", "USD", "AQB", 0.15, "USD", None), ("$0.05", "", "AQB", 0.05, "USD", None),
    ("0,05 USD", "", "AQB", 0.05, "USD", None),
    ("1 ETH = 3640-3367 IML", "", "IML", NAN, None, "range"),
    ("1 ETH = 725-800 BTT", "", "BTT", NAN, None, "range"),
    ("1PSTS = 20¢ (25¢ AFTER SEPT 18)", "", "PSTS", NAN, None, "vague"),
    ("1 KBX = 0.00011 ETH", "USD", "KBX", NAN, "USD", "unit_conflict"),
    ("1 ETH = 500 USD", "", "", NAN, None, "unreadable_price"),
    ("Dynamic, see whitepaper", "", "DYN", NAN, None, "unreadable_number"),
    ("TBA", "USD", "AQB", NAN, "USD", None),
]

RAISED = [
    (12_500_000, 12.5e6, None), ("$1,000,000", 1e6, None), ("1,5M", 1.5e6, None),
    ("2 500 000", 2.5e6, None), ("１００００", 10000.0, None), ("", NAN, None),
    ("Pending", NAN, None), (-1, NAN, "negative"), ("-1", NAN, "negative"),
    ("60%", NAN, "percent"), ("~3,500,000", NAN, "vague"), ("1-2M", NAN, "range"),
    (True, NAN, "wrong_type"),
]

RESTRICTED = [
    (["No"], [], False), (["no"], [], False), (["NO"], [], False), (["Not"], [], False),
    ("No", [], False), (["None"], [], False), (["-"], [], False), ("", [], False),
    ([], [], False), (["USA", "China"], ["USA", "China"], False),
    ("USA, China", ["USA", "China"], False), (["US", "NO"], ["US", "NO"], False),
    ("Korea, Republic of; USA", ["Korea, Republic of", "USA"], False),
    (["Trinidad and Tobago"], ["Trinidad and Tobago"], False),
]

# (raw, expected items, accepts fiat)
ACCEPTING = [
    ("BTC, ETH, and Fiat currency", ["BTC", "ETH", "Fiat currency"], True),
    (["ETH", "BTC"], ["ETH", "BTC"], False), ("ETH", ["ETH"], False),
    (["ЕТН"], ["ETH"], False), (["ETH", "USD"], ["ETH", "USD"], True),
    (["ETH", "Fiat"], ["ETH", "Fiat"], True), ("ETH; BTC; LTC", ["ETH", "BTC", "LTC"], False),
    ("", [], False), (["B\u200bTC"], ["BTC"], False),
]

PLATFORMS = [
    ("Ethereum", "Ethereum"), ("Ethererum", "Ethereum"), ("Etherum", "Ethereum"),
    ("ERC20", "Ethereum"), ("ERC-20", "Ethereum"), ("Waves", "Waves"), ("Stellar", "Stellar"),
    ("NEO", "NEO"), ("Qtum", "Qtum"),
]

SOCIAL_KEYS = [("btc", True), ("bitcointalk", True), ("BitcoinTalk", True), ("ann", True),
               ("reddit", False)]

# (raw bonuses, expected rows)
BONUSES = [
    ({"Bonus": "NO"}, ()), ({"Bonus": " "}, ()), ({"Bonus": "no"}, ()), ("", ()), ([], ()),
    ("No", ()), ({"Early bird": "20%"}, (("Early bird", "20%"),)),
    ({"Week 1": "15%", "Week 2": "-"}, (("Week 1", "15%"),)),
]

# (label, expected date "YYYY-MM-DD" or None, precision or None, reason or None)
LABELS = [
    ("01-07-2018", "2018-07-01", "day", None), ("Q3 2018", "2018-07-01", "quarter", None),
    ("3Q 2018", "2018-07-01", "quarter", None), ("2018 Q4", "2018-10-01", "quarter", None),
    ("March 2018", "2018-03-01", "month", None), ("03.2019", "2019-03-01", "month", None),
    ("2019", "2019-01-01", "year", None), ("H2 2019", "2019-07-01", "half", None),
    ("15 March 2019", "2019-03-15", "day", None), ("2H 2019", "2019-07-01", "half", None),
    ("04/30/2018", None, None, "us_order"),
    ("01-13-2018", None, None, "us_order"), ("soon", None, None, "unreadable_date"),
    ("Phase 2", None, None, "unreadable_date"), ("9999", None, None, "date_out_of_range"),
    ("31-02-2018", None, None, "impossible_date"), ("20 Sep", None, None, "no_year"),
]

# (raw, expected "YYYY-MM-DD HH:MM:SS" or None, reason or None)
STARTS = [
    ("01.03.2018 12:00:00", "2018-03-01 12:00:00", None),
    ("01.03.2018", "2018-03-01 00:00:00", None), ("2018-03-01", "2018-03-01 00:00:00", None),
    ("2018-03-01T12:00:00+08:00", "2018-03-01 04:00:00", None),
    ("2018-03-01T12:00:00Z", "2018-03-01 12:00:00", None),
    ("1 March 2018", "2018-03-01 00:00:00", None), ("March 1, 2018", "2018-03-01 00:00:00", None),
    ("31.03.2018 24:00:00", "2018-04-01 00:00:00", None),
    ("2018-03-01 12:00 PST", None, "unreadable_date"), ("03.31.2018", None, "us_order"),
    ("", None, None), ("TBA", None, None),
    ("20 Sep", None, "no_year"), ("19 days", None, "duration"),
    ("since 18 Sep", None, "no_year"), ("01.13.2018", None, "us_order"),
    ("01.01.9999 00:00:00", None, "date_out_of_range"),
    ("01.01.0001 00:00:00", None, "date_out_of_range"),
    ("31.02.2018 00:00:00", None, "impossible_date"), ("soon", None, "unreadable_date"),
]

# (raw distribution, expected (part, percent) rows, reported (raw value, reason) pairs)
DISTRIBUTIONS = [
    ({"Sale": "60%", "Team": "40%"}, (("Sale", 60.0), ("Team", 40.0)), ()),
    ({"Sale": "60 %", "Team": 25}, (("Sale", 60.0), ("Team", 25.0)), ()),
    ({"Sale": "120%"}, (("Sale", NAN),), (("120%", "out_of_bounds"),)),
    ({"Team": -5, "Sale": "95%"}, (("Team", NAN), ("Sale", 95.0)), (("-5", "negative"),)),
    ({"Team": "10-20%", "Sale": "80%"}, (("Team", NAN), ("Sale", 80.0)), (("10-20%", "range"),)),
]

NAMES = [("Aquaibit", "Aquaibit", None), ("Bad\ud800Name", "Bad\ufffdName", "surrogate"),
         (" KIN Token ", "KIN Token", None), ("", NAN, None), ("TBA", NAN, None),
         ("Кин Токен", "Кин Токен", None), (True, NAN, "wrong_type")]  # text kept as written


# A comma written as a decimal mark ("0,1 ETH", "$0,065"), and one comma before three digits
# ("30,000 ETH": 30,000 in English, 30 in German). Beside a decimal comma read in another
# amount of the ICO, the latter is 30,000 or 30: missing, ambiguous_separator, whatever the
# catalogue says it is alone (the unit it writes still fills an empty unit column).
DECIMAL_COMMAS = frozenset({"0,003 ETH", "0,001 ETH", "0,1 ETH", "1,5 ETH", "2,5 Mio. EUR",
                            "12,5M", "1 UTRUST = $0,065", "0,05 USD", "1,5M"})
COMMA_GROUPS = frozenset({"30,000 ETH", "1,500", "1 ETH = 3,000 XYZ"})
_AMOUNTS = ("min_purchase", "hard_cap", "token_price", "raised")


def _comma_doubts(rows: list[Truth]) -> list[Truth]:
    """One ICO's truth rows, its comma groups ambiguous where another amount reads a decimal
    comma (no catalogue value shows dots grouping beside a comma group: hard_cap is the only
    cap)."""
    at = {row.column: k for k, row in enumerate(rows) if row.table == "icos"}
    if not any(rows[at[c]].raw in DECIMAL_COMMAS and rows[at[c]].reason is None
               for c in _AMOUNTS):
        return rows
    rows = list(rows)
    for column in _AMOUNTS:
        row = rows[at[column]]
        if row.raw in COMMA_GROUPS:
            rows[at[column]] = row._replace(expected=NAN, reason="ambiguous_separator")
    return rows


def _swappable(raw: object) -> bool:
    """A day written day, month, year whose day and month could swap: "01.03.2018"."""
    if not isinstance(raw, str):
        return False
    parts = raw.strip().split(" ")[0].replace("/", ".").replace("-", ".").split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or len(parts[2]) != 4:
        return False
    day, month = int(parts[0]), int(parts[1])
    return day != month and 1 <= day <= 12 and 1 <= month <= 12


def _token_of(drawn: tuple, ticker: str) -> tuple:
    """A purchase or cap drawn, as the ICO of ``ticker`` reads it: a value naming a token no
    list knows, under no unit column, is that token only for the ICO of that ticker
    (``"500 BFC"`` for BFC); for another ICO it names no unit known (``unknown_unit``)."""
    raw, unit, _amount, code, _reason = drawn
    if not unit and code is not None and code not in KNOWN_UNITS and code != ticker.upper():
        return raw, unit, NAN, None, "unknown_unit"
    return drawn


def records(n: int = N_RECORDS, seed: int = 20) -> tuple[list[dict[str, Any]], list[Truth]]:
    """``n`` profiles (ids 1..n) drawn from the catalogues, and the truth of every value."""
    rng = random.Random(seed)
    profiles: list[dict[str, Any]] = []
    truth: list[Truth] = []
    for ico_id in range(1, n + 1):
        changes: dict[str, Any] = {}
        first = len(truth)

        def want(table: str, column: str, raw: object, expected: object, reason: str | None,
                 ico_id: int = ico_id) -> None:
            truth.append(Truth(ico_id, table, column, raw, expected, reason))

        for column, path in (("whitelist", "main.whitelist"), ("mvp", "main.mvp"),
                             ("bounty", "additional.bounty"), ("kyc", "main.kyc")):
            raw, flag, reason = rng.choice(FLAGS)
            changes[path] = raw
            want("icos", column, raw, flag, reason)
        purchase = rng.choice(PURCHASES)
        changes.update({"finance.min_purchase": purchase[0], "finance.purchase_unit": purchase[1],
                        "finance.max_purchase": ""})
        cap = rng.choice(CAPS)
        changes.update({"finance.hard_cap": cap[0], "finance.caps_unit": cap[1],
                        "finance.soft_cap": ""})
        raw, unit, ticker, price, code, reason = rng.choice(PRICES)
        for (column, unit_column), drawn in ((("min_purchase", "purchase_unit"), purchase),
                                             (("hard_cap", "caps_unit"), cap)):
            raw_amount, raw_unit, amount, amount_code, why = _token_of(drawn, ticker)
            want("icos", column, raw_amount, amount, why)
            # a unit column that names no unit is a problem row of its own, as its number's is
            want("icos", unit_column, raw_unit, amount_code,
                 why if why == "unreadable_unit" else None)
        changes.update({"finance.token_price": raw, "finance.token_price_unit": unit,
                        "finance.ticker": ticker})
        want("icos", "token_price", raw, price, reason)
        want("icos", "token_price_unit", unit, code, None)
        raw, amount, reason = rng.choice(RAISED)
        changes["finance.raised"] = raw
        want("icos", "raised", raw, amount, reason)
        raw, items, _ = rng.choice(RESTRICTED)
        changes["finance.restricted_areas"] = raw
        want("icos", "restricted_areas", raw, items, None)
        raw, items, fiat = rng.choice(ACCEPTING)
        changes["finance.accepting"] = raw
        want("icos", "accepting", raw, items, None)
        want("features", "accepts_fiat", raw, fiat, None)
        raw, family = rng.choice(PLATFORMS)
        changes["main.platform"] = raw
        want("features", "platform_family", raw, family, None)
        key, talk = rng.choice(SOCIAL_KEYS)
        changes["links.social"] = {key: f"https://social.example/{ico_id}"}
        want("features", "has_bitcointalk", key, talk, None)
        raw, rows = rng.choice(BONUSES)
        changes["additional.bonuses"] = raw
        want("bonuses", "terms", raw, rows, None)
        want("features", "has_bonus", raw, bool(rows), None)
        labels = rng.sample(LABELS, 2)
        changes["roadmap"] = {label: f"milestone {k}"
                              for k, (label, *_) in enumerate(labels)}
        raw, when, reason = rng.choice(STARTS)
        changes.update({"dates.start_datetime": raw, "dates.end_datetime": ""})
        # a profile writing a date month-first reads none whose day and month could swap
        month_first = "us_order" in [reason, *(label[3] for label in labels)]
        for label, date, precision, why in labels:
            if month_first and _swappable(label):
                date, precision, why = None, None, "ambiguous_order"
            want("roadmap", "date", label, (date, precision), why)
        if month_first and _swappable(raw):
            when, reason = None, "ambiguous_order"
        want("icos", "start_datetime", raw, when, reason)
        raw, rows, bad = rng.choice(DISTRIBUTIONS)
        changes["finance.distribution"] = raw
        want("distribution", "percent", raw, (rows, bad), bad[0][1] if bad else None)
        raw, name, reason = rng.choice(NAMES)
        changes["main.name"] = raw
        want("icos", "name", raw, name, reason)
        truth[first:] = _comma_doubts(truth[first:])
        profiles.append(with_(clean_profile(ico_id), changes))
    return profiles, truth
