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
``max_age``. An amount is never converted with the rate of another unit: USD
passes through unchanged, every other amount needs a rate of exactly its
unit, and one without a rate, a unit or a date is missing and reported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Final, Literal

import numpy as np
import pandas as pd

from .errors import warn
from .parse.units import canonical_unit, canonical_units

__all__ = ["AMOUNT_UNITS", "DATE_COLUMNS", "conversion_dates", "normalize_rates", "to_usd",
           "usd_rates"]

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
# milliseconds, like the ICOs' dates: nanoseconds end in 2262 and a profile may say 9999
_MS: Final = "datetime64[ms]"
#: The two directions a rate can be quoted in.
Quote = Literal["usd_per_unit", "units_per_usd"]
QUOTES: Final = ("usd_per_unit", "units_per_usd")
#: The value column of normalised rates: US dollars for one unit of the currency.
VALUE: Final = "usd_per_unit"
# long-form value columns; ``usd`` is read as usd_per_unit (the name before 0.x)
_LONG_VALUES: Final = ("usd_per_unit", "usd", "units_per_usd")


def normalize_rates(rates: pd.DataFrame, *, quote: Quote | None = None) -> pd.DataFrame:
    """Rates in either layout as one long frame: ``date``, ``currency``, ``usd_per_unit``.

    The direction of every rate is read from its name, never guessed:

    * **long form**: columns ``date``, ``currency`` and one value column that
      names its direction, ``usd_per_unit`` (``usd`` is read the same way) or
      ``units_per_usd``;
    * **wide form**: a date index (or ``date`` column) and one column per
      currency, named as price downloaders name them: ``ETH-USD``, ``ETH/USD``,
      ``ETH_USD``, ``EURUSD`` and Yahoo's ``EURUSD=X`` are USD per unit (the
      quote currency per one unit of the base); ``USD/JPY``, ``USDJPY=X`` and
      Yahoo's three-letter ``JPY=X`` are units per USD. A column named by a
      bare code (``ETH``, ``EUR``) says neither: it needs ``quote``. A pair
      without USD (``EURJPY=X``, ``ETH-BTC``) is refused.

    Rows without a rate (NaN) are dropped; USD rows are dropped (USD needs no
    rate). Time-zone-aware dates are taken in UTC and made naive, like the
    ICOs' dates.

    Parameters
    ----------
    rates : pandas.DataFrame
        Long or wide form, as above.
    quote : {"usd_per_unit", "units_per_usd"}, optional
        The direction of the wide form's bare-code columns (``ETH``: USD per
        ETH, or ETH per USD). Columns whose name states a direction keep it.

    Raises
    ------
    ValueError
        When the layout is neither form, a column's direction is ambiguous or
        has no USD side (the column is named), a date or a rate cannot be read,
        a rate is zero or negative, or one day has two different rates of one currency.

    Examples
    --------
    >>> wide = pd.DataFrame({"ETH-USD": [2000.0], "JPY=X": [100.0]},
    ...                     index=pd.to_datetime(["2021-01-01"]))
    >>> long = normalize_rates(wide)
    >>> long["currency"].tolist(), long["usd_per_unit"].tolist()
    (['ETH', 'JPY'], [2000.0, 0.01])
    """
    if not isinstance(rates, pd.DataFrame):
        raise ValueError(f"rates must be a pandas DataFrame, got {type(rates).__name__}")
    if quote is not None and quote not in QUOTES:
        raise ValueError(f"quote must be one of {', '.join(map(repr, QUOTES))} or None, "
                         f"got {quote!r}")
    lower = {str(c).strip().lower(): c for c in rates.columns}
    if "currency" in lower:
        return _long(rates, lower, quote)
    if isinstance(rates.columns, pd.MultiIndex):
        raise ValueError("wide rates need one column level, one column per currency; "
                         "for a downloader's (field, ticker) columns select one field, "
                         "e.g. rates['Close']")
    frame = rates
    if not isinstance(frame.index, pd.DatetimeIndex) and "date" in lower:
        frame = frame.set_index(lower["date"])
    if not isinstance(frame.index, pd.DatetimeIndex):
        raise ValueError("rates must be long form (columns date, currency, usd_per_unit) or "
                         "wide form (a DatetimeIndex or date column, one column per "
                         f"currency); got columns {list(rates.columns)} and a "
                         f"{type(rates.index).__name__}")
    read = {c: _wide_column(c, quote) for c in frame.columns}
    refused = [reason for reason in read.values() if isinstance(reason, str)]
    bare = [c for c, how in read.items() if how is None]
    if refused:
        raise ValueError("wide rates: " + "; ".join(refused))
    if bare:
        raise ValueError(
            f"wide rates: columns {bare} do not say which way they are quoted (USD per "
            "unit, or units per USD); name them as price downloaders do ('ETH-USD' and "
            "'EURUSD=X' are USD per unit, 'JPY=X' and 'USD/JPY' are JPY per USD), or pass "
            "quote='usd_per_unit' (or quote='units_per_usd') for bare currency columns, or "
            "give long form with a usd_per_unit column")
    columns = []
    for column, how in read.items():
        assert isinstance(how, tuple)
        code, inverted = how
        raw = _numbers(frame[column])
        if inverted:
            raw = np.divide(1.0, raw, out=raw.copy(), where=raw > 0)
        columns.append(pd.Series(raw, index=frame.index, name=code))
    names = [code for code, _ in (how for how in read.values() if isinstance(how, tuple))]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"wide rates: two columns for {', '.join(twice)} "
                         f"(columns {list(frame.columns)})")
    stacked = pd.concat(columns, axis=1) if columns else pd.DataFrame(index=frame.index)
    stacked = stacked.rename_axis(index="date", columns="currency")
    long = stacked.stack(future_stack=True).rename(VALUE).reset_index()
    return _clean(long["date"], long["currency"], long[VALUE])


