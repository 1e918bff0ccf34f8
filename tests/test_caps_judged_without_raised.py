"""A rate read the wrong way warns even where raised is unknown (the common case): a
currency's median hard cap in USD against the median of the caps stated in USD."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.features import compute_features
from icoframes.money import to_usd

DAYS = pd.date_range("2018-03-20", "2018-04-05", freq="D")


def _icos(caps: list[tuple[str, float]], raised: float | None = None) -> pd.DataFrame:
    profiles = [{"id": i, "finance": {"hard_cap": cap, "caps_unit": unit,
                                      "raised": "" if raised is None else raised},
                 "dates": {"start_datetime": "01.03.2018 00:00:00",
                           "end_datetime": "31.03.2018 00:00:00"}}
                for i, (unit, cap) in enumerate(caps, start=1)]
    return icoframes.tidy(profiles).icos


def _warnings(icos: pd.DataFrame, rates: pd.DataFrame, **options: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        to_usd(icos, rates, columns=["hard_cap"], **options)
    assert all(issubclass(w.category, IcoframesWarning) for w in caught)
    return [str(w.message) for w in caught if "come out" in str(w.message)]


ETH_AT_500 = pd.DataFrame({"ETH": 500.0}, index=DAYS)  # USD per ETH
TEN_AND_TEN = [("ETH", 30_000.0)] * 10 + [("USD", 15e6)] * 10


def test_eth_rates_read_the_wrong_way_warn_without_raised():
    icos = _icos(TEN_AND_TEN)
    [message] = _warnings(icos, ETH_AT_500, quote="units_per_usd")
    assert message.startswith("to_usd: hard caps in ETH come out 250,000x smaller than caps "
                              "stated in USD (medians of 10 and 10 ICOs; too few of them "
                              "state what they raised")
    assert "quoted the other way" in message
    assert _warnings(icos, ETH_AT_500, quote="usd_per_unit") == []


def test_a_frame_without_a_raised_column_is_judged_by_its_caps():
    icos = _icos(TEN_AND_TEN).drop(columns="raised")
    assert len(_warnings(icos, ETH_AT_500, quote="units_per_usd")) == 1


def test_jpy_read_the_wrong_way_warns_through_compute_features():
    icos = [("JPY", 1.6e9), ("JPY", 5.3e8), ("JPY", 2.1e9)] + [("USD", 1e7)] * 3
    tables = icoframes.tidy([{"id": i, "finance": {"hard_cap": c, "caps_unit": u},
                              "dates": {"end_datetime": "31.03.2018 00:00:00"}}
                             for i, (u, c) in enumerate(icos, start=1)])
    wrong = pd.DataFrame({"JPY": 106.0}, index=DAYS)  # JPY per USD, said USD per JPY
    with pytest.warns(IcoframesWarning, match=r"hard caps in JPY come out [\d,]+x larger than "
                                              r"caps stated in USD \(medians of 3 and 3 ICOs"):
        compute_features(tables, rates=wrong, quote="usd_per_unit", as_of="2019-01-01")


@pytest.mark.parametrize("caps", [
    [("ETH", 30_000.0)] * 2 + [("USD", 15e6)] * 10,  # two ETH caps: too few to judge
    [("ETH", 30_000.0)] * 10 + [("USD", 15e6)] * 2,  # two USD caps: nothing to judge by
    # real caps 500x apart (100 ETH sales beside $25M ones), under the threshold of 1,000x
    [("ETH", 100.0)] * 3 + [("USD", 25e6)] * 3,
])
def test_too_few_caps_or_caps_within_the_threshold_do_not_warn(caps):
    assert _warnings(_icos(caps), ETH_AT_500, quote="usd_per_unit") == []


def test_the_threshold_is_three_orders_of_magnitude():
    from icoframes.money import CAP_MAGNITUDE_WARNING

    assert CAP_MAGNITUDE_WARNING == 3.0
    # 1,000x exactly: 200 ETH at $500 is $100,000 against $100M caps
    [message] = _warnings(_icos([("ETH", 200.0)] * 3 + [("USD", 1e8)] * 3), ETH_AT_500,
                          quote="usd_per_unit")
    assert "hard caps in ETH come out 1,000x smaller than caps stated in USD" in message


def test_a_currency_judged_by_raised_is_not_judged_again_by_its_caps():
    # three ETH ICOs state what they raised: the raised check judges (and warns) once
    icos = _icos(TEN_AND_TEN[:3] + TEN_AND_TEN[10:13], raised=12e6)
    [message] = _warnings(icos, ETH_AT_500, quote="units_per_usd")
    assert "against what the same ICOs raised" in message


def _sandbox_icos(seed: int) -> pd.DataFrame:
    icos = icoframes.tidy(sandbox.generate_directory(300, seed=seed).profiles()).icos
    return icos.assign(raised=np.nan)  # raised unknown: the caps alone are judged


def test_sandbox_caps_warn_for_rates_read_the_wrong_way_and_not_for_right_ones():
    wide = sandbox.rates().pivot(index="date", columns="currency", values="usd_per_unit")
    for seed in (3, 4, 5):
        icos = _sandbox_icos(seed)
        assert _warnings(icos, wide, quote="usd_per_unit") == []
        named = {m.split()[4] for m in _warnings(icos, wide, quote="units_per_usd")}
        assert named == {"ETH", "BTC"}  # EUR, near a dollar, cannot show
