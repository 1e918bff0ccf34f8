"""A fetched token price keeps its meaning: the same fetch converts to the same USD every day,
whatever the ICO is listed under on a later day; and a daily rate applies to its whole UTC day."""

from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.money import to_usd


@pytest.fixture
def sb():  # one per test: each moves the ongoing sales to past
    with sandbox.serve(n_icos=300, seed=11) as server:
        yield server


def _day(day: int) -> time_machine.travel:
    return time_machine.travel(dt.datetime(2026, 11, day, 3, 15, tzinfo=dt.UTC), tick=False)


def _usd(icos: pd.DataFrame) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # prices in no currency, no dates
        return to_usd(icos, sandbox.rates(), columns=["token_price"])


def test_a_kept_row_listed_past_converts_as_on_the_day_it_was_fetched(cfg, tmp_path):
    """Day 1 the ongoing sales are fetched; day 2 the service lists them past and the
    export keeps their day-1 profiles (budget 0). Each fetch has one USD price in both
    snapshots: the ICO price at the sale, not a market price at the fetch."""
    out = tmp_path / "out"
    with _day(1):
        icoframes.export_tables(out, snapshot=True, progress=False)
    ongoing = cfg.directory.ids("ongoing")
    for ico_id in ongoing:  # the sales ended early: the profiles' end dates stay
        cfg.update_ico(ico_id, status="past")
    with _day(2), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # rows kept: expected, budget 0
        second = icoframes.export_tables(out, snapshot=True, budget=0, progress=False)
    assert {r["id"] for r in second.not_refreshed} >= set(ongoing)
    snaps = icoframes.read_snapshots(out)
    snaps = snaps[snaps["id"].isin(ongoing)].sort_values(["id", "snapshot_date"])
    day1, day2 = (snaps[snaps["snapshot_date"].dt.day == d].reset_index(drop=True)
                  for d in (1, 2))
    assert (day1["status"] == "ongoing").all() and (day2["status"] == "past").all()
    # the same fetch on both days (kept, not refetched), fetched before its sale's end
    pd.testing.assert_series_equal(day1["fetched_at"], day2["fetched_at"])
    running = (day2["end_datetime"] > day2["fetched_at"].dt.tz_localize(None)).to_numpy()
    assert running.sum() >= 10
    first, kept = _usd(day1), _usd(day2)
    priced = first["token_price_usd"].notna().to_numpy() & running
    assert priced.sum() >= 5  # ETH, BTC and USD prices among them
    assert set(day1["token_price_unit"][priced]) >= {"ETH", "USD"}
    np.testing.assert_array_equal(kept["token_price_usd"].to_numpy()[running],
                                  first["token_price_usd"].to_numpy()[running])
    np.testing.assert_array_equal(kept["token_price_usd_date"].to_numpy()[running],
                                  first["token_price_usd_date"].to_numpy()[running])
    # converted at the sale (its end), as the ICO price it was fetched as
    np.testing.assert_array_equal(kept["token_price_usd_date"].to_numpy()[running],
                                  day2["end_datetime"].to_numpy().astype("datetime64[ms]")[running])
    assert str(kept["token_price_usd"].dtype) == "float64"
    assert str(kept["token_price_usd_date"].dtype) == "datetime64[ms]"


def test_a_kept_row_of_a_load_converts_the_same_on_both_days(cfg):
    """The same through load_icos: the day-2 frame's kept row is not re-read as a
    market price because today's list says past."""
    with _day(1):
        first = icoframes.load_icos(status="ongoing", progress=False)
    ids = first["id"].tolist()
    for ico_id in ids:
        cfg.update_ico(ico_id, status="past")
    with _day(2), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # rows kept, new ones not fetched
        later = icoframes.load_icos(status="past", refresh=True, budget=0, progress=False)
    later = later[later["id"].isin(ids)].set_index("id").loc[ids].reset_index()
    assert len(later) == len(ids) and (later["status"] == "past").all()
    pd.testing.assert_series_equal(later["fetched_at"], first["fetched_at"])
    before, after = _usd(first), _usd(later)
    running = (first["end_datetime"] > first["fetched_at"].dt.tz_localize(None)).to_numpy()
    assert running.sum() >= 10 and before["token_price_usd"][running].notna().sum() >= 5
    # (a profile without an end date is judged by the status of the frame's list: not here)
    np.testing.assert_array_equal(after["token_price_usd"].to_numpy()[running],
                                  before["token_price_usd"].to_numpy()[running])
    np.testing.assert_array_equal(after["token_price_usd_date"].to_numpy()[running],
                                  before["token_price_usd_date"].to_numpy()[running])