def _long(rates: pd.DataFrame, lower: dict[str, object], quote: Quote | None) -> pd.DataFrame:
    if quote is not None:
        raise ValueError("quote= is for the bare currency columns of wide rates; long form "
                         "names its direction by its value column (usd_per_unit or "
                         "units_per_usd)")
    values = [name for name in _LONG_VALUES if name in lower]
    if len(values) > 1:
        raise ValueError(f"long-form rates need one value column, got {values}: "
                         f"{', '.join(_LONG_VALUES)} each name a direction")
    missing = [c for c in ("date", "currency") if c not in lower] + (
        [] if values else ["usd_per_unit (or units_per_usd)"])
    if missing:
        raise ValueError(f"long-form rates need columns date, currency and usd_per_unit "
                         f"(or units_per_usd); missing: {', '.join(missing)} "
                         f"(got {list(rates.columns)})")
    value = rates[lower[values[0]]]
    if values[0] == "units_per_usd":
        raw = _numbers(value)
        value = pd.Series(np.divide(1.0, raw, out=raw.copy(), where=raw > 0))
    return _clean(rates[lower["date"]], rates[lower["currency"]], value)


def _numbers(values: pd.Series) -> np.ndarray:
    try:
        number = pd.to_numeric(pd.Series(values).reset_index(drop=True), errors="raise")
    except (ValueError, TypeError) as exc:
        raise ValueError(f"rates: values must be numbers ({exc})") from None
    return number.to_numpy(dtype=np.float64, na_value=np.nan)


# "ETH-USD", "eth/usd", "BTC_USD", "USD/JPY": base, separator, quote currency.
_PAIR: Final = re.compile(r"([A-Z0-9.]+?)\s*[-/_ ]\s*([A-Z0-9.]+)")
# "EURUSD", "USDJPY" (and Yahoo's "EURUSD=X"): two three-letter codes, base first.
_SIX: Final = re.compile(r"([A-Z]{3})([A-Z]{3})")


