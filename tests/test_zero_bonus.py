"""A bonus of 0% alone is no bonus: no row of ``bonuses``, so ``has_bonus`` is False; a 0%
tier beside a bonus that gives something is a row of the schedule."""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.features import compute_features


def _bonuses(terms: object) -> tuple[list[str], bool]:
    tables = icoframes.tidy([{"id": 1, "additional": {"bonuses": terms}}])
    has = bool(compute_features(tables, as_of="2019-01-01")["has_bonus"].iloc[0])
    return tables.bonuses["name"].tolist(), has


@pytest.mark.parametrize("terms", ["0%", "0 %", "0.0%", "0,00 %", "0", 0, 0.0, "-0%",
                                   "0 percent", "0% bonus", "0 % bonus tokens", " 0% "])
def test_a_zero_share_is_no_bonus(terms):
    assert _bonuses({"Bonus": terms}) == ([], False)


@pytest.mark.parametrize("terms", ["5%", "0.5%", "0% until May, then 10%", "0 ETH", True,
                                   "20% in week 1"])
def test_other_terms_stay_bonuses(terms):
    assert _bonuses({"Bonus": terms}) == (["Bonus"], True)


@pytest.mark.parametrize(("terms", "rows"), [
    ({"Week 1": "20%", "Week 4": "0%"}, ["Week 1", "Week 4"]),
    ({"Week 1": "20%", "Week 2": "10%", "Week 3": "0 %", "Referral": "NO"},
     ["Week 1", "Week 2", "Week 3"]),
    ({"Presale": "0%", "Whitelist": "5 ETH"}, ["Presale", "Whitelist"]),
])
def test_a_zero_tier_beside_a_real_bonus_is_a_row_of_the_schedule(terms, rows):
    assert _bonuses(terms) == (rows, True)


@pytest.mark.parametrize("terms", [{"Week 1": "0%", "Week 2": "0 % bonus tokens"},
                                   {"Bonus": "0%", "Referral": "NO", "Other": " "}])
def test_an_ico_whose_every_term_gives_nothing_has_no_row(terms):
    assert _bonuses(terms) == ([], False)


def test_zero_tiers_are_judged_per_ico():
    tables = icoframes.tidy([{"id": 1, "additional": {"bonuses": {"Week 1": "0%"}}},
                             {"id": 2, "additional": {"bonuses": {"Week 1": "20%",
                                                                  "Week 2": "0%"}}}])
    has = compute_features(tables, as_of="2019-01-01")["has_bonus"].tolist()
    assert (tables.bonuses["ico_id"].tolist(), has) == ([2, 2], [False, True])


def _profile(h):
    asked = int(h.request_json()["id"])
    bonuses = {"Bonus": "0%"} if asked == 1 else {"Early bird": "10% bonus tokens"}
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"},
                                        "additional": {"bonuses": bonuses}}})(h)


def test_a_loaded_zero_bonus_is_no_bonus(configure):
    with HostileServer({LIST: paged_list(2), PROFILE: _profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
    f = compute_features(tables, as_of="2019-01-01")
    assert f["has_bonus"].tolist() == [False, True]
    assert tables.bonuses["ico_id"].tolist() == [2]
