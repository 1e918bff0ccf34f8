"""A distribution written as fractions of 1 (0.6 / 0.25 / 0.15) is refused (reason
``fraction``), never read as percents (1% of the tokens in all) nor multiplied by 100."""

from __future__ import annotations

import math

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.features import compute_features
from icoframes.reasons import REASONS

NAN = float("nan")


def _read(distribution: object) -> tuple[list[float], list[tuple[object, str]]]:
    tables = icoframes.tidy([{"id": 1, "finance": {"distribution": distribution}}])
    problems = tables.problems
    return (tables.distribution["percent"].tolist(),
            list(zip(problems["value"], problems["reason"], strict=True)))


def _same(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(
        (math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got, want, strict=True))


@pytest.mark.parametrize("distribution", [
    {"Crowdsale": 0.6, "Team": 0.25, "Reserve": 0.15},
    {"Crowdsale": "0.6", "Team": "0.25", "Reserve": "0.15"},
    {"Crowdsale": "0,6", "Team": "0,25", "Reserve": " 0,15 "},  # decimal commas
    {"Sale": 0.33, "Team": 0.33, "Bounty": 0.33},  # rounded: 0.99
    {"Sale": 0.5, "Team": 0.505},  # 1.005
    {"Sale": 1, "Team": 0},
])
def test_fractions_summing_to_one_are_refused(distribution):
    percents, problems = _read(distribution)
    assert _same(percents, [NAN] * len(distribution))
    assert [reason for _, reason in problems] == ["fraction"] * len(distribution)
    assert [value for value, _ in problems] == [str(v) for v in distribution.values()]


def test_an_unreadable_share_beside_fractions_keeps_its_own_reason():
    percents, problems = _read({"Sale": 0.5, "Team": "lots", "Reserve": 0.5})
    assert _same(percents, [NAN, NAN, NAN])
    assert problems == [("lots", "unreadable_number"), ("0.5", "fraction"), ("0.5", "fraction")]


@pytest.mark.parametrize(("distribution", "percents"), [
    ({"Sale": "0.6%", "Team": "0.4 %"}, [0.6, 0.4]),  # a % says percent: 1% in all, as written
    ({"Sale": "0.6 percent", "Team": 0.4}, [0.6, 0.4]),
    ({"Sale": 0.5}, [0.5]),  # one share alone is no evidence
    ({"Sale": 0.6, "Team": 0.2}, [0.6, 0.2]),  # 0.8: not a whole, not conclusive
    ({"Sale": 0.6, "Team": 0.38}, [0.6, 0.38]),  # 0.98
    ({"Sale": 1, "Team": 99}, [1.0, 99.0]),
    ({"Sale": "60%", "Team": 0.25, "Reserve": 0.75}, [60.0, 0.25, 0.75]),
])
def test_shares_that_are_not_all_bare_fractions_of_one_are_read_as_written(distribution,
                                                                            percents):
    got, problems = _read(distribution)
    assert _same(got, percents)
    assert problems == []


def test_only_the_ico_of_fractions_is_refused():
    tables = icoframes.tidy([
        {"id": 1, "finance": {"distribution": {"Sale": 0.75, "Team": 0.25}}},
        {"id": 2, "finance": {"distribution": {"Sale": "75%", "Team": "25%"}}},
        {"id": 3, "finance": {"distribution": {"Sale": 0.75, "Team": 0.2}}}])
    assert _same(tables.distribution["percent"].tolist(), [NAN, NAN, 75.0, 25.0, 0.75, 0.2])
    assert tables.problems[["ico_id", "reason"]].values.tolist() == [[1, "fraction"]] * 2


def test_the_reason_is_declared():
    assert "fraction" in REASONS


def _profile(h):
    asked = int(h.request_json()["id"])
    shares = ({"Crowdsale": 0.6, "Team": 0.25, "Reserve": 0.15} if asked == 1 else
              {"Crowdsale": "60%", "Team": "25%", "Reserve": "15%"})
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"},
                                        "finance": {"distribution": shares}}})(h)


def test_a_loaded_distribution_of_fractions_gives_no_shares(configure):
    with HostileServer({LIST: paged_list(2), PROFILE: _profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
    f = compute_features(tables, as_of="2019-01-01").set_index("ico_id")
    assert f["team_token_share"].isna().tolist() == [True, False]
    assert f.loc[2, ["team_token_share", "sale_token_share"]].tolist() == [25.0, 60.0]
    assert f["sale_token_share"].isna().tolist() == [True, False]
    reported = tables.problems[tables.problems["table"] == "distribution"]
    assert reported[["ico_id", "value", "reason"]].values.tolist() == [
        [1, "0.6", "fraction"], [1, "0.25", "fraction"], [1, "0.15", "fraction"]]
