"""A token price quoted the wrong way round, judged by what it is worth and the ICO's figures.

A directory that writes ``1 ETH = 0.0005 XYZ`` where 1 XYZ = 0.0005 ETH was meant, or a
split ``token_price`` of ``1000`` under ``ETH`` where 1,000 tokens per ETH was meant, gives a
price read right by the spec's letter (2,000 or 1,000 ETH per token) that is wrong by the
price's square. Nothing in one value tells the two apart, and the price is never inverted
here: :func:`doubtful_direction` only says where the price as written is worth more in USD
than any ICO's sale price while its inverse is not and fits the ICO's own figures, and
:func:`~icoframes.money.to_usd` leaves such a price without a USD value, counted as
``(price direction doubtful)``.

The fit with the hard cap and tokens for sale only confirms: it never judges alone. Directory
data often write a tokens-for-sale figure 100 times or more off the hard cap (the total
supply, a presale's count, millions dropped), so a price of $0.01 to $6 can fit its inverse
better than itself; blanking a right price is the worse mistake, and a price the rule lets
through is still the figure the directory wrote.

The thresholds come from a public ICObench-derived set of 6,146 ICOs: token prices run from
$0.01 (10th percentile) through $0.15 (median) to $1.58 (90th), and the tokens for sale from
about 9.8 million to 2.55 billion, so an ICO's hard cap buys millions of its tokens or more.
A market price (a past ICO's, spec 2.3) is not judged: it may have moved any distance from the
sale's figures.

Below :data:`HIGHEST_SALE_USD` no rule is made: none was found sound. A reversed price in a
unit worth ``r`` USD is worth ``r**2 / p`` for a right price of ``p`` USD (with ether at $100 or
more, $1,000 or more for any sale price under $10), so below it a reversed price is mostly one in
a government currency, its reading and inverse ``2 * |log10(price)|`` orders of magnitude apart:
2.6 for ``20`` under USD (a right $0.05), about what a tokens-for-sale figure is often off by
(100 times); from $100 to $1,000 (4 to 6 orders) the fit could tell more apart, but the public
set states no hard caps, so no threshold could be measured on real prices. ``raised`` bounds a
price only from below (it bought at most the tokens for sale, and a sale may sell few of them):
it never shows a price too high.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pandas as pd

from ..errors import warn

__all__ = ["DIRECTION_ORDERS", "DOUBTFUL", "FEWEST_TOKENS", "FIT_ORDERS", "HIGHEST_SALE_USD",
           "LEAST_REVERSED", "doubtful_direction", "doubtful_prices", "said_doubtful"]

#: The key of ``attrs["usd_missing"]`` counting the prices left without a USD value so.
DOUBTFUL: Final = "(price direction doubtful)"

#: Only a price worth this many USD per token or more as written is judged at all, and only
#: when its inverse is worth less: 2.8 orders of magnitude past the 90th percentile of sale
#: prices ($1.58), where a reversed ETH price lands (1,000 ETH: $450,000) and no real one.
HIGHEST_SALE_USD: Final = 1000.0
#: Where ``tokens_for_sale`` is known: the hard cap differs from the sale's value at the
#: price as written (price times tokens for sale) by this many orders of magnitude or more...
DIRECTION_ORDERS: Final = 2.0
#: ...and from its value at the inverse price by at most this many. Bonuses, a presale and
#: a sale that need not sell every token keep a real price within an order of magnitude;
#: a reversed one is off by its square (0.0005 ETH: 6.6 orders).
FIT_ORDERS: Final = 1.0
#: Where ``tokens_for_sale`` is unknown: the hard cap buys fewer tokens than this at the
#: price as written (3 orders of magnitude under the 10th percentile of tokens for sale)...
FEWEST_TOKENS: Final = 1e4
#: ...and at least this many at its inverse (an order under that 10th percentile).
LEAST_REVERSED: Final = 1e6


def doubtful_direction(price: np.ndarray, usd_per_unit: np.ndarray, hard_cap: np.ndarray,
                       tokens_for_sale: np.ndarray) -> np.ndarray:
    """Where a token price looks quoted the wrong way round: a bool array.

    Parameters
    ----------
    price : numpy.ndarray
        The token price per token, in its unit.
    usd_per_unit : numpy.ndarray
        USD per unit of the price (NaN without a rate: not judged).
    hard_cap : numpy.ndarray
        The ICO's hard cap in the price's unit (NaN when not known in it).
    tokens_for_sale : numpy.ndarray
        The ICO's tokens for sale (NaN when not known).

    Returns
    -------
    numpy.ndarray of bool
        True only where the price as written is worth :data:`HIGHEST_SALE_USD` or more a
        token while its inverse is worth less, and the ICO's figures confirm the inverse:
        with tokens for sale known, the sale's value at the price is
        :data:`DIRECTION_ORDERS` orders of magnitude or more from the hard cap while at the
        inverse price it is within :data:`FIT_ORDERS`; without them, the hard cap buys fewer
        than :data:`FEWEST_TOKENS` tokens at the price and at least :data:`LEAST_REVERSED`
        at its inverse. A price without a rate or a positive hard cap is never doubtful.

    Examples
    --------
    >>> eth = np.full(4, 450.0)  # USD per ETH
    >>> doubtful_direction(np.array([1000.0, 0.0005, 5.0, 1000.0]), eth,
    ...                    np.array([10000.0, 10000.0, 1e6, 10000.0]),
    ...                    np.array([np.nan, np.nan, np.nan, 1e7])).tolist()
    [True, False, False, True]
    >>> # $0.10 beside a $20M cap and 1M tokens fits its inverse ($10) better, and is right
    >>> doubtful_direction(np.array([0.1, 5000.0]), np.ones(2), np.array([2e7, 2e7]),
    ...                    np.array([1e6, 1e11])).tolist()
    [False, True]
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        worth, worth_reversed = price * usd_per_unit, usd_per_unit / price
        sold = hard_cap / price  # tokens the hard cap buys at the price as written
        reversed_ = hard_cap * price  # and at its inverse
        judged = ((price > 0) & (hard_cap > 0) & np.isfinite(sold) & np.isfinite(reversed_)
                  & (worth >= HIGHEST_SALE_USD) & (worth_reversed < HIGHEST_SALE_USD))
        known = judged & (tokens_for_sale > 0) & np.isfinite(tokens_for_sale)
        off = np.abs(np.log10(sold / tokens_for_sale))
        off_reversed = np.abs(np.log10(reversed_ / tokens_for_sale))
    by_tokens = known & (off >= DIRECTION_ORDERS) & (off_reversed <= FIT_ORDERS)
    by_cap = judged & ~known & (sold < FEWEST_TOKENS) & (reversed_ >= LEAST_REVERSED)
    return by_tokens | by_cap