def _wide_column(name: object, quote: Quote | None) -> tuple[str, bool] | str | None:
    """(currency, inverted) of one wide column, None when its name states no
    direction, or the reason it is refused."""
    text = str(name).strip().upper()
    if text.endswith("=X"):  # Yahoo's FX tickers
        body = text[:-2]
        if re.fullmatch(r"[A-Z]{3}", body):
            return canonical_unit(body) or body, True  # "JPY=X": JPY per USD
        pair = _SIX.fullmatch(body)
        if pair is None:
            return (f"column {name!r} is not a Yahoo exchange-rate ticker ('XXX=X' or "
                    "'XXXYYY=X'): its direction is ambiguous")
        base, counter = pair.groups()
    elif (pair := _PAIR.fullmatch(text) or _SIX.fullmatch(text)) is not None and (
            "USD" in pair.groups() or pair.re is _PAIR):
        base, counter = pair.groups()
    else:
        code = canonical_unit(text)
        if code is None:
            return f"column {name!r} names no currency"
        if quote is None:
            return None
        return code, quote == "units_per_usd"
    base_code, counter_code = canonical_unit(base), canonical_unit(counter)
    if counter_code == "USD" and base_code is not None:
        return base_code, False
    if base_code == "USD" and counter_code is not None:
        return counter_code, True
    return (f"column {name!r} is {counter} per {base}, a rate without USD: give USD rates "
            f"('{base}-USD', '{base}USD=X')")


def _clean(dates: pd.Series, currency: pd.Series, usd: pd.Series) -> pd.DataFrame:
    try:
        if pd.api.types.is_datetime64_any_dtype(dates):
            when = pd.Series(dates).reset_index(drop=True)
        else:
            when = pd.to_datetime(pd.Series(dates).reset_index(drop=True), format="ISO8601")
    except (ValueError, TypeError) as exc:
        raise ValueError(f"rates: dates could not be read ({exc})") from None
    if getattr(when.dt, "tz", None) is not None:
        when = when.dt.tz_convert("UTC").dt.tz_localize(None)
    value = pd.Series(_numbers(usd))
    codes = canonical_units(pd.Series(currency))
    out = pd.DataFrame({"date": when.astype(_MS), "currency": pd.Series(codes, dtype=object),
                        VALUE: value.astype(np.float64)})
    out = out[out[VALUE].notna() & out["date"].notna() & out["currency"].notna()]
    out = out[out["currency"] != "USD"]
    if (out[VALUE] <= 0).any() or np.isinf(out[VALUE]).any():
        bad = out.loc[(out[VALUE] <= 0) | np.isinf(out[VALUE])].iloc[0]
        raise ValueError(f"rates: USD per unit must be positive and finite; "
                         f"{bad['currency']} on {bad['date'].date()} is {bad[VALUE]}")
    out = out.drop_duplicates()
    clash = out.duplicated(["date", "currency"], keep=False)
    if clash.any():
        first = out[clash].iloc[0]
        raise ValueError(f"rates: two different rates of {first['currency']} "
                         f"on {first['date']}")
    return out.sort_values(["date", "currency"], kind="stable").reset_index(drop=True)


def usd_rates(units: np.ndarray, dates: np.ndarray, rates: pd.DataFrame, *,
              max_age: pd.Timedelta | None) -> np.ndarray:
    """USD per unit for each (canonical unit, date) pair: 1.0 for USD, NaN without a rate.

    ``rates`` is long form as :func:`normalize_rates` returns it. An as-of
    join: the last rate of exactly that unit at or before the date, no older
    than ``max_age`` (any age when None).
    """
    n = len(units)
    out = np.full(n, np.nan)
    is_usd = units == "USD"
    out[is_usd] = 1.0
    when = pd.to_datetime(pd.Series(dates)).astype(_MS).to_numpy()
    wanted = np.flatnonzero(~is_usd & pd.notna(units) & ~np.isnat(when))
    if len(wanted) == 0 or rates.empty:
        return out
    left = pd.DataFrame({"row": wanted, "date": when[wanted],
                         "currency": pd.Series(units[wanted], dtype=object)})
    left = left.sort_values("date", kind="stable")
    joined = pd.merge_asof(left, rates, on="date", by="currency", direction="backward",
                           tolerance=max_age, allow_exact_matches=True)
    out[joined["row"].to_numpy()] = joined[VALUE].to_numpy(dtype=np.float64)
    return out


