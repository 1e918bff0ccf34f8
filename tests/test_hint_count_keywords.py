"""A keyword for a number of profiles (``profiles=3``, ``max_profiles``) or of ICOs
(``max_icos=3``, ``limit``) gets what the loader has for it: ``budget`` (load_list fetches no
profiles: said so, with whose keyword it is), or that the loaders load every ICO matching
(``.head(n)`` of the result); not the closest spelling, which meant another thing
(``progress``, ``profile_max_age`` that load_list lacks, ``max_workers``). A loader's
"did you mean" names only its own keywords. Before any request: a real sandbox counts 0.
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter

NEITHER = "is neither a keyword of the loader nor a list parameter of spec 4.2"
NO_PROFILES = ("load_list fetches no profiles: budget is a keyword of load_icos, load_tables "
               "and export_tables")
EVERY_ICO = ("is no keyword of the loader: it loads every ICO the filters match, whatever their "
             "number; keep the first rows of the result (.head(n))")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=9) as server:
        yield server


def _refused(call) -> str:
    with pytest.raises(InvalidParameter) as exc:
        call()
    return str(exc.value)


@pytest.mark.parametrize("typed", ["profiles", "max_profiles", "n_profiles", "Profiles",
                                   "max_requests"])
def test_a_count_of_profiles_means_budget(cfg, tmp_path, typed):
    assert _refused(lambda: icoframes.load_list("past", progress=False, **{typed: 3})) == (
        f"{typed}: did you mean 'budget'? {NO_PROFILES}")
    for load in (icoframes.load_icos, icoframes.load_tables):
        assert _refused(lambda load=load: load("past", progress=False, **{typed: 3})) == (
            f"{typed} {NEITHER}; did you mean 'budget' (at most this many profile requests)?")
    assert _refused(lambda: icoframes.export_tables(tmp_path / "out", progress=False,
                                                    **{typed: 3})).endswith(
        "did you mean 'budget' (at most this many profile requests)?")
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("typed", ["max_icos", "limit", "n_rows", "LIMIT"])
def test_a_count_of_icos_says_every_ico_is_loaded(cfg, tmp_path, typed):
    assert _refused(lambda: icoframes.load_list(progress=False, **{typed: 3})) == (
        f"{typed} {EVERY_ICO}")
    for load in (icoframes.load_icos, icoframes.load_tables):
        assert _refused(lambda load=load: load(progress=False, **{typed: 3})) == (
            f"{typed} {EVERY_ICO}; budget=n caps the profile requests")
    assert "max_workers" not in _refused(
        lambda: icoframes.export_tables(tmp_path / "out", progress=False, **{typed: 3}))
    assert cfg.stats.requests.total() == 0


def test_load_list_suggests_only_its_own_keywords(cfg):
    # "progfile" is about as near load_list's 'progress' as load_icos' 'profile_max_age': both
    # were offered, as keywords of load_list
    assert _refused(lambda: icoframes.load_list(progress=False, progfile=False)) == (
        f"progfile {NEITHER}; did you mean 'progress'?")
    assert _refused(lambda: icoframes.load_icos(progress=False, progfile=False)) == (
        f"progfile {NEITHER}; did you mean 'progress' or 'profile_max_age'?")
    assert cfg.stats.requests.total() == 0
