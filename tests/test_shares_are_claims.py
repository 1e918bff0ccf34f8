"""A token share is a claim: a team or sale part whose percent is missing or could not be
read makes the share unknown (NaN), never a known 0%."""

from __future__ import annotations

import math

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.features import compute_features, describe_features

AS_OF = "2019-01-01"


def _shares(distributions: list[object]) -> list[tuple[float, float]]:
    tables = icoframes.tidy([{"id": i, "finance": {"distribution": d}}
                             for i, d in enumerate(distributions, start=1)])
    f = compute_features(tables, as_of=AS_OF)
    return list(zip(f["team_token_share"].tolist(), f["sale_token_share"].tolist(), strict=True))


def _same(got: list[tuple[float, float]], want: list[tuple[float, float]]) -> bool:
    return all((math.isnan(a) and math.isnan(b)) or a == b
               for pair, wanted in zip(got, want, strict=True)
               for a, b in zip(pair, wanted, strict=True))


NAN = float("nan")


@pytest.mark.parametrize(("distribution", "team", "sale"), [
    ({"Crowdsale": "60%", "Team": "25% (vested 2 years)", "Reserve": "15%"}, NAN, 60.0),
    ({"Crowdsale": "60%", "Team": "20-25%", "Reserve": "15%"}, NAN, 60.0),
    ({"Public sale": "600,000,000 (60%)", "Team": "25%", "Reserve": "15%"}, 25.0, NAN),
    # one part of the kind unread among readable ones: the sum is still unknown
    ({"Team": "10%", "Founders": "about 5%", "ICO": "85%"}, NAN, 85.0),
    # an unread part of another kind leaves the team's and the sale's sums known
    ({"Crowdsale": "60%", "Team": "25%", "Reserve": "lots"}, 25.0, 60.0),
    # no part of the kind at all: a known 0%
    ({"Crowdsale": "100%", "Bounty": "n/a-ish"}, 0.0, 100.0),
])
def test_a_share_with_an_unreadable_part_of_its_kind_is_unknown(distribution, team, sale):
    assert _same(_shares([distribution]), [(team, sale)])


def test_an_ico_without_a_readable_part_has_no_shares():
    assert _same(_shares([{"Team": "20-25%"}, {}, {"Team": "20%", "Sale": "80%"}]),
                 [(NAN, NAN), (NAN, NAN), (20.0, 80.0)])


@pytest.mark.parametrize("missing", ["TBA", None, "", "N/A"])
def test_a_missing_part_of_its_kind_makes_the_share_unknown_and_is_documented(missing):
    tables = icoframes.tidy([{"id": 1, "finance": {"distribution": {
        "Team": missing, "Sale": "60%"}}}])
    f = compute_features(tables, as_of=AS_OF)
    assert _same(list(zip(f["team_token_share"], f["sale_token_share"], strict=True)),
                 [(NAN, 60.0)])
    assert tables.problems.empty  # missing, not unreadable: no row says why it is NaN
    described = describe_features().set_index("name")["definition"]
    assert all("percent is missing or could not be read" in " ".join(described[c].split())
               for c in ("team_token_share", "sale_token_share"))


DISTRIBUTIONS = {
    1: {"Crowdsale": "60%", "Team": "25% (vested 2 years)", "Reserve": "15%"},
    2: {"Public sale": "600,000,000 (60%)", "Team": "25%", "Reserve": "15%"},
    3: {"Crowdsale": "60%", "Team": "25%", "Reserve": "15%"},
}


def _profile(h):
    asked = int(h.request_json()["id"])
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"},
                                        "finance": {"distribution": DISTRIBUTIONS[asked]}}})(h)


def test_a_loaded_profile_with_an_unreadable_team_share_has_no_team_share(configure):
    with HostileServer({LIST: paged_list(3), PROFILE: _profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
    f = compute_features(tables, as_of=AS_OF).set_index("ico_id")
    assert _same(list(zip(f["team_token_share"], f["sale_token_share"], strict=True)),
                 [(NAN, 60.0), (25.0, NAN), (25.0, 60.0)])
    reported = tables.problems[tables.problems["table"] == "distribution"]
    assert reported[["ico_id", "value"]].values.tolist() == [
        [1, "25% (vested 2 years)"], [2, "600,000,000 (60%)"]]
