"""A query's own cached list, within ``max_age``, passes the test a list answering a narrower
query passes: no list cached since says its rows are not the service's now (review REV-CL F2).

``load_icos(status="past", sort_asc=...)`` cached at T0; an ICO removed, one moved to
upcoming, one added; ``load_icos(status="past", refresh=True)`` at T1 pages the change. The
sorted query at T2 returned its T0 list as complete (the removed and moved ICOs in, the new
one out) while the cache held the T1 list proving it wrong. Each test compares with the
sandbox's own answer, paged over loopback.
"""

from __future__ import annotations

import pytest
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback
from test_narrower_since import PAST, at, entry, sb  # noqa: F401  (sb: the fixture, a sandbox of its own)

import icoframes


def _changed_after(sb, sort: dict) -> tuple[int, int, int]:  # noqa: F811
    """Cache the sorted past list at T0, change the service, page all of past at T1:
    the removed id, the id moved to upcoming, the id added."""
    with at(0):
        first = icoframes.load_icos(status="past", progress=False, **sort)
    x, y = (int(i) for i in first["id"].iloc[:2])
    sb.remove_ico(x)
    sb.update_ico(y, status="upcoming")
    z = sb.add_ico("past")
    with at(1):
        icoframes.load_icos(status="past", refresh=True, progress=False)
    sb.stats.reset()
    return x, y, z


@pytest.mark.parametrize("offline", [False, True], ids=["online", "offline"])
def test_own_list_a_newer_list_disputes_is_declined_and_the_newer_one_answers(sb, offline):  # noqa: F811
    x, y, z = _changed_after(sb, {"sort_asc": "id"})
    with at(2):
        got = icoframes.load_icos(status="past", sort_asc="id", offline=offline, progress=False)
    assert sum(sb.stats.requests.values()) == 0  # the T1 list answers: no request
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="id")
    assert x not in got["id"].tolist() and y not in got["id"].tolist()
    assert z in got["id"].tolist() and set(got["status"]) == {"past"}
    query = entry(got)
    assert query["answered_from"] == PAST
    assert query["cache_declined"][0] == (
        "its own cached list of 2026-05-04 10:00 UTC: the cached list {'status': 'past'} of "
        f"2026-05-04 10:01 UTC lacks id {x}: it left the list since")
    assert got.attrs["icoframes"]["complete"] is True


def test_own_list_a_newer_list_disputes_is_paged_when_no_list_answers(sb):  # noqa: F811
    _changed_after(sb, {"sort_asc": "name"})  # a name order: not answered from the T1 list
    with at(2):
        got = icoframes.load_icos(status="past", sort_asc="name", progress=False)
    assert sb.stats.requests["icos"] > 0 and sum(sb.stats.profile_hits.values()) == 0
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="name")
    assert entry(got)["from_cache"] is False
    assert entry(got)["cache_declined"][0].startswith("its own cached list of 2026-05-04 10:00 UTC")


def test_offline_own_list_a_newer_list_disputes_answers_saying_so(sb):  # noqa: F811
    x, _, _ = _changed_after(sb, {"sort_asc": "name"})
    with at(2):
        got = icoframes.load_icos(status="past", sort_asc="name", offline=True, progress=False)
    assert sum(sb.stats.requests.values()) == 0
    assert x in got["id"].tolist()  # its own rows, as cached: but said
    query = entry(got)
    assert query["from_cache"] is True
    assert query["cache_declined"][0] == (
        "its own cached list of 2026-05-04 10:00 UTC: the cached list {'status': 'past'} of "
        f"2026-05-04 10:01 UTC lacks id {x}: it left the list since")


def test_own_list_no_list_since_disputes_answers_as_before(sb):  # noqa: F811
    with at(0):
        first = icoframes.load_icos(status="past", sort_asc="id", progress=False)
    with at(1):
        icoframes.load_icos(status="ongoing", progress=False)  # since, another status: no word
    sb.stats.reset()
    with at(2):
        again = icoframes.load_icos(status="past", sort_asc="id", progress=False)
    assert sum(sb.stats.requests.values()) == 0
    assert again["id"].tolist() == first["id"].tolist()
    assert entry(again)["from_cache"] is True and "cache_declined" not in entry(again)


def test_a_declined_own_list_and_the_list_answering_share_one_read_of_each(sb, monkeypatch):  # noqa: F811
    """Its own list disputed, the query is answered from another cached list on the reads the
    dispute made (READ-M L4): while the cache answers the query (``cached_query``) the tidy
    tables, the profile index, the filter set and each cached list are read once, not once
    per check (the load reads them again after, for its own purposes: not counted)."""
    from icoframes.fetch import load
    from icoframes.store.cache import Cache
    from icoframes.store.derived import DerivedTables

    x, _, _ = _changed_after(sb, {"sort_asc": "id"})
    reads: list[str] = []
    inside: list[bool] = []
    def counting(name: str, real):
        def counted(self, *args, **kwargs):
            if inside:
                reads.append(f"{name} {args[0]}" if args else name)
            return real(self, *args, **kwargs)
        return counted

    for cls, name in ((DerivedTables, "table"), (Cache, "profile_index"),
                      (Cache, "read_filters"), (Cache, "read_list")):
        monkeypatch.setattr(cls, name, counting(name, getattr(cls, name)))

    def answering(*args, _real=load.cached_query, **kwargs):
        inside.append(True)
        try:
            return _real(*args, **kwargs)
        finally:
            inside.clear()
    monkeypatch.setattr(load, "cached_query", answering)
    with at(2):
        got = icoframes.load_icos(status="past", sort_asc="id", progress=False)
    assert sum(sb.stats.requests.values()) == 0 and x not in got["id"].tolist()
    assert entry(got)["answered_from"] == PAST
    assert entry(got)["cache_declined"][0].startswith("its own cached list of")
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="id")
    assert sorted(reads) == ["profile_index", "read_filters",
                             "read_list {'sort_asc': 'id', 'status': 'past'}",
                             "read_list {'status': 'past'}", "table icos", "table problems"]
