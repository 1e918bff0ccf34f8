"""to_usd: amounts in US dollars from user rates, long or wide, as of each ICO's date."""

from __future__ import annotations

import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.money import normalize_rates, sale_prices, to_usd
from icoframes.sandbox.rates import rate_on


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
    with pytest.raises(InvalidParameter, match="time-zone-aware in Europe/Berlin"):
        normalize_rates(wide)  # which day is each? (below)
    rates = normalize_rates(wide.tz_localize(None))
    assert sorted(rates["currency"]) == ["BTC", "ETH", "EUR"]
    assert str(rates["date"].iloc[0]) == "2018-01-01 00:00:00"


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


def test_rate_max_age_refuses_stale_rates_unless_told_otherwise():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.warns(IcoframesWarning):
        assert np.isnan(to_usd(icos, LONG, columns=["hard_cap"])["hard_cap_usd"][0])
    old = to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=None)
    assert old["hard_cap_usd"].tolist() == [9000.0]
    fresh = to_usd(icos, LONG, columns=["hard_cap"], rate_max_age="15D")
    assert fresh["hard_cap_usd"].tolist() == [9000.0]


def test_the_old_name_max_age_works_for_one_version_with_a_future_warning():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.warns(FutureWarning, match=r"to_usd\(rate_max_age=\.\.\.\)") as caught:
        old = to_usd(icos, LONG, columns=["hard_cap"], max_age="15D")
    assert old["hard_cap_usd"].tolist() == [9000.0]
    assert caught[0].filename == __file__  # the user's line, not the package's
    with pytest.warns(FutureWarning), pytest.warns(IcoframesWarning, match="up to 1D"):
        stale = to_usd(icos, LONG, columns=["hard_cap"], max_age="1D")
    assert np.isnan(stale["hard_cap_usd"][0])
    with pytest.raises(ValueError, match="give rate_max_age only"):
        to_usd(icos, LONG, rate_max_age="15D", max_age="15D")


def test_rate_max_age_takes_a_timedelta_under_either_name():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    fresh = to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=dt.timedelta(days=15))
    assert fresh["hard_cap_usd"].tolist() == [9000.0]
    with pytest.warns(FutureWarning):  # 0.1 took a timedelta as max_age: it still works
        old = to_usd(icos, LONG, columns=["hard_cap"], max_age=dt.timedelta(days=15))
    assert old["hard_cap_usd"].tolist() == [9000.0]


@pytest.mark.parametrize("age", [7, 7.0, "7", True, "-1D", "0D", pd.Timedelta(0), "soon", [7]])
def test_a_rate_max_age_without_a_unit_or_not_positive_is_refused(age):
    # pd.Timedelta(7) is 7 nanoseconds: taken literally, nearly every amount lost its rate
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.raises(InvalidParameter, match="rate_max_age must be a positive duration"):
        to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=age)


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
    # Yahoo writes crypto as "ETH-USD"; "ETH=X" read as ETH per USD was 0.0005 USD an ETH
    (["ETH=X"], r"'ETH=X' is not a Yahoo ticker.*give 'ETH-USD'"),
    (["btc=x"], r"'btc=x' is not a Yahoo ticker.*give 'BTC-USD'"),
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


# ------------------------------------------------------------ token prices in time

PRICE_RATES = pd.DataFrame({"date": ["2018-03-02", "2026-11-20", "2026-11-23"],
                            "currency": ["ETH"] * 3, "usd_per_unit": [800.0, 3000.0, 3300.0]})


def _priced(status, end, fetched) -> pd.DataFrame:
    n = len(status)
    icos = _icos(hard_cap=[100.0] * n, caps_unit=["ETH"] * n, token_price=[0.001] * n,
                 token_price_unit=["ETH"] * n, end_datetime=end)
    icos["status"] = pd.array(status, dtype="string")
    icos["fetched_at"] = pd.to_datetime(pd.Series(fetched), format="%Y-%m-%d %H:%M",
                                        utc=True).astype("datetime64[ms, UTC]")
    return icos