def test_a_fetch_after_the_end_or_without_an_end_date_stays_a_market_price():
    """The profile's own dates decide; the status only for a profile without an end date
    or a fetch time."""
    rates = pd.DataFrame({"date": ["2026-11-20", "2027-02-13"], "currency": "ETH",
                          "usd_per_unit": [3000.0, 1000.0]})
    icos = pd.DataFrame({
        "status": pd.array(["past", "past", "ongoing", "past"], dtype="string"),
        "token_price": [0.001] * 4, "token_price_unit": ["ETH"] * 4,
        "end_datetime": pd.to_datetime(["2026-11-01", None, "2026-11-01", "2027-02-13"]),
        "fetched_at": pd.to_datetime(["2026-11-20 14:00"] * 4, utc=True)})
    out = to_usd(icos, rates, columns=["token_price"], date="end_datetime", rate_max_age=None)
    # ended before the fetch (either status), or past without an end: at the fetch;
    # past with an end after the fetch: the price of a sale still running when fetched
    assert out["token_price_usd"].tolist() == pytest.approx([3.0, 3.0, 3.0, 1.0])
    assert out["token_price_usd_date"].astype(str).tolist() == [
        "2026-11-20 14:00:00", "2026-11-20 14:00:00", "2026-11-20 14:00:00", "2027-02-13 00:00:00"]


# ------------------------------------------------------------ a daily rate is its whole day

def _ending(*ends: str) -> pd.DataFrame:
    n = len(ends)
    return pd.DataFrame({"hard_cap": [1.0] * n, "caps_unit": ["ETH"] * n,
                         "end_datetime": pd.to_datetime(list(ends))})


@pytest.mark.parametrize("stamp", ["00:00", "12:00", "23:59:59"])
def test_a_daily_rate_applies_to_its_whole_utc_day_whatever_its_time_of_day(stamp):
    rates = pd.DataFrame({"date": pd.to_datetime([f"2026-11-13 {stamp}", f"2026-11-14 {stamp}"]),
                          "currency": "ETH", "usd_per_unit": [100.0, 200.0]})
    icos = _ending("2026-11-14 00:00", "2026-11-14 18:00", "2026-11-13 00:00", "2026-11-21 23:00")
    out = to_usd(icos, rates, columns=["hard_cap"], date="end_datetime")
    # 11-21 is 7 days after the last rate's day: within rate_max_age "7D", counted in days
    assert out["hard_cap_usd"].tolist() == [200.0, 200.0, 100.0, 200.0]
    assert str(out["hard_cap_usd"].dtype) == "float64"
    aware = rates.assign(date=rates["date"].dt.tz_localize("UTC"))
    out = to_usd(icos, aware, columns=["hard_cap"], date="end_datetime")
    assert out["hard_cap_usd"].tolist() == [200.0, 200.0, 100.0, 200.0]


def test_two_rates_in_one_utc_day_are_refused_as_not_daily():
    rates = pd.DataFrame({"date": pd.to_datetime(["2026-11-14 00:00", "2026-11-14 12:00"]),
                          "currency": "ETH", "usd_per_unit": [100.0, 200.0]})
    daily = r"ETH on 2026-11-14; rates are daily, one rate per UTC day"
    with pytest.raises(InvalidParameter, match=daily):
        to_usd(_ending("2026-11-14 18:00"), rates, columns=["hard_cap"], date="end_datetime")
