"""Exchange rates as the user gives them, read in the direction their names state.

:func:`normalize_rates` turns either layout (long or wide) into one long frame
of US dollars per unit; a rate whose direction its name does not state is
refused, never guessed.
"""

from __future__ import annotations

import datetime as dt
import numbers
import re
from collections.abc import Hashable, Mapping
from typing import Final, Literal

import numpy as np
import pandas as pd

from ..errors import InvalidParameter, did_you_mean, quoted
from ..parse.units import canonical_unit, canonical_units
from ..vocabulary import FIAT_CODES, UNIT_ALIASES

__all__ = ["MS", "PRICE_FIELDS", "QUOTES", "VALUE", "Quote", "normalize_rates"]

#: The two directions a rate can be quoted in.
Quote = Literal["usd_per_unit", "units_per_usd"]
QUOTES: Final = ("usd_per_unit", "units_per_usd")
#: The value column of normalised rates: US dollars for one unit of the currency.
VALUE: Final = "usd_per_unit"
# long-form value columns; ``usd`` is read as usd_per_unit (its name before 0.2)
_LONG_VALUES: Final = ("usd_per_unit", "usd", "units_per_usd")
#: Column names of price downloaders' frames that hold a price field, not a currency
#: (``yf.Ticker("ETH-USD").history()``: Open, High, Low, Close, Volume, ...).
PRICE_FIELDS: Final = frozenset({
    "open", "high", "low", "close", "adj close", "adj_close", "adjclose", "volume", "price",
    "rate", "value", "amount", "last", "mid", "bid", "ask", "vwap", "dividends",
    "stock splits", "capital gains", "market cap", "date", "time", "datetime", "timestamp"})
# milliseconds, like the ICOs' dates: nanoseconds end in 2262 and a profile may say 9999
MS: Final = "datetime64[ms]"


