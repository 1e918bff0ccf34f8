"""Realistic token price texts, each with the price a careful reader makes of it.

Forms of an exchange as ICO directories and sale pages write a token price: an exchange
rate with token words (``"1 ETH = 5000 XYZ tokens"``), the ICO's own ticker before its price
(``"XYZ 0.0004 USD"``), tokens per currency (``"5000 XYZ per ETH"``, a crowdsale's rate, and
the public ICObench-derived set's ``"0.1 ETH / 250 BERRY"``), a price per the ICO's token
(``"$0.0004 per XYZ token"``); beside them forms the parser read before (``"1 KBX = 0.00011
ETH"``, ``"1 ETH = 6000 QUA"`` of the same set) and texts that must
stay missing (a price in tokens only: which way round? ``"XYZ 2500"``, ``"0.1 USD per ETH"``).
The same set's ``"1 2GT = 0.05 EUR"`` (a ticker beginning with a digit) was missing too.

A row is ``PriceText(raw, unit, ticker, price, currency)``: ``raw`` the ``token_price``,
``unit`` the ``token_price_unit``, ``ticker`` the ICO's; ``price`` per token in ``currency``
(NaN and None: missing, a row of ``problems`` with the reason ``reason``). A price keeps the
unit it is written in: none is converted.

Measured on the parent of this fixture's commit (9bc57721): of the :data:`NEW` rows, every one
was missing there (none read wrong); the :data:`BEFORE` and :data:`MISSING` rows read as
here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

NAN = math.nan


class PriceText(NamedTuple):
    raw: str
    unit: str
    ticker: str
    price: float
    currency: str | None
    reason: str | None = None


#: Forms read since parser 37 (missing on 9bc57721).
NEW: tuple[PriceText, ...] = (
    # an exchange rate whose token side names the ticker, then token words
    PriceText("1 ETH = 5000 XYZ tokens", "", "XYZ", 0.0002, "ETH"),
    PriceText("1 ETH = 5,000 XYZ Tokens", "ETH", "XYZ", 0.0002, "ETH"),
    PriceText("1 XYZ token = 0.0004 USD", "", "XYZ", 0.0004, "USD"),
    PriceText("1 XYZ Token = $0.0004", "USD", "XYZ", 0.0004, "USD"),
    PriceText("1 BTC = 250,000 QUA tokens", "", "QUA", 4e-6, "BTC"),
    PriceText("1 EUR = 20 PLS coins", "", "PLS", 0.05, "EUR"),
    # the ICO's own ticker before its price
    PriceText("XYZ 0.0004 USD", "", "XYZ", 0.0004, "USD"),
    PriceText("XYZ $0.0004", "", "XYZ", 0.0004, "USD"),
    PriceText("XYZ: 0.0004 ETH", "ETH", "XYZ", 0.0004, "ETH"),
    PriceText("XYZ = 0.05 EUR", "", "XYZ", 0.05, "EUR"),
    PriceText("XYZ tokens: $0.10", "", "XYZ", 0.1, "USD"),
    PriceText("KBX 0.00011 ETH", "", "KBX", 0.00011, "ETH"),
    # tokens per currency: the currency after "per" is what the tokens cost
    PriceText("5000 XYZ per ETH", "", "XYZ", 0.0002, "ETH"),
    PriceText("5000 XYZ per ETH", "ETH", "XYZ", 0.0002, "ETH"),
    PriceText("5,000 XYZ tokens per ETH", "", "XYZ", 0.0002, "ETH"),
    PriceText("6000 tokens per ETH", "", "QUA", 1 / 6000, "ETH"),
    PriceText("2500 XYZ/ETH", "", "XYZ", 0.0004, "ETH"),
    PriceText("1000 XYZ per ether", "", "XYZ", 0.001, "ETH"),
    PriceText("10 XYZ per USD", "", "XYZ", 0.1, "USD"),
    PriceText("5000 XYZ tokens per 1 ETH", "", "XYZ", 0.0002, "ETH"),
    PriceText("0.1 ETH / 250 BERRY", "", "BERRY", 0.0004, "ETH"),
    # a ticker that begins with a digit (the public set's "1 2GT = 0.05 EUR": was "1 2", grouped)
    PriceText("1 2GT = 0.05 EUR", "", "2GT", 0.05, "EUR"),
    PriceText("1 ETH = 2,000 2GT", "ETH", "2GT", 0.0005, "ETH"),
    # a price per the ICO's token, named with token words
    PriceText("$0.0004 per XYZ token", "", "XYZ", 0.0004, "USD"),
)

#: Forms read on 9bc57721 already, the same now.
BEFORE: tuple[PriceText, ...] = (
    PriceText("1 KBX = 0.00011 ETH", "", "KBX", 0.00011, "ETH"),
    PriceText("1 ETH = 6000 QUA", "", "QUA", 1 / 6000, "ETH"),
    PriceText("1 ETH = 5000 XYZ", "", "XYZ", 0.0002, "ETH"),
    PriceText("$0.1 per token", "", "XYZ", 0.1, "USD"),
    PriceText("1000 tokens per 1 ETH", "", "XYZ", 0.001, "ETH"),
    PriceText("0.0004 USD per XYZ", "", "XYZ", 0.0004, "USD"),
    PriceText("0.0004", "ETH", "XYZ", 0.0004, "ETH"),
)

#: Texts that stay missing: they write no direction or no currency of the token.
MISSING: tuple[PriceText, ...] = (
    PriceText("XYZ 2500", "", "XYZ", NAN, None, "unreadable_price"),  # tokens per what?
    PriceText("2500 XYZ tokens", "", "XYZ", NAN, None, "unreadable_price"),
    PriceText("1 ETH = 5000 ABC tokens", "", "XYZ", NAN, None, "unreadable_price"),  # whose?
    PriceText("0.1 USD per ETH", "", "XYZ", NAN, None, "unreadable_price"),  # no token
    PriceText("ABC 0.0004 USD", "", "XYZ", NAN, None, "unknown_unit"),  # ABC's price?
    PriceText("5000 XYZ per ETH", "USD", "XYZ", NAN, "USD", "unit_conflict"),
)

ALL: tuple[PriceText, ...] = NEW + BEFORE + MISSING
