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
from icoframes.money import sale_prices, to_usd


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
    no_end = day2["end_datetime"].isna().to_numpy() & (day2["token_price_unit"] != "USD").to_numpy()
    assert no_end.any() and first["token_price_usd"][no_end].notna().any()
    # every row, those without an end date too: the same USD price on the same date
    np.testing.assert_array_equal(kept["token_price_usd"].to_numpy(),
                                  first["token_price_usd"].to_numpy())
    np.testing.assert_array_equal(kept["token_price_usd_date"].to_numpy(),
                                  first["token_price_usd_date"].to_numpy())
    # converted at the sale (its end), as the ICO price it was fetched as
    np.testing.assert_array_equal(kept["token_price_usd_date"].to_numpy()[running],
                                  day2["end_datetime"].to_numpy().astype("datetime64[ms]")[running])
    assert str(kept["token_price_usd"].dtype) == "float64"
    assert str(kept["token_price_usd_date"].dtype) == "datetime64[ms]"
    # the snapshot keeps the status each was fetched under beside the day's
    assert (day2["fetched_status"] == "ongoing").all()


def test_a_price_is_read_by_the_status_it_was_fetched_under(cfg):
    """Day 1 every ICO is fetched; then the service lists its ongoing sales past, their
    stated ends unchanged (sales that ended early, or a status ahead of the dates). Day 2
    refetches some of them (a budget) and keeps the others' day-1 profiles. A refetched
    profile was fetched under past: a market price, converted at its fetch, though its end
    is later. A kept one was fetched under ongoing: the ICO price, converted as on day 1,
    with an end date or without one."""
    with _day(1):
        icoframes.load_icos(progress=False)
        first = icoframes.load_icos(status="ongoing", progress=False)
    ids = first["id"].tolist()
    for ico_id in ids:
        cfg.update_ico(ico_id, status="past")
    with _day(2), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # rows kept: expected, a budget
        later = icoframes.load_icos(status="past", refresh=True, budget=len(ids) // 2,
                                    progress=False)
    later = later[later["id"].isin(ids)].set_index("id").loc[ids].reset_index()
    assert len(later) == len(ids) and (later["status"] == "past").all()
    fresh = (later["fetched_at"] != first["fetched_at"]).to_numpy()
    assert 3 <= fresh.sum() <= len(ids) - 3
    before, after = _usd(first), _usd(later)
    foreign = (later["token_price_unit"] != "USD").to_numpy() & after["token_price_usd"].notna()
    # fetched under past with the stated end still ahead: a market price, at the fetch
    ahead = (later["end_datetime"] > later["fetched_at"].dt.tz_localize(None)).to_numpy()
    assert (fresh & ahead & foreign).sum() >= 2
    np.testing.assert_array_equal(after["token_price_usd_date"].to_numpy()[fresh],
                                  later["fetched_at"].dt.tz_localize(None).to_numpy()
                                  .astype("datetime64[ms]")[fresh])
    # kept: as on the day it was fetched, a row without an end date among them
    assert (~fresh & foreign).sum() >= 2 and (~fresh & foreign & later["end_datetime"].isna()).any()
    np.testing.assert_array_equal(after["token_price_usd"].to_numpy()[~fresh],
                                  before["token_price_usd"].to_numpy()[~fresh])
    np.testing.assert_array_equal(after["token_price_usd_date"].to_numpy()[~fresh],
                                  before["token_price_usd_date"].to_numpy()[~fresh])
    # the frame says which status each was fetched under
    assert (later["fetched_status"][fresh] == "past").all()
    assert (later["fetched_status"][~fresh] == "ongoing").all()