def test_a_past_icos_token_price_is_converted_at_the_fetch_day_an_ongoing_at_the_sale():
    icos = _priced(
        ["past", "ongoing", "ongoing", "upcoming"],
        ["2018-03-04 00:00", "2026-11-24 00:00", "2026-11-10 00:00", "2026-11-24 00:00"],
        ["2026-11-20 14:00"] * 4)
    out = to_usd(icos, PRICE_RATES, columns=["hard_cap", "token_price"], rate_max_age=None)
    # past: a market price as of the fetch (3000 USD/ETH that day), not at the sale (800)
    # ongoing: the ICO's price, at the sale's end (3300); ended before the fetch: as past
    assert out["token_price_usd"].tolist() == pytest.approx([3.0, 3.3, 3.0, 3.3])
    assert out["token_price_usd_date"].astype(str).tolist() == [
        "2026-11-20 14:00:00", "2026-11-24 00:00:00", "2026-11-20 14:00:00",
        "2026-11-24 00:00:00"]
    # the caps are amounts of the sale: converted at its end whatever the status
    assert out["hard_cap_usd"].tolist() == [80_000.0, 330_000.0, 80_000.0, 330_000.0]
    assert str(out["token_price_usd_date"].dtype) == "datetime64[ms]"


def test_a_past_price_without_a_fetch_date_is_missing_and_says_why():
    icos = _priced(["past", "ongoing"], ["2018-03-04 00:00"] * 2, [None, None])
    with pytest.warns(IcoframesWarning, match=r"\(no fetch date\) 1"):
        out = to_usd(icos, PRICE_RATES, columns=["token_price"])
    assert np.isnan(out["token_price_usd"][0])
    assert out["token_price_usd"][1] == pytest.approx(0.8)  # status ongoing, no fetch: sale
    assert out.attrs["usd_missing"] == {"(no fetch date)": 1}


def test_the_column_docs_say_what_token_price_means_by_status():
    doc = icoframes.describe("icos").set_index("column").loc["token_price", "doc"]
    assert "fetched_at" in doc and "during" in doc and "to_usd" in doc


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=80, seed=11) as server:
        yield server


