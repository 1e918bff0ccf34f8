"""offline=True with an argument that asks the service again (refresh, max_age=0,
profile_max_age=0) is refused before any request (REVC L3): offline won silently, the cached
rows came back said complete as if fetched again."""

from __future__ import annotations

import datetime as dt

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, NotCached


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
    ({"profile_max_age": 0}, r"profile_max_age=0 \(for ongoing, upcoming, past\) asks"),
    ({"profile_max_age": {"past": dt.timedelta(0)}}, r"profile_max_age=0 \(for past\) asks"),
    ({"refresh": True, "max_age": 0}, "refresh=True and max_age=0 ask the service again"),
]


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
    for kwargs in ({}, {"refresh": False}, {"max_age": None}, {"max_age": 1},
                   {"budget": 0}, {"profile_max_age": 1}):
        icos = icoframes.load_icos(status="past", offline=True, **kwargs)
        assert icos["id"].tolist() == online["id"].tolist()
        assert icoframes.report(icos).complete is True
    assert spent(cfg) == before