def test_the_status_fetched_under_decides_and_the_listed_one_stands_in_without_it():
    """The rule as a table: fetched under past, or ended before the fetch: a market price at
    the fetch; fetched under ongoing with the end ahead: the ICO price at the sale, whatever
    the row is listed under now; a frame without fetched_status is read by its status."""
    rates = pd.DataFrame({"date": ["2026-09-01", "2026-11-20", "2027-02-13"], "currency": "ETH",
                          "usd_per_unit": [500.0, 3000.0, 1000.0]})
    icos = pd.DataFrame({
        "status": pd.array(["past", "past", "ongoing", "past", "past", "past"], dtype="string"),
        "fetched_status": pd.array(["past", "past", "ongoing", "ongoing", "ongoing", None],
                                   dtype="string"),
        "token_price": [0.001] * 6, "token_price_unit": ["ETH"] * 6,
        "start_datetime": pd.to_datetime(["2026-09-01"] * 6),
        "end_datetime": pd.to_datetime(["2026-11-01", "2027-02-13", "2026-11-01", "2027-02-13",
                                        None, "2027-02-13"]),
        "fetched_at": pd.to_datetime(["2026-11-20 14:00"] * 6, utc=True)})
    out = to_usd(icos, rates, columns=["token_price"], rate_max_age=None)
    # ended before the fetch; fetched under past with the end ahead (an early end); a stale
    # ongoing; kept rows fetched during the sale (at its end, or its start without one); and
    # without the status fetched under, the listed one
    assert out["token_price_usd"].tolist() == pytest.approx([3.0, 3.0, 3.0, 1.0, 0.5, 3.0])
    assert out["token_price_usd_date"].astype(str).tolist() == [
        "2026-11-20 14:00:00", "2026-11-20 14:00:00", "2026-11-20 14:00:00",
        "2027-02-13 00:00:00", "2026-09-01 00:00:00", "2026-11-20 14:00:00"]
    older = to_usd(icos.drop(columns="fetched_status"), rates, columns=["token_price"],
                   rate_max_age=None)
    assert older["token_price_usd"].tolist() == pytest.approx([3.0, 3.0, 3.0, 3.0, 3.0, 3.0])


def test_sale_prices_take_a_row_fetched_during_the_sale_whatever_it_is_listed_under():
    """ICO 7's only snapshot row is kept from a fetch during its sale, listed past that day:
    its price is the ICO price. ICO 8's row, listed ongoing, was fetched under past."""
    snaps = pd.DataFrame({
        "snapshot_date": pd.to_datetime(["2026-11-02", "2026-11-02"]), "id": [7, 8],
        "status": ["past", "ongoing"], "fetched_status": ["ongoing", "past"],
        "token_price": [0.1, 3.5], "token_price_unit": ["USD", "USD"],
        "start_datetime": pd.to_datetime(["2026-10-01"] * 2),
        "end_datetime": pd.to_datetime(["2026-12-31"] * 2),
        "fetched_at": pd.to_datetime(["2026-11-01 03:15", "2026-11-02 03:15"], utc=True)})
    prices = sale_prices(snaps)
    assert prices["id"].tolist() == [7] and prices["token_price"].tolist() == [0.1]


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


# ------------------------------------------------------------ rates of another time zone

def _london_weekdays() -> pd.DataFrame:
    """A Yahoo FX shape: weekday bars at midnight in London; each value names its day."""
    days = pd.date_range("2026-01-01", "2026-08-31", freq="D")
    rates = pd.DataFrame({"EURUSD=X": 1.0 + np.arange(len(days)) / 1000},
                         index=days.tz_localize("Europe/London"))
    return rates[rates.index.day_of_week < 5]


def _days_taken(rates: pd.DataFrame) -> list[str]:
    icos = pd.DataFrame({"hard_cap": [1.0] * 3, "caps_unit": ["EUR"] * 3,
                         "end_datetime": pd.to_datetime(["2026-07-15 00:00", "2026-07-15 12:00",
                                                         "2026-01-15 00:00"])})
    usd = to_usd(icos, rates, columns=["hard_cap"], date="end_datetime")["hard_cap_usd"]
    first = pd.Timestamp("2026-01-01")
    return [f"{first + pd.Timedelta(days=round((v - 1.0) * 1000)):%m-%d}" for v in usd]