def test_loaded_icos_convert_past_prices_at_their_fetch_and_ongoing_at_the_sale(cfg):
    past = icoframes.load_icos(status="past", progress=False)
    ongoing = icoframes.load_icos(status="ongoing", progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # ICOs without dates
        past_usd = to_usd(past, sandbox.rates(), rate_max_age=None)
        ongoing_usd = to_usd(ongoing, sandbox.rates(), rate_max_age=None)
    fetched = past["fetched_at"].dt.tz_convert("UTC").dt.tz_localize(None)
    assert len(past) > 10 and fetched.notna().all()
    pd.testing.assert_series_equal(past_usd["token_price_usd_date"], fetched.astype(
        "datetime64[ms]"), check_names=False)
    eth = (past["token_price_unit"] == "ETH").to_numpy() & past["token_price"].notna().to_numpy()
    assert eth.sum() > 0
    day_rate = [rate_on("ETH", when) for when in fetched[eth]]
    np.testing.assert_allclose(past_usd["token_price_usd"][eth], past["token_price"][eth] *
                               np.array(day_rate), rtol=1e-12)
    before = ongoing["end_datetime"] >= ongoing["fetched_at"].dt.tz_localize(None)
    assert before.sum() > 0
    sale = ongoing_usd.loc[before.to_numpy()]
    pd.testing.assert_series_equal(sale["token_price_usd_date"], sale["usd_date"],
                                   check_names=False)


# ------------------------------------------------------------ dates far from today

FAR = ["01.01.0001 00:00:00", "31.12.9999 23:59:59", "01.06.2263 00:00:00",
       "01.03.2018 00:00:00"]


def test_dates_of_year_1_2263_and_9999_survive_every_function_downstream():
    profiles = [{"id": i + 1, "finance": {"hard_cap": 100, "soft_cap": 10, "caps_unit": "ETH",
                                          "raised": 1_000_000, "token_price": "0.001 ETH"},
                 "dates": {"start_datetime": FAR[i], "end_datetime": FAR[(i + 1) % 4]}}
                for i in range(4)]
    tables = icoframes.tidy(profiles)
    icos = tables.icos
    # issue 20: the parser leaves dates outside 1990-2100 missing, and reports them
    assert icos["start_datetime"].isna().tolist() == [True, True, True, False]
    assert (tables.problems["column"] == "start_datetime").sum() == 3
    icos = icos.assign(fetched_at=pd.Series([pd.Timestamp("2026-11-20", tz="UTC")] * 4,
                                            dtype="datetime64[ms, UTC]"),
                       status=pd.array(["past"] * 4, dtype="string"))
    rates = pd.DataFrame({"date": ["2016-01-01", "2026-11-20"], "currency": ["ETH"] * 2,
                          "usd_per_unit": [1.0, 3000.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)
        out = to_usd(icos, rates, rate_max_age=None)
        feats = icoframes.compute_features(tables, rates=rates, rate_max_age=None,
                                           as_of="2026-11-20")
    # issue 20: the far dates are missing (and problems), so only the 2018 dates convert
    expected = [np.nan, np.nan, 100.0, 100.0]
    np.testing.assert_array_equal(out["hard_cap_usd"], expected)
    assert out["usd_date"].dt.year.fillna(0).astype(int).tolist() == [0, 0, 2018, 2018]
    assert out["token_price_usd"].tolist() == pytest.approx([3.0] * 4)  # past: at the fetch
    np.testing.assert_array_equal(feats["hard_cap_usd"], expected)
    assert feats["duration_days"].notna().tolist() == [False, False, False, False]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = icoframes.plot_raised_vs_cap(feats.assign(raised=icos["raised"].to_numpy()))
    assert any("2 ICOs shown; 2 not placed" in t.get_text() for t in ax.texts)
    plt.close("all")


def test_the_ico_price_is_recovered_from_a_snapshot_taken_during_the_sale():
    day = pd.Timestamp
    snaps = pd.DataFrame({
        "snapshot_date": pd.to_datetime(["2018-03-01", "2018-03-02", "2018-03-03"] * 3,
                                        format="ISO8601"),
        "id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
        "status": ["upcoming", "ongoing", "past", "ongoing", "ongoing", "ongoing",
                   "past", "past", "past"],
        # ICO 2's third fetch came after its end although the list still said ongoing
        "token_price": [0.5, 0.001, 0.009, 0.002, 0.003, 0.04, 0.7, 0.8, 0.9],
        "token_price_unit": ["ETH"] * 9,
        "start_datetime": pd.to_datetime(["2018-02-01"] * 9, format="ISO8601"),
        "end_datetime": pd.to_datetime(["2018-03-02 18:00"] * 3 + ["2018-03-03 01:00"] * 3
                                       + ["2018-01-31"] * 3, format="ISO8601"),
        "fetched_at": pd.to_datetime([f"2018-03-0{d} 03:15" for d in (1, 2, 3)] * 3,
                                     format="ISO8601", utc=True),
    })
    prices = sale_prices(snaps)
    assert prices["id"].tolist() == [1, 2]  # ICO 3 was never seen during its sale
    assert prices["token_price"].tolist() == [0.001, 0.003]
    assert prices["price_fetched_at"].tolist() == [day("2018-03-02 03:15", tz="UTC")] * 2
    usd = to_usd(prices, LONG, columns=["token_price"])  # at the sale's end, as running ICOs
    assert usd["token_price_usd"].tolist() == pytest.approx([0.8, 2.4])
    assert usd["token_price_usd_date"].dt.day.tolist() == [2, 3]
    with pytest.raises(ValueError, match="read_snapshots"):
        sale_prices(snaps.drop(columns="fetched_at"))


def test_rates_read_the_wrong_way_warn_by_orders_of_magnitude():
    # three ICOs capped in JPY, three in USD, all raising about their cap
    icos = _icos(hard_cap=[1.06e9, 2.12e9, 5.3e8, 1e7, 2e7, 5e6],
                 caps_unit=["JPY"] * 3 + ["USD"] * 3,
                 end_datetime=["2018-03-04 00:00"] * 6)
    icos["raised"] = [1e7, 2e7, 5e6, 1e7, 2e7, 5e6]
    wrong = pd.DataFrame({"JPY": [106.0]}, index=DAY)  # JPY per USD, said to be USD per JPY
    with pytest.warns(IcoframesWarning, match=r"hard caps in JPY come out 11,236x larger .*"
                                              r"median of 3 ICOs.*quoted the other way"):
        to_usd(icos, wrong, columns=["hard_cap"], quote="usd_per_unit")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        right = to_usd(icos, wrong, columns=["hard_cap"], quote="units_per_usd")
    assert right["hard_cap_usd"].tolist() == pytest.approx(icos["raised"].tolist())


def test_a_bad_argument_to_the_money_functions_is_the_package_s_one_class():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.raises(InvalidParameter, match="no amount column"):
        to_usd(icos, LONG, columns=["raised_eth"])
    with pytest.raises(InvalidParameter, match="quote must be one of"):
        normalize_rates(LONG, quote="sideways")
    assert issubclass(InvalidParameter, ValueError)  # except ValueError still catches it


# ------------------------------------------------ issue 21 review: nothing read silently


@pytest.mark.parametrize("extra", ["JPY=X", "EUR", "BTC-USD", "source"])
def test_long_rates_with_another_column_are_refused_naming_it(extra):
    # an extra wide column (JPY=X) was dropped without a word: JPY amounts had no rate
    rates = pd.DataFrame({"date": ["2018-03-02"], "currency": ["ETH"],
                          "usd_per_unit": [800.0], extra: [106.0]})
    with pytest.raises(InvalidParameter, match=rf"long-form rates.*{re.escape(repr(extra))}"):
        to_usd(_one_cap("JPY", 1.0), rates)


@pytest.mark.parametrize("field", ["Close", "Adj Close", "open", "Volume", "Price"])
@pytest.mark.parametrize("quote", [None, "usd_per_unit"])
def test_a_downloaders_field_column_is_not_read_as_a_currency(field, quote):
    # yf.Ticker("ETH-USD").history(): Open, High, Low, Close, Volume; with quote=
    # "Close" was read as a currency CLOSE and every amount lost its rate
    rates = pd.DataFrame({field: [800.0]}, index=DAY)
    with pytest.raises(InvalidParameter,
                       match=rf"{re.escape(repr(field))} names a price field, not a currency"
                             r".*rename\(columns=\{.*: 'ETH-USD'\}\)"):
        to_usd(_one_cap("ETH", 1.0), rates, quote=quote)


def test_sandbox_long_rates_name_their_value_column_as_the_money_api_does():
    assert sandbox.rates().columns.tolist() == ["date", "currency", "usd_per_unit"]


@pytest.mark.parametrize("given", ["7D", pd.Timedelta(days=7), None])
def test_rate_max_age_and_its_old_name_together_are_refused_whatever_the_value(given):
    # "7D" is the default's value: an identity check with the default took max_age instead
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.raises(InvalidParameter, match=r"rate_max_age.*max_age"):
        to_usd(icos, LONG, rate_max_age=given, max_age="15D")
    with pytest.raises(InvalidParameter, match=r"rate_max_age.*max_age"):
        icoframes.compute_features(icoframes.Tables.empty(), rates=LONG,
                                   rate_max_age=given, max_age="15D")


def test_one_amount_or_one_date_column_is_a_name_not_its_letters():
    icos = _icos(hard_cap=[100.0], caps_unit=["ETH"], token_price=[2.0],
                 token_price_unit=["ETH"], end_datetime=["2018-03-04 00:00"])
    # "hard_cap" was iterated: "no amount column ['h', 'a', 'r', 'd', '_', 'c', 'a', 'p']"
    one = to_usd(icos, LONG, columns="hard_cap", date="end_datetime")
    listed = to_usd(icos, LONG, columns=("hard_cap",), date=["end_datetime"])
    pd.testing.assert_frame_equal(one, listed)
    assert one["hard_cap_usd"].tolist() == [80_000.0]
    assert "token_price_usd" not in one.columns


@pytest.mark.parametrize(("argument", "value"), [
    ("columns", []), ("columns", b"hard_cap"), ("columns", {"hard_cap": 1}), ("columns", 5),
    ("columns", ["hard_cap", None]), ("date", None), ("date", []), ("date", 5),
    ("date", [pd.Timestamp("2018-03-04")]),
])
def test_column_arguments_that_name_no_column_are_refused(argument, value):
    icos = _icos(hard_cap=[100.0], caps_unit=["ETH"], end_datetime=["2018-03-04 00:00"])
    with pytest.raises(InvalidParameter) as caught:
        to_usd(icos, LONG, **{argument: value})
    assert str(caught.value) == (
        f"{argument} must be a column name or a sequence of them, got {value!r}")


# -- a NumPy timedelta64 is a duration when it has a unit (ages.numpy_duration) --------------


def test_rate_max_age_takes_a_numpy_timedelta64_with_a_unit_as_pandas_does():
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    for age in (np.timedelta64(15, "D"), np.timedelta64(360, "h"), np.timedelta64(3, "W")):
        fresh = to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=age)
        assert fresh["hard_cap_usd"].tolist() == [9000.0]
    with pytest.warns(IcoframesWarning, match="up to 1 days before the date"):
        stale = to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=np.timedelta64(1, "D"))
    assert np.isnan(stale["hard_cap_usd"][0])
    tables = icoframes.tidy([{"id": 1, "main": {"name": "A"}}])
    features = icoframes.compute_features(tables, rate_max_age=np.timedelta64(7, "D"))
    assert len(features) == 1


@pytest.mark.parametrize("age", [
    np.timedelta64(7),  # no unit: 7 nanoseconds to pandas, a week to a reader
    np.timedelta64("NaT"), np.timedelta64("NaT", "D"), np.timedelta64(0, "D"),
    np.timedelta64(-1, "D"), np.timedelta64(1, "Y"), np.timedelta64(1, "M"),  # no fixed length
    np.timedelta64(10**15, "D"),  # beyond pandas' range: never read as another number
])
def test_a_numpy_timedelta64_without_a_unit_or_not_a_positive_duration_is_refused(age):
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-03-20 00:00"])
    with pytest.raises(InvalidParameter, match=r"^to_usd: rate_max_age must be a positive "
                       r"duration, such as '7D', '12h', pd.Timedelta\(days=7\) or "
                       r"np.timedelta64\(7, 'D'\), or seconds of a day or more \(None: any "
                       r"age\); got "):
        to_usd(icos, LONG, columns=["hard_cap"], rate_max_age=age)
    tables = icoframes.tidy([{"id": 1, "main": {"name": "A"}}])
    with pytest.raises(InvalidParameter, match=r"^compute_features: rate_max_age must be"):
        icoframes.compute_features(tables, rate_max_age=age)


@pytest.mark.parametrize(("age", "seconds"), [
    (np.timedelta64(90, "s"), 90.0), (np.timedelta64(2, "m"), 120.0),
    (np.timedelta64(1500, "ms"), 1.5), (np.timedelta64(1, "W"), 604800.0),
    (np.timedelta64(7), None), (np.timedelta64(1, "Y"), None), (np.timedelta64(1, "M"), None),
    (np.timedelta64(10**15, "D"), None),  # was a wrapped-around 82 million days
    (np.timedelta64("NaT", "s"), None), (np.timedelta64(-1, "s"), None),
])
def test_max_age_reads_a_numpy_timedelta64_by_the_same_rule(age, seconds):
    from icoframes.ages import as_age

    got = as_age(age)
    assert (None if got is None else got.total_seconds()) == seconds


# -- time-zone-aware rates: UTC, or refused (a day or an instant?) ------------------------------


def _days(tz):
    return pd.DatetimeIndex(["2018-12-31", "2019-01-01"], tz=tz)


def test_rates_stamped_in_another_zone_are_refused_not_shifted_to_another_day():
    # daily rates stamped at midnight in Tokyo: 2019-01-01 00:00 JST is 2018-12-31 15:00 UTC,
    # so an ICO ending 2018-12-31 23:59 UTC took 2019-01-01's rate (the day after its end)
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-12-31 23:59"])
    wide = pd.DataFrame({"ETH-USD": [100.0, 200.0]}, index=_days("Asia/Tokyo"))
    with pytest.raises(InvalidParameter) as info:
        to_usd(icos, wide, columns=["hard_cap"])
    assert str(info.value) == (
        "rates: the dates are time-zone-aware in Asia/Tokyo, not UTC: 2018-12-31 00:00:00+09:00 "
        "is 2018-12-30 15:00 UTC, and a rate is taken for the UTC day of its date (the ICOs' "
        "dates are UTC). Drop the zone, .tz_localize(None): each date is then the rate of the "
        "day written (converted to UTC instead, a midnight east of UTC, or in London in "
        "summer, falls on the day before)")
    # as days: the day of its end; converted to UTC, Tokyo's 01-01 is the UTC day 12-31's
    as_days = to_usd(icos, wide.tz_localize(None), columns=["hard_cap"])
    assert as_days["hard_cap_usd"].tolist() == [1000.0]
    as_instants = to_usd(icos, wide.tz_convert("UTC"), columns=["hard_cap"])
    assert as_instants["hard_cap_usd"].tolist() == [2000.0]
    long = wide.rename_axis("date").reset_index().melt("date", var_name="currency",
                                                      value_name="usd_per_unit")
    long["currency"] = "ETH"
    with pytest.raises(InvalidParameter, match="time-zone-aware in Asia/Tokyo, not UTC"):
        to_usd(icos, long, columns=["hard_cap"])
    text = pd.DataFrame({"date": ["2019-01-01T00:00+09:00"], "currency": ["ETH"],
                         "usd_per_unit": [200.0]})
    with pytest.raises(InvalidParameter, match=r"time-zone-aware in UTC\+09:00, not UTC"):
        to_usd(icos, text, columns=["hard_cap"])


@pytest.mark.parametrize("tz", ["UTC", "Etc/UTC", dt.UTC, "Europe/London"])
def test_rates_in_utc_read_as_naive_ones_and_a_zone_utc_only_in_winter_is_refused(tz):
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2018-12-31 23:59"])
    wide = pd.DataFrame({"ETH-USD": [100.0, 200.0]}, index=_days(tz))
    if tz == "Europe/London":  # 0 hours from UTC in winter, 1 in summer: not UTC
        with pytest.raises(InvalidParameter, match="time-zone-aware in Europe/London"):
            to_usd(icos, wide, columns=["hard_cap"])
        return
    pd.testing.assert_frame_equal(to_usd(icos, wide, columns=["hard_cap"]),
                                  to_usd(icos, wide.tz_localize(None), columns=["hard_cap"]))
    text = pd.DataFrame({"date": ["2018-12-31T00:00Z"], "currency": ["ETH"],
                         "usd_per_unit": [100.0]})
    assert to_usd(icos, text, columns=["hard_cap"])["hard_cap_usd"].tolist() == [1000.0]


def test_rates_in_a_zone_at_utc_in_2001_but_not_on_their_own_dates_are_refused():
    # Africa/Casablanca was 0 hours from UTC in January and July 2001, +01:00 from 2018:
    # 2019-09-01 00:00 there is 2019-08-31 23:00 UTC, a day earlier; the dates' own
    # offsets tell it, whatever the zone was in another year; the stamp named is the first
    # one off UTC (2019-05-20 is in Ramadan, when Morocco was at +00:00)
    icos = _icos(hard_cap=[10.0], caps_unit=["ETH"], end_datetime=["2019-08-31 23:59"])
    wide = pd.DataFrame({"ETH-USD": [50.0, 100.0, 200.0]},
                        index=pd.DatetimeIndex(["2019-05-20", "2019-08-31", "2019-09-01"],
                                               tz="Africa/Casablanca"))
    with pytest.raises(InvalidParameter) as info:
        to_usd(icos, wide, columns=["hard_cap"])
    assert str(info.value).startswith(
        "rates: the dates are time-zone-aware in Africa/Casablanca, not UTC: "
        "2019-08-31 00:00:00+01:00 is 2019-08-30 23:00 UTC, and a rate is taken")
    as_days = to_usd(icos, wide.tz_localize(None), columns=["hard_cap"])
    assert as_days["hard_cap_usd"].tolist() == [1000.0]
