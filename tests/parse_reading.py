"""Helpers of the parser's tests: the reason of one reading, and a group read with its units."""

from __future__ import annotations

from icoframes.parse.base import Bad
from icoframes.parse.units import read_amount_group


def reason(read: object) -> str | None:
    """The problem's reason of a reading (None when it was read)."""
    return read.reason if isinstance(read, Bad) else None


def group(values: list, unit: str, ticker: str | None = None):
    """``values`` read as one amount group with ``unit`` (and ``ticker``) on every row: the
    amounts, the units, and the (value, reason) of each problem."""
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))
