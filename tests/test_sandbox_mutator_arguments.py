"""The sandbox's documented mutators (``add_ico``, ``update_ico``, ``remove_ico``) read their
arguments as the loaders do: a status, location or category in any case; a refusal is an
``InvalidParameter`` (still a ``ValueError``) with the value meant, and an unknown id an
``UnknownName`` (still a ``KeyError``) naming the ids there are. A refusal changes nothing.
"""

from __future__ import annotations

import datetime as dt

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, UnknownName, WrongType


@pytest.fixture
def sb():
    with sandbox.serve(n_icos=30, seed=9) as server:
        yield server


def test_a_status_in_any_case_is_taken_and_served(cfg):
    ico = next(i for i in cfg.directory.ids() if cfg.directory.status_of(i) != "past")
    cfg.update_ico(ico, status=" Past")
    added = cfg.add_ico("UPCOMING")
    past = icoframes.load_list("past", progress=False, refresh=True)
    upcoming = icoframes.load_list("upcoming", progress=False, refresh=True)
    assert ico in set(past["id"]) and added in set(upcoming["id"])


@pytest.mark.parametrize(("call", "message"), [
    (lambda sb, i: sb.update_ico(i, status="pats"),
     "invalid argument status='pats': must be one of ongoing, upcoming, past; did you mean "
     "'past'?"),
    (lambda sb, i: sb.update_ico(i, status="finished"), "; did you mean 'past'?"),
    (lambda sb, i: sb.add_ico("upcomming"), "; did you mean 'upcoming'?"),
    (lambda sb, i: sb.update_ico(i, location="Rusia"),
     "invalid argument location='Rusia': must be a country of the filter set; did you mean "
     "'Russia'?"),
    (lambda sb, i: sb.update_ico(i, category="Financ"), "; did you mean 'Finance'?"),
    (lambda sb, i: sb.update_ico(i, ico_score="high"),
     "invalid argument ico_score='high': must be a finite number"),
    (lambda sb, i: sb.update_ico(i, raised=2.5), "raised=2.5: must be a whole number"),
    (lambda sb, i: sb.update_ico("seven", name="x"), "invalid argument ico_id='seven'"),
])
def test_a_refused_argument_says_what_it_takes_and_changes_nothing(sb, call, message):
    ico = sb.directory.ids()[0]
    before = (len(sb.directory), sb.directory.record(ico))
    with pytest.raises(InvalidParameter) as exc:
        call(sb, ico)
    assert message in str(exc.value) and isinstance(exc.value, ValueError)
    assert (len(sb.directory), sb.directory.record(ico)) == before
    assert sb.stats.requests.total() == 0


@pytest.mark.parametrize("mutate", [lambda sb, i: sb.remove_ico(i),
                                    lambda sb, i: sb.update_ico(i, name="x")])
def test_an_unknown_id_names_the_ids_there_are(sb, mutate):
    ids = sb.directory.ids()
    with pytest.raises(UnknownName) as exc:
        mutate(sb, max(ids) + 1000)
    assert str(exc.value) == (f"unknown ICO id {max(ids) + 1000}: the sandbox's directory has "
                              f"ids {min(ids)} to {max(ids)}, {len(ids)} in all")
    assert isinstance(exc.value, KeyError) and sb.directory.ids() == ids


def test_a_location_and_category_in_any_case_and_an_id_as_numpy_take(sb):
    import numpy as np
    ico = sb.directory.ids()[0]
    sb.update_ico(np.int64(ico), location=" russia", category="FINANCE", raised="12")
    profile = sb.directory.profile(ico)
    assert "Russia" in str(profile) and sb.directory.record(ico).raised == 12
    with pytest.raises(WrongType, match="end='2030-01-01': must be a datetime"):
        sb.update_ico(ico, end="2030-01-01")
    sb.update_ico(ico, end=dt.datetime(2030, 1, 1), raised=1e6)  # a whole amount as a float
    assert sb.directory.record(ico).raised == 1_000_000
    count = len(sb.directory.ids())
    sb.update_ico(f" {ico}", name="Renamed")  # an id as text: that ICO changed, none added
    assert sb.directory.record(ico).name == "Renamed" and len(sb.directory.ids()) == count
