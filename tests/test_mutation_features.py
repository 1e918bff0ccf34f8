"""compute_features(): boundaries mutants of features.py survived (`make mutate MODULE=features`).

Hand-made profiles through :func:`icoframes.tidy`, one rule a test: a date equal to
``as_of``, each keyword of the team and sale shares as a whole word, a raised amount
exactly at the cap tolerance, and the helpers' edges (an ICO without rows in a child
table, a time-zone-aware ``as_of``).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.errors import InvalidParameter
from icoframes.features import CAP_TOLERANCE, compute_features

AS_OF = "2018-06-01 00:00:00"


def _profile(i: int, **parts: object) -> dict:
    return {"id": i, **parts}


def _dated(i: int, status: str, start: str, end: str) -> dict:
    return {"id": i, "_status": status,  # the list's status, given to tidy()
            "dates": {"start_datetime": start, "end_datetime": end}}


def _one(column: str, profiles: list[dict], **kwargs: object) -> list:
    statuses = {p["id"]: p["_status"] for p in profiles if "_status" in p}
    tables = icoframes.tidy([{k: v for k, v in p.items() if k != "_status"} for p in profiles],
                            statuses=statuses)
    frame = compute_features(tables, as_of=kwargs.pop("as_of", AS_OF), **kwargs)
    return frame[column].astype(object).where(frame[column].notna(), None).tolist()


# -- status against dates, at the boundaries ------------------------------------------


@pytest.mark.parametrize(("status", "start", "end", "disagrees"), [
    # ending exactly at as_of: still running, not over
    ("past", "01.05.2018 00:00:00", "01.06.2018 00:00:00", True),
    ("ongoing", "01.05.2018 00:00:00", "01.06.2018 00:00:00", False),
    # starting exactly at as_of: started
    ("upcoming", "01.06.2018 00:00:00", "01.07.2018 00:00:00", True),
    ("ongoing", "01.06.2018 00:00:00", "01.07.2018 00:00:00", False),
    # a second either side
    ("past", "01.05.2018 00:00:00", "31.05.2018 23:59:59", False),
    ("upcoming", "01.06.2018 00:00:01", "01.07.2018 00:00:00", False),
    ("ongoing", "01.06.2018 00:00:01", "01.07.2018 00:00:00", True),
    ("ongoing", "01.05.2018 00:00:00", "31.05.2018 23:59:59", True),
])
def test_status_against_dates_equal_to_as_of(status, start, end, disagrees):
    assert _one("status_disagrees_with_dates", [_dated(1, status, start, end)]) == [disagrees]


@pytest.mark.parametrize(("status", "start", "end", "expected"), [
    ("upcoming", "01.07.2018 00:00:00", "", False),   # not started: upcoming for sure
    ("past", "", "01.05.2018 00:00:00", False),       # ended: past for sure
    ("past", "01.05.2018 00:00:00", "", None),        # started, end unknown: cannot tell
    ("ongoing", "01.05.2018 00:00:00", "", None),
    ("upcoming", "", "01.07.2018 00:00:00", None),    # not ended, start unknown
    ("ongoing", "", "01.07.2018 00:00:00", None),
    ("upcoming", "", "01.05.2018 00:00:00", True),    # ended: cannot be upcoming
    ("past", "01.07.2018 00:00:00", "", True),        # not started: cannot be past
    ("ongoing", "01.07.2018 00:00:00", "", True),
    (" Past ", "", "01.05.2018 00:00:00", False),     # status read without case or spaces
    ("finished", "", "01.05.2018 00:00:00", None),    # a status it does not know
])
def test_status_against_one_known_date(status, start, end, expected):
    assert _one("status_disagrees_with_dates", [_dated(1, status, start, end)]) == [expected]


def test_a_time_zone_aware_as_of_is_taken_in_utc():
    profile = _dated(1, "ongoing", "01.05.2018 00:00:00", "01.06.2018 00:00:00")
    # 01:00 in Berlin is 23:00 UTC the day before: the sale has not ended yet
    assert _one("status_disagrees_with_dates", [profile],
                as_of=pd.Timestamp("2018-06-01 01:00", tz="Europe/Berlin")) == [False]
    assert _one("status_disagrees_with_dates", [profile],
                as_of=pd.Timestamp("2018-06-01 03:00", tz="Europe/Berlin")) == [True]


def test_as_of_by_default_is_now_in_utc_whatever_the_local_time_zone():
    import datetime as dt
    import zoneinfo

    import time_machine

    profile = _dated(1, "ongoing", "01.05.2018 00:00:00", "01.06.2018 00:00:00")
    # 22:00 in New York (the process's local time) is 02:00 UTC on the next day: the sale
    # ended two hours ago, not two hours ahead
    local = dt.datetime(2018, 5, 31, 22, 0, tzinfo=zoneinfo.ZoneInfo("America/New_York"))
    with time_machine.travel(local, tick=False):
        assert _one("status_disagrees_with_dates", [profile], as_of=None) == [True]


@pytest.mark.parametrize("word", ["now", "today", " Now "])
def test_as_of_now_or_today_is_this_moment_in_utc_not_the_local_clock(word):
    import datetime as dt
    import zoneinfo

    import time_machine

    from icoframes.features import as_naive_utc

    # pandas reads "now" and "today" on the local clock: 22:00 in New York (the process's
    # time zone here) is 02:00 UTC on the next day, the moment as_of=None names
    local = dt.datetime(2018, 5, 31, 22, 0, tzinfo=zoneinfo.ZoneInfo("America/New_York"))
    with time_machine.travel(local, tick=False):
        assert as_naive_utc(word, "as_of") == pd.Timestamp("2018-06-01 02:00")
        assert as_naive_utc(None, "as_of") == pd.Timestamp("2018-06-01 02:00")


# a number is no date: pandas reads 2018 as 1970-01-01 plus 2018 nanoseconds
@pytest.mark.parametrize("as_of", ["NaT", "soon", [2018], 2018, 2018.0, np.int64(2018), True,
                                  1.5e18])
def test_as_of_that_is_not_a_date_is_refused(as_of):
    # the same words and class as plot_timeline's now (one helper: moments.as_naive_utc)
    with pytest.raises(InvalidParameter) as caught:
        compute_features(icoframes.tidy([{"id": 1}]), as_of=as_of)
    rule = (" (as text: an ISO date with a 4-digit year, 'YYYY-MM-DD' with an optional time)"
            if isinstance(as_of, str) else "")
    assert str(caught.value) == f"as_of must be a date or datetime, got {as_of!r}{rule}"


def test_duration_ends_before_starts_and_a_zero_length_sale():
    same = _dated(1, "past", "01.05.2018 00:00:00", "01.05.2018 00:00:00")
    back = _dated(2, "past", "02.05.2018 00:00:00", "01.05.2018 00:00:00")
    half = _dated(3, "past", "01.05.2018 00:00:00", "01.05.2018 12:00:00")
    assert _one("duration_days", [same, back, half]) == [0.0, None, 0.5]
    assert _one("ends_before_starts", [same, back, half]) == [False, True, False]


# -- token shares: every keyword as a whole word ------------------------------------------


@pytest.mark.parametrize(("part", "team"), [
    ("Founders", True), ("Founder", True), ("Founding team", True), ("Team", True),
    ("Employees", True), ("employee pool", True), ("Management", True), ("Staff", True),
    ("Team & Advisors", True), ("TEAM", True),
    ("Teamwork fund", False), ("Cofounders", False), ("Advisors", False), ("Reserve", False),
])
def test_team_share_keywords(part, team):
    profile = _profile(1, finance={"distribution": {part: "12%", "Other": "88%"}})
    assert _one("team_token_share", [profile]) == [12.0 if team else 0.0]


@pytest.mark.parametrize(("part", "sale"), [
    ("Sale", True), ("Crowdsale", True), ("Crowd sale", True), ("Pre-sale", True),
    ("Presale", True), ("ICO", True), ("IEO", True), ("IDO", True), ("STO", True),
    ("Public", True), ("Private round", True), ("Investors", True), ("Investor", True),
    ("Contributors", True), ("contributor", True),
    ("Wholesale", False), ("Picosecond", False), ("Reserve", False), ("Team", False),
])
def test_sale_share_keywords(part, sale):
    profile = _profile(1, finance={"distribution": {part: "30%", "Other": "70%"}})
    assert _one("sale_token_share", [profile]) == [30.0 if sale else 0.0]


def test_shares_add_up_per_ico_and_skip_unreadable_percents():
    profiles = [_profile(1, finance={"distribution": {"Team": "10%", "Founders": "5%",
                                                      "Crowdsale": "50%", "ICO": "20%"}}),
                _profile(2, finance={"distribution": {"Team": "lots"}}),
                _profile(3)]
    assert _one("team_token_share", profiles) == [15.0, None, None]
    assert _one("sale_token_share", profiles) == [70.0, None, None]


# -- the cap tolerance -------------------------------------------------------------------


def test_reaching_a_cap_within_the_tolerance_and_not_beyond():
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd": [500.0]})
    cap = 1_000_000.0
    at = cap * (1 - CAP_TOLERANCE)

    def ico(i: int, raised: float) -> dict:
        return {"id": i, "finance": {"hard_cap": cap, "soft_cap": cap, "caps_unit": "USD",
                                     "raised": raised},
                "dates": {"start_datetime": "01.03.2018 00:00:00",
                          "end_datetime": "31.03.2018 00:00:00"}}

    profiles = [ico(1, at), ico(2, at - 1), ico(3, cap), ico(4, 0.0)]
    assert _one("reached_hard_cap", profiles, rates=rates) == [True, False, True, False]
    assert _one("reached_soft_cap", profiles, rates=rates) == [True, False, True, False]
    ratio = _one("raised_to_hard_cap", profiles, rates=rates)
    assert ratio == [at / cap, (at - 1) / cap, 1.0, 0.0]


def test_a_zero_hard_cap_gives_no_ratio_and_no_infinity():
    profile = {"id": 1, "finance": {"hard_cap": 0, "caps_unit": "USD", "raised": 5.0},
               "dates": {"end_datetime": "31.03.2018 00:00:00"}}
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd": [500.0]})
    assert _one("raised_to_hard_cap", [profile], rates=rates) == [None]


def test_soft_cap_equal_to_hard_cap_is_not_above_it():
    profiles = [_profile(1, finance={"soft_cap": 5, "hard_cap": 5, "caps_unit": "USD"}),
                _profile(2, finance={"soft_cap": 6, "hard_cap": 5, "caps_unit": "USD"}),
                _profile(3, finance={"soft_cap": 6, "caps_unit": "USD"})]
    assert _one("soft_cap_above_hard_cap", profiles) == [False, True, None]


# -- counts and lists -------------------------------------------------------------------


def test_log_raised_of_one_is_zero_and_of_nothing_is_missing():
    profiles = [_profile(1, finance={"raised": 1}), _profile(2, finance={"raised": 0}),
                _profile(3, finance={"raised": np.e})]
    assert _one("log_raised", profiles) == [0.0, None, 1.0]


def test_children_of_an_ico_count_only_for_it():
    profiles = [_profile(1, team=[{"name": "A"}, {"name": "B"}, {"name": "C"}]),
                _profile(2, advisors=[{"name": "D"}]),
                _profile(3, roadmap={"Q1 2018": "x", "Q2 2018": "y"})]
    assert _one("team_size", profiles) == [3, 0, 0]
    assert _one("advisor_count", profiles) == [0, 1, 0]
    assert _one("roadmap_items", profiles) == [0, 0, 2]
    assert _one("has_bonus", profiles) == [False, False, False]


def test_social_links_of_the_ico_counted_once_per_network():
    profiles = [_profile(1, links={"social": {"Twitter": "https://t/1", " twitter ": "https://t/2",
                                              "slack": "https://s/1", "steemit": "https://x/1"}}),
                _profile(2)]
    assert _one("n_social_links", profiles) == [3, 0]
    assert _one("has_twitter", profiles) == [True, False]
    assert _one("has_slack", profiles) == [True, False]
    assert _one("has_discord", profiles) == [False, False]


def test_accepted_currencies_counted_by_code_and_fiat_named():
    profiles = [_profile(1, finance={"accepting": ["ETH", "Ether", "ethereum", "EUR"]}),
                _profile(2, finance={"accepting": ["BTC", "bitcoin"]}),
                _profile(3)]
    assert _one("n_accepted_currencies", profiles) == [2, 1, 0]
    assert _one("accepts_fiat", profiles) == [True, False, False]


@pytest.mark.parametrize(("platform", "family", "ethereum"), [
    ("ERC-20", "Ethereum", True), ("  ethereum   erc20 ", "Ethereum", True),
    ("BSC", "Binance Smart Chain", False), ("My  Own   Chain", "My Own Chain", False),
])
def test_platform_families_collapse_whitespace_and_case(platform, family, ethereum):
    profile = _profile(1, main={"platform": platform})
    assert _one("platform_family", [profile]) == [family]
    assert _one("is_ethereum", [profile]) == [ethereum]


def test_repeated_ids_are_refused():
    tables = icoframes.tidy([{"id": 1}, {"id": 2}])
    icos = tables.icos.copy()
    icos["id"] = [1, 1]
    with pytest.raises(ValueError, match=r"^tables\.icos has repeated ids$"):
        compute_features(dataclasses.replace(tables, icos=icos), as_of=AS_OF)


def test_a_currency_spelling_seen_for_the_first_time_is_counted():
    # compute_features() memoises spellings: one this process has never seen takes the slow path
    fresh = f"X{os.getpid()}{id(object()) % 10**6}"  # one word: a token's ticker
    profiles = [_profile(1, finance={"accepting": [fresh, "ETH"]})]
    assert _one("n_accepted_currencies", profiles) == [2]


def test_describe_features_columns_and_the_rates_only_rows():
    from icoframes.features import FEATURES, describe_features

    every = describe_features()
    assert every.columns.tolist() == ["name", "dtype", "definition", "needs_rates"]
    assert every["needs_rates"].tolist() == [f.needs_rates for f in FEATURES]
    without = describe_features(rates=False)
    assert without["name"].tolist() == [f.name for f in FEATURES if not f.needs_rates]
    assert not without["needs_rates"].any() and len(without) < len(every)


def test_a_distribution_of_a_single_part_is_stated():
    profiles = [_profile(1, finance={"distribution": {"Founders": "20%"}}),
                _profile(2, finance={"distribution": {"Crowdsale": "100"}})]
    assert _one("team_token_share", profiles) == [20.0, 0.0]
    assert _one("sale_token_share", profiles) == [0.0, 100.0]


def test_the_messages_of_a_wrong_argument_and_of_the_old_names_in_full():
    import re

    with pytest.raises(TypeError, match=r"^tables must be icoframes\.Tables, got DataFrame$"):
        compute_features(pd.DataFrame())
    tables = icoframes.tidy([{"id": 1}])
    with pytest.warns(FutureWarning) as caught:
        icoframes.features(tables, as_of=AS_OF)
        from icoframes.features import features as _old  # noqa: F401
    assert [str(w.message) for w in caught] == [
        "icoframes.features(tables, ...) is now icoframes.compute_features(tables, ...): "
        "icoframes.features is the module (FEATURES, describe_features); calling it goes in "
        "the next version",
        "icoframes.features.features is now icoframes.compute_features; the old name goes in "
        "the next version"]
    message = "module 'icoframes.features' has no attribute 'nothing_here'"
    with pytest.raises(AttributeError, match=f"^{re.escape(message)}$"):
        icoframes.features.nothing_here  # noqa: B018


def test_a_declared_feature_that_is_not_computed_is_refused_naming_both_lists(monkeypatch):
    # FEATURES is checked against what compute_features built: a declaration that drifted
    # from the code fails the call, never returns a frame missing the column
    import icoframes.features as module

    computed = [f.name for f in module.FEATURES if not f.needs_rates]
    extra = module.Feature("extra_feature", "int64", "declared, never computed")
    monkeypatch.setattr(module, "FEATURES", (*module.FEATURES, extra))
    with pytest.raises(AssertionError) as raised:
        compute_features(icoframes.tidy([_profile(1)]), as_of=AS_OF)
    assert str(raised.value) == (f"features computed {computed}, declared "
                                 f"{[*computed, 'extra_feature']}")


# -- compute_features' own body (mutated since benchmarks/mutation.py moves @checked_keywords)


def _eth_ico(i: int = 1) -> dict:
    return {"id": i, "finance": {"hard_cap": 10.0, "soft_cap": 2.0, "caps_unit": "ETH",
                                 "raised": 3000.0},
            "dates": {"start_datetime": "01.03.2018 00:00:00",
                      "end_datetime": "31.03.2018 00:00:00"}}


def test_quote_is_passed_on_to_the_conversion():
    # a wide frame of a bare ETH column says no direction: quote= says it
    rates = pd.DataFrame({"ETH": [500.0]}, index=pd.to_datetime(["2018-03-31"]))
    assert _one("hard_cap_usd", [_eth_ico()], rates=rates, quote="usd_per_unit") == [5000.0]
    assert _one("hard_cap_usd", [_eth_ico()], rates=rates, quote="units_per_usd") == [0.02]
    assert _one("soft_cap_usd", [_eth_ico()], rates=rates, quote="usd_per_unit") == [1000.0]


def test_rate_max_age_is_passed_on_to_the_conversion_and_refused_before_any_work():
    from icoframes.errors import IcoframesWarning

    rates = pd.DataFrame({"date": ["2018-03-28"], "currency": ["ETH"], "usd_per_unit": [500.0]})
    assert _one("hard_cap_usd", [_eth_ico()], rates=rates) == [5000.0]  # 3 days old: in 7D
    with pytest.warns(IcoframesWarning, match=r"up to 2D before the date.*: ETH 2$"):
        stale = _one("hard_cap_usd", [_eth_ico()], rates=rates, rate_max_age="2D")
    assert stale == [None]
    tables = icoframes.tidy([_eth_ico()])
    with pytest.raises(ValueError, match=r"^compute_features: rate_max_age must be a positive "
                                         r"duration, such as"):
        compute_features(tables, as_of=AS_OF, rate_max_age="7")


def test_with_one_date_missing_the_order_of_the_dates_is_not_known():
    start_only = {"id": 1, "dates": {"start_datetime": "01.05.2018 00:00:00"}}
    end_only = {"id": 2, "dates": {"end_datetime": "01.05.2018 00:00:00"}}
    assert _one("ends_before_starts", [start_only, end_only]) == [None, None]
    assert _one("duration_days", [start_only, end_only]) == [None, None]


def test_whitepaper_and_video_flags_follow_their_links():
    profiles = [_profile(1, links={"whitepaper": "https://example.org/wp.pdf"}),
                _profile(2, links={"video": "https://example.org/v"}), _profile(3)]
    assert _one("has_whitepaper", profiles) == [True, False, False]
    assert _one("has_video", profiles) == [False, True, False]


def test_start_year_and_quarter_of_the_start_date():
    profiles = [{"id": 1, "dates": {"start_datetime": "31.03.2018 23:00:00"}},
                {"id": 2, "dates": {"start_datetime": "01.10.2019 00:00:00"}},
                {"id": 3, "dates": {"end_datetime": "01.10.2019 00:00:00"}}]
    assert _one("start_year", profiles) == [2018, 2019, None]
    assert _one("start_quarter", profiles) == [1, 4, None]


def test_one_bonus_is_a_bonus():
    profiles = [_profile(1), _profile(2, additional={"bonuses": {"Week 1": "10%"}}),
                _profile(3, additional={"bonuses": {"Week 1": "10%", "Week 2": "5%"}})]
    assert _one("has_bonus", profiles) == [False, True, True]


def test_only_the_caps_are_converted_so_a_token_price_without_a_rate_says_nothing():
    import warnings

    ico = _eth_ico()
    ico["finance"].update({"token_price": 0.5, "token_price_unit": "XYZ",
                           "min_purchase": 1.0, "purchase_unit": "XYZ"})
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd_per_unit": [500.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # to_usd's warning of amounts left without USD fails
        assert _one("hard_cap_usd", [ico], rates=rates) == [5000.0]


def test_a_zero_hard_cap_raises_no_numpy_warning_whatever_was_raised():
    import warnings

    profiles = [{"id": i, "finance": {"hard_cap": 0, "caps_unit": "USD", "raised": raised}}
                for i, raised in ((1, 5.0), (2, 0.0))]
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd_per_unit": [500.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's divide-by-zero and 0/0 RuntimeWarnings fail
        assert _one("raised_to_hard_cap", profiles, rates=rates) == [None, None]


def test_a_hard_cap_under_one_dollar_still_gives_a_ratio():
    profile = {"id": 1, "finance": {"hard_cap": 0.5, "caps_unit": "USD", "raised": 1.0}}
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd_per_unit": [500.0]})
    assert _one("raised_to_hard_cap", [profile], rates=rates) == [2.0]


# -- hand-built tables: what tidy() never gives, but a Tables bundle may hold --------------


def _replaced(profiles: list[dict], table: str, column: str, row: int, value: object):
    tables = icoframes.tidy(profiles)
    frame = getattr(tables, table).copy()
    frame.loc[row, column] = value
    return dataclasses.replace(tables, **{table: frame})


def test_a_social_link_without_a_network_counts_for_no_network():
    profile = _profile(1, links={"social": {"twitter": "https://t/1", "slack": "https://s/1"}})
    tables = _replaced([profile], "social", "network", 0, np.nan)  # row 0: twitter's
    frame = compute_features(tables, as_of=AS_OF)
    assert frame["n_social_links"].tolist() == [1]
    assert frame[["has_twitter", "has_slack"]].iloc[0].tolist() == [False, True]


def test_a_distribution_part_without_a_name_is_stated_but_of_neither_side():
    profiles = [_profile(1, finance={"distribution": {"Team": "20%", "Crowdsale": "80%"}}),
                _profile(2, finance={"distribution": {"Crowdsale": "100%"}})]
    tables = icoframes.tidy(profiles)
    distribution = tables.distribution.copy()
    distribution.loc[distribution["part"] == "Crowdsale", "part"] = np.nan
    frame = compute_features(dataclasses.replace(tables, distribution=distribution), as_of=AS_OF)
    assert frame["team_token_share"].tolist() == [20.0, 0.0]
    assert frame["sale_token_share"].tolist() == [0.0, 0.0]


def test_an_infinite_amount_raised_against_an_infinite_cap_has_no_ratio_and_no_warning():
    import warnings

    profile = {"id": 1, "finance": {"hard_cap": 5, "caps_unit": "USD", "raised": 5.0}}
    tables = icoframes.tidy([profile])
    icos = tables.icos.copy()
    icos[["raised", "hard_cap"]] = np.inf
    rates = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd_per_unit": [500.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's inf / inf RuntimeWarning fails
        frame = compute_features(dataclasses.replace(tables, icos=icos), rates=rates,
                                 as_of=AS_OF)
    assert frame["hard_cap_usd"].tolist() == [np.inf]
    assert frame["raised_to_hard_cap"].isna().tolist() == [True]
    assert frame["log_raised"].tolist() == [np.inf]
