"""Amounts in US dollars, from exchange rates the user supplies.

icoframes has no built-in price source: :func:`to_usd` takes a frame of daily
rates (USD per unit of each currency) that you build from a CSV or any price
downloader, in one of two layouts:

* **long**: columns ``date``, ``currency``, ``usd`` (one row per day and currency);
* **wide**: a date index and one column per currency (``ETH``, ``BTC``, ``EUR``;
  downloader names such as ``ETH-USD`` or ``EURUSD=X`` are understood).

Each amount is converted at a date of its own ICO (the end of the sale, else
its start) with the last rate known at or before that date, no older than
``max_age``. An amount is never converted with the rate of another unit: USD
passes through unchanged, every other amount needs a rate of exactly its
unit, and one without a rate, a unit or a date is missing and reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

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
_NS: Final = "datetime64[ns]"


def normalize_rates(rates: pd.DataFrame) -> pd.DataFrame:
    """Rates in either layout as one long frame: ``date``, ``currency`` (canonical), ``usd``.

    Rows without a rate (NaN) are dropped; USD rows are dropped (USD needs no
    rate). Time-zone-aware dates are taken in UTC and made naive, like the
    ICOs' dates.

    Raises
    ------
    ValueError
        When the layout is neither form, a date or a rate cannot be read, a
        rate is zero or negative, or one day has two different rates of one currency.

    Examples
    --------
    >>> wide = pd.DataFrame({"ETH-USD": [2000.0, 2100.0]},
    ...                     index=pd.to_datetime(["2021-01-01", "2021-01-02"]))
    >>> long = normalize_rates(wide)
    >>> long["date"].astype(str).tolist(), long["currency"].tolist(), long["usd"].tolist()
    (['2021-01-01', '2021-01-02'], ['ETH', 'ETH'], [2000.0, 2100.0])
    """
    if not isinstance(rates, pd.DataFrame):
        raise ValueError(f"rates must be a pandas DataFrame, got {type(rates).__name__}")
    lower = {str(c).strip().lower(): c for c in rates.columns}
    if "currency" in lower:
        missing = [c for c in ("date", "currency", "usd") if c not in lower]
        if missing:
            raise ValueError(f"long-form rates need columns date, currency and usd; "
                             f"missing: {', '.join(missing)} (got {list(rates.columns)})")
        dates = rates[lower["date"]]
        currency = rates[lower["currency"]]
        usd = rates[lower["usd"]]
    else:
        if isinstance(rates.columns, pd.MultiIndex):
            raise ValueError("wide rates need one column level, one column per currency; "
                             "for a downloader's (field, ticker) columns select one field, "
                             "e.g. rates['Close']")
        frame = rates
        if not isinstance(frame.index, pd.DatetimeIndex) and "date" in lower:
            frame = frame.set_index(lower["date"])
        if not isinstance(frame.index, pd.DatetimeIndex):
            raise ValueError("rates must be long form (columns date, currency, usd) or wide "
                             "form (a DatetimeIndex or date column, one column per currency); "
                             f"got columns {list(rates.columns)} and a "
                             f"{type(rates.index).__name__}")
        names = {c: _wide_currency(c) for c in frame.columns}
        unnamed = [c for c, code in names.items() if code is None]
        if unnamed:
            raise ValueError(f"wide rates: columns {unnamed} name no currency")
        stacked = frame.rename(columns=names).rename_axis(index="date", columns="currency")
        long = stacked.stack(future_stack=True).rename("usd").reset_index()
        dates, currency, usd = long["date"], long["currency"], long["usd"]
    return _clean(dates, currency, usd)


def _wide_currency(name: object) -> str | None:
    text = str(name).strip().upper().removesuffix("=X")
    for sep in ("-", "/", "_", ""):
        if len(text) > 3 + len(sep) and text.endswith(sep + "USD"):
            text = text[: -3 - len(sep)]
            break
    return canonical_unit(text)


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
    try:
        value = pd.to_numeric(pd.Series(usd).reset_index(drop=True), errors="raise")
    except (ValueError, TypeError) as exc:
        raise ValueError(f"rates: usd values must be numbers ({exc})") from None
    codes = canonical_units(pd.Series(currency))
    out = pd.DataFrame({"date": when.astype(_NS), "currency": pd.Series(codes, dtype=object),
                        "usd": value.astype(np.float64)})
    out = out[out["usd"].notna() & out["date"].notna() & out["currency"].notna()]
    out = out[out["currency"] != "USD"]
    if (out["usd"] <= 0).any() or np.isinf(out["usd"]).any():
        bad = out.loc[(out["usd"] <= 0) | np.isinf(out["usd"])].iloc[0]
        raise ValueError(f"rates: USD per unit must be positive and finite; "
                         f"{bad['currency']} on {bad['date'].date()} is {bad['usd']}")
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
    when = pd.to_datetime(pd.Series(dates)).astype(_NS).to_numpy()
    wanted = np.flatnonzero(~is_usd & pd.notna(units) & ~np.isnat(when))
    if len(wanted) == 0 or rates.empty:
        return out
    left = pd.DataFrame({"row": wanted, "date": when[wanted],
                         "currency": pd.Series(units[wanted], dtype=object)})
    left = left.sort_values("date", kind="stable")
    joined = pd.merge_asof(left, rates, on="date", by="currency", direction="backward",
                           tolerance=max_age, allow_exact_matches=True)
    out[joined["row"].to_numpy()] = joined["usd"].to_numpy(dtype=np.float64)
    return out


def to_usd(icos: pd.DataFrame, rates: pd.DataFrame, *,
           date: str | Sequence[str] = DATE_COLUMNS,
           columns: Sequence[str] | None = None,
           max_age: str | pd.Timedelta | None = "7D") -> pd.DataFrame:
    """Add ``<amount>_usd`` columns: caps, token price and purchase limits in US dollars.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table (see :mod:`icoframes.schema`): the amount columns
        of :data:`AMOUNT_UNITS`, their unit columns and the date columns.
    rates : pandas.DataFrame
        Daily USD per unit, long (``date``, ``currency``, ``usd``) or wide (a
        date index, one column per currency); see :func:`normalize_rates`.
    date : str or sequence of str, default ``("end_datetime", "start_datetime")``
        The conversion date of each ICO: the first of these columns that is known.
    columns : sequence of str, optional
        The amounts to convert (default: all of :data:`AMOUNT_UNITS`).
    max_age : str or Timedelta or None, default ``"7D"``
        The oldest rate accepted before the date (a weekend or a holiday is
        bridged; a rate from last year is not). None accepts any age.

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
        For rates in neither layout, an unknown amount column, or ``icos``
        lacking a column it needs.

    Examples
    --------
    >>> icos = pd.DataFrame({
    ...     "hard_cap": [30000.0, 5e6, 100.0], "caps_unit": ["ETH", "usd", "ETH"],
    ...     "end_datetime": pd.to_datetime(["2018-03-04", "2018-03-04", None])})
    >>> rates = pd.DataFrame({"date": ["2018-03-02"], "currency": ["ETH"], "usd": [800.0]})
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
    table = normalize_rates(rates)
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
    when = np.full(len(icos), np.datetime64("NaT"), dtype=_NS)
    for name in reversed(list(columns)):
        values = pd.to_datetime(icos[name]).astype(_NS).to_numpy()
        when = np.where(np.isnat(values), when, values)
    return when
