"""Token prices in time: the ICO's price during the sale, a market price after it.

Spec 2.3: ``token_price`` is "a fixed value during the ICO; after the ICO, the
current market price from a third-party market data provider". So a price
fetched after the ICO's end is the market price as of ``fetched_at``, and
:func:`icoframes.to_usd` converts it at that moment (:func:`price_dates`); the
ICO price itself is only in a snapshot taken while the sale ran
(:func:`sale_prices`).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import pandas as pd

from ..errors import InvalidParameter
from .quotes import MS

__all__ = ["naive_dates", "price_dates", "sale_prices"]

#: The columns :func:`sale_prices` returns besides ``id``.
SALE_PRICE_COLUMNS: Final = ("token_price", "token_price_unit", "start_datetime", "end_datetime",
                             "price_fetched_at", "snapshot_date")


def naive_dates(values: pd.Series) -> np.ndarray:
    """A date column as naive UTC datetime64[ms]: aware dates converted, text read as ISO 8601.

    Milliseconds, like the ICOs' dates: a profile's year 9999 is beyond the
    nanoseconds' 2262 and must not fail a conversion.
    """
    if not pd.api.types.is_datetime64_any_dtype(values):
        values = pd.to_datetime(values, format="ISO8601")
    if isinstance(values.dtype, pd.DatetimeTZDtype):
        values = values.dt.tz_convert("UTC").dt.tz_localize(None)
    return values.astype(MS).to_numpy()


def price_dates(icos: pd.DataFrame, sale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The date each ``token_price`` is converted at, and which ICOs are past their end.

    What a price means is fixed when its profile is fetched: a profile fetched
    after the ICO's end holds a market price as of ``fetched_at``, converted
    then (NaT when not known); any other holds the ICO price, converted at
    ``sale`` (its conversion date). A profile was fetched after the end when
    the list it was fetched under showed the ICO ``past``
    (``fetched_status``), or when its ``end_datetime`` is before its
    ``fetched_at`` (a status not updated yet). ``status`` is the list's of the
    day the frame was loaded, so it is not read: a row kept from an earlier
    fetch (not refreshed: a budget, the daily limit) is listed ``past`` once
    the sale is over, though its price is still the one fetched during the
    sale; and a sale the service lists ``past`` may have ended before its
    stated end. A row without ``fetched_status`` (a frame of a version before
    it, or built by hand) is read by its ``status`` instead. A frame without
    either and without ``fetched_at`` (:func:`sale_prices`) is read as prices
    of the sale.

    Examples
    --------
    >>> icos = pd.DataFrame({
    ...     "status": ["past", "ongoing", "ongoing", "past", "past"],
    ...     "fetched_status": ["past", "ongoing", "ongoing", "past", "ongoing"],
    ...     "end_datetime": pd.to_datetime(["2018-03-31", "2026-12-31", "2026-01-31",
    ...                                     "2026-12-31", "2026-12-31"], format="ISO8601"),
    ...     "fetched_at": pd.to_datetime(["2026-11-20 14:00"] * 5, format="ISO8601", utc=True)})
    >>> when, past = price_dates(icos, naive_dates(icos["end_datetime"]))
    >>> [str(d)[:10] for d in when], past.tolist()
    (['2026-11-20', '2026-12-31', '2026-11-20', '2026-11-20', '2026-12-31'], \
[True, False, True, True, False])
    """
    n = len(icos)
    nat = np.full(n, np.datetime64("NaT"), dtype=MS)
    fetched = naive_dates(icos["fetched_at"]) if "fetched_at" in icos.columns else nat
    end = naive_dates(icos["end_datetime"]) if "end_datetime" in icos.columns else nat
    past = ~np.isnat(end) & ~np.isnat(fetched) & (end < fetched)
    past |= _fetched_under(icos).eq("past").fillna(False).to_numpy(dtype=bool)
    return np.where(past, fetched, sale), past


def _fetched_under(icos: pd.DataFrame) -> pd.Series:
    """Each row's status when its profile was fetched, lower case: ``fetched_status``
    where known, else ``status`` (the list's; the same for a row fetched by its load)."""
    status = pd.Series(pd.NA, index=icos.index, dtype="string")
    for column in ("status", "fetched_status"):
        if column in icos.columns:
            given = icos[column].astype("string").str.strip().str.lower()
            status = status.mask(given.notna(), given)
    return status


def sale_prices(snapshots: pd.DataFrame) -> pd.DataFrame:
    """The ICO price of each ICO, from the snapshots taken while its sale ran.

    Parameters
    ----------
    snapshots : pandas.DataFrame
        The ``icos`` table over snapshots, as :func:`icoframes.read_snapshots`
        returns it (``snapshot_date``, ``id``, ``status``, ``token_price``,
        ``token_price_unit``, ``start_datetime``, ``end_datetime``, ``fetched_at``).

    Returns
    -------
    pandas.DataFrame
        One row per ICO seen during its sale (fetched under the status
        ``ongoing``, ``fetched_status``, else ``status``, and not after its
        end), from the last such snapshot, sorted by ``id``:
        ``id``, ``token_price`` and ``token_price_unit`` (the ICO price),
        ``start_datetime``, ``end_datetime``, ``price_fetched_at`` (when that
        profile was fetched) and ``snapshot_date``. An ICO never seen during its
        sale is absent: its ICO price is not known. ``to_usd(prices, rates,
        columns=["token_price"])`` converts these at the sale.

    Examples
    --------
    >>> snaps = pd.DataFrame({
    ...     "snapshot_date": pd.to_datetime(["2026-11-01", "2026-11-02", "2026-11-03"],
    ...                                     format="ISO8601"),
    ...     "id": [7, 7, 7], "status": ["ongoing", "ongoing", "past"],
    ...     "token_price": [0.10, 0.12, 3.5], "token_price_unit": ["USD"] * 3,
    ...     "start_datetime": pd.to_datetime(["2026-10-01"] * 3, format="ISO8601"),
    ...     "end_datetime": pd.to_datetime(["2026-11-02 12:00"] * 3, format="ISO8601"),
    ...     "fetched_at": pd.to_datetime(["2026-11-01 03:15", "2026-11-02 03:15",
    ...                                   "2026-11-03 03:15"], format="ISO8601", utc=True)})
    >>> sale_prices(snaps)[["id", "token_price", "price_fetched_at"]].to_string(index=False)
    ' id  token_price          price_fetched_at\\n  7         0.12 2026-11-02 03:15:00+00:00'
    """
    needed = ["id", "status", "token_price", "token_price_unit", "start_datetime",
              "end_datetime", "fetched_at"]
    absent = [c for c in needed if c not in snapshots.columns]
    if absent:
        raise InvalidParameter(f"snapshots lack columns {absent}: give the icos table of "
                         "icoframes.read_snapshots(out)")
    fetched = naive_dates(snapshots["fetched_at"])
    end = naive_dates(snapshots["end_datetime"])
    status = _fetched_under(snapshots)  # (a row kept from a fetch during the sale is one)
    running = status.eq("ongoing").fillna(False).to_numpy(dtype=bool) & ~(end < fetched)
    during = snapshots.loc[running].assign(_order=fetched[running])
    last = during.sort_values(["id", "_order"], kind="stable").drop_duplicates("id", keep="last")
    out = last.rename(columns={"fetched_at": "price_fetched_at"})
    if "snapshot_date" not in out.columns:
        out = out.assign(snapshot_date=np.full(len(out), np.datetime64("NaT"), dtype=MS))
    return out[["id", *SALE_PRICE_COLUMNS]].reset_index(drop=True)