def normalize_rates(rates: pd.DataFrame, *, quote: Quote | None = None) -> pd.DataFrame:
    """Rates in either layout as one long frame: ``date``, ``currency``, ``usd_per_unit``.

    The direction of every rate is read from its name, never guessed:

    * **long form**: columns ``date``, ``currency`` and one value column that
      names its direction, ``usd_per_unit`` (``usd`` is read the same way) or
      ``units_per_usd``, and no other column (another one, a wide ``JPY=X``
      as much as a ``source`` note, is refused by name: select the three). A
      currency written as a pair or a Yahoo ticker (``ETH-USD``, ``JPY=X``: a
      downloader's frame melted) is read by the wide form's rules below when its
      direction is the value column's (``ETH-USD`` under ``usd_per_unit`` is ETH)
      and refused when it is not (``JPY=X``, JPY per USD, under ``usd_per_unit``)
      or has no USD side;
    * **wide form**: a date index (or ``date`` column: datetimes, dates or ISO date text,
      read as the long form's) and one column per
      currency, named as price downloaders name them: ``ETH-USD``, ``ETH/USD``,
      ``ETH_USD``, ``EURUSD`` and Yahoo's ``EURUSD=X`` are USD per unit (the
      quote currency per one unit of the base); ``USD/JPY``, ``USDJPY=X`` and
      Yahoo's three-letter ``JPY=X`` are units per USD. A column named by a
      bare code (``ETH``, ``EUR``) says neither: it needs ``quote``. A pair
      without USD (``EURJPY=X``, ``ETH-BTC``) is refused. So is a column named
      by a price field (``Close``, ``Adj Close``, ``Volume``: a downloader's
      frame of one ticker, which does not say which ticker): select the field
      and name it by its ticker, ``rates[["Close"]].rename(columns={"Close": "ETH-USD"})``.

    Rows without a rate (NaN) are dropped; USD rows are dropped (USD needs no
    rate). Dates are UTC, like the ICOs' dates: time-zone-aware dates in UTC are
    made naive; in another zone they are refused (a daily rate stamped at midnight in
    Tokyo is the day before in UTC: drop the zone, keeping the day written). A
    currency stamped at two times an hour apart, 23:00 and 00:00 (London's midnights
    converted to UTC: the day decided by summer time) or the later from 12:00 on
    (Berlin's 22:00 and 23:00: every one the day before), is refused likewise.

    Parameters
    ----------
    rates : pandas.DataFrame
        Long or wide form, as above.
    quote : {"usd_per_unit", "units_per_usd"}, optional
        The direction of the wide form's bare-code columns (``ETH``: USD per
        ETH, or ETH per USD). Columns whose name states a direction keep it.

    Raises
    ------
    InvalidParameter
        (a ``ValueError``, the package's one class for a bad argument)
        When the layout is neither form, a column's direction is ambiguous or
        has no USD side (the column is named), a date or a rate cannot be read,
        the dates are time-zone-aware in a zone other than UTC,
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
        raise InvalidParameter(f"rates must be a pandas DataFrame, got {type(rates).__name__}")
    if quote is not None and quote not in QUOTES:
        # "USD per unit" as typed: the name it spells (spaces for underscores, any case)
        said = quote.strip().replace(" ", "_") if isinstance(quote, str) else quote
        raise InvalidParameter(f"quote must be one of {', '.join(map(repr, QUOTES))} or None, "
                               f"got {quoted(quote)}{did_you_mean(said, QUOTES)}")
    lower = {str(c).strip().lower(): c for c in rates.columns}
    if "currency" in lower:
        return _long(rates, lower, quote)
    if isinstance(rates.columns, pd.MultiIndex):
        raise InvalidParameter("wide rates need one column level, one column per currency; "
                         "for a downloader's (field, ticker) columns select one field, "
                         "e.g. rates['Close']")
    frame = rates
    if not isinstance(frame.index, pd.DatetimeIndex) and "date" in lower:
        frame = frame.set_index(lower["date"])
    if not _date_index(frame.index):
        raise InvalidParameter("rates must be long form (columns date, currency, usd_per_unit) or "
                         "wide form (a date index or column: datetimes, dates or ISO date "
                         "text; one column per "
                         f"currency); got columns {list(rates.columns)} and an index of "
                         f"{frame.index.dtype} ({type(frame.index).__name__}"
                         + (f", first {quoted(frame.index[0])}" if len(frame.index) else "")
                         + ")")
    read = {c: _wide_column(c, quote) for c in frame.columns}
    refused = [reason for reason in read.values() if isinstance(reason, str)]
    bare = [c for c, how in read.items() if how is None]
    if refused:
        raise InvalidParameter("wide rates: " + "; ".join(refused))
    if bare:
        raise InvalidParameter(
            f"wide rates: columns {bare} do not say which way they are quoted (USD per "
            "unit, or units per USD); name them as price downloaders do ('ETH-USD' and "
            "'EURUSD=X' are USD per unit, 'JPY=X' and 'USD/JPY' are JPY per USD), or pass "
            "quote='usd_per_unit' (or quote='units_per_usd') for bare currency columns, or "
            "give long form with a usd_per_unit column")
    dates = frame.index.to_series(index=None)
    parts: list[pd.DataFrame] = []
    for column, how in read.items():
        assert isinstance(how, tuple)
        code, inverted = how
        raw = _numbers(frame[column])
        if inverted:
            raw = np.divide(1.0, raw, out=raw.copy(), where=raw > 0)
        parts.append(pd.DataFrame({"date": dates.to_numpy(), "currency": code, VALUE: raw}))
    long = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {"date": dates.iloc[:0], "currency": pd.Series([], dtype=object),
         VALUE: pd.Series([], dtype=np.float64)})
    return _clean(long["date"], long["currency"], long[VALUE])


def _date_index(index: pd.Index) -> bool:
    """Whether a wide form's index holds its dates: a DatetimeIndex, or dates or date text
    read as a long form's date column is (:func:`_clean`): ``datetime.date`` values, or
    ``"2021-01-01"`` as ``pd.read_csv(..., index_col=0)`` gives it without ``parse_dates``;
    never numbers (a RangeIndex is no epoch of nanoseconds)."""
    if isinstance(index, pd.DatetimeIndex):
        return True
    if not len(index) or not (pd.api.types.is_object_dtype(index)
                              or pd.api.types.is_string_dtype(index)):
        return False
    values = pd.Series(index, dtype=object)
    if values.map(lambda v: isinstance(v, numbers.Number)).any():
        return False
    try:
        pd.to_datetime(values, format="ISO8601")
    except (ValueError, TypeError):
        return False
    return True


def _long(rates: pd.DataFrame, lower: Mapping[str, Hashable], quote: Quote | None) -> pd.DataFrame:
    if quote is not None:
        raise InvalidParameter("quote= is for the bare currency columns of wide rates; long form "
                         "names its direction by its value column (usd_per_unit or "
                         "units_per_usd)")
    values = [name for name in _LONG_VALUES if name in lower]
    if len(values) > 1:
        raise InvalidParameter(f"long-form rates need one value column, got {values}: "
                         f"{', '.join(_LONG_VALUES)} each name a direction")
    missing = [c for c in ("date", "currency") if c not in lower] + (
        [] if values else ["usd_per_unit (or units_per_usd)"])
    if missing:
        raise InvalidParameter(f"long-form rates need columns date, currency and usd_per_unit "
                         f"(or units_per_usd); missing: {', '.join(missing)} "
                         f"(got {list(rates.columns)})")
    # another column is never dropped unread: a wide "JPY=X" beside long rates left
    # every JPY amount without a rate, and nothing said why
    other = [c for key, c in lower.items() if key not in ("date", "currency", values[0])]
    if other:
        raise InvalidParameter(
            f"long-form rates take columns date, currency and {values[0]} only; got "
            f"{', '.join(map(repr, other))} too: select the three "
            f"(rates[['date', 'currency', '{values[0]}']]), or give each currency's rates "
            "in one layout (wide columns such as 'JPY=X' go in a wide frame)")
    value = rates[lower[values[0]]]
    if values[0] == "units_per_usd":
        raw = _numbers(value)
        value = pd.Series(np.divide(1.0, raw, out=raw.copy(), where=raw > 0))
    currency = _long_currencies(rates[lower["currency"]], values[0])
    return _clean(rates[lower["date"]], currency, value)


# a currency written as a pair or a Yahoo ticker: "ETH-USD", "USD/JPY", "JPY=X", "EURUSD"
_PAIRED: Final = re.compile(r"[^/_-]+[/_-][^/_-]+|.*=X|[A-Z]{3}USD|USD[A-Z]{3}")


def _long_currencies(currency: pd.Series, column: str) -> pd.Series:
    """The long form's currencies, a pair or Yahoo ticker (a melted downloader's frame:
    ``ETH-USD``, ``JPY=X``) read by the wide form's rules as its currency, and refused
    when its direction contradicts the value column's (``JPY=X``, JPY per USD, under
    ``usd_per_unit``) or it has no USD side (``ETH-BTC``): it matched no unit before."""
    inverted = column == "units_per_usd"
    read: dict[str, str] = {}
    refused: list[str] = []
    for name in {c for c in currency.tolist() if isinstance(c, str)}:
        text = name.strip().upper()
        known = canonical_unit(text)
        if known in UNIT_ALIASES or known in FIAT_CODES or not _PAIRED.fullmatch(text):
            continue
        how = _wide_column(name, None)
        if isinstance(how, str) or how is None:  # (the wide form's reason, for a currency)
            refused.append((how or f"column {name!r} names no currency").replace(
                f"column {name!r}", f"currency {name!r}", 1))
        elif how[1] != inverted:
            said = f"{how[0]} per USD" if how[1] else f"USD per {how[0]}"
            refused.append(f"currency {name!r} is {said}, but the value column {column} says "
                           f"{'units per USD' if inverted else 'USD per unit'}")
        else:
            read[name] = how[0]
    if refused:
        raise InvalidParameter(
            "long-form rates: " + "; ".join(sorted(refused)) + ". Name each currency by its "
            "code ('ETH', 'JPY') in a value column of its direction (usd_per_unit: USD per "
            "unit; units_per_usd: units per USD)")
    if not read:
        return currency
    return currency.map(lambda c: read.get(c, c) if isinstance(c, str) else c)


def _numbers(values: pd.Series) -> np.ndarray:
    series = pd.Series(values).reset_index(drop=True)
    try:
        number = pd.to_numeric(series, errors="raise")
    except (ValueError, TypeError):
        # the value named here, not in pandas' words (its quotes differ between versions)
        unread = pd.to_numeric(series.astype(object), errors="coerce").isna() & series.notna()
        where = int(np.argmax(unread.to_numpy())) if unread.any() else 0
        raise InvalidParameter(f"rates: values must be numbers, got {quoted(series.iloc[where])}"
                               f" at position {where}") from None
    return number.to_numpy(dtype=np.float64, na_value=np.nan)


# "ETH-USD", "eth/usd", "BTC_USD", "USD/JPY": base, separator, quote currency.
_PAIR: Final = re.compile(r"([A-Z0-9.]+?)\s*[-/_ ]\s*([A-Z0-9.]+)")
# Units the vocabulary knows that no government issues: never in Yahoo's "XXX=X" form.
_CRYPTO: Final = frozenset(UNIT_ALIASES) - FIAT_CODES
# "EURUSD", "USDJPY" (and Yahoo's "EURUSD=X"): two three-letter codes, base first.
_SIX: Final = re.compile(r"([A-Z]{3})([A-Z]{3})")


def _wide_column(name: object, quote: Quote | None) -> tuple[str, bool] | str | None:
    """(currency, inverted) of one wide column, None when its name states no
    direction, or the reason it is refused."""
    text = str(name).strip().upper()
    if " ".join(text.split()).casefold() in PRICE_FIELDS:
        return (f"column {name!r} names a price field, not a currency (a downloader's frame "
                "of one ticker does not say which); select the field and name it by its "
                f"ticker, e.g. rates[[{name!r}]].rename(columns={{{name!r}: 'ETH-USD'}})")
    if text.endswith("=X"):  # Yahoo's FX tickers
        body = text[:-2]
        if re.fullmatch(r"[A-Z]{3}", body):
            fiat = canonical_unit(body) or body
            if fiat in _CRYPTO:  # Yahoo has no "ETH=X": its crypto tickers are "ETH-USD"
                return (f"column {name!r} is not a Yahoo ticker: 'XXX=X' is a government "
                        f"currency per USD; for {fiat} give '{fiat}-USD' (USD per {fiat})")
            return fiat, True  # "JPY=X": JPY per USD
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


def _check_utc(when: pd.Series, zone: dt.tzinfo) -> None:
    """Time-zone-aware dates in UTC (a zone that is always 0 hours from it) are read as
    UTC; in any other zone they are refused, with the fix: a daily rate is the rate of the
    date written in its zone, and converted to UTC a midnight stamp there may fall on the
    day before (in Tokyo 15:00 UTC; in London 23:00 UTC in summer, 00:00 in winter), so
    an ICO would take the next day's rate, some days or all year.
    Both the zone (sampled in January and July) and the dates' own offsets are checked: a
    zone at 0 hours in 2001 may not be in the year of the rates (Africa/Casablanca, +01:00
    from 2018)."""
    offsets = {pd.Timestamp(f"2001-{month}-01", tz=zone).utcoffset() for month in (1, 7)}
    dated = when.dropna()
    shifted = dated[dated.dt.tz_localize(None) != dated.dt.tz_convert("UTC").dt.tz_localize(None)]
    if offsets == {pd.Timedelta(0)} and shifted.empty:
        return
    first = dated if shifted.empty else shifted
    stamp = "" if first.empty else (
        f": {first.iloc[0]} is {first.iloc[0].tz_convert('UTC'):%Y-%m-%d %H:%M} UTC")
    raise InvalidParameter(
        f"rates: the dates are time-zone-aware in {zone}, not UTC{stamp}, and a rate is "
        "taken for the UTC day of its date (the ICOs' dates are UTC). Drop the zone, "
        ".tz_localize(None): each date is then the rate of the day written (converted to "
        "UTC instead, a midnight east of UTC, or in London in summer, falls on the day before)")


def _check_summer_time(out: pd.DataFrame, aware: bool) -> None:
    """Refused: a currency whose two commonest stamp times (each on several days, most of
    its rates between them) are an hour apart as a zone's midnights in winter and summer
    time are once converted to UTC, where a rate read by its UTC day is not that of the
    day written: 23:00 and 00:00 (London, Lisbon, Dublin: the summer's are the day
    before's), or the later from 12:00 on (a midnight east of UTC, Berlin's 22:00 and
    23:00, Sydney's 13:00 and 14:00: every one is the day before's). Two times an hour
    apart in the morning, New York's 04:00 and 05:00, are midnights of the same day: kept
    (afternoon ones may be a close, of their day: the message says how to keep those).
    ``aware``: the dates were given aware in UTC (the advice differs for naive ones)."""
    minutes = (out["date"] - out["date"].dt.floor("D")) // pd.Timedelta(minutes=1)
    for currency, stamps in minutes.groupby(out["currency"]):
        counts = stamps.value_counts()
        held = counts[counts >= 2]
        # by count, then time: the same two for any row order; rates of every hour
        # (refused below as not daily) have no two times holding most of them
        top = sorted(zip((-held.to_numpy()).tolist(), held.index.to_numpy().tolist(),
                         strict=True))[:2]
        if len(top) < 2 or -2 * (top[0][0] + top[1][0]) <= len(stamps):
            continue
        early, late = sorted(int(minute) for _, minute in top)
        straddle = early + 24 * 60 - late == 60
        if not (straddle or (late - early == 60 and late >= 12 * 60)):
            continue
        back = (".tz_convert(zone).tz_localize(None)" if aware else
                ".tz_localize('UTC').tz_convert(zone).tz_localize(None)")
        raise InvalidParameter(
            f"rates: the rates of {currency} are stamped at {_clock(early)} on some days "
            f"and {_clock(late)} on others, as a zone's midnights in winter and summer time "
            "are once converted to UTC, and a rate is taken for the UTC day of its date, so "
            + ("the summer's would be the day before's" if straddle else
               "each would be the day before's (a midnight east of UTC)")
            + f". Give the days written in that zone: {back} on these dates "
            "(.dt. on a long form's date column), or .tz_localize(None) on dates still "
            "aware in the zone"
            + ("" if straddle else "; if they are times of the day they are stamped on "
               "(an afternoon close), .normalize() them (.dt.normalize())"))


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d} UTC"


def _clean(dates: pd.Series, currency: pd.Series, usd: pd.Series) -> pd.DataFrame:
    try:
        if pd.api.types.is_datetime64_any_dtype(dates):
            when = pd.Series(dates).reset_index(drop=True)
        else:
            when = pd.to_datetime(pd.Series(dates).reset_index(drop=True), format="ISO8601")
    except (ValueError, TypeError) as exc:
        raise InvalidParameter(f"rates: dates could not be read ({exc})") from None
    zone = getattr(when.dt, "tz", None)
    if zone is not None:
        _check_utc(when, zone)
        when = when.dt.tz_convert("UTC").dt.tz_localize(None)
    value = pd.Series(_numbers(usd))
    codes = canonical_units(pd.Series(currency))
    out = pd.DataFrame({"date": when.astype(MS), "currency": pd.Series(codes, dtype=object),
                        VALUE: value.astype(np.float64)})
    out = out[out[VALUE].notna() & out["date"].notna() & out["currency"].notna()]
    out = out[out["currency"] != "USD"]
    if (out[VALUE] <= 0).any() or np.isinf(out[VALUE]).any():
        bad = out.loc[(out[VALUE] <= 0) | np.isinf(out[VALUE])].iloc[0]
        raise InvalidParameter(f"rates: USD per unit must be positive and finite; "
                         f"{bad['currency']} on {bad['date'].date()} is {bad[VALUE]}")
    out = out.drop_duplicates()
    _check_summer_time(out, zone is not None)
    # a daily rate is its UTC day's whatever time of day it is stamped at (a daily close
    # at 12:00): to_usd joins by day, so two rates of one day would be one too many
    day = out[["currency", VALUE]].assign(date=out["date"].dt.floor("D")).drop_duplicates()
    clash = day.duplicated(["date", "currency"], keep=False)
    if clash.any():
        first = day[clash].iloc[0]
        raise InvalidParameter(f"rates: two different rates of {first['currency']} on "
                               f"{first['date']:%Y-%m-%d}; rates are daily, one rate per UTC "
                               "day (its time of day is not read): for rates of the hour, "
                               "keep one a day, e.g. each day's last")
    return out.sort_values(["date", "currency"], kind="stable").reset_index(drop=True)
