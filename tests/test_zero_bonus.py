"""A bonus of 0% is no bonus: not a row of ``bonuses``, so ``has_bonus`` is False."""

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


def test_a_zero_term_beside_a_real_bonus_leaves_the_real_one():
    assert _bonuses({"Week 1": "20%", "Week 3": "0%"}) == (["Week 1"], True)


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
