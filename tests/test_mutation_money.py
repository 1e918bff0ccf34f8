"""to_usd: the boundaries mutants of money.py survived (`make mutate MODULE=money`).

A zero or infinite rate is refused like a negative one, a rate exactly ``max_age``
old is still used, the end of the sale wins over its start, a wide column named
plainly ``USD`` is USD (not a currency called ""), and each message says which
value it is about.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from icoframes.ages import age_hint, as_age
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.money import conversion_dates, normalize_rates, rate_age, to_usd


def _icos(n: int = 1, **columns: object) -> pd.DataFrame:
    base: dict[str, object] = {
        "soft_cap": [np.nan] * n, "hard_cap": [np.nan] * n, "caps_unit": [None] * n,
        "token_price": [np.nan] * n, "token_price_unit": [None] * n,
        "min_purchase": [np.nan] * n, "max_purchase": [np.nan] * n, "purchase_unit": [None] * n,
        "start_datetime": [None] * n, "end_datetime": [None] * n}
    base.update(columns)
    frame = pd.DataFrame(base)
    for name in ("start_datetime", "end_datetime"):
        frame[name] = pd.to_datetime(frame[name], format="%Y-%m-%d").astype("datetime64[ms]")
    return frame


def _long(*rows: tuple[str, str, float]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=["date", "currency", "usd_per_unit"])


@pytest.mark.parametrize("usd", [0.0, -0.0, np.inf, -1e-9])
def test_a_zero_or_infinite_rate_is_refused(usd):
    with pytest.raises(ValueError, match=r"positive and finite; ETH on 2018-01-02 is "):
        normalize_rates(_long(("2018-01-01", "ETH", 1.0), ("2018-01-02", "ETH", usd)))


def test_the_smallest_positive_rate_is_accepted():
    rates = normalize_rates(_long(("2018-01-01", "ETH", 1e-300)))
    assert rates["usd_per_unit"].tolist() == [1e-300]


def test_rows_without_a_rate_date_or_currency_are_dropped_and_usd_rows_too():
    rates = normalize_rates(pd.DataFrame({
        "date": ["2018-01-01", None, "2018-01-03", "2018-01-04", "2018-01-05"],
        "currency": ["ETH", "ETH", None, "US dollar", "BTC"],
        "usd_per_unit": [np.nan, 2.0, 3.0, 1.0, 5.0]}))
    assert rates.to_dict("list") == {"date": [pd.Timestamp("2018-01-05")], "currency": ["BTC"],
                                     "usd_per_unit": [5.0]}


def test_rates_come_back_sorted_by_date_then_currency():
    rates = normalize_rates(_long(("2018-01-02", "ETH", 2.0), ("2018-01-01", "ETH", 1.0),
                                  ("2018-01-01", "BTC", 10.0)))
    assert list(zip(rates["date"].dt.day, rates["currency"], strict=True)) == [
        (1, "BTC"), (1, "ETH"), (2, "ETH")]
    assert rates.index.tolist() == [0, 1, 2]


def test_long_form_column_names_are_read_without_case_or_spaces():
    rates = normalize_rates(pd.DataFrame({" Date ": ["2018-01-01"], "CURRENCY": ["eth"],
                                          "Usd_Per_Unit": [3.0]}))
    assert rates["currency"].tolist() == ["ETH"] and rates["usd_per_unit"].tolist() == [3.0]


def test_long_form_missing_columns_are_named():
    missing = r"missing: date, usd_per_unit \(or units_per_usd\) \(got \['currency'\]\)"
    with pytest.raises(ValueError, match=missing):
        normalize_rates(pd.DataFrame({"currency": ["ETH"]}))


def test_a_wide_column_named_usd_is_usd_not_a_nameless_currency():
    wide = pd.DataFrame({"USD": [1.0], "ETH": [500.0]}, index=pd.to_datetime(["2018-01-01"]))
    assert normalize_rates(wide, quote="usd_per_unit")["currency"].tolist() == ["ETH"]


@pytest.mark.parametrize(("column", "code"), [("ETHUSD", "ETH"), ("eth-usd", "ETH"),
                                              ("BTC/USD", "BTC"), ("EUR_USD", "EUR"),
                                              ("EURUSD=X", "EUR")])
def test_wide_column_names_of_downloaders(column, code):
    wide = pd.DataFrame({column: [2.0]}, index=pd.to_datetime(["2018-01-01"]))
    assert normalize_rates(wide)["currency"].tolist() == [code]


def test_wide_columns_that_name_no_currency_are_refused():
    wide = pd.DataFrame({"ETH-USD": [1.0], "-USD": [2.0]}, index=pd.to_datetime(["2018-01-01"]))
    with pytest.raises(ValueError, match=r"wide rates: .*'-USD'"):
        normalize_rates(wide)


def test_a_wide_frame_with_a_date_column_instead_of_an_index():
    wide = pd.DataFrame({"Date": pd.to_datetime(["2018-01-02", "2018-01-01"]), "ETH": [2.0, 1.0]})
    rates = normalize_rates(wide, quote="usd_per_unit")
    assert rates["date"].dt.day.tolist() == [1, 2]
    assert rates["usd_per_unit"].tolist() == [1.0, 2.0]


def test_long_dates_in_utc_are_read_and_in_another_zone_refused_naming_it():
    rates = normalize_rates(_long(("2018-01-01T01:00:00+00:00", "ETH", 1.0)))
    assert str(rates["date"].iloc[0]) == "2018-01-01 01:00:00"
    with pytest.raises(ValueError, match=(
            r"^rates: the dates are time-zone-aware in UTC\+02:00, not UTC: 2018-01-01 "
            r"01:00:00\+02:00 is 2017-12-31 23:00 UTC, and a rate is taken for the UTC day")):
        normalize_rates(_long(("2018-01-01T01:00:00+02:00", "ETH", 1.0)))
    no_date = pd.DataFrame({"date": pd.Series([pd.NaT], dtype="datetime64[ns, America/New_York]"),
                            "currency": ["ETH"], "usd_per_unit": [1.0]})
    with pytest.raises(ValueError, match=(
            r"^rates: the dates are time-zone-aware in America/New_York, not UTC, and a rate")):
        normalize_rates(no_date)


def test_two_rates_of_one_day_name_the_currency_and_the_day():
    with pytest.raises(ValueError, match=r"two different rates of BTC on 2018-01-01"):
        normalize_rates(_long(("2018-01-01", "BTC", 1.0), ("2018-01-01", "xbt", 2.0)))


def test_the_end_of_the_sale_wins_over_its_start():
    icos = _icos(2, hard_cap=[10.0, 10.0], caps_unit=["ETH", "ETH"],
                 start_datetime=["2018-01-01", "2018-01-01"],
                 end_datetime=["2018-01-03", None])
    rates = _long(("2018-01-01", "ETH", 1.0), ("2018-01-03", "ETH", 3.0))
    out = to_usd(icos, rates, columns=["hard_cap"])
    assert out["hard_cap_usd"].tolist() == [30.0, 10.0]
    assert out["usd_date"].dt.day.tolist() == [3, 1]
    assert conversion_dates(icos, ["start_datetime", "end_datetime"]).astype(
        "datetime64[D]").astype(str).tolist() == ["2018-01-01", "2018-01-01"]


def test_a_rate_exactly_rate_max_age_old_is_used_and_one_second_older_is_not():
    icos = _icos(2, hard_cap=[1.0, 1.0], caps_unit=["ETH", "ETH"],
                 end_datetime=["2018-01-08", "2018-01-09"])
    rates = _long(("2018-01-01", "ETH", 7.0))
    with pytest.warns(IcoframesWarning, match=r"1 amounts left .* up to 7D before .*: ETH 1"):
        out = to_usd(icos, rates, columns=["hard_cap"], rate_max_age="7D")
    assert out["hard_cap_usd"].tolist()[0] == 7.0 and np.isnan(out["hard_cap_usd"][1])
    assert out.attrs["usd_missing"] == {"ETH": 1}


def test_each_unit_column_converts_its_own_amounts():
    icos = _icos(1, soft_cap=[1.0], hard_cap=[2.0], caps_unit=["ETH"],
                 token_price=[3.0], token_price_unit=["BTC"],
                 min_purchase=[4.0], max_purchase=[5.0], purchase_unit=["USD"],
                 end_datetime=["2018-01-01"])
    rates = _long(("2018-01-01", "ETH", 100.0), ("2018-01-01", "BTC", 1000.0))
    out = to_usd(icos, rates)
    assert [out[f"{c}_usd"][0] for c in ("soft_cap", "hard_cap", "token_price",
                                         "min_purchase", "max_purchase")] == \
        [100.0, 200.0, 3000.0, 4.0, 5.0]


def test_missing_amounts_are_counted_per_reason_in_thousands():
    n = 1200
    icos = _icos(n, hard_cap=[1.0] * n, caps_unit=["XYZ"] * n, end_datetime=["2018-01-01"] * n)
    with pytest.warns(IcoframesWarning, match=r"1,200 amounts left .*: XYZ 1,200"):
        out = to_usd(icos, _long(("2018-01-01", "ETH", 1.0)), columns=["hard_cap"])
    assert out.attrs["usd_missing"] == {"XYZ": 1200}


def test_a_stated_zero_amount_converts_and_an_absent_one_is_not_missing():
    icos = _icos(2, hard_cap=[0.0, np.nan], caps_unit=["ETH", "ETH"],
                 end_datetime=["2018-01-01", "2018-01-01"])
    out = to_usd(icos, _long(("2018-01-01", "ETH", 5.0)), columns=["hard_cap"])
    assert out["hard_cap_usd"][0] == 0.0 and np.isnan(out["hard_cap_usd"][1])
    assert out.attrs["usd_missing"] == {}


def test_the_input_frame_is_left_as_it_was():
    icos = _icos(1, hard_cap=[2.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    before = icos.copy()
    to_usd(icos, _long(("2018-01-01", "ETH", 5.0)), columns=["hard_cap"])
    pd.testing.assert_frame_equal(icos, before)


def test_an_icos_argument_that_is_not_a_frame_is_refused():
    with pytest.raises(ValueError, match="icos must be a pandas DataFrame, got list"):
        to_usd([{"hard_cap": 1.0}], _long(("2018-01-01", "ETH", 1.0)))
    with pytest.raises(ValueError, match="rates must be a pandas DataFrame, got dict"):
        normalize_rates({"ETH": [1.0]})


# -- sale_prices: which snapshot holds the ICO price ---------------------------------------


def _snaps(**columns: object) -> pd.DataFrame:
    n = len(next(iter(columns.values())))  # type: ignore[arg-type]
    base: dict[str, object] = {
        "snapshot_date": pd.to_datetime(["2018-03-01"] * n, format="ISO8601"),
        "id": [1] * n, "status": ["ongoing"] * n, "token_price": [0.1] * n,
        "token_price_unit": ["ETH"] * n,
        "start_datetime": pd.to_datetime(["2018-02-01"] * n, format="ISO8601"),
        "end_datetime": pd.to_datetime(["2018-03-31"] * n, format="ISO8601"),
        "fetched_at": pd.to_datetime(["2018-03-01 03:15"] * n, format="ISO8601", utc=True)}
    base.update(columns)
    return pd.DataFrame(base)


def test_sale_prices_names_the_reader_of_snapshots_it_needs():
    from icoframes.money import sale_prices

    with pytest.raises(ValueError, match=r"^snapshots lack columns \['status'\]: give the icos "
                                         r"table of icoframes\.read_snapshots\(out\)$"):
        sale_prices(_snaps(token_price=[0.1]).drop(columns="status"))


def test_a_snapshot_without_a_status_is_not_taken_as_during_the_sale():
    from icoframes.money import sale_prices

    snaps = _snaps(id=[1, 2], status=[None, "Ongoing "], token_price=[0.1, 0.2])
    assert sale_prices(snaps)[["id", "token_price"]].values.tolist() == [[2, 0.2]]


def test_a_profile_fetched_exactly_at_the_end_of_the_sale_holds_its_price():
    from icoframes.money import sale_prices

    end = pd.to_datetime(["2018-03-31 12:00"] * 2, format="ISO8601")
    snaps = _snaps(id=[1, 2], token_price=[0.1, 0.2], end_datetime=end,
                   fetched_at=pd.to_datetime(["2018-03-31 12:00", "2018-03-31 12:00:01"],
                                             format="ISO8601", utc=True))
    assert sale_prices(snaps)["id"].tolist() == [1]


def test_the_last_fetch_during_the_sale_wins_whatever_the_order_of_the_snapshots():
    from icoframes.money import sale_prices

    # newest first, and the snapshot dates do not follow the fetch times
    snaps = _snaps(id=[1, 1, 1], token_price=[0.3, 0.1, 0.2],
                   snapshot_date=pd.to_datetime(["2018-03-01", "2018-03-03", "2018-03-02"],
                                                format="ISO8601"),
                   fetched_at=pd.to_datetime(["2018-03-05", "2018-03-01", "2018-03-02"],
                                             format="ISO8601", utc=True))
    prices = sale_prices(snaps)
    assert prices["token_price"].tolist() == [0.3]
    assert prices["snapshot_date"].tolist() == [pd.Timestamp("2018-03-01")]


def test_the_deprecated_keyword_shows_as_not_given_in_help():
    import inspect

    # help(to_usd) shows the signature: the old name's default must read as "not given"
    assert "max_age: 'object' = <not given>)" in str(inspect.signature(to_usd))


def test_sale_prices_of_snapshots_without_a_snapshot_date():
    from icoframes.money import sale_prices
    from icoframes.money.prices import SALE_PRICE_COLUMNS

    snaps = _snaps(id=[3, 1], token_price=[0.3, 0.1]).drop(columns="snapshot_date")
    prices = sale_prices(snaps.set_index(pd.Index([10, 20])))
    assert prices.columns.tolist() == ["id", *SALE_PRICE_COLUMNS]
    assert prices.index.tolist() == [0, 1] and prices["id"].tolist() == [1, 3]
    assert str(prices["snapshot_date"].dtype) == "datetime64[ms]"
    assert prices["snapshot_date"].isna().all()


# -- wide columns in Yahoo's "=X" form --------------------------------------------------------


def test_a_yahoo_ticker_of_a_crypto_alias_is_refused_under_its_code():
    # XBT is BTC: no government issues it, so "XBT=X" is not a Yahoo FX ticker
    rates = pd.DataFrame({"XBT=X": [1.0]}, index=pd.to_datetime(["2018-01-01"]))
    with pytest.raises(ValueError, match=r"column 'XBT=X' is not a Yahoo ticker: 'XXX=X' is a "
                                         r"government currency per USD; for BTC give 'BTC-USD' "
                                         r"\(USD per BTC\)"):
        normalize_rates(rates)


def test_a_yahoo_ticker_of_another_shape_is_refused_as_ambiguous():
    rates = pd.DataFrame({"EURJPY1=X": [1.0]}, index=pd.to_datetime(["2018-01-01"]))
    with pytest.raises(ValueError, match=r"column 'EURJPY1=X' is not a Yahoo exchange-rate "
                                         r"ticker \('XXX=X' or 'XXXYYY=X'\): its direction is "
                                         r"ambiguous"):
        normalize_rates(rates)


# -- check_magnitudes: hard caps orders of magnitude off against what was raised ------------


def _caps(units: list[str], caps: list[float], raised: list[float]) -> pd.DataFrame:
    icos = _icos(len(units), hard_cap=caps, caps_unit=units,
                 end_datetime=["2018-03-04"] * len(units))
    icos["raised"] = raised
    return icos


def _magnitude_warnings(icos: pd.DataFrame, rates: pd.DataFrame) -> list[str]:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        to_usd(icos, rates, columns=["hard_cap"])
    return [str(w.message) for w in caught if "come out" in str(w.message)]


def test_a_currency_is_judged_against_usd_caps_that_are_not_what_was_raised():
    # caps stated in USD are 10x what those ICOs raised (median log10: 1); the JPY caps
    # would be too with the right rate, but its rate is read the wrong way (JPY per USD
    # taken as USD per JPY): 11,236x (106 squared) on top of the same 10x, ICOs of
    # other sizes than the USD ones
    usd_raised, jpy_raised = [1e7, 5e7, 1e8], [1e6, 2e6, 3e6]
    icos = _caps(["USD"] * 3 + ["JPY"] * 3,
                 [10 * r for r in usd_raised] + [106 * 10 * r for r in jpy_raised],
                 usd_raised + jpy_raised)
    [message] = _magnitude_warnings(icos, _long(("2018-03-04", "JPY", 106.0)))
    assert message.startswith("to_usd: hard caps in JPY come out 11,236x larger against what "
                              "the same ICOs raised than caps stated in USD (median of 3 ICOs)")


def test_a_currency_worth_more_than_a_dollar_read_the_wrong_way_comes_out_smaller():
    # BTC caps of what was raised, its rate (8,000 USD per BTC) given as BTC per USD: caps of
    # an eighth of a dollar; no caps in USD to compare with (the reference is then 1x)
    icos = _caps(["BTC"] * 3, [1000.0, 2000.0, 500.0], [8e6, 16e6, 4e6])
    rates = pd.DataFrame({"date": ["2018-03-04"], "currency": ["BTC"], "units_per_usd": [8000.0]})
    [message] = _magnitude_warnings(icos, rates)
    assert message.startswith("to_usd: hard caps in BTC come out 64,000,000x smaller against "
                              "what the same ICOs raised than caps stated in USD (median of 3 "
                              "ICOs): are the BTC rates quoted the other way")


def test_caps_exactly_two_orders_of_magnitude_off_are_named():
    icos = _caps(["EUR"] * 3, [1e8, 2e8, 5e7], [1e6, 2e6, 5e5])
    [message] = _magnitude_warnings(icos, _long(("2018-03-04", "EUR", 1.0)))
    assert "hard caps in EUR come out 100x larger" in message


def test_only_icos_with_both_a_cap_and_a_raised_amount_count_towards_the_three():
    # two JPY ICOs raised something; two more have a cap but no raised amount: two judged
    icos = _caps(["JPY"] * 4, [1.06e9, 2.12e9, 5.3e8, 1e9], [1e7, 2e7, np.nan, np.nan])
    assert _magnitude_warnings(icos, _long(("2018-03-04", "JPY", 106.0))) == []


def test_icos_that_raised_one_dollar_are_judged_too():
    icos = _caps(["JPY"] * 3, [106.0, 106.0, 106.0], [1.0, 1.0, 1.0])
    [message] = _magnitude_warnings(icos, _long(("2018-03-04", "JPY", 106.0)))
    assert "hard caps in JPY come out 11,236x larger" in message


def test_zero_caps_and_zero_raised_amounts_raise_no_numpy_warning():
    import warnings

    icos = _caps(["USD"] * 3, [0.0, 5e6, 0.0], [0.0, 0.0, 5e6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning of a division by zero fails
        out = to_usd(icos, _long(("2018-03-04", "ETH", 1.0)), columns=["hard_cap"])
    assert out["hard_cap_usd"].tolist() == [0.0, 5e6, 0.0]


# -- long-form rates: what each refusal says --------------------------------------------------


def test_long_form_with_quote_is_refused_saying_where_its_direction_is():
    with pytest.raises(ValueError, match=r"^quote= is for the bare currency columns of wide "
                                         r"rates; long form names its direction by its value "
                                         r"column \(usd_per_unit or units_per_usd\)$"):
        normalize_rates(_long(("2018-01-01", "ETH", 1.0)), quote="usd_per_unit")


def test_long_form_with_two_value_columns_lists_the_names_of_a_direction():
    rates = _long(("2018-01-01", "ETH", 1.0)).assign(units_per_usd=1.0)
    with pytest.raises(ValueError, match=r"^long-form rates need one value column, got "
                                         r"\['usd_per_unit', 'units_per_usd'\]: usd_per_unit, "
                                         r"usd, units_per_usd each name a direction$"):
        normalize_rates(rates)


@pytest.mark.parametrize(("units", "shown"), [(0.0, "0.0"), (-2.0, "-2.0")])
def test_a_units_per_usd_rate_that_is_not_positive_is_refused_as_given(units, shown):
    # not inverted first: the message shows the value the user gave, not 1/value or inf
    rates = pd.DataFrame({"date": ["2018-01-01", "2018-01-02"], "currency": ["JPY", "JPY"],
                          "units_per_usd": [100.0, units]})
    with pytest.raises(ValueError, match=rf"positive and finite; JPY on 2018-01-02 is {shown}$"):
        normalize_rates(rates)


def test_units_per_usd_below_one_is_inverted_too():
    rates = pd.DataFrame({"date": ["2018-01-01"], "currency": ["GBP"], "units_per_usd": [0.5]})
    assert normalize_rates(rates)["usd_per_unit"].tolist() == [2.0]


@pytest.mark.parametrize(("units", "shown"), [(0.0, "0.0"), (-2.0, "-2.0")])
def test_a_wide_units_per_usd_rate_that_is_not_positive_is_refused_as_given(units, shown):
    rates = pd.DataFrame({"JPY=X": [100.0, units]},
                         index=pd.to_datetime(["2018-01-01", "2018-01-02"]))
    with pytest.raises(ValueError, match=rf"positive and finite; JPY on 2018-01-02 is {shown}$"):
        normalize_rates(rates)


def test_wide_units_per_usd_below_one_is_inverted_too():
    rates = pd.DataFrame({"GBP=X": [0.5]}, index=pd.to_datetime(["2018-01-01"]))
    assert normalize_rates(rates)["usd_per_unit"].tolist() == [2.0]


# -- price_dates: a token price of the sale, or a market price as of the fetch --------------


def _priced(**columns: object) -> pd.DataFrame:
    icos = _icos(1, token_price=[2.0], token_price_unit=["ETH"], end_datetime=["2018-03-10"])
    for name, value in columns.items():
        icos[name] = value
    return icos


def test_a_price_fetched_exactly_at_the_end_of_the_sale_is_the_ico_price():
    icos = _priced(status=["ongoing"],
                   fetched_at=pd.to_datetime(["2018-03-10 00:00"], format="ISO8601", utc=True))
    out = to_usd(icos, _long(("2018-03-10", "ETH", 500.0)), columns=["token_price"])
    assert out["token_price_usd_date"].tolist() == [pd.Timestamp("2018-03-10")]
    assert out["token_price_usd"].tolist() == [1000.0]


def test_an_ico_without_a_status_is_past_only_by_its_dates():
    icos = _priced(status=[None],
                   fetched_at=pd.to_datetime(["2018-03-01 12:00"], format="ISO8601", utc=True))
    out = to_usd(icos, _long(("2018-03-10", "ETH", 500.0)), columns=["token_price"])
    assert out["token_price_usd_date"].tolist() == [pd.Timestamp("2018-03-10")]


def test_prices_of_a_frame_without_an_end_date_are_of_the_sale():
    icos = _priced().drop(columns="end_datetime")
    icos["start_datetime"] = pd.to_datetime(["2018-03-01"]).astype("datetime64[ms]")
    out = to_usd(icos, _long(("2018-03-01", "ETH", 500.0)), columns=["token_price"],
                 date="start_datetime")
    assert out["token_price_usd"].tolist() == [1000.0]


def test_dates_given_as_iso_text_are_read_like_datetimes():
    from icoframes.money import price_dates
    from icoframes.money.prices import naive_dates

    icos = pd.DataFrame({"end_datetime": ["2018-03-31"], "status": ["past"],
                         "fetched_at": ["2026-11-20T14:00:00+01:00"]})
    when, past = price_dates(icos, naive_dates(icos["end_datetime"]))
    assert [str(d) for d in when] == ["2026-11-20T13:00:00.000"] and past.tolist() == [True]


# -- the old keyword max_age, and rate_max_age's boundaries ----------------------------------


def test_the_old_keyword_warns_and_is_refused_beside_the_new_one_in_full():
    # the texts in full (test_money.py checks the warning names the caller's line, which
    # mutmut's trampoline hides: that test is not run under `make mutate`)
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    rates = _long(("2018-01-01", "ETH", 2.0))
    with pytest.warns(FutureWarning) as caught:
        out = to_usd(icos, rates, columns=["hard_cap"], max_age="1D")
    assert [str(w.message) for w in caught] == [
        "to_usd(max_age=...) is now to_usd(rate_max_age=...): max_age is a cache age in the "
        "loaders; the old name goes in the next version"]
    assert out["hard_cap_usd"].tolist() == [2.0]
    with pytest.raises(ValueError, match=r"^to_usd: rate_max_age='3D' and max_age='1D' both "
                                         r"given; give rate_max_age only \(max_age is its old "
                                         r"name\)$"):
        to_usd(icos, rates, rate_max_age="3D", max_age="1D")


def test_a_signed_number_without_a_unit_is_refused_too():
    # "+7" is 7 nanoseconds to pandas, 7 seconds to every age argument: refused, not a week's
    # rates thrown away
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    with pytest.raises(ValueError, match=r"^to_usd: rate_max_age must be a positive duration, "
                                         r".*got '\+7' \(seconds: .*\); did you mean '7D'\?$"):
        to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), rate_max_age="+7")


#: Why seconds under a day are refused as a rate age.
_UNDER_A_DAY = " (seconds: under the day by which rates are matched)"


@pytest.mark.parametrize(("given", "hint"), [
    ("7", "; did you mean '7D'?"), (" 7 ", "; did you mean '7D'?"), (7, "; did you mean '7D'?"),
    ("7.5", "; did you mean '7.5D'?"), (7.5, "; did you mean '7.5D'?"),
    ("0.5", "; did you mean '0.5D'?"), (1, "; did you mean '1D'?"),
    (0.25, "; did you mean '0.25D'?"), (np.int64(7), "; did you mean '7D'?"),
    # past a year of days, the seconds they are, with their unit
    ("1e3", "; did you mean '1000s'?"), (3600, "; did you mean '3600s'?"),
    # written otherwise (icoframes.numerals): the number it most likely means, as days
    ("\u0663", "; did you mean '3D'?"), ("7_0", "; did you mean '70D'?"),
])
def test_a_rate_max_age_of_seconds_under_a_day_says_the_days_it_most_likely_means(given, hint):
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    with pytest.raises(ValueError) as info:
        to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), rate_max_age=given)
    assert str(info.value) == (
        "to_usd: rate_max_age must be a positive duration, such as '7D', '12h', "
        "pd.Timedelta(days=7) or np.timedelta64(7, 'D'), or seconds of a day or more (None: "
        f"any age); got {given!r}{_UNDER_A_DAY}{hint}")


@pytest.mark.parametrize(("given", "hint"), [
    # no positive count: nothing to suggest
    ("0", ""), (0, ""), ("-7", ""), (-7, ""), (float("inf"), ""), (float("nan"), ""),
    (True, ""), ("\u0663D", "; did you mean '3D'?"),
    ("1M", " (m: minutes or months?); did you mean '1min' or '30D'?"),
])
def test_a_rate_max_age_that_is_no_positive_age_is_refused(given, hint):
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    with pytest.raises(ValueError) as info:
        to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), rate_max_age=given)
    assert str(info.value) == (
        "to_usd: rate_max_age must be a positive duration, such as '7D', '12h', "
        "pd.Timedelta(days=7) or np.timedelta64(7, 'D'), or seconds of a day or more (None: "
        f"any age); got {given!r}{hint}")


@pytest.mark.parametrize("given", [86400, "86400", 604800.0, np.int64(604800)])
def test_a_rate_max_age_of_seconds_of_a_day_or_more_is_those_seconds(given):
    # every age argument reads a number as seconds (max_age=3600 is an hour)
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-02"])
    out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"],
                 rate_max_age=given)
    assert out["hard_cap_usd"].tolist() == [2.0]  # the day before's rate: within a day


def test_a_rate_max_age_of_one_microsecond_is_positive_and_takes_the_same_day_rate():
    icos = _icos(2, hard_cap=[1.0, 1.0], caps_unit=["ETH", "ETH"],
                 end_datetime=["2018-01-01", "2018-01-02"])
    with pytest.warns(IcoframesWarning, match=r"up to 1us before the date.*: ETH 1$"):
        out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"],
                     rate_max_age="1us")
    assert out["hard_cap_usd"].tolist()[0] == 2.0 and np.isnan(out["hard_cap_usd"][1])
    with pytest.warns(IcoframesWarning, match=r"up to 1 microseconds before the date.*: ETH 1$"):
        out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"],
                     rate_max_age=np.timedelta64(1, "us"))  # a timedelta64 too: positive
    assert out["hard_cap_usd"].tolist()[0] == 2.0 and np.isnan(out["hard_cap_usd"][1])


@pytest.mark.parametrize("given", ["1ns", " 999ns ", np.timedelta64(1, "ns"), pd.Timedelta(1)])
def test_a_rate_max_age_under_a_microsecond_is_refused_as_every_age_argument_refuses_it(given):
    # every other age argument (max_age="1ns") refuses it, an age would hold it as 0: as_age
    # is their one reader, age_hint their one reason
    why = " (a positive age shorter than a microsecond, which an age would hold as 0)"
    assert as_age(given) is None and age_hint(given) == why
    for call in (lambda: to_usd(_icos(1), _long(("2018-01-01", "ETH", 2.0)), rate_max_age=given),
                 lambda: rate_age(given, "compute_features")):
        with pytest.raises(InvalidParameter) as caught:
            call()
        assert str(caught.value).endswith(f"; got {given!r}{why}")


# -- dates given as text: ISO 8601 of any precision, nothing else -----------------------------


def test_rate_dates_in_iso_8601_of_mixed_precision_are_read():
    rates = normalize_rates(_long(("2018-01-01", "ETH", 1.0), ("2018-01-02T12:00:00", "ETH", 2.0)))
    assert [str(d) for d in rates["date"]] == ["2018-01-01 00:00:00", "2018-01-02 12:00:00"]


def test_rate_dates_that_are_not_iso_8601_are_refused_not_guessed():
    # "01/02/2018" is 1 February to some readers and 2 January to others
    with pytest.raises(ValueError, match=r"^rates: dates could not be read \("):
        normalize_rates(_long(("01/02/2018", "ETH", 1.0)))


def test_ico_dates_given_as_iso_text_of_mixed_precision_are_read():
    icos = _icos(2, hard_cap=[1.0, 1.0], caps_unit=["ETH", "ETH"])
    icos["end_datetime"] = ["2018-01-01", "2018-01-02T12:00:00"]  # text, as a CSV gives it
    out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0), ("2018-01-02", "ETH", 3.0)),
                 columns=["hard_cap"])
    assert [str(d) for d in out["usd_date"]] == ["2018-01-01 00:00:00", "2018-01-02 12:00:00"]
    assert out["hard_cap_usd"].tolist() == [2.0, 3.0]


# -- rates as numbers: integers, and inverted ---------------------------------------------------


def test_integer_rates_are_read_and_inverted_as_floats():
    wide = pd.DataFrame({"JPY=X": [100, 200], "ETH-USD": [500, 400]},
                        index=pd.to_datetime(["2018-01-01", "2018-01-02"]))
    rates = normalize_rates(wide)
    assert rates["usd_per_unit"].tolist() == [500.0, 0.01, 400.0, 0.005]
    assert str(rates["usd_per_unit"].dtype) == "float64"
    long = pd.DataFrame({"date": ["2018-01-01"], "currency": ["JPY"], "units_per_usd": [100]})
    assert normalize_rates(long)["usd_per_unit"].tolist() == [0.01]


def test_the_first_clash_in_the_order_given_is_named():
    rates = _long(("2018-01-02", "ETH", 1.0), ("2018-01-01", "BTC", 1.0),
                  ("2018-01-02", "ETH", 2.0), ("2018-01-01", "BTC", 2.0))
    with pytest.raises(ValueError, match=r"^rates: two different rates of ETH on 2018-01-02"):
        normalize_rates(rates)


def test_a_wide_frame_of_no_currency_is_an_empty_long_frame():
    for index in (pd.DatetimeIndex([]), pd.to_datetime(["2018-01-01", "2018-01-02"])):
        rates = normalize_rates(pd.DataFrame(index=index))
        assert rates.columns.tolist() == ["date", "currency", "usd_per_unit"] and rates.empty
        assert [str(t) for t in rates.dtypes] == ["datetime64[ms]", "object", "float64"]
    icos = _icos(1, hard_cap=[1.0], caps_unit=["ETH"], end_datetime=["2018-01-01"])
    with pytest.warns(IcoframesWarning, match=r": ETH 1$"):
        out = to_usd(icos, pd.DataFrame(index=pd.DatetimeIndex([])), columns=["hard_cap"])
    assert np.isnan(out["hard_cap_usd"][0])


def test_an_infinite_raised_amount_is_not_judged_against_the_caps():
    # three JPY ICOs with caps, but raised amounts no ratio can be taken of: nothing to say
    icos = _caps(["JPY"] * 3, [1e6, 2e6, 3e6], [np.inf, np.inf, np.inf])
    assert _magnitude_warnings(icos, _long(("2018-03-04", "JPY", 0.01))) == []


# -- what each refusal of the rates says, in full ---------------------------------------------


def _wide(*columns: str) -> pd.DataFrame:
    return pd.DataFrame({c: [1.0] for c in columns}, index=pd.to_datetime(["2018-01-01"]))


def test_a_quote_of_neither_direction_is_refused_naming_both():
    with pytest.raises(ValueError, match=r"^quote must be one of 'usd_per_unit', "
                                         r"'units_per_usd' or None, got 'usd'$"):
        normalize_rates(_wide("ETH"), quote="usd")  # type: ignore[arg-type]


def test_long_form_with_other_columns_names_them_all():
    rates = _long(("2018-01-01", "ETH", 1.0)).assign(source="x", note="y")
    with pytest.raises(ValueError, match=(
            r"^long-form rates take columns date, currency and usd_per_unit only; got "
            r"'source', 'note' too: select the three \(rates\[\['date', 'currency', "
            r"'usd_per_unit'\]\]\), or give each currency's rates in one layout \(wide columns "
            r"such as 'JPY=X' go in a wide frame\)$")):
        normalize_rates(rates)


def test_a_wide_column_named_by_a_price_field_is_refused_saying_what_to_do():
    with pytest.raises(ValueError, match=(
            r"^wide rates: column 'Close' names a price field, not a currency \(a downloader's "
            r"frame of one ticker does not say which\); select the field and name it by its "
            r"ticker, e.g\. rates\[\['Close'\]\]\.rename\(columns=\{'Close': 'ETH-USD'\}\)$")):
        normalize_rates(_wide("Close"))


def test_every_refused_wide_column_is_named_in_one_message():
    with pytest.raises(ValueError, match=r"^wide rates: column 'Volume' names a price field.*; "
                                         r"column 'EURJPY=X' is JPY per EUR, a rate without "
                                         r"USD: give USD rates \('EUR-USD', 'EURUSD=X'\)$"):
        normalize_rates(_wide("Volume", "EURJPY=X"))


def test_wide_rates_of_two_column_levels_are_refused_saying_which_field_to_select():
    rates = pd.DataFrame([[1.0]], columns=pd.MultiIndex.from_tuples([("Close", "ETH-USD")]),
                         index=pd.to_datetime(["2018-01-01"]))
    with pytest.raises(ValueError, match=r"^wide rates need one column level, one column per "
                                         r"currency; for a downloader's \(field, ticker\) "
                                         r"columns select one field, e\.g\. rates\['Close'\]$"):
        normalize_rates(rates)


def test_rates_in_neither_layout_are_refused_naming_the_columns_and_the_index():
    with pytest.raises(ValueError, match=(
            r"^rates must be long form \(columns date, currency, usd_per_unit\) or wide form "
            r"\(a date index or column: datetimes, dates or ISO date text; one column per "
            r"currency\); got columns \['ETH'\] and an index of int64 \(RangeIndex, first 0\)$")):
        normalize_rates(pd.DataFrame({"ETH": [1.0]}))


@pytest.mark.parametrize("index", [
    [dt.date(2018, 1, 1), dt.date(2018, 1, 2)], ["2018-01-01", "2018-01-02"],
    pd.Index(["2018-01-01", "2018-01-02"], dtype="string")])
def test_wide_rates_take_dates_or_date_text_as_their_index_as_long_form_does(index):
    # review REV-CL F3: refused "... got columns [...] and a Index", while a long form takes
    # datetime.date and ISO text (pd.read_csv(..., index_col=0) without parse_dates)
    dated = pd.DataFrame({"ETH-USD": [1.0, 2.0]}, index=pd.to_datetime(["2018-01-01",
                                                                          "2018-01-02"]))
    got = normalize_rates(pd.DataFrame({"ETH-USD": [1.0, 2.0]}, index=index))
    pd.testing.assert_frame_equal(got, normalize_rates(dated))
    assert str(got["date"].dtype) == "datetime64[ms]"


def test_bare_wide_columns_are_refused_saying_each_way_to_name_them():
    with pytest.raises(ValueError, match=(
            r"^wide rates: columns \['ETH'\] do not say which way they are quoted \(USD per "
            r"unit, or units per USD\); name them as price downloaders do \('ETH-USD' and "
            r"'EURUSD=X' are USD per unit, 'JPY=X' and 'USD/JPY' are JPY per USD\), or pass "
            r"quote='usd_per_unit' \(or quote='units_per_usd'\) for bare currency columns, or "
            r"give long form with a usd_per_unit column$")):
        normalize_rates(_wide("ETH"))


# -- to_usd's own body (mutated since benchmarks/mutation.py moves @checked_keywords) -------


def test_the_warning_of_amounts_left_without_usd_in_full_sorted_by_reason():
    icos = _icos(4, hard_cap=[1.0, 2.0, 3.0, 4.0], caps_unit=["XYZ", None, "ETH", "ETH"],
                 end_datetime=["2018-01-01", "2018-01-01", None, "2018-01-01"])
    with pytest.warns(IcoframesWarning) as caught:
        out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"],
                     rate_max_age="3D")
    assert [str(w.message) for w in caught] == [
        "to_usd: 3 amounts left without a USD value (no rate of their currency at or up to 3D "
        "before the date, no unit, no date, a past ICO's price without fetched_at, or a "
        "price whose direction is doubtful): (no date) 1, (no unit) 1, XYZ 1"]
    assert list(out.attrs["usd_missing"].items()) == [("(no date)", 1), ("(no unit)", 1),
                                                      ("XYZ", 1)]
    assert out["hard_cap_usd"].tolist()[3] == 8.0


def test_absent_columns_and_unknown_amounts_are_named_in_full():
    icos = _icos(1).drop(columns=["caps_unit", "end_datetime"])
    with pytest.raises(ValueError, match=r"^icos lacks columns \['caps_unit', 'end_datetime'\]$"):
        to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"],
               date="end_datetime")
    with pytest.raises(ValueError, match=r"^no amount column \['raised', 'cap'\]; amounts: "
                                         r"soft_cap, hard_cap, token_price, min_purchase, "
                                         r"max_purchase$"):
        to_usd(_icos(1), _long(("2018-01-01", "ETH", 2.0)), columns=["raised", "cap"])


def test_amounts_as_decimals_convert_as_floats():
    # a database driver gives NUMERIC columns as Decimal objects
    from decimal import Decimal

    icos = _icos(3, hard_cap=[Decimal("1.5"), None, Decimal("300")], caps_unit=["ETH"] * 3,
                 end_datetime=["2018-01-01"] * 3)
    icos["raised"] = [Decimal("3"), None, Decimal("600")]
    assert str(icos["hard_cap"].dtype) == "object"
    out = to_usd(icos, _long(("2018-01-01", "ETH", 2.0)), columns=["hard_cap"])
    assert str(out["hard_cap_usd"].dtype) == "float64"
    assert out["hard_cap_usd"].tolist()[::2] == [3.0, 600.0] and np.isnan(out["hard_cap_usd"][1])
    assert out.attrs["usd_missing"] == {}


def test_a_past_icos_cap_without_a_rate_is_missing_for_its_currency_not_its_fetch_date():
    # only a token price of a past ICO is converted at its fetch: a cap is of the sale
    icos = _priced(status=["past"], hard_cap=[5.0], caps_unit=["XYZ"],
                   fetched_at=pd.to_datetime(["2018-03-20 12:00"], format="ISO8601", utc=True))
    # ETH, a known code these ICOs do not use, is not named as a rate matching nothing
    with pytest.warns(IcoframesWarning, match=r": XYZ 1$"):
        out = to_usd(icos, _long(("2018-03-10", "ETH", 500.0)), columns=["hard_cap"])
    assert out.attrs["usd_missing"] == {"XYZ": 1}


def test_a_zone_off_utc_in_summer_names_its_first_date_even_when_every_date_is_at_utc():
    # Europe/London in winter: no date is off UTC, the zone is (in summer): refused, and
    # the stamp named is the first date's (not none because no date was off UTC)
    london = pd.DataFrame({"date": pd.DatetimeIndex(["2018-12-31", "2019-01-01"],
                                                    tz="Europe/London"),
                           "currency": ["ETH", "ETH"], "usd_per_unit": [1.0, 2.0]})
    with pytest.raises(ValueError) as info:
        normalize_rates(london)
    assert str(info.value).startswith(
        "rates: the dates are time-zone-aware in Europe/London, not UTC: 2018-12-31 "
        "00:00:00+00:00 is 2018-12-31 00:00 UTC, and a rate is taken")