def doubtful_prices(icos: pd.DataFrame, units: np.ndarray, rates: np.ndarray,
                    caps_units: np.ndarray | None, caps_rates: np.ndarray | None,
                    sale: np.ndarray) -> np.ndarray:
    """:func:`doubtful_direction` of each ICO's ``token_price`` (canonical ``units``, USD per
    unit ``rates``), where it is a price of the sale (``sale``), against its ``hard_cap``
    (``caps_units``, ``caps_rates``: in the price's unit as stated, or through USD) and its
    ``tokens_for_sale``; all False when ``icos`` has no hard caps."""
    n = len(icos)
    if caps_units is None or caps_rates is None or "hard_cap" not in icos.columns:
        return np.zeros(n, dtype=bool)
    price = icos["token_price"].to_numpy(dtype=np.float64, na_value=np.nan)
    cap = icos["hard_cap"].to_numpy(dtype=np.float64, na_value=np.nan)
    tokens = (icos["tokens_for_sale"].to_numpy(dtype=np.float64, na_value=np.nan)
              if "tokens_for_sale" in icos.columns else np.full(n, np.nan))
    same = pd.notna(units) & (caps_units == units)
    with np.errstate(divide="ignore", invalid="ignore"):
        cap_in_unit = np.where(same, cap, cap * caps_rates / rates)
    return sale & doubtful_direction(price, rates, cap_in_unit, tokens)


def said_doubtful(icos: pd.DataFrame, doubtful: np.ndarray) -> list[object]:
    """The ids (the index without an ``id`` column) of the ICOs whose price is ``doubtful``,
    after a warning naming them (none without one)."""
    ids = (icos["id"] if "id" in icos.columns else icos.index.to_series())[doubtful].tolist()
    if ids:
        shown = ", ".join(map(str, ids[:10])) + (f" and {len(ids) - 10:,} more"
                                                  if len(ids) > 10 else "")
        whose = "ICO" if len(ids) == 1 else "ICOs"
        warn(f"to_usd: the token prices of {len(ids):,} {whose} (id {shown}) look quoted the "
             "wrong way round (tokens per unit, not units per token): as written each is "
             f"worth ${HIGHEST_SALE_USD:,.0f} or more a token, more than ICO sales' prices "
             "reach, and their hard cap, and tokens for sale where stated, fit the inverse "
             "price and not the price; token_price_usd is left missing for them, counted as "
             f"{DOUBTFUL!r}, never inverted: check their token_price")
    return ids
