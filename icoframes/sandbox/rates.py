"""SYNTHETIC daily USD rates of the sandbox's currencies: not market data.

The sandbox states caps and prices in ETH, BTC and EUR as well as USD; it
writes them consistently with this series (an amount in ETH is the USD amount
divided by the synthetic ETH rate on the sale's last day), so converting the
sandbox's data with :func:`icoframes.to_usd` and these rates gives back
realistic USD amounts.

The series is a seeded random walk pinned to a few anchor levels (a Brownian
bridge in log space between them). The anchors only echo the order of
magnitude of the real history (ETH from hundreds to a few thousand USD, BTC
from thousands to about a hundred thousand, EUR between 1.05 and 1.20 USD);
the path itself is invented. Never use it for analysis of real ICOs.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache
from typing import Final

import numpy as np
import pandas as pd

from ..errors import check_flags, checked_keywords
from ..schema import TEXT_DTYPE

__all__ = ["FIRST_DAY", "LAST_DAY", "RATE_CURRENCIES", "known_rate", "rate_on", "rates"]

#: The series covers every sale date the sandbox draws (past ICOs from 2016,
#: upcoming ones ending up to about two years after its reference date).
FIRST_DAY: Final = date(2016, 1, 1)
LAST_DAY: Final = date(2028, 12, 31)
_SEED: Final = 20160101

# currency -> (daily volatility of the bridge, anchors (day, USD per unit))
_ANCHORS: Final[dict[str, tuple[float, tuple[tuple[date, float], ...]]]] = {
    "ETH": (0.035, (
        (FIRST_DAY, 180.0), (date(2017, 6, 1), 300.0), (date(2018, 1, 10), 1100.0),
        (date(2018, 12, 15), 120.0), (date(2020, 3, 15), 140.0), (date(2021, 5, 10), 3900.0),
        (date(2022, 6, 18), 1000.0), (date(2024, 3, 10), 3800.0), (date(2025, 4, 8), 1500.0),
        (date(2026, 11, 1), 3200.0), (LAST_DAY, 3600.0),
    )),
    "BTC": (0.03, (
        (FIRST_DAY, 1200.0), (date(2017, 12, 17), 17000.0), (date(2018, 12, 15), 3400.0),
        (date(2020, 3, 15), 5500.0), (date(2021, 4, 14), 62000.0), (date(2022, 11, 21), 16000.0),
        (date(2024, 3, 14), 70000.0), (date(2025, 10, 6), 110000.0),
        (date(2026, 11, 1), 95000.0), (LAST_DAY, 100000.0),
    )),
    "EUR": (0.002, (
        (FIRST_DAY, 1.09), (date(2018, 2, 1), 1.19), (date(2020, 1, 1), 1.11),
        (date(2021, 1, 1), 1.19), (date(2022, 9, 1), 1.06), (date(2024, 1, 1), 1.10),
        (date(2026, 11, 1), 1.14), (LAST_DAY, 1.12),
    )),
}
#: Currencies with a synthetic rate (USD is the unit of the rates, so it has none).
RATE_CURRENCIES: Final = tuple(_ANCHORS)
_EUR_RANGE: Final = (1.05, 1.20)


@lru_cache(maxsize=1)
def _levels() -> dict[str, np.ndarray]:
    """USD per unit, one value per day from FIRST_DAY to LAST_DAY, per currency."""
    n_days = (LAST_DAY - FIRST_DAY).days + 1
    rng = np.random.default_rng(_SEED)
    days = np.arange(n_days)
    out = {}
    for currency, (volatility, anchors) in _ANCHORS.items():
        at = np.array([(d - FIRST_DAY).days for d, _ in anchors])
        trend = np.interp(days, at, np.log([level for _, level in anchors]))
        walk = np.cumsum(rng.normal(0.0, volatility, n_days))
        # pin the walk to zero at every anchor: a bridge between anchor levels
        bridge = walk - np.interp(days, at, walk[at])
        level = np.exp(trend + bridge)
        if currency == "EUR":
            level = np.clip(level, *_EUR_RANGE)
        out[currency] = np.round(level, 4 if currency == "EUR" else 2)
    return out


def rate_on(currency: str, when: date | datetime) -> float | None:
    """The synthetic USD rate of ``currency`` on the day of ``when``; None for another currency.

    USD gives 1.0. Days before :data:`FIRST_DAY` or after :data:`LAST_DAY`
    take the first or last rate.

    Examples
    --------
    >>> rate_on("USD", date(2018, 3, 1)), rate_on("XYZ", date(2018, 3, 1))
    (1.0, None)
    >>> 100 < rate_on("ETH", date(2018, 3, 1)) < 5000
    True
    """
    if currency == "USD":
        return 1.0
    series = _levels().get(currency)
    if series is None:
        return None
    day = when.date() if isinstance(when, datetime) else when
    index = min(max((day - FIRST_DAY).days, 0), len(series) - 1)
    return float(series[index])


def known_rate(currency: str, when: date | datetime) -> float:
    """:func:`rate_on` of a currency the sandbox has rates for (USD, ETH, BTC, EUR)."""
    rate = rate_on(currency, when)
    if rate is None:
        raise KeyError(f"the sandbox has no rate for {currency!r}")
    return rate


@checked_keywords
def rates(*, wide: bool = False) -> pd.DataFrame:
    """SYNTHETIC daily USD rates of ETH, BTC and EUR, as :func:`icoframes.to_usd` takes them.

    The same every call (a fixed seed); consistent with the sandbox's caps and
    prices. Invented, not market data.

    Parameters
    ----------
    wide : bool, default False
        False: long form, columns ``date`` (datetime64), ``currency`` (str),
        ``usd_per_unit`` (float64, USD per unit, the name :func:`icoframes.to_usd`
        reads; before 0.2 it was ``usd``). True: wide form, a ``date`` index and
        one column per currency named as price downloaders name them
        (``ETH-USD``, ``BTC-USD``: USD per unit; Yahoo's ``EUR=X``: EUR per USD).

    Examples
    --------
    >>> r = rates()
    >>> r.columns.tolist(), sorted(r["currency"].unique().tolist())
    (['date', 'currency', 'usd_per_unit'], ['BTC', 'ETH', 'EUR'])
    >>> str(r["date"].min().date()), str(r["date"].max().date())
    ('2016-01-01', '2028-12-31')
    >>> rates(wide=True).columns.tolist()
    ['ETH-USD', 'BTC-USD', 'EUR=X']
    """
    check_flags(wide=wide)  # wide="no" was the wide form
    levels = _levels()
    dates = pd.date_range(FIRST_DAY, LAST_DAY, freq="D", name="date").astype("datetime64[ms]")
    if wide:
        return pd.DataFrame({"ETH-USD": levels["ETH"], "BTC-USD": levels["BTC"],
                             "EUR=X": 1.0 / levels["EUR"]}, index=dates)
    n = len(dates)
    return pd.DataFrame({
        "date": np.tile(dates.to_numpy(), len(levels)),
        "currency": pd.array(np.repeat(list(levels), n).astype(object), dtype=TEXT_DTYPE),
        "usd_per_unit": np.concatenate(list(levels.values())),
    })
