"""compute_features(): every definition on hand-built profiles, including the missing cases."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.features import FEATURES, SOCIAL_NETWORKS, compute_features, describe_features

AS_OF = pd.Timestamp("2018-06-01")
# ETH at 500 USD on the last day of March 2018, nothing else
RATES = pd.DataFrame({"date": ["2018-03-31"], "currency": ["ETH"], "usd": [500.0]})


def _dates(start: str = "", end: str = "") -> dict:
    return {"start_datetime": start, "end_datetime": end}


PROFILES = [
    {   # 1: everything stated; caps in ETH spelled "Ether"
        "id": 1,
        "main": {"platform": "ERC20"},
        "links": {"whitepaper": "https://x/wp.pdf", "video": "https://v/1",
                  "social": {"twitter": "https://t/1", " GitHub ": "https://g/1",
                             "steemit": "https://s/1"}},
        "finance": {"soft_cap": 1000, "hard_cap": "20,000", "caps_unit": "Ether",
                    "raised": 10_000_000, "restricted_areas": ["USA", "China"],
                    "accepting": ["ETH", "Ether", "BTC", "USD"],
                    "distribution": {"Team & Advisors": "15%", "Crowdsale": "60%",
                                     "Pre-sale": "10 %", "Reserve": "15"}},
        "dates": _dates("01.03.2018 00:00:00", "31.03.2018 12:00:00"),
        "additional": {"bonuses": {"Week 1": "10%"}},
        "roadmap": {"01-01-2018": "Idea", "Q3 2018": "Launch"},
        "team": [{"name": "Ann", "social": {"linkedin": "https://l/ann",
                                             "telegram": "https://tg/ann"}}, {"name": "Bo"}],
        "advisors": [{"name": "Cy"}],
    },
    {"id": 2},  # 2: nothing at all
    {   # 3: "Ethereum " spelling; ends before it starts; soft cap above hard cap in USD
        "id": 3,
        "main": {"platform": "Ethereum "},
        "finance": {"soft_cap": "$5M", "hard_cap": 2_000_000, "caps_unit": "usd", "raised": 0,
                    "accepting": ["Fiat"], "distribution": {"Reserve": "100%"}},
        "dates": _dates("10.03.2018 00:00:00", "01.03.2018 00:00:00"),
    },
    {   # 4: caps in an unknown unit; a platform of another family
        "id": 4,
        "main": {"platform": "Waves"},
        "finance": {"soft_cap": 10, "hard_cap": 100, "caps_unit": "xyz", "raised": 5e6},
        "dates": _dates("01.05.2018 00:00:00", "01.07.2018 00:00:00"),
    },
    {   # 5: raised just under a rounded USD cap (within the tolerance), upcoming but started
        "id": 5,
        "main": {"platform": "bep-20"},
        "finance": {"soft_cap": 1_000_000, "hard_cap": 10_000_000, "caps_unit": "USD",
                    "raised": 9_960_000},
        "dates": _dates("01.05.2018 00:00:00", ""),
    },
    {   # 6: raised beyond tolerance under the cap; past with only a start
        "id": 6,
        "finance": {"soft_cap": 1_000_000, "hard_cap": 10_000_000, "caps_unit": "USD",
                    "raised": 9_940_000},
        "dates": _dates("01.05.2018 00:00:00", ""),
    },
]
STATUSES = {1: "past", 2: None, 3: "past", 4: "ongoing", 5: "upcoming", 6: "past"}


@pytest.fixture(scope="module")
def tables():
    return icoframes.tidy(PROFILES, statuses=STATUSES)


# computed in each test that uses it, not once per module: mutation testing (mutmut) runs
# for a mutant only the tests it saw reach compute_features, and a module-scoped result
# would be computed in the first of them only (benchmarks/MUTATION.md, features)
@pytest.fixture
def feats(tables):
    with pytest.warns(IcoframesWarning, match="XYZ 2"):  # ICO 4's caps
        return compute_features(tables, rates=RATES, as_of=AS_OF).set_index("ico_id")


def test_columns_and_dtypes_are_those_declared(tables, feats):
    declared = describe_features()
    assert ["ico_id", *feats.columns] == declared["name"].tolist()
    with pytest.warns(IcoframesWarning):
        frame = compute_features(tables, rates=RATES, as_of=AS_OF)
    assert [str(t) for t in frame.dtypes] == declared["dtype"].tolist()
    without = compute_features(tables, as_of=AS_OF)
    assert without.columns.tolist() == describe_features(rates=False)["name"].tolist()
    assert "hard_cap_usd" not in without.columns
    assert frame.index.equals(pd.RangeIndex(6)) and frame["ico_id"].tolist() == [1, 2, 3, 4, 5, 6]


def test_every_definition_is_in_the_docstring():
    for feature in FEATURES:
        assert f"``{feature.name}``" in compute_features.__doc__
        assert feature.definition in compute_features.__doc__


def test_dates(feats):
    assert feats["duration_days"][1] == 30.5
    assert feats["duration_days"][[2, 3, 5]].isna().all()  # none, backwards, no end
    assert feats["start_year"].tolist() == [2018, pd.NA, 2018, 2018, 2018, 2018]
    assert feats["start_quarter"].tolist() == [1, pd.NA, 1, 2, 2, 2]
    assert feats["ends_before_starts"].tolist() == [False, pd.NA, True, False, pd.NA, pd.NA]


def test_counts_are_integers_and_zero_when_nothing_is_listed(feats):
    for name in ("team_size", "advisor_count", "n_social_links", "n_restricted_areas",
                 "n_accepted_currencies", "roadmap_items"):
        assert feats[name].dtype == np.int64, name
    assert feats.loc[1, ["team_size", "advisor_count", "roadmap_items"]].tolist() == [2, 1, 2]
    assert feats.loc[2, ["team_size", "advisor_count", "roadmap_items", "n_social_links",
                         "n_restricted_areas", "n_accepted_currencies"]].tolist() == [0] * 6
    assert feats["n_restricted_areas"][1] == 2
    # ETH and Ether are one currency; "Fiat" names none (any government currency: accepts_fiat)
    assert feats["n_accepted_currencies"].tolist() == [3, 0, 0, 0, 0, 0]
    assert feats["accepts_fiat"].tolist() == [True, False, True, False, False, False]
    assert feats["has_bonus"].tolist() == [True, False, False, False, False, False]


def test_links_and_social_flags_count_the_icos_own_links_only(feats):
    assert feats["has_whitepaper"].tolist() == [True] + [False] * 5
    assert feats["has_video"].tolist() == [True] + [False] * 5
    assert feats.loc[1, ["has_twitter", "has_github"]].tolist() == [True, True]
    # the team's linkedin and telegram are not the ICO's
    assert feats.loc[1, ["has_linkedin", "has_telegram"]].tolist() == [False, False]
    assert feats["n_social_links"][1] == 3  # twitter, github, steemit
    assert not feats[[f"has_{n}" for n in SOCIAL_NETWORKS]].loc[2:].to_numpy().any()


def test_platform_family(feats):
    family = feats["platform_family"]
    assert family[[1, 3, 4, 5]].tolist() == ["Ethereum", "Ethereum", "Waves",
                                             "Binance Smart Chain"]
    assert pd.isna(family[2]) and pd.isna(family[6])
    assert feats["is_ethereum"].tolist() == [True, pd.NA, True, False, False, pd.NA]


def test_token_shares_match_documented_keywords(feats):
    assert feats["team_token_share"][1] == 15.0  # "Team & Advisors"
    assert feats["sale_token_share"][1] == 70.0  # Crowdsale + Pre-sale
    assert feats.loc[3, ["team_token_share", "sale_token_share"]].tolist() == [0.0, 0.0]
    assert feats.loc[[2, 4], ["team_token_share", "sale_token_share"]].isna().all().all()


def test_log_raised(feats):
    assert feats["log_raised"][1] == pytest.approx(np.log(10_000_000))
    assert feats["log_raised"][[2, 3]].isna().all()  # unknown; zero


def test_money_features_with_rates(feats):
    assert feats["hard_cap_usd"][1] == 20_000 * 500.0
    assert feats["soft_cap_usd"][1] == 1000 * 500.0
    assert feats["raised_to_hard_cap"][1] == 1.0
    assert feats.loc[1, ["reached_soft_cap", "reached_hard_cap"]].tolist() == [True, True]
    # within 0.5% of a rounded cap counts; beyond it does not
    assert feats["reached_hard_cap"][5] == True  # noqa: E712
    assert feats["reached_hard_cap"][6] == False  # noqa: E712
    assert feats["reached_soft_cap"][2] is pd.NA
    assert feats["reached_soft_cap"][3] == False  # noqa: E712  raised 0 of a $5M soft cap


def test_nothing_is_computed_across_mismatched_units(tables, feats):
    # ICO 4's caps are in XYZ: no USD value, no ratio, no comparison with raised (USD)
    with pytest.warns(IcoframesWarning, match="XYZ 2"):
        compute_features(tables, rates=RATES, as_of=AS_OF)
    row = feats.loc[4]
    assert np.isnan(row["hard_cap_usd"]) and np.isnan(row["soft_cap_usd"])
    assert np.isnan(row["raised_to_hard_cap"])
    assert row["reached_soft_cap"] is pd.NA and row["reached_hard_cap"] is pd.NA
    # the same unit on both sides is comparable
    assert row["soft_cap_above_hard_cap"] == False  # noqa: E712


@pytest.mark.parametrize("unit", ["BTC", "XYZ", "USDT", "", "eur"])
def test_no_usd_or_ratio_column_without_a_rate_of_exactly_that_unit(unit):
    profiles = [{"id": 9, "finance": {"soft_cap": 5, "hard_cap": 10, "caps_unit": unit,
                                      "raised": 1_000_000},
                 "dates": _dates("01.03.2018 00:00:00", "31.03.2018 00:00:00")}]
    wide = pd.DataFrame({"ETH-USD": [500.0]}, index=pd.to_datetime(["2018-03-31"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)
        row = compute_features(icoframes.tidy(profiles), rates=wide, as_of=AS_OF).iloc[0]
    usd_or_ratio = [f.name for f in FEATURES if f.needs_rates]
    assert row[usd_or_ratio].isna().all(), row[usd_or_ratio]


def test_soft_cap_above_hard_cap(feats):
    assert feats["soft_cap_above_hard_cap"].tolist() == [False, pd.NA, True, False, False, False]


def test_status_disagrees_with_dates(tables, feats):
    # 1 past, ended before as_of: agrees; 2 no status; 3 past but ends before it starts
    # (end < as_of and start < as_of: past agrees); 4 ongoing, as_of inside: agrees;
    # 5 upcoming but started: disagrees; 6 past with only a start: cannot tell
    assert feats["status_disagrees_with_dates"].tolist() == [False, pd.NA, False, False, True,
                                                             pd.NA]
    later = compute_features(tables, as_of="2018-08-01").set_index("ico_id")
    assert later["status_disagrees_with_dates"][4] == True  # noqa: E712  ended, still ongoing


def test_default_as_of_is_now(tables):
    now = compute_features(tables).set_index("ico_id")["status_disagrees_with_dates"]
    assert now[4] == True  # noqa: E712  ongoing in 2018, long over now


def test_empty_tables_and_bad_input():
    empty = compute_features(icoframes.Tables.empty(), rates=RATES)
    assert len(empty) == 0
    assert [str(t) for t in empty.dtypes] == describe_features()["dtype"].tolist()
    assert empty.columns.tolist() == describe_features()["name"].tolist()
    with pytest.raises(TypeError, match=r"icoframes\.Tables"):
        compute_features(pd.DataFrame())


def test_sandbox_features_are_plausible():
    directory = sandbox.generate_directory(1000, seed=0)
    statuses = {r.id: r.status for r in directory.records()}
    tables = icoframes.tidy(directory.profiles(), statuses=statuses)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)
        feats = compute_features(tables, rates=sandbox.rates(), as_of=sandbox.REFERENCE_DATE)
    assert len(feats) == 1000
    # every spelling of Ethereum found: as many as the directory's Ethereum records
    assert int(feats["is_ethereum"].sum()) == sum(r.platform_id == 1 for r in directory.records())
    assert 0.7 < feats["reached_soft_cap"].mean() <= 1.0
    assert feats["raised_to_hard_cap"].median() == pytest.approx(0.8, abs=0.15)


def test_the_docs_define_every_feature_from_describe_features():
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "money.md"
    text = page.read_text(encoding="utf-8")
    # the table is made from describe_features() when the site is built, never copied
    assert ".. icoframes-features::" in text
    assert "| `duration_days` |" not in text


def test_the_module_and_the_function_no_longer_collide():
    import importlib
    import types

    module = importlib.import_module("icoframes.features")
    assert icoframes.features is module and isinstance(module, types.ModuleType)
    assert icoframes.features.FEATURES[0].name == "ico_id"
    assert icoframes.compute_features is icoframes.features.compute_features
    assert "compute_features" in icoframes.__all__


def test_the_old_spellings_work_for_one_version_with_a_future_warning(tables):
    # ICO 4's caps are in XYZ, without a rate: to_usd says so each time
    warnings.filterwarnings("ignore", category=IcoframesWarning)
    expected = compute_features(tables, rates=RATES, as_of=AS_OF, rate_max_age="30D")
    with pytest.warns(FutureWarning, match=r"is now icoframes\.compute_features"):
        called = icoframes.features(tables, rates=RATES, as_of=AS_OF, rate_max_age="30D")
    pd.testing.assert_frame_equal(called, expected)
    with pytest.warns(FutureWarning, match="is now icoframes.compute_features"):
        from icoframes.features import features as old_function
    assert old_function is compute_features
    with pytest.warns(FutureWarning, match=r"compute_features\(rate_max_age=\.\.\.\)"):
        renamed = compute_features(tables, rates=RATES, as_of=AS_OF, max_age="30D")
    pd.testing.assert_frame_equal(renamed, expected)
    with pytest.raises(AttributeError):
        icoframes.features.nothing_here  # noqa: B018


@pytest.mark.parametrize(("rates", "hint"), [
    ("yes", "; did you mean True?"), ("no", "; did you mean False?"), (None, ""),
    (1, "; did you mean True?"), (0.0, "; did you mean False?"), ("maybe", "")])
def test_describe_features_takes_rates_as_true_or_false_only(rates, hint):
    # "yes" (and "no") listed the 38 columns with rates, None the 33 without
    with pytest.raises(InvalidParameter) as caught:
        describe_features(rates=rates)
    assert str(caught.value) == f"rates must be True or False, got {rates!r}{hint}"
    assert len(describe_features(rates=np.True_)) == len(describe_features(rates=True))
    assert len(describe_features(rates=np.False_)) == len(describe_features(rates=False))


def test_describe_features_names_a_misspelled_keyword():
    with pytest.raises(InvalidParameter) as caught:  # a bare TypeError before
        describe_features(rate=True)
    assert str(caught.value) == (
        "rate is not a keyword of describe_features(); did you mean 'rates'?")
