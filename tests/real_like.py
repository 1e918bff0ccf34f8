"""A fixture of realistic, messy ICO records with a truth table (issue 20, "Done when").

The values are written the way real directories write them (ICObench's
``Available`` flags and ``1 KBX = 0.00011 ETH`` prices, ICOdrops' ``btc``
social key, calendars' ``Q3 2018`` roadmaps, curated lists' ``No``
restrictions...), each with what a careful reader makes of it: the value the
tables must hold and whether the value must also be a row of ``problems``.
:func:`records` draws :data:`N_RECORDS` profiles from these catalogues with a
fixed seed, so the fixture is the same on every run, and returns the truth of
every value it wrote.

A truth row is ``Truth(ico_id, table, column, raw, expected, reported)``:
``expected`` is the cell (NaN for missing), or for a list column the list,
or for a child table the tuple of rows the ICO must have there; ``reported``
says whether the raw value must be a row of ``problems`` for that column.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple

from messy_profiles import clean_profile, with_

N_RECORDS = 240
NAN = math.nan


class Truth(NamedTuple):
    ico_id: int
    table: str
    column: str
    raw: object
    expected: object
    reported: bool


# (raw, expected, reported) per kind of field -------------------------------------

FLAGS = [
    ("Available", True, False), ("available", True, False), ("Yes", True, False),
    ("YES", True, False), ("✓", True, False), ("✔", True, False), (True, True, False),
    ("1", True, False), (1, True, False), ("true", True, False),
    ("No", False, False), ("no", False, False), ("Not available", False, False),
    ("N/A", False, False), ("Not set", False, False), ("TBA", False, False),
    ("", False, False), (None, False, False), (False, False, False), (0, False, False),
    ("✗", False, False), ("Unknown", False, False),
    ("YES (UNTIL 11 SEP)", True, True), ("Yes (till 30 June)", True, True),
    ("Available - testnet", True, True), ("No (planned Q3)", False, True),
    ("maybe", False, True), ("partially", False, True), ("beta", False, True),
]

# (raw, unit column, expected amount, expected unit, reported)
PURCHASES = [
    ("0,003 ETH", "", 0.003, "ETH", False), ("0,001 ETH", "", 0.001, "ETH", False),
    ("0,1 ETH", "", 0.1, "ETH", False), ("1,5 ETH", "", 1.5, "ETH", False),
    ("0.1", "ETH", 0.1, "ETH", False), (0.5, "ETH", 0.5, "ETH", False),
    ("$100", "USD", 100.0, "USD", False), ("100 USD", "", 100.0, "USD", False),
    ("500 BFC", "", 500.0, "BFC", False), ("10,000 XYZ", "", 10000.0, "XYZ", False),
    ("0\u200b.25 ETH", "", 0.25, "ETH", False), ("1 \u200bETH", "", 1.0, "ETH", False),
    ("０.５ ＥＴＨ", "", 0.5, "ETH", False), ("0.2 ЕТН", "", 0.2, "ETH", False),
    ("N/A", "ETH", NAN, "ETH", False), ("", "USD", NAN, "USD", False),
    ("100 USD", "ETH", NAN, "ETH", True), ("-1", "ETH", NAN, "ETH", True),
    ("~0.1 ETH", "ETH", NAN, "ETH", True), ("0.1-1 ETH", "ETH", NAN, "ETH", True),
    ("0.1 ETH (0.5 ETH presale)", "ETH", NAN, "ETH", True), ("50%", "USD", NAN, "USD", True),
    ("500 tokens", "", NAN, None, True),
]

CAPS = [
    ("$15,000,000", "", 15e6, "USD", False), ("15M", "USD", 15e6, "USD", False),
    ("15 000 000", "USD", 15e6, "USD", False), (30000, "ETH", 30000.0, "ETH", False),
    ("30,000 ETH", "", 30000.0, "ETH", False), ("4,000,000 ICX", "", 4e6, "ICX", False),
    ("6,535,424 TAY", "", 6535424.0, "TAY", False), ("1.500.000", "EUR", 1.5e6, "EUR", False),
    ("2,5 Mio. EUR", "EUR", 2.5e6, "EUR", False), ("12,5M", "USD", 12.5e6, "USD", False),
    ("1,500", "ETH", 1500.0, "ETH", False), ("TBA", "USD", NAN, "USD", False),
    ("-5000", "USD", NAN, "USD", True), ("60%", "USD", NAN, "USD", True),
    ("~3,500,000", "USD", NAN, "USD", True), ("2.5 Mio. EUR", "USD", NAN, "USD", True),
    ("$5M - $10M", "USD", NAN, "USD", True), ("1,500,5", "USD", NAN, "USD", True),
    ("30,000 ETH", "BTC", NAN, "BTC", True),
]

# (raw, unit column, ticker, expected price, expected unit, reported)
PRICES = [
    ("1 KBX = 0.00011 ETH", "", "KBX", 0.00011, "ETH", False),
    ("1 HIX = 0.01 EUR", "", "HIX", 0.01, "EUR", False),
    ("1 TNT = $0.071", "", "TNT", 0.071, "USD", False),
    ("1 UTRUST = $0,065", "", "UTRUST", 0.065, "USD", False),
    ("50 AIR = $1", "", "AIR", 0.02, "USD", False),
    ("$1 = 6820 KIN", "", "KIN", 1 / 6820, "USD", False),
    ("5 USD = 1 FIL", "", "FIL", 5.0, "USD", False),
    ("1 ETH = 3,000 XYZ", "ETH", "XYZ", 1 / 3000, "ETH", False),
    ("1 ETH = 4000 ABC", "", "", 1 / 4000, "ETH", False),
    ("1 EOS = 0.01 ETH", "", "EOS", 0.01, "ETH", False),
    ("0.15", "USD", "AQB", 0.15, "USD", False), ("$0.05", "", "AQB", 0.05, "USD", False),
    ("0,05 USD", "", "AQB", 0.05, "USD", False),
    ("1 ETH = 3640-3367 IML", "", "IML", NAN, None, True),
    ("1 ETH = 725-800 BTT", "", "BTT", NAN, None, True),
    ("1PSTS = 20¢ (25¢ AFTER SEPT 18)", "", "PSTS", NAN, None, True),
    ("1 KBX = 0.00011 ETH", "USD", "KBX", NAN, "USD", True),
    ("Dynamic, see whitepaper", "", "DYN", NAN, None, True),
    ("TBA", "USD", "AQB", NAN, "USD", False),
]

RAISED = [
    (12_500_000, 12.5e6, False), ("$1,000,000", 1e6, False), ("1,5M", 1.5e6, False),
    ("2 500 000", 2.5e6, False), ("１００００", 10000.0, False), ("", NAN, False),
    ("Pending", NAN, False), (-1, NAN, True), ("-1", NAN, True), ("60%", NAN, True),
    ("~3,500,000", NAN, True), ("1-2M", NAN, True),
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

# (label, expected date "YYYY-MM-DD" or None, precision or None)
LABELS = [
    ("01-07-2018", "2018-07-01", "day"), ("Q3 2018", "2018-07-01", "quarter"),
    ("3Q 2018", "2018-07-01", "quarter"), ("2018 Q4", "2018-10-01", "quarter"),
    ("March 2018", "2018-03-01", "month"), ("03.2019", "2019-03-01", "month"),
    ("2019", "2019-01-01", "year"), ("H2 2019", "2019-07-01", "half"),
    ("15 March 2019", "2019-03-15", "day"),
    ("01-13-2018", None, None), ("soon", None, None), ("Phase 2", None, None),
    ("9999", None, None),
]

# (raw, expected "YYYY-MM-DD HH:MM:SS" or None, reported)
STARTS = [
    ("01.03.2018 12:00:00", "2018-03-01 12:00:00", False),
    ("01.03.2018", "2018-03-01 00:00:00", False), ("2018-03-01", "2018-03-01 00:00:00", False),
    ("", None, False), ("TBA", None, False),
    ("20 Sep", None, True), ("19 days", None, True), ("since 18 Sep", None, True),
    ("01.13.2018", None, True), ("01.01.9999 00:00:00", None, True),
    ("01.01.0001 00:00:00", None, True), ("31.02.2018 00:00:00", None, True),
]

# (raw distribution, expected (part, percent) rows, reported raw values)
DISTRIBUTIONS = [
    ({"Sale": "60%", "Team": "40%"}, (("Sale", 60.0), ("Team", 40.0)), ()),
    ({"Sale": "60 %", "Team": 25}, (("Sale", 60.0), ("Team", 25.0)), ()),
    ({"Sale": "120%"}, (("Sale", NAN),), ("120%",)),
    ({"Team": -5, "Sale": "95%"}, (("Team", NAN), ("Sale", 95.0)), ("-5",)),
]

NAMES = [("Aquaibit", "Aquaibit", False), ("Bad\ud800Name", "Bad\ufffdName", True),
         (" KIN Token ", "KIN Token", False), ("", NAN, False), ("TBA", NAN, False),
         ("Кин Токен", "Кин Токен", False)]  # text is kept as written


def records(n: int = N_RECORDS, seed: int = 20) -> tuple[list[dict[str, Any]], list[Truth]]:
    """``n`` profiles (ids 1..n) drawn from the catalogues, and the truth of every value."""
    rng = random.Random(seed)
    profiles: list[dict[str, Any]] = []
    truth: list[Truth] = []
    for ico_id in range(1, n + 1):
        changes: dict[str, Any] = {}

        def want(table: str, column: str, raw: object, expected: object, reported: bool,
                 ico_id: int = ico_id) -> None:
            truth.append(Truth(ico_id, table, column, raw, expected, reported))

        for column, path in (("whitelist", "main.whitelist"), ("mvp", "main.mvp"),
                             ("bounty", "additional.bounty"), ("kyc", "main.kyc")):
            raw, flag, reported = rng.choice(FLAGS)
            changes[path] = raw
            want("icos", column, raw, flag, reported)
        raw, unit, amount, code, reported = rng.choice(PURCHASES)
        changes.update({"finance.min_purchase": raw, "finance.purchase_unit": unit,
                        "finance.max_purchase": ""})
        want("icos", "min_purchase", raw, amount, reported)
        want("icos", "purchase_unit", unit, code, False)
        raw, unit, amount, code, reported = rng.choice(CAPS)
        changes.update({"finance.hard_cap": raw, "finance.caps_unit": unit,
                        "finance.soft_cap": ""})
        want("icos", "hard_cap", raw, amount, reported)
        want("icos", "caps_unit", unit, code, False)
        raw, unit, ticker, price, code, reported = rng.choice(PRICES)
        changes.update({"finance.token_price": raw, "finance.token_price_unit": unit,
                        "finance.ticker": ticker})
        want("icos", "token_price", raw, price, reported)
        want("icos", "token_price_unit", unit, code, False)
        raw, amount, reported = rng.choice(RAISED)
        changes["finance.raised"] = raw
        want("icos", "raised", raw, amount, reported)
        raw, items, _ = rng.choice(RESTRICTED)
        changes["finance.restricted_areas"] = raw
        want("icos", "restricted_areas", raw, items, False)
        raw, items, fiat = rng.choice(ACCEPTING)
        changes["finance.accepting"] = raw
        want("icos", "accepting", raw, items, False)
        want("features", "accepts_fiat", raw, fiat, False)
        raw, family = rng.choice(PLATFORMS)
        changes["main.platform"] = raw
        want("features", "platform_family", raw, family, False)
        key, talk = rng.choice(SOCIAL_KEYS)
        changes["links.social"] = {key: f"https://social.example/{ico_id}"}
        want("features", "has_bitcointalk", key, talk, False)
        raw, rows = rng.choice(BONUSES)
        changes["additional.bonuses"] = raw
        want("bonuses", "terms", raw, rows, False)
        want("features", "has_bonus", raw, bool(rows), False)
        labels = rng.sample(LABELS, 2)
        changes["roadmap"] = {label: f"milestone {k}" for k, (label, _, _) in enumerate(labels)}
        for label, date, precision in labels:
            want("roadmap", "date", label, (date, precision), date is None)
        raw, when, reported = rng.choice(STARTS)
        changes.update({"dates.start_datetime": raw, "dates.end_datetime": ""})
        want("icos", "start_datetime", raw, when, reported)
        raw, rows, bad = rng.choice(DISTRIBUTIONS)
        changes["finance.distribution"] = raw
        want("distribution", "percent", raw, (rows, bad), bool(bad))
        raw, name, reported = rng.choice(NAMES)
        changes["main.name"] = raw
        want("icos", "name", raw, name, reported)
        profiles.append(with_(clean_profile(ico_id), changes))
    return profiles, truth
