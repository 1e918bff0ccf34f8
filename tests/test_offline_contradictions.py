"""offline=True with an argument that asks the service again (refresh, max_age=0,
profile_max_age=0) is refused before any request (REVC L3): offline won silently, the cached
rows came back said complete as if fetched again."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, NotCached
from icoframes.fetch.policy import PROFILE_MAX_AGE


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=30, seed=4) as server:
        yield server


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


ASKS = [
    ({"refresh": True}, "refresh=True asks"),
    ({"refresh": "all"}, "refresh='all' asks"),
    ({"max_age": 0}, "max_age=0 asks"),
    ({"max_age": dt.timedelta(0)}, "max_age=0 asks"),
    ({"profile_max_age": 0}, r"profile_max_age=0 \(for past\) asks"),  # the load's status
    ({"profile_max_age": {"past": dt.timedelta(0)}}, r"profile_max_age=0 \(for past\) asks"),
    ({"refresh": True, "max_age": 0}, "refresh=True and max_age=0 ask the service again"),
    # any age given asks for what is older (REVE L3: these came back complete, no warning,
    # on rows of three days); the default itself and max_age=None ask nothing
    ({"max_age": 1}, r"max_age=1 asks"),
    ({"max_age": dt.timedelta(microseconds=1)}, r"max_age=1e-06 asks"),
    ({"max_age": dt.timedelta(days=2)}, r"max_age=172800 asks"),
    ({"profile_max_age": 1}, r"profile_max_age=1 \(for past\) asks"),
    ({"profile_max_age": "2D"}, r"profile_max_age='2D' \(172800 seconds\) \(for past\) asks"),
    ({"max_age": " 2D "}, r"max_age=' 2D ' \(172800 seconds\) asks"),  # as written
    ({"profile_max_age": {"past": 7 * 86400, "upcoming": dt.timedelta(days=7)}},
     r"profile_max_age=604800 \(for past\) asks"),
    # one age for every status: a day is ongoing's default alone
    ({"profile_max_age": 86400}, r"profile_max_age=86400 \(for past\) asks"),
]


@pytest.mark.parametrize(("status", "ages", "said"), [
    (None, {"Past": 90 * 86400, "ongoing": 0}, r"profile_max_age=0 \(for ongoing\) asks"),
    (None, 86400, r"profile_max_age=86400 \(for upcoming, past\) asks"),
    ("Ongoing", {"ongoing": "12h", "past": 0}, r"profile_max_age='12h' \(43200 seconds\) "
                                               r"\(for ongoing\) asks")])
def test_offline_weighs_the_profile_ages_of_the_statuses_the_load_asks_for(cfg, status, ages,
                                                                          said):
    with pytest.raises(InvalidParameter, match=f"offline=True uses the cache alone, but {said}"):
        icoframes.load_icos(status=status, offline=True, profile_max_age=ages)
    assert spent(cfg) == {"filters": 0, "icos": 0, "ico": 0}


def test_offline_takes_an_age_for_statuses_the_load_does_not_ask_for(cfg):
    # review REV-CL F4: "90D" on a past load was refused "for ongoing, upcoming" (statuses
    # it does not load: nothing of them would be asked again), shown as 7.776e+06
    online = icoframes.load_icos(status="past", progress=False)
    before = spent(cfg)
    for ages in ("90D", dt.timedelta(days=90), {"Past": 90 * 86400, "ongoing": 0},
                 {"upcoming": "1s"}):
        got = icoframes.load_icos(status="past", offline=True, progress=False,
                                  profile_max_age=ages)
        assert got["id"].tolist() == online["id"].tolist()
        assert icoframes.report(got).complete is True
    assert spent(cfg) == before


@pytest.mark.parametrize(("kwargs", "said"), ASKS)
def test_offline_with_an_argument_asking_again_is_refused_before_any_request(cfg, kwargs,
                                                                             said):
    # a cold cache too: refused as a contradiction, not as NotCached
    with pytest.raises(InvalidParameter, match=f"offline=True uses the cache alone, but {said}"):
        icoframes.load_icos(status="past", offline=True, **kwargs)
    icoframes.load_tables(status="past", progress=False)
    before = spent(cfg)
    assert before["ico"] > 0
    loaders = [icoframes.load_icos, icoframes.load_tables]
    if "profile_max_age" not in kwargs:
        loaders.append(icoframes.load_list)
    for loader in loaders:
        with pytest.raises(InvalidParameter, match="give one or the other"):
            loader(status="past", offline=True, progress=False, **kwargs)
    assert spent(cfg) == before  # nothing asked
    if "profile_max_age" not in kwargs and kwargs.get("refresh") != "all":
        with pytest.raises(InvalidParameter, match=f"but {said}"):
            icoframes.load_filters(offline=True, **kwargs)
    assert spent(cfg) == before


def test_offline_alone_or_with_arguments_that_ask_nothing_still_answers(cfg):
    with pytest.raises(NotCached):
        icoframes.load_icos(status="past", offline=True)
    online = icoframes.load_icos(status="past", progress=False)
    before = spent(cfg)
    # the default day, however written, is the default: one argument, one meaning (REVI L2:
    # max_age=timedelta(days=1) was refused, the default passed as the same object taken)
    for kwargs in ({}, {"refresh": False}, {"max_age": None}, {"budget": 0},
                   {"profile_max_age": None}, {"profile_max_age": {}},
                   {"max_age": dt.timedelta(days=1)}, {"max_age": 86400}):
        icos = icoframes.load_icos(status="past", offline=True, **kwargs)
        assert icos["id"].tolist() == online["id"].tolist()
        assert icoframes.report(icos).complete is True
    assert spent(cfg) == before


def test_offline_takes_a_profile_max_age_giving_statuses_their_default_however_written(cfg):
    # as max_age's day (REVI L2): the default is no wish to ask again. 9315728 refused every
    # profile_max_age given, "profile_max_age=7.776e+06 (for past) asks the service again"
    online = icoframes.load_icos(status="past", progress=False)
    before = spent(cfg)
    for ages in ({"past": dt.timedelta(days=90)}, {"Past": 90 * 86400}, {"ongoing": 86400.0},
                 {"ongoing": dt.timedelta(hours=24), "upcoming": 7 * 86400,
                  "past": dt.timedelta(days=90)}, {**PROFILE_MAX_AGE}):
        for loader in (icoframes.load_icos, icoframes.load_tables):
            got = loader(status="past", offline=True, progress=False, profile_max_age=ages)
            icos = got if loader is icoframes.load_icos else got.icos
            assert icos["id"].tolist() == online["id"].tolist()
            assert str(icos["id"].dtype) == "int64"
            assert icoframes.report(got).complete is True
    assert spent(cfg) == before


@pytest.mark.parametrize(("kwargs", "without"), [
    ({"max_age": 1}, "max_age"), ({"max_age": dt.timedelta(microseconds=1)}, "max_age"),
    ({"profile_max_age": 1}, "profile_max_age"),
    ({"max_age": 1, "profile_max_age": {"past": 1}}, "max_age and profile_max_age")])
def test_offline_with_an_age_on_old_rows_is_refused_not_answered_complete(cfg, kwargs,
                                                                          without):
    # rows of three days, max_age=1: offline returned them complete=True, with no warning,
    # as if they were younger than a second (review REVE L3)
    start = dt.datetime(2026, 11, 2, 12, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False):
        online = icoframes.load_icos(status="past", progress=False)
    before = spent(cfg)
    with time_machine.travel(start + dt.timedelta(days=3), tick=False):
        with pytest.raises(InvalidParameter) as refused:
            icoframes.load_icos(status="past", offline=True, progress=False, **kwargs)
        assert str(refused.value).endswith(
            "give one or the other (offline=True alone returns the cached rows as they are, "
            f"however old, saying what is missing); did you mean offline=True without "
            f"{without}?")
        alone = icoframes.load_icos(status="past", offline=True, progress=False)
    assert alone["id"].tolist() == online["id"].tolist()  # what offline means: as they are
    assert spent(cfg) == before
