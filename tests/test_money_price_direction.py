"""A token price quoted the wrong way round is never converted as if right, nor inverted,
and a right price is never blanked for it.

On main (7759c04) a price ``1000`` under ``ETH`` beside a hard cap of 10,000 ETH (the whole
sale: 10 tokens) converted to 450,000 USD per token with no word (REV-BK L4), as did
``"1 ETH = 0.0005 XYZ"`` (2,000 ETH per token). Now ``to_usd`` leaves such a price without a
USD value, counted as ``(price direction doubtful)`` in ``attrs["usd_missing"]``, names the
ICO in ``attrs["price_direction_doubtful"]`` and a warning, and keeps ``token_price`` as read.
Only a price worth $1,000 a token or more as written is judged: the cap and tokens for sale
fitting the inverse (often the case for a right price beside a tokens-for-sale figure off by
100 times) never judge alone.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.money import to_usd
from icoframes.money.direction import DOUBTFUL, doubtful_direction

END = "15.07.2018 12:00:00"
RATES = pd.DataFrame({"date": ["2018-07-15", "2018-07-15"], "currency": ["ETH", "BTC"],
                      "usd_per_unit": [450.0, 6000.0]})


def _profile(ico_id: int, price: object, unit: str = "ETH", cap: object = "10000",
             caps_unit: str = "ETH", tokens: object = "") -> dict:
    return {"id": ico_id, "main": {"name": f"ICO {ico_id}"},
            "finance": {"ticker": "XYZ", "token_price": price, "token_price_unit": unit,
                        "hard_cap": cap, "caps_unit": caps_unit, "tokens_for_sale": tokens},
            "dates": {"end_datetime": END}}


def _converted(*profiles: dict) -> tuple[pd.DataFrame, list[str]]:
    icos = icoframes.tidy(list(profiles), statuses={p["id"]: "ongoing" for p in profiles}).icos
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = to_usd(icos, RATES)
    return out, [str(w.message) for w in caught]


def test_a_price_that_buys_ten_tokens_with_the_whole_hard_cap_is_doubtful():
    # REV-BK's direction.py: five ICOs at 0.0005 ETH, one at 1000 ETH, each 10,000 ETH hard cap
    out, said = _converted(*[_profile(i, "0.0005") for i in range(1, 6)], _profile(6, "1000"))
    assert out["token_price_usd"].round(3).tolist()[:5] == [0.225] * 5
    assert math.isnan(out["token_price_usd"].iloc[5])
    assert out["token_price"].tolist()[5] == 1000.0  # as read: never inverted
    assert out["hard_cap_usd"].tolist() == [4.5e6] * 6
    assert out.attrs["usd_missing"] == {DOUBTFUL: 1}
    assert out.attrs["price_direction_doubtful"] == [6]
    assert any("token prices of 1 ICO (id 6) look quoted the wrong way round" in s
               and "worth $1,000 or more a token" in s and "never inverted" in s for s in said)
    assert any(s.startswith("to_usd: 1 amounts left without a USD value") and
               "or a price whose direction is doubtful): (price direction doubtful) 1" in s
               for s in said)


def test_an_exchange_written_the_wrong_way_round_is_doubtful_against_tokens_for_sale():
    # "1 ETH = 0.0005 XYZ" reads 2,000 ETH per XYZ: 20M tokens for sale would be a sale of 40M
    # ETH against a 10,000 ETH cap; at 0.0005 ETH they are the cap
    out, _ = _converted(_profile(1, "1 ETH = 0.0005 XYZ", unit="", tokens="20,000,000"),
                        _profile(2, "1 XYZ = 0.0005 ETH", unit="", tokens="20,000,000"))
    assert out["token_price"].tolist() == [2000.0, 0.0005]
    assert out["token_price_usd"].isna().tolist() == [True, False]
    assert out.attrs["price_direction_doubtful"] == [1]


def test_a_price_and_a_cap_in_two_currencies_are_judged_through_usd():
    # $5,000 per token (meant: 5,000 tokens per dollar), 5e10 tokens, a cap of 22,222 ETH
    # ($10M): the inverse, $0.0002, is the cap; $100 and $0.01 are prices a sale may ask
    out, _ = _converted(_profile(1, "5000", unit="USD", cap="22222", tokens="5e10"),
                        _profile(2, "0.01", unit="USD", cap="22222", tokens="1,000,000,000"),
                        _profile(3, "100", unit="USD", cap="22222", tokens="1e11"))
    assert out["token_price_usd"].tolist()[1:] == [0.01, 100.0]
    assert math.isnan(out["token_price_usd"].iloc[0])
    assert out.attrs["price_direction_doubtful"] == [1]


@pytest.mark.parametrize(("price", "unit", "cap", "tokens"), [
    ("5", "USD", "10000000", "2000000"),  # an expensive token, 2M of them: $10M
    ("1", "ETH", "10000", ""),  # a price of 1: nothing to tell
    ("2", "ETH", "10000", ""),  # 5,000 tokens for the cap, 20,000 at 0.5: no better
    ("1000", "ETH", "", ""),  # no hard cap: nothing to judge by
    ("0.0005", "ETH", "10000", "999"),  # a price that fits no direction: left as it is
    # typical prices beside a cap and tokens that fit their inverse better (REV-CE HIGH 1):
    # the figures are often off (total supply as tokens for sale), the price is not
    ("0.014", "USD", "68000000", "5600000"),  # inverse $71: 5.6M tokens make $400M
    ("6", "USD", "25000000", "880000000"),
    ("0.10", "USD", "20000000", "1000000"),
    ("20", "USD", "150000", ""),  # the cap buys 7,500 tokens
    ("0.05", "USD", "15000", "1000000"),  # the cap in ETH (below)
    ("0.2", "BTC", "100", ""),  # $1,200 as written, but $30,000 at its inverse: no better
])
def test_prices_that_fit_or_cannot_be_judged_convert(price, unit, cap, tokens):
    caps_unit = "ETH" if price == "0.05" else unit
    with warnings.catch_warnings():
        warnings.simplefilter("error", IcoframesWarning)  # no warning at all
        out, said = _converted(_profile(1, price, unit=unit, cap=cap, caps_unit=caps_unit,
                                        tokens=tokens))
    assert not said and out.attrs["price_direction_doubtful"] == []
    assert out["token_price_usd"].notna().all()


def test_a_past_ico_s_market_price_is_not_judged_against_the_sale():
    icos = icoframes.tidy([_profile(1, "1000")], statuses={1: "past"}).icos
    icos = icos.assign(fetched_at=pd.Timestamp("2018-07-20", tz="UTC"))
    rates = pd.concat([RATES, RATES.assign(date="2018-07-20")])
    with warnings.catch_warnings():
        warnings.simplefilter("error", IcoframesWarning)
        out = to_usd(icos, rates)
    assert out["token_price_usd"].tolist() == [450_000.0]  # a market price: it may have risen
    assert out.attrs["price_direction_doubtful"] == []


def test_the_rule_is_symmetric_in_the_figures_it_reads():
    price = np.array([2000.0, 0.0005, np.nan, 0.0, -1.0])
    cap = np.array([10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0])
    eth = np.full(5, 450.0)
    assert doubtful_direction(price, eth, cap, np.full(5, 2e7)).tolist() == [True, False, False,
                                                                             False, False]
    assert doubtful_direction(price, eth, cap * np.nan, np.full(5, 2e7)).tolist() == [False] * 5
    assert doubtful_direction(price, eth * np.nan, cap, np.full(5, 2e7)).tolist() == [False] * 5


def test_the_fit_alone_never_judges_a_price_below_any_sale_s_worth():
    # $999 a token as written, its inverse $0.001 fitting cap and tokens exactly: not judged
    assert doubtful_direction(np.array([999.0, 1000.0]), np.ones(2), np.array([1e7, 1e7]),
                              np.array([1e10, 1e10])).tolist() == [False, True]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_no_sandbox_price_is_judged_doubtful(seed):
    # the sandbox draws price, hard cap and tokens for sale apart and writes each price the
    # right way round: every price judged doubtful here would be a right one blanked
    directory = sandbox.generate_directory(1000, seed=seed)
    icos = icoframes.tidy([directory.profile(i) for i in directory.ids()],
                          statuses={r.id: r.status for r in directory.records()}).icos
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # rates missing on some dates
        out = to_usd(icos, sandbox.rates())
    assert out.attrs["price_direction_doubtful"] == []
    assert DOUBTFUL not in out.attrs["usd_missing"]
    sale = out[(out["status"] != "past") & out["hard_cap"].notna()]
    assert sale["token_price_usd"].notna().sum() > 150  # prices of the sale were judged
