"""to_usd: amounts in US dollars from user rates, long or wide, as of each ICO's date."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.money import normalize_rates, to_usd


def _icos(**columns) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    base = {"soft_cap": [np.nan] * n, "hard_cap": [np.nan] * n, "caps_unit": [None] * n,
            "token_price": [np.nan] * n, "token_price_unit": [None] * n,
            "min_purchase": [np.nan] * n, "max_purchase": [np.nan] * n,
            "purchase_unit": [None] * n, "start_datetime": [None] * n, "end_datetime": [None] * n}
    base.update(columns)
    frame = pd.DataFrame(base)
    for name in ("start_datetime", "end_datetime"):
        frame[name] = pd.to_datetime(frame[name], format="%Y-%m-%d %H:%M").astype(
            "datetime64[ms]")
    return frame


# Rates only on a Friday and the Monday after (2018-03-02 and 2018-03-05).
LONG = pd.DataFrame({"date": ["2018-03-02", "2018-03-05", "2018-03-02", "2018-03-05"],
                     "currency": ["ETH", "ETH", "bitcoin", "bitcoin"],
                     "usd": [800.0, 900.0, 10000.0, 11000.0]})
WIDE = pd.DataFrame({"ETH-USD": [800.0, 900.0], "BTC/USD": [10000.0, 11000.0]},
                    index=pd.to_datetime(["2018-03-02", "2018-03-05"]))


@pytest.mark.parametrize("rates", [LONG, WIDE], ids=["long", "wide"])
def test_as_of_join_across_a_weekend_gap(rates):
    icos = _icos(hard_cap=[100.0, 100.0, 100.0, 100.0, 2.0],
                 caps_unit=["ETH", "Ether", "ETH", "ETH", "BTC"],
                 end_datetime=["2018-03-04 23:59", "2018-03-05 00:00", "2018-03-01 12:00",
                               "2018-03-02 00:00", "2018-03-03 10:00"])
    with pytest.warns(IcoframesWarning, match=r"1 amounts .*ETH 1"):
        out = to_usd(icos, rates, columns=["hard_cap"])
    # Sunday takes Friday's rate, Monday its own; Thursday has no rate yet
    assert out["hard_cap_usd"].tolist()[:2] == [80000.0, 90000.0]
    assert np.isnan(out["hard_cap_usd"][2])
    assert out["hard_cap_usd"].tolist()[3:] == [80000.0, 20000.0]
    assert out.attrs["usd_missing"] == {"ETH": 1}
    assert str(out["usd_date"].dtype) == "datetime64[ms]"


def test_both_layouts_normalise_to_the_same_long_frame():
    long, wide = normalize_rates(LONG), normalize_rates(WIDE)
    pd.testing.assert_frame_equal(long, wide)
    assert long.columns.tolist() == ["date", "currency", "usd_per_unit"]
    assert sorted(set(long["currency"])) == ["BTC", "ETH"]


def test_wide_rates_named_as_downloaders_name_them():
    wide = pd.DataFrame({"EURUSD=X": [1.1], "eth/usd": [500.0], "BTC_USD": [9000.0]},
                        index=pd.DatetimeIndex(["2018-01-01"], tz="Europe/Berlin"))
    rates = normalize_rates(wide)
    assert sorted(rates["currency"]) == ["BTC", "ETH", "EUR"]
    # time-zone-aware dates are taken in UTC and made naive
    assert str(rates["date"].iloc[0]) == "2017-12-31 23:00:00"


def test_usd_passes_through_without_any_rate_and_dates_fall_back_to_the_start():
    icos = _icos(soft_cap=[1e6, 5.0], hard_cap=[2e6, 10.0], caps_unit=["US Dollar", "ETH"],
                 token_price=[0.1, 0.001], token_price_unit=["usd", "eth"],
                 start_datetime=[None, "2018-03-05 10:00"], end_datetime=[None, None])
    out = to_usd(icos, LONG)
    assert out["soft_cap_usd"].tolist() == [1e6, 4500.0]
    assert out["hard_cap_usd"].tolist() == [2e6, 9000.0]
    assert out["token_price_usd"].tolist() == [0.1, 0.9]
    assert out.attrs["usd_missing"] == {}
    empty = to_usd(icos.iloc[:1], LONG.iloc[:0])
    assert empty["hard_cap_usd"].tolist() == [2e6]


def test_no_amount_is_converted_with_another_units_rate():
    icos = _icos(hard_cap=[100.0, 100.0, 100.0, 100.0],
                 caps_unit=["XYZ", None, "USDT", "ETH"],
                 end_datetime=["2018-03-05 00:00", "2018-03-05 00:00", "2018-03-05 00:00",
                               None])
    with pytest.warns(IcoframesWarning) as caught:
        out = to_usd(icos, LONG, columns=["hard_cap"])
    assert out["hard_cap_usd"].isna().all()
    assert out.attrs["usd_missing"] == {"(no date)": 1, "(no unit)": 1, "USDT": 1, "XYZ": 1}
    message = str(caught[0].message)
    assert "4 amounts" in message and "XYZ 1" in message and "(no unit) 1" in message


def test_max_age_refuses_stale_rates_unless_told_otherwise():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.warns(IcoframesWarning):
        assert np.isnan(to_usd(icos, LONG, columns=["hard_cap"])["hard_cap_usd"][0])
    old = to_usd(icos, LONG, columns=["hard_cap"], max_age=None)
    assert old["hard_cap_usd"].tolist() == [9000.0]
    fresh = to_usd(icos, LONG, columns=["hard_cap"], max_age="15D")
    assert fresh["hard_cap_usd"].tolist() == [9000.0]


@pytest.mark.parametrize(("rates", "message"), [
    (pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"]}), "missing: usd"),
    (pd.DataFrame({"ETH": [1.0]}), "long form .* or wide form"),
    (pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"], "usd": [-1.0]}),
     "must be positive"),
    (pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"], "usd": ["a lot"]}),
     "must be numbers"),
    (pd.DataFrame({"JPY=X": ["a lot"]}, index=pd.to_datetime(["2018-01-01"])),
     "must be numbers"),
    (pd.DataFrame({"date": ["yesterday"], "currency": ["ETH"], "usd": [1.0]}),
     "dates could not be read"),
    (pd.DataFrame({"date": ["2018-01-01"] * 2, "currency": ["ETH", "ether"], "usd": [1.0, 2.0]}),
     "two different rates of ETH"),
    (pd.DataFrame([[1.0]], columns=pd.MultiIndex.from_tuples([("Close", "ETH-USD")]),
                  index=pd.to_datetime(["2018-01-01"])), r"rates\['Close'\]"),
    ([("2018-01-01", "ETH", 1.0)], "must be a pandas DataFrame"),
])
def test_bad_rate_layouts_are_clear_errors(rates, message):
    icos = _icos(hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-02 00:00"])
    with pytest.raises(ValueError, match=message):
        to_usd(icos, rates)


def test_bad_arguments():
    icos = _icos(hard_cap=[1.0], caps_unit=["ETH"])
    with pytest.raises(ValueError, match="no amount column"):
        to_usd(icos, LONG, columns=["raised"])
    with pytest.raises(ValueError, match=r"lacks columns \['caps_unit'\]"):
        to_usd(icos.drop(columns="caps_unit"), LONG)


def test_identical_duplicate_rates_and_gaps_are_accepted():
    rates = pd.DataFrame({"date": ["2018-03-02", "2018-03-02", "2018-03-03"],
                          "currency": ["ETH", "ETH", "ETH"], "usd": [800.0, 800.0, np.nan]})
    assert normalize_rates(rates)["usd_per_unit"].tolist() == [800.0]


def test_sandbox_amounts_in_eth_btc_eur_convert_to_realistic_usd():
    directory = sandbox.generate_directory(1000, seed=0)
    tables = icoframes.tidy(directory.profiles())
    icos = tables.icos
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # ICOs without dates
        out = to_usd(icos, sandbox.rates())
    ratio = (icos["raised"] / out["hard_cap_usd"]).groupby(icos["caps_unit"]).median()
    # a cap written in ETH, BTC or EUR is worth what a USD cap is: raised/cap alike
    for unit in ("ETH", "BTC", "EUR"):
        assert 0.6 < ratio[unit] / ratio["USD"] < 1.6, ratio
    caps = out.groupby(icos["caps_unit"])["hard_cap_usd"].median()
    assert (caps.loc[["ETH", "BTC", "EUR"]] > 2e6).all() and (caps < 1e8).all()
    price = out.groupby(icos["token_price_unit"])["token_price_usd"].median()
    assert (price.between(0.01, 2)).all(), price


# ------------------------------------------------------------ the direction of a rate

DAY = pd.to_datetime(["2018-03-02"])


def _one_cap(unit: str, cap: float) -> pd.DataFrame:
    return _icos(hard_cap=[cap], caps_unit=[unit], end_datetime=["2018-03-04 00:00"])


@pytest.mark.parametrize(("column", "rate", "unit", "cap", "usd"), [
    # Yahoo's three-letter XXX=X is XXX per USD
    ("JPY=X", 106.0, "JPY", 1_000_000_000.0, 1_000_000_000.0 / 106.0),
    ("KRW=X", 1100.0, "KRW", 11_000_000_000.0, 10_000_000.0),
    ("CNY=X", 6.4, "CNY", 64_000_000.0, 10_000_000.0),
    ("CHF=X", 0.8, "CHF", 8_000_000.0, 10_000_000.0),
    ("EUR=X", 0.8, "EUR", 8_000_000.0, 10_000_000.0),
    ("GBP=X", 0.5, "GBP", 5_000_000.0, 10_000_000.0),
    # Yahoo's XXXYYY=X is YYY per XXX
    ("EURUSD=X", 1.25, "EUR", 8_000_000.0, 10_000_000.0),
    ("USDJPY=X", 106.0, "JPY", 1_000_000_000.0, 1_000_000_000.0 / 106.0),
    # crypto tickers XXX-USD are USD per XXX; base/quote pairs likewise
    ("ETH-USD", 800.0, "ETH", 12_500.0, 10_000_000.0),
    ("eth/usd", 800.0, "ETH", 12_500.0, 10_000_000.0),
    ("BTC_USD", 10_000.0, "BTC", 1_000.0, 10_000_000.0),
    ("USD/JPY", 106.0, "JPY", 1_000_000_000.0, 1_000_000_000.0 / 106.0),
    ("EURUSD", 1.25, "EUR", 8_000_000.0, 10_000_000.0),
])
def test_wide_columns_are_read_in_the_direction_their_name_states(column, rate, unit, cap, usd):
    rates = pd.DataFrame({column: [rate]}, index=DAY)
    out = to_usd(_one_cap(unit, cap), rates, columns=["hard_cap"])
    assert out["hard_cap_usd"][0] == pytest.approx(usd, rel=1e-12)


def test_a_billion_yen_cap_at_106_yen_per_dollar_is_9_4_million_dollars():
    rates = pd.DataFrame({"JPY=X": [106.0]}, index=DAY)
    out = to_usd(_one_cap("JPY", 1_000_000_000.0), rates, columns=["hard_cap"])
    assert round(out["hard_cap_usd"][0]) == 9_433_962


@pytest.mark.parametrize(("columns", "named"), [
    (["JPY"], r"\['JPY'\] do not say which way"),
    (["ETH", "EUR"], r"\['ETH', 'EUR'\] do not say which way"),
    (["EURJPY=X"], r"'EURJPY=X' is JPY per EUR, a rate without USD"),
    (["ETH-BTC"], r"'ETH-BTC' is BTC per ETH, a rate without USD"),
    (["BTCUSDT=X"], r"'BTCUSDT=X' is not a Yahoo exchange-rate ticker"),
])
def test_a_column_whose_direction_is_ambiguous_is_refused_by_name(columns, named):
    rates = pd.DataFrame({c: [1.0] for c in columns}, index=DAY)
    with pytest.raises(ValueError, match=named):
        to_usd(_one_cap("JPY", 1.0), rates)


def test_bare_columns_take_the_direction_quote_states():
    rates = pd.DataFrame({"JPY": [106.0], "ETH": [800.0]}, index=DAY)
    icos = _icos(hard_cap=[1_060.0, 2.0], caps_unit=["JPY", "ETH"],
                 end_datetime=["2018-03-04 00:00"] * 2)
    per_usd = to_usd(icos.iloc[:1], rates[["JPY"]], columns=["hard_cap"], quote="units_per_usd")
    assert per_usd["hard_cap_usd"].tolist() == [pytest.approx(10.0)]
    per_unit = to_usd(icos.iloc[1:], rates[["ETH"]], columns=["hard_cap"], quote="usd_per_unit")
    assert per_unit["hard_cap_usd"].tolist() == [1600.0]
    # a column that names its direction keeps it whatever quote says of bare ones
    mixed = pd.DataFrame({"JPY=X": [106.0], "ETH": [800.0]}, index=DAY)
    both = to_usd(icos, mixed, columns=["hard_cap"], quote="usd_per_unit")
    assert both["hard_cap_usd"].tolist() == [pytest.approx(10.0), 1600.0]
    with pytest.raises(ValueError, match="quote must be one of"):
        to_usd(icos, rates, quote="usd")


def test_long_form_names_its_direction_by_its_value_column():
    icos = _one_cap("JPY", 1_060.0)
    per_usd = pd.DataFrame({"date": ["2018-03-02"], "currency": ["JPY"],
                            "units_per_usd": [106.0]})
    assert to_usd(icos, per_usd, columns=["hard_cap"])["hard_cap_usd"].tolist() == [
        pytest.approx(10.0)]
    per_unit = per_usd.rename(columns={"units_per_usd": "usd_per_unit"}).assign(
        usd_per_unit=[0.01])
    assert to_usd(icos, per_unit, columns=["hard_cap"])["hard_cap_usd"].tolist() == [
        pytest.approx(10.6)]
    with pytest.raises(ValueError, match="need one value column"):
        to_usd(icos, per_usd.assign(usd_per_unit=[0.01]))
    with pytest.raises(ValueError, match="quote= is for the bare currency columns"):
        to_usd(icos, per_usd, quote="units_per_usd")


def test_sandbox_wide_rates_give_the_long_forms_dollars():
    directory = sandbox.generate_directory(200, seed=1)
    icos = icoframes.tidy(directory.profiles()).icos
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # ICOs without dates
        long = to_usd(icos, sandbox.rates())
        wide = to_usd(icos, sandbox.rates(wide=True))
    for column in ("hard_cap_usd", "token_price_usd", "min_purchase_usd"):
        np.testing.assert_allclose(wide[column], long[column], rtol=1e-9)
    assert (icos["caps_unit"] == "EUR").sum() > 0
