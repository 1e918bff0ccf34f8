"""Amounts in US dollars, from exchange rates the user supplies.

icoframes has no built-in price source: :func:`to_usd` takes a frame of daily
exchange rates that you build from a CSV or any price downloader, in one of
two layouts, each saying which way its rates are quoted:

* **long**: columns ``date``, ``currency`` and ``usd_per_unit`` (or
  ``units_per_usd``), one row per day and currency;
* **wide**: a date index and one column per currency, named as downloaders name
  them: ``ETH-USD`` and ``EURUSD=X`` are USD per unit, Yahoo's ``JPY=X`` is JPY
  per USD. A bare ``ETH`` column needs ``quote=`` (see :func:`normalize_rates`).

Each amount is converted at a date of its own ICO (the end of the sale, else
its start) with the last rate known at or before that date, no older than
``rate_max_age``; a token price of an ICO past its end is a market price as of
``fetched_at`` (spec 2.3) and is converted at that moment instead
(:mod:`icoframes.money.prices`). An amount is never converted with the rate of
another unit: USD passes through unchanged, every other amount needs a rate of
exactly its unit, and one without a rate, a unit or a date is missing and reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import numpy as np
import pandas as pd

from ..errors import InvalidParameter, did_you_mean, quoted, warn
from ..parse.scales import KNOWN_UNITS
from ..parse.units import canonical_units
from ..queries import checked_keywords
from .direction import DOUBTFUL, doubtful_prices, said_doubtful
from .prices import naive_dates, price_dates, sale_prices
from .quotes import MS, QUOTES, VALUE, Quote, normalize_rates
from .rateage import RateMaxAge, rate_age

__all__ = [
    "AMOUNT_UNITS",
    "DATE_COLUMNS",
    "NOT_GIVEN",
    "QUOTES",
    "RATE_MAX_AGE",
    "Quote",
    "RateMaxAge",
    "check_magnitudes",
    "conversion_dates",
    "normalize_rates",
    "price_dates",
    "rate_age",
    "renamed_rate_max_age",
    "sale_prices",
    "to_usd",
    "usd_rates",
]

#: Each amount column of ``icos`` and the column that states its unit.
AMOUNT_UNITS: Final = {
    "soft_cap": "caps_unit",
    "hard_cap": "caps_unit",
    "token_price": "token_price_unit",
    "min_purchase": "purchase_unit",
    "max_purchase": "purchase_unit",
}
#: The conversion date of an ICO: the first of these that is known.
DATE_COLUMNS: Final = ("end_datetime", "start_datetime")
NO_UNIT: Final = "(no unit)"
NO_DATE: Final = "(no date)"
NO_FETCH_DATE: Final = "(no fetch date)"
class _Default(str):
    """The default of a keyword: a ``str`` told apart (by identity) from the same text given."""

    __slots__ = ()


#: The default oldest rate accepted before an amount's date. Not the literal
#: ``"7D"`` (Python shares one object for equal short literals): so
#: ``rate_max_age="7D", max_age=...`` is seen as both given, and refused.
RATE_MAX_AGE: Final = _Default("7D")


class _NotGiven:
    def __repr__(self) -> str:
        return "<not given>"


#: The default of a deprecated keyword: told apart from every value a user can pass.
NOT_GIVEN: Final = _NotGiven()


def renamed_rate_max_age(rate_max_age: RateMaxAge, max_age: object, function: str
                         ) -> RateMaxAge:
    """``rate_max_age``, or the deprecated ``max_age`` with a FutureWarning."""
    if max_age is NOT_GIVEN:
        return rate_max_age
    if rate_max_age is not RATE_MAX_AGE:
        raise InvalidParameter(f"{function}: rate_max_age={quoted(rate_max_age)} and max_age="
                               f"{quoted(max_age)} both given; give rate_max_age only (max_age is "
                               "its old name)")
    warn(f"{function}(max_age=...) is now {function}(rate_max_age=...): max_age is a cache "
         "age in the loaders; the old name goes in the next version", FutureWarning)
    return max_age  # type: ignore[return-value]  # checked by rate_age


def usd_rates(units: np.ndarray, dates: np.ndarray, rates: pd.DataFrame, *,
              max_age: pd.Timedelta | None) -> np.ndarray:
    """USD per unit for each (canonical unit, date) pair: 1.0 for USD, NaN without a rate.

    ``rates`` is long form as :func:`normalize_rates` returns it. An as-of
    join by UTC day (a rate's time of day is not read): the last rate of exactly
    that unit on or before the date's day, no more than ``max_age`` older, counted
    between the days (any age when None).
    """
    n = len(units)
    out = np.full(n, np.nan)
    is_usd = units == "USD"
    out[is_usd] = 1.0
    when = pd.to_datetime(pd.Series(dates)).astype(MS).dt.floor("D").to_numpy()
    wanted = np.flatnonzero(~is_usd & pd.notna(units) & ~np.isnat(when))
    if len(wanted) == 0 or rates.empty:
        return out
    left = pd.DataFrame({"row": wanted, "date": when[wanted],
                         "currency": pd.Series(units[wanted], dtype=object)})
    left = left.sort_values("date", kind="stable")
    # a rate stamped at 12:00 is still its whole day's: read as an instant, a sale ending
    # at 00:00 took the day before's
    rates = rates.assign(date=rates["date"].dt.floor("D"))
    joined = pd.merge_asof(left, rates, on="date", by="currency", direction="backward",
                           tolerance=max_age, allow_exact_matches=True)
    out[joined["row"].to_numpy()] = joined[VALUE].to_numpy(dtype=np.float64)
    return out


def _column_meant(name: str, columns: Iterable[object]) -> str:
    """``"; did you mean 'x'?"`` for a column of ``columns`` that ``name`` spells in another
    case, begins (``date="end"``: ``end_datetime``), or is close to."""
    names = [str(c) for c in columns]
    word = name.strip().casefold()
    same = ([c for c in names if c.casefold() == word]
            or [c for c in names if word and c.casefold().startswith(word + "_")])
    if len(same) == 1:
        return f"; did you mean {same[0]!r}?"
    # a date column of the schema absent from the frame: no other column is what was meant
    return "" if name in DATE_COLUMNS else did_you_mean(name, names)


@checked_keywords
def to_usd(icos: pd.DataFrame, rates: pd.DataFrame, *,
           date: str | Sequence[str] = DATE_COLUMNS,
           columns: Sequence[str] | None = None,
           rate_max_age: RateMaxAge = RATE_MAX_AGE,
           quote: Quote | None = None,
           max_age: object = NOT_GIVEN) -> pd.DataFrame:
    """Add ``<amount>_usd`` columns: caps, token price and purchase limits in US dollars.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table (see :mod:`icoframes.schema`): the amount columns
        of :data:`AMOUNT_UNITS`, their unit columns and the date columns.
    rates : pandas.DataFrame
        Daily exchange rates, long (``date``, ``currency``, ``usd_per_unit`` or
        ``units_per_usd``) or wide (a date index, one column per currency, named
        with its direction: ``ETH-USD``, ``EURUSD=X``, ``JPY=X``); see
        :func:`normalize_rates` for every name understood.
    date : str or sequence of str, default ``("end_datetime", "start_datetime")``
        The conversion date of each ICO: the first of these columns that is known.
    columns : str or sequence of str, optional
        The amount or amounts to convert (default: all of :data:`AMOUNT_UNITS`).
    rate_max_age : str or Timedelta or numpy.timedelta64 or float or None, default ``"7D"``
        The oldest rate accepted before the date (a weekend or a holiday is
        bridged; a rate from last year is not), counted between UTC days (below
        one day: the date's own day only). Read as every age argument
        (``icoframes.ages``): a duration (``"7D"``, ``"12h"``, a timedelta, a
        ``timedelta64`` with a unit) or seconds, as text too; seconds under a day
        (``7``, ``"7"``: surely days) are refused. None accepts any age.
    quote : {"usd_per_unit", "units_per_usd"}, optional
        The direction of wide columns named by a bare currency code (``ETH``,
        ``JPY``); without it such a column is refused, never guessed.
    max_age : deprecated
        The old name of ``rate_max_age`` (``max_age`` is a cache age in the
        loaders); accepted in this version with a ``FutureWarning``.

    Returns
    -------
    pandas.DataFrame
        A copy of ``icos`` with a float64 ``<amount>_usd`` column per amount,
        ``usd_date`` (the conversion date of caps and purchase limits: the
        sale) and, when ``token_price`` is converted, ``token_price_usd_date``:
        the sale for a profile fetched before the ICO's end, ``fetched_at`` for
        one fetched after it (listed ``past`` when fetched, ``fetched_status``,
        or ``end_datetime`` before ``fetched_at``), whose ``token_price`` is a
        market price as of the fetch (spec 2.3; see :func:`price_dates`): a row kept from an
        earlier fetch converts as on the day it was fetched, whatever it is
        listed under now. ``attrs["usd_missing"]`` maps each currency (or
        ``"(no unit)"``, ``"(no date)"``, ``"(no fetch date)"`` for a past
        ICO's price without ``fetched_at``, ``"(price direction doubtful)"`` for a price
        of the sale worth $1,000 a token or more, whose inverse the ICO's own hard cap and
        tokens for sale confirm: ``icoframes.money.direction``; never inverted) to the number
        of stated amounts left without a USD value; a warning says the same.
        ``attrs["price_direction_doubtful"]``, when ``token_price`` is converted, lists
        the ids of those ICOs, and a warning names them. Another warning
        names a currency whose hard caps come out orders of magnitude off
        against ``raised``, or, where too few of its ICOs state ``raised``, against
        the caps stated in USD (a rate read the wrong way round; see
        :func:`check_magnitudes`).

    Raises
    ------
    InvalidParameter
        (a ``ValueError``, the package's one class for a bad argument)
        For rates in neither layout or whose direction is not stated (the
        column is named), an unknown amount column, ``icos``
        lacking a column it needs, or a ``Tables`` given for ``icos`` (did you mean
        ``tables.icos``?).

    Examples
    --------
    >>> icos = pd.DataFrame({
    ...     "hard_cap": [30000.0, 5e6, 100.0], "caps_unit": ["ETH", "usd", "ETH"],
    ...     "end_datetime": pd.to_datetime(["2018-03-04", "2018-03-04", None])})
    >>> rates = pd.DataFrame({"date": ["2018-03-02"], "currency": ["ETH"],
    ...                       "usd_per_unit": [800.0]})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     out = to_usd(icos, rates, columns=["hard_cap"], date="end_datetime")
    >>> out["hard_cap_usd"].tolist(), out.attrs["usd_missing"]
    ([24000000.0, 5000000.0, nan], {'(no date)': 1})
    >>> [type(w.message).__name__ for w in caught]
    ['IcoframesWarning']
    """
    if not isinstance(icos, pd.DataFrame):  # a Tables: its icos table is what is converted
        hint = "; did you mean tables.icos?" if isinstance(getattr(icos, "icos", None),
                                                           pd.DataFrame) else ""
        raise InvalidParameter(f"icos must be a pandas DataFrame, got {type(icos).__name__}{hint}")
    amounts = list(AMOUNT_UNITS) if columns is None else column_names(columns, "columns")
    unknown = [c for c in amounts if c not in AMOUNT_UNITS]
    if unknown:
        raise InvalidParameter(f"no amount column {quoted(unknown)}; amounts: "
                               f"{', '.join(AMOUNT_UNITS)}")
    dates = column_names(date, "date")
    needed = sorted({*amounts, *(AMOUNT_UNITS[c] for c in amounts), *dates})
    absent = [c for c in needed if c not in icos.columns]
    if absent:
        typed = [c for c in absent if c in dates]  # a date column named as typed
        raise InvalidParameter(f"icos lacks columns {absent}"
                               + (_column_meant(typed[0], icos.columns) if typed else ""))
    rate_max_age = renamed_rate_max_age(rate_max_age, max_age, "to_usd")
    table = normalize_rates(rates, quote=quote)
    age = rate_age(rate_max_age, "to_usd")
    when = conversion_dates(icos, dates)
    price_when, past = price_dates(icos, when)
    out = icos.copy()
    missing: Counter[str] = Counter()
    by_unit: dict[str, np.ndarray] = {}
    for amount in amounts:
        unit_column = AMOUNT_UNITS[amount]
        at = price_when if amount == "token_price" else when
        if unit_column not in by_unit:
            units = canonical_units(icos[unit_column])
            by_unit[unit_column] = usd_rates(units, at, table, max_age=age)
            by_unit[unit_column + "/codes"] = units
        units = by_unit[unit_column + "/codes"]
        value = icos[amount].to_numpy(dtype=np.float64, na_value=np.nan)
        converted = value * by_unit[unit_column]
        doubtful = np.zeros(len(icos), dtype=bool)
        if amount == "token_price":  # never inverted: missing, and said (direction.py)
            caps = (canonical_units(icos["caps_unit"]) if "caps_unit" in icos.columns
                    else None)
            caps_rates = None if caps is None else by_unit["caps_unit"] if (
                "caps_unit" in by_unit) else usd_rates(caps, when, table, max_age=age)
            doubtful = doubtful_prices(icos, units, by_unit[unit_column], caps, caps_rates,
                                       ~past)
            converted[doubtful] = np.nan
            out.attrs["price_direction_doubtful"] = said_doubtful(icos, doubtful)
        out[f"{amount}_usd"] = converted
        lost = ~np.isnan(value) & np.isnan(converted)
        for i in np.flatnonzero(lost).tolist():
            missing[DOUBTFUL if doubtful[i] else NO_UNIT if units[i] is None
                    else NO_FETCH_DATE if np.isnat(at[i]) and amount == "token_price" and past[i]
                    else NO_DATE if np.isnat(at[i]) else units[i]] += 1
    if "hard_cap" in amounts:  # (without raised, the caps are compared with each other)
        raised = (icos["raised"].to_numpy(dtype=np.float64, na_value=np.nan)
                  if "raised" in icos.columns else np.full(len(icos), np.nan))
        check_magnitudes(by_unit["caps_unit/codes"], out["hard_cap_usd"].to_numpy(), raised)
    out["usd_date"] = when
    if "token_price" in amounts:
        out["token_price_usd_date"] = price_when
    report = dict(sorted(missing.items()))
    out.attrs["usd_missing"] = report
    if report:
        counts = ", ".join(f"{k} {v:,}" for k, v in report.items())
        warn(f"to_usd: {sum(report.values()):,} amounts left without a USD value (no rate "
             f"of their currency at or up to {rate_max_age} before the date, no unit, no "
             f"date, a past ICO's price without fetched_at, or a price whose direction is "
             f"doubtful): {counts}"
             + _unmatched(table, [v for k, v in by_unit.items() if k.endswith("/codes")]))
    return out


def _unmatched(table: pd.DataFrame, units: list[np.ndarray]) -> str:
    """The rates' currencies that no unit of these ICOs names and no code icoframes knows
    (``RUPEE``: a word, not the code ``INR``), said after the amounts left without a USD value.

    A known code no ICO uses (``BTC`` rates beside ETH ICOs) is simply unused: listing it
    would blame its right name for amounts it could never have converted."""
    used = set(np.concatenate(units).tolist()) if units else set()
    names = sorted(name for name in set(table["currency"].tolist()) - used
                   if name not in KNOWN_UNITS)
    if not names:
        return ""
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10:,} more" if len(names) > 10 else "")
    return (f"; the rates' currencies {shown} match no unit of these ICOs (a currency is "
            "matched by its code, as the unit columns hold it: 'INR', not 'rupee')")


def column_names(value: object, what: str) -> list[str]:
    """One column name, or a sequence of them, as a list; refused when empty or not names.

    A name is never iterated into its letters (``"hard_cap"`` is one column).
    """
    names = [value] if isinstance(value, str) else value
    if isinstance(names, Iterable) and not isinstance(names, bytes | Mapping):
        names = list(names)
        if names and all(isinstance(name, str) for name in names):
            return names
    raise InvalidParameter(f"{what} must be a column name or a sequence of them, got "
                           f"{quoted(value)}")


def conversion_dates(icos: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The first known date of ``columns`` per row, as naive datetime64[ms] (NaT when none)."""
    when = np.full(len(icos), np.datetime64("NaT"), dtype=MS)
    for name in reversed(list(columns)):
        values = naive_dates(icos[name])
        when = np.where(np.isnat(values), when, values)
    return when


#: A currency's hard caps in USD this many orders of magnitude off, against what
#: the same ICOs raised, from those stated in USD: its rates look quoted the other way.
MAGNITUDE_WARNING: Final = 2.0
#: The fewest ICOs of a currency (with a cap and a raised amount) the check judges.
MAGNITUDE_MIN_ICOS: Final = 3
#: A currency's median hard cap in USD this many orders of magnitude from the median of the
#: caps stated in USD, where too few of its ICOs state what they raised. Caps alone are
#: wider apart than caps against raised (which sets each cap against its own ICO's size):
#: in a public ICObench set token prices span 2.2 orders from p10 to p90 ($0.01-$1.58),
#: tokens for sale 2.4, and successful sales raised a median $15M, 81% of their hard cap
#: (Fahlenbrach & Frattaroli 2021), so the medians of two groups of 3 or more ICOs seldom
#: sit over two orders apart. A rate read the wrong way shows as its square:
#: 3 orders catch every currency worth over $32 or under 3 cents (ETH at $500: 5.4 orders,
#: JPY: 4); EUR, GBP or CHF read the wrong way are off by under 2x, as in the other check.
CAP_MAGNITUDE_WARNING: Final = 3.0


def check_magnitudes(units: np.ndarray, hard_cap_usd: np.ndarray, raised: np.ndarray) -> None:
    """Warn when one currency's converted hard caps are orders of magnitude off.

    ``raised`` is in USD. For ICOs with both, the median of
    log10(hard cap in USD / raised) per cap currency is compared with that of
    caps stated in USD (0 without 3 of them): 2 or more orders of magnitude apart
    (a JPY rate read the wrong way is 4) is a warning naming the currency.

    A currency with fewer than 3 such ICOs (raised is often unknown) is judged by its
    caps alone: the median of its hard caps in USD against the median of the hard caps
    stated in USD, 3 of each or more; :data:`CAP_MAGNITUDE_WARNING` (3) orders of
    magnitude apart is a warning naming the currency.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log10(hard_cap_usd / raised)
    known = np.isfinite(ratio) & (raised > 0) & (hard_cap_usd > 0)
    codes = pd.Series(units[known], dtype=object)
    spread = pd.Series(ratio[known]).groupby(codes.to_numpy()).agg(["median", "size"])
    spread = spread[spread["size"] >= MAGNITUDE_MIN_ICOS]
    medians = {str(code): float(m) for code, m in spread["median"].items()}
    sizes = {str(code): int(n) for code, n in spread["size"].items()}
    reference = medians.pop("USD", 0.0)
    for code, median in medians.items():
        off = median - reference
        if abs(off) >= MAGNITUDE_WARNING:
            warn(f"to_usd: hard caps in {code} come out {10 ** abs(off):,.0f}x "
                 f"{'larger' if off > 0 else 'smaller'} against what the same ICOs raised "
                 f"than caps stated in USD (median of {sizes[code]:,} ICOs): are the "
                 f"{code} rates quoted the other way (units per USD, not USD per unit)?")
    _check_caps(units, hard_cap_usd, judged=set(sizes))


def _check_caps(units: np.ndarray, hard_cap_usd: np.ndarray, judged: set[str]) -> None:
    """The caps-alone half of :func:`check_magnitudes`, for currencies not ``judged``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.log10(hard_cap_usd)
    known = np.isfinite(size) & (hard_cap_usd > 0)
    codes = pd.Series(units[known], dtype=object)
    groups = pd.Series(size[known]).groupby(codes.to_numpy()).agg(["median", "size"])
    groups = groups[groups["size"] >= MAGNITUDE_MIN_ICOS]
    medians = {str(code): float(m) for code, m in groups["median"].items()}
    sizes = {str(code): int(n) for code, n in groups["size"].items()}
    if "USD" not in medians:
        return
    reference, stated = medians.pop("USD"), sizes["USD"]
    for code, median in medians.items():
        off = median - reference
        if code in judged or abs(off) < CAP_MAGNITUDE_WARNING:
            continue
        warn(f"to_usd: hard caps in {code} come out {10 ** abs(off):,.0f}x "
             f"{'larger' if off > 0 else 'smaller'} than caps stated in USD (medians of "
             f"{sizes[code]:,} and {stated:,} ICOs; too few of them state what they raised to "
             f"judge by that): are the {code} rates quoted the other way (units per USD, not "
             "USD per unit)? Real caps are seldom 1,000x apart")