def to_usd(icos: pd.DataFrame, rates: pd.DataFrame, *,
           date: str | Sequence[str] = DATE_COLUMNS,
           columns: Sequence[str] | None = None,
           max_age: str | pd.Timedelta | None = "7D",
           quote: Quote | None = None) -> pd.DataFrame:
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
    columns : sequence of str, optional
        The amounts to convert (default: all of :data:`AMOUNT_UNITS`).
    max_age : str or Timedelta or None, default ``"7D"``
        The oldest rate accepted before the date (a weekend or a holiday is
        bridged; a rate from last year is not). None accepts any age.
    quote : {"usd_per_unit", "units_per_usd"}, optional
        The direction of wide columns named by a bare currency code (``ETH``,
        ``JPY``); without it such a column is refused, never guessed.

    Returns
    -------
    pandas.DataFrame
        A copy of ``icos`` with a float64 ``<amount>_usd`` column per amount
        and ``usd_date`` (the conversion date). ``attrs["usd_missing"]`` maps
        each currency (or ``"(no unit)"``, ``"(no date)"``) to the number of
        stated amounts left without a USD value; a warning says the same.

    Raises
    ------
    ValueError
        For rates in neither layout or whose direction is not stated (the
        column is named), an unknown amount column, or ``icos``
        lacking a column it needs.

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
    if not isinstance(icos, pd.DataFrame):
        raise ValueError(f"icos must be a pandas DataFrame, got {type(icos).__name__}")
    amounts = list(AMOUNT_UNITS) if columns is None else list(columns)
    unknown = [c for c in amounts if c not in AMOUNT_UNITS]
    if unknown:
        raise ValueError(f"no amount column {unknown}; amounts: {', '.join(AMOUNT_UNITS)}")
    dates = [date] if isinstance(date, str) else list(date)
    needed = sorted({*amounts, *(AMOUNT_UNITS[c] for c in amounts), *dates})
    absent = [c for c in needed if c not in icos.columns]
    if absent:
        raise ValueError(f"icos lacks columns {absent}")
    table = normalize_rates(rates, quote=quote)
    age = None if max_age is None else pd.Timedelta(max_age)
    when = conversion_dates(icos, dates)
    out = icos.copy()
    missing: Counter[str] = Counter()
    by_unit: dict[str, np.ndarray] = {}
    for amount in amounts:
        unit_column = AMOUNT_UNITS[amount]
        if unit_column not in by_unit:
            units = canonical_units(icos[unit_column])
            by_unit[unit_column] = usd_rates(units, when, table, max_age=age)
            by_unit[unit_column + "/codes"] = units
        units = by_unit[unit_column + "/codes"]
        value = icos[amount].to_numpy(dtype=np.float64, na_value=np.nan)
        converted = value * by_unit[unit_column]
        out[f"{amount}_usd"] = converted
        lost = ~np.isnan(value) & np.isnan(converted)
        for i in np.flatnonzero(lost).tolist():
            missing[NO_UNIT if units[i] is None else NO_DATE if np.isnat(when[i])
                    else units[i]] += 1
    out["usd_date"] = when.astype("datetime64[ms]")
    report = dict(sorted(missing.items()))
    out.attrs["usd_missing"] = report
    if report:
        counts = ", ".join(f"{k} {v:,}" for k, v in report.items())
        warn(f"to_usd: {sum(report.values()):,} amounts left without a USD value (no rate "
             f"of their currency at or up to {max_age} before the date, no unit or no "
             f"date): {counts}")
    return out


def conversion_dates(icos: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The first known date of ``columns`` per row, as datetime64[ns] (NaT when none)."""
    when = np.full(len(icos), np.datetime64("NaT"), dtype=_MS)
    for name in reversed(list(columns)):
        values = pd.to_datetime(icos[name]).astype(_MS).to_numpy()
        when = np.where(np.isnat(values), when, values)
    return when