def test_rates_in_a_zone_with_summer_time_keep_their_day_summer_and_winter():
    """The refusal's fix gives each rate the day written, in July as in January; rates
    converted to UTC, London's midnights at 23:00 in summer and 00:00 in winter, are
    refused, not read as the day before's in summer only."""
    london = _london_weekdays()
    with pytest.raises(InvalidParameter) as refused:
        _days_taken(london)
    assert ".tz_localize(None)" in str(refused.value)
    assert "tz_convert('UTC')" not in str(refused.value)  # it made summer days the day before's
    assert _days_taken(london.tz_localize(None)) == ["07-15", "07-15", "01-15"]
    converted = london.tz_convert("UTC")
    assert {f"{t:%H:%M}" for t in converted.index} == {"00:00", "23:00"}
    summer = (r"the rates of EUR are stamped at 00:00 UTC on some days and 23:00 UTC on "
              r"others, .* the summer's would be the day before's")
    with pytest.raises(InvalidParameter, match=summer + r".*: \.tz_convert\(zone\)"):
        _days_taken(converted)
    naive = summer + r".*: \.tz_localize\('UTC'\)\.tz_convert\(zone\)\.tz_localize\(None\)"
    with pytest.raises(InvalidParameter, match=naive):  # the same stamps naive, long form
        _days_taken(converted.tz_localize(None).rename_axis("date").reset_index()
                    .rename(columns={"EURUSD=X": "usd_per_unit"}).assign(currency="EUR"))
    assert _days_taken(converted.tz_convert("Europe/London").tz_localize(None)) == [
        "07-15", "07-15", "01-15"]
    # New York's midnights, 04:00 and 05:00 UTC, stay on their day: taken as they are
    new_york = london.tz_localize(None).tz_localize("America/New_York").tz_convert("UTC")
    assert _days_taken(new_york) == ["07-15", "07-15", "01-15"]


def _midnights_in_utc(zone: str) -> pd.DataFrame:
    """Daily rates stamped at the zone's midnight, converted to UTC."""
    return _london_weekdays().tz_localize(None).tz_localize(zone).tz_convert("UTC")


@pytest.mark.parametrize(("zone", "stamps"), [("Europe/Berlin", "22:00 UTC.*23:00 UTC"),
                                              ("Australia/Sydney", "13:00 UTC.*14:00 UTC")])
def test_midnights_east_of_utc_with_summer_time_converted_to_utc_are_refused(zone, stamps):
    """Berlin's midnights are 22:00 or 23:00 UTC the day before: read by UTC day, every
    rate would be the next day's, so they are refused; the advice, for the dates aware in
    UTC or made naive, gives each its day."""
    converted = _midnights_in_utc(zone)
    east = rf"stamped at {stamps} on others.*each would be the day before's"
    with pytest.raises(InvalidParameter, match=east) as refused:
        _days_taken(converted)
    assert ".tz_convert(zone).tz_localize(None) on these dates" in str(refused.value)
    assert _days_taken(converted.tz_convert(zone).tz_localize(None)) == [
        "07-15", "07-15", "01-15"]
    naive = converted.tz_localize(None)
    with pytest.raises(InvalidParameter, match=east) as refused:
        _days_taken(naive)
    advice = ".tz_localize('UTC').tz_convert(zone).tz_localize(None)"
    assert advice in str(refused.value)
    assert _days_taken(naive.tz_localize("UTC").tz_convert(zone).tz_localize(None)) == [
        "07-15", "07-15", "01-15"]
    # stamps of the day they are on (a close in the afternoon) are given as days
    assert _days_taken(naive.set_axis(naive.index.normalize())) == ["07-16", "07-16", "01-16"]


def test_the_summer_time_refusal_reads_the_two_commonest_stamp_times():
    """London's midnights in UTC and two rates stamped at noon: the 23:00 and 00:00 are
    still London's (its advice for naive dates); rates of every hour are told to keep one
    a day; New York's 04:00 and 05:00 are taken as they are."""
    converted = _midnights_in_utc("Europe/London")
    noon = pd.DataFrame({"EURUSD=X": [5.0, 6.0]},
                        index=pd.DatetimeIndex(["2026-09-01 12:00", "2026-09-02 12:00"], tz="UTC"))
    mixed = pd.concat([converted, noon]).tz_localize(None)
    summer = (r"stamped at 00:00 UTC on some days and 23:00 UTC on others.*the summer's would "
              r"be the day before's.*\.tz_localize\('UTC'\)\.tz_convert\(zone\)")
    with pytest.raises(InvalidParameter, match=summer):
        _days_taken(mixed)
    hours = pd.date_range("2026-01-01", "2026-08-31 23:00", freq="h")
    hourly = pd.DataFrame({"EURUSD=X": 1.0 + np.arange(len(hours)) / 1e6}, index=hours)
    with pytest.raises(InvalidParameter, match=r"keep one a day, e\.g\. each day's last"):
        _days_taken(hourly)
    assert _days_taken(_midnights_in_utc("America/New_York")) == ["07-15", "07-15", "01-15"]
