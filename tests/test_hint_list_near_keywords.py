"""A near miss of another loader's keyword given to ``load_list`` (``budgett``,
``profile_maxage``) gets what the keyword itself gets, "load_list fetches no profiles",
with the keyword meant, not "not a list parameter of spec 4.2"; a near miss of load_list's
own keyword keeps its "did you mean". Before any request: a real sandbox counts 0.
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=6) as server:
        yield server


@pytest.mark.parametrize(("typed", "meant"), [
    ("budgett", "budget"), ("Budget", "budget"), ("profile_maxage", "profile_max_age"),
    ("profile_max_agee", "profile_max_age"), ("profilemaxage", "profile_max_age")])
def test_a_near_miss_of_another_loaders_keyword_says_whose_it_is(cfg, typed, meant):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list("past", progress=False, **{typed: 3})
    assert str(exc.value) == (f"{typed}: did you mean {meant!r}? load_list fetches no "
                              f"profiles: {meant} is a keyword of load_icos, load_tables and "
                              "export_tables")
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("typed", "meant"), [("max_agee", "max_age"), ("maxage", "max_age"),
                                              ("refesh", "refresh")])
def test_a_near_miss_of_load_lists_own_keyword_keeps_its_hint(cfg, typed, meant):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list("past", progress=False, **{typed: 3})
    assert str(exc.value).endswith(f"did you mean {meant!r}?")
    assert cfg.stats.requests.total() == 0
