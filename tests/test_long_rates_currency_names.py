"""Long-form rates whose ``currency`` holds a downloader's ticker (``ETH-USD``, ``JPY=X``: a
melted wide frame) are read or refused by the wide form's rules, never left to match
nothing; the warning of amounts left without USD names the rates' unmatched currencies."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter
from icoframes.money import normalize_rates, to_usd

DAYS = pd.date_range("2018-03-20", "2018-04-05", freq="D")


def _icos() -> pd.DataFrame:
    return icoframes.tidy([
        {"id": 1, "finance": {"hard_cap": 30_000, "caps_unit": "ETH"},
         "dates": {"end_datetime": "31.03.2018 00:00:00"}},
        {"id": 2, "finance": {"hard_cap": 1e9, "caps_unit": "JPY"},
         "dates": {"end_datetime": "31.03.2018 00:00:00"}}]).icos


def _rates(names: list[str], values: list[float], column: str = "usd_per_unit") -> pd.DataFrame:
    return pd.DataFrame({"date": np.repeat(DAYS, len(names)), "currency": names * len(DAYS),
                         column: values * len(DAYS)})


def _converted(rates: pd.DataFrame) -> tuple[list[float], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = to_usd(_icos(), rates, columns=["hard_cap"])
    return out["hard_cap_usd"].round(2).tolist(), [str(w.message) for w in caught]


@pytest.mark.parametrize(("names", "values", "column"), [
    (["ETH-USD", "JPYUSD=X"], [500.0, 0.0094], "usd_per_unit"),
    (["ETH/USD", "JPY_USD"], [500.0, 0.0094], "usd_per_unit"),
    (["eth-usd", "jpyusd"], [500.0, 0.0094], "usd"),
    (["USD-ETH", "JPY=X"], [0.002, 1 / 0.0094], "units_per_usd"),
    (["USD/ETH", "USDJPY=X"], [0.002, 1 / 0.0094], "units_per_usd"),
    (["ETH", "JPY"], [500.0, 0.0094], "usd_per_unit"),  # codes, as before
])
def test_tickers_stating_the_value_column_s_direction_are_read(names, values, column):
    usd, said = _converted(_rates(names, values, column))
    assert usd == [15_000_000.0, 9_400_000.0]
    assert said == []


@pytest.mark.parametrize(("names", "column", "message"), [
    (["ETH", "JPY=X"], "usd_per_unit",
     "currency 'JPY=X' is JPY per USD, but the value column usd_per_unit says USD per unit"),
    (["ETH", "USD/JPY"], "usd", "currency 'USD/JPY' is JPY per USD, but the value column usd"),
    (["ETH-USD", "JPY"], "units_per_usd",
     "currency 'ETH-USD' is USD per ETH, but the value column units_per_usd says units per USD"),
    (["ETH-BTC", "JPY"], "usd_per_unit", "currency 'ETH-BTC' is BTC per ETH, a rate without USD"),
    (["ETH=X", "JPY"], "usd_per_unit", "currency 'ETH=X' is not a Yahoo ticker"),
])
def test_tickers_contradicting_the_value_column_or_without_usd_are_refused(names, column,
                                                                           message):
    with pytest.raises(InvalidParameter, match="long-form rates: " + re.escape(message)):
        normalize_rates(_rates(names, [500.0, 0.0094], column))


def test_rates_of_a_currency_matching_no_unit_are_named_in_the_warning():
    usd, [message] = _converted(_rates(["ETH", "rupee"], [500.0, 0.0094]))
    assert usd[0] == 15_000_000.0 and np.isnan(usd[1])
    assert message.startswith("to_usd: 1 amounts left without a USD value")
    assert message.endswith(": JPY 1; the rates' currencies RUPEE match no unit of these ICOs "
                            "(a currency is matched by its code, as the unit columns hold it: "
                            "'INR', not 'rupee')")


def test_rates_named_yen_convert_the_jpy_amounts():
    usd, messages = _converted(_rates(["ETH", "yen"], [500.0, 0.0094]))
    assert usd[0] == 15_000_000.0 and usd[1] > 0 and messages == []


def test_known_codes_no_ico_uses_are_not_named_in_the_warning():
    # BTC, EUR, XBT (read as BTC) and CNY are right codes that these ICOs simply do not
    # use (INR too, an ISO code): only RUPEE, a word no code is read from, looks like a
    # naming problem
    rates = _rates(["ETH", "rupee", "BTC", "EUR", "XBT", "CNY", "INR", "LINK"],
                   [500.0, 0.0094, 8e3, 1.2, 8e3, 0.16, 0.012, 7.5])
    usd, [message] = _converted(rates)
    assert usd[0] == 15_000_000.0 and np.isnan(usd[1])
    assert "the rates' currencies RUPEE match no unit" in message
    assert not re.search(r"\b(BTC|EUR|XBT|CNY|INR|LINK)\b", message.split("(a currency")[0])


def test_sandbox_rates_beside_an_ico_without_dates_blame_no_rate_currency():
    icos = icoframes.tidy([{"id": 1, "finance": {"hard_cap": 1000, "caps_unit": "ETH"}}]).icos
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        to_usd(icos, sandbox.rates(), columns=["hard_cap"])
    assert [str(w.message).split("): ")[-1] for w in caught] == ["(no date) 1"]


def test_the_warning_says_nothing_of_rates_when_every_amount_converts():
    rates = _rates(["ETH", "JPY", "BTC"], [500.0, 0.0094, 8000.0])
    assert _converted(rates) == ([15_000_000.0, 9_400_000.0], [])


def test_sandbox_rates_melted_with_their_tickers_convert_as_the_wide_form():
    wide = sandbox.rates(wide=True)  # ETH-USD, BTC-USD, EUR=X
    melted = wide.rename_axis("date").reset_index().melt(
        id_vars="date", var_name="currency", value_name="value")
    icos = icoframes.tidy(sandbox.generate_directory(100, seed=2).profiles()).icos
    per_usd = melted["currency"] == "EUR=X"  # EUR per USD, as Yahoo writes it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = to_usd(icos, wide, columns=["hard_cap"])["hard_cap_usd"]
        for column in ("usd_per_unit", "units_per_usd"):  # ETH-USD and EUR=X: one is wrong
            with pytest.raises(InvalidParameter, match="long-form rates: currency"):
                to_usd(icos, melted.rename(columns={"value": column}), columns=["hard_cap"])
        parts = [normalize_rates(melted[rows].rename(columns={"value": column}))
                 for column, rows in (("usd_per_unit", ~per_usd), ("units_per_usd", per_usd))]
        got = to_usd(icos, pd.concat(parts, ignore_index=True), columns=["hard_cap"])
    pd.testing.assert_series_equal(got["hard_cap_usd"], want)
