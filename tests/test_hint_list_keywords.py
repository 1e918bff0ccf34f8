"""``load_list`` refuses a keyword of ``load_icos`` it lacks (``profile_max_age``,
``budget``) saying it fetches no profiles, not with a "did you mean" of its own closest
keyword (``max_age``: the list's age, another meaning), before any request (a real sandbox
counts 0); its own typos keep their "did you mean".
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


@pytest.mark.parametrize(("keyword", "value"), [("profile_max_age", 3),
                                                ("profile_max_age", {"past": "7D"}),
                                                ("budget", 3), ("budget", None)])
def test_load_list_says_it_fetches_no_profiles(cfg, keyword, value):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list("past", progress=False, **{keyword: value})
    assert str(exc.value) == (f"load_list fetches no profiles: {keyword} is a keyword of "
                              "load_icos, load_tables and export_tables")
    assert cfg.stats.requests.total() == 0


def test_the_other_loaders_take_them_and_load_lists_typos_keep_their_hint(cfg):
    with pytest.raises(InvalidParameter, match=r"did you mean 'max_age'\?"):
        icoframes.load_list("past", progress=False, maxage=3)
    assert cfg.stats.requests.total() == 0
    icos = icoframes.load_icos("past", progress=False, budget=100, profile_max_age="7D")
    assert len(icos) == len(cfg.directory.ids("past"))
