"""A date-sorted query answered from a list sorted so: rows without the date only where they
end the cached list.

Spec 4.2 does not say where the service puts a row without the sort's date; the sandbox
lists them last, ascending and descending alike, and the cached list shows them where the
service put them when it was paged. A row whose date was removed since (a profile-only
change) keeps its old dated place in the list while the service now lists it with the
undated ones; one that gained a date leaves the undated rows listed before it out of place.
Either way the narrower query is paged, saying why (was: answered from the cache in the
stale order, ``complete``, nothing said). Every answer is compared with what the sandbox
lists for the same query over loopback. (A platform query is never answered from the
cache here: the sandbox's profiles spell some platforms as the filter set does not, and
those rows are undecided; ``type`` is the other filter.)
"""

from __future__ import annotations

import datetime as dt

import pytest
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback

import icoframes
from icoframes import sandbox

PAST = {"status": "past"}
WHY = ("the cached list {{'{sort}': 'end_datetime', 'status': 'past'}}: end_datetime: a row "
       "without it is not among those that end the cached list (it lost its date, or a row "
       "after it gained one, since the list was paged; where the service puts rows without "
       "it is not stated)")


@pytest.fixture
def sb(tmp_path):
    with sandbox.serve(n_icos=300, seed=3) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        yield server
    icoframes.reset_configuration()


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


def query_of(got) -> dict:
    (query,) = got.attrs["icoframes"]["queries"]
    return query


def subsets(sb, listed: list[int], by: str) -> dict[str, tuple[list[int], list[int]]]:
    """Each value of the filter ``by``: its ICOs of the cached list, in the list's order,
    with an end date and without one (the sandbox's records, as they were paged)."""
    out: dict[str, tuple[list[int], list[int]]] = {}
    for ico in listed:
        record = sb.directory.record(ico)
        dated, undated = out.setdefault(getattr(record, by), ([], []))
        (undated if record.end is None else dated).append(ico)
    return out


@pytest.mark.parametrize(("sort", "by", "change"), [
    ("sort_asc", "category", "lost"), ("sort_desc", "type", "lost"),
    ("sort_asc", "type", "gained"), ("sort_desc", "category", "gained")])
def test_a_date_lost_or_gained_since_the_sorted_list_was_paged_is_paged(sb, sort, by, change):
    icoframes.load_icos(status="past", progress=False)  # every copy
    icoframes.load_filters()
    listed = icoframes.load_list(status="past", progress=False, **{sort: "end_datetime"})
    ids = listed["id"].tolist()
    # a value whose query the list answers (the premise), with the rows the change needs:
    # a dated row with another after it (lost), an undated row after another (gained)
    for value, (dated, undated) in subsets(sb, ids, by).items():
        if len(dated) < 3 or len(undated) < 2:
            continue
        sb.stats.reset()
        before = icoframes.load_list(status="past", progress=False, **{by: value},
                                     **{sort: "end_datetime"})
        if query_of(before)["from_cache"]:
            break
    else:
        pytest.fail("no value answered from the sorted list")
    assert before["id"].tolist()[-len(undated):] == undated  # the undated rows end it
    assert spent(sb) == {"filters": 0, "icos": 0, "ico": 0}
    ends = [sb.directory.record(i).end for i in ids if sb.directory.record(i).end is not None]
    if change == "lost":
        moved = dated[1]  # dated rows after it
        sb.directory.update_ico(moved, remove_end=True)
    else:
        moved = undated[-1]  # undated rows before it; dated now, the last of the dated ones
        last = max(ends) + dt.timedelta(days=1) if sort == "sort_asc" else \
            min(ends) - dt.timedelta(days=1)
        sb.update_ico(moved, end=last)
    icoframes.load_icos(status="past", progress=False, refresh="all")  # the copies show it
    sb.stats.reset()
    got = icoframes.load_list(status="past", progress=False, **{by: value},
                              **{sort: "end_datetime"})
    query = query_of(got)
    service = listed_by_service(sb, **{by: value}, **{sort: "end_datetime"})
    assert got["id"].tolist() == service and moved in service
    assert service != before["id"].tolist()  # the premise: the service moved it
    assert not query["from_cache"] and query["answered_from"] is None and query["complete"]
    assert WHY.format(sort=sort) in query["cache_declined"], query["cache_declined"]
    assert spent(sb)["icos"] > 0 and spent(sb)["ico"] == 0  # list pages only
    if change == "lost":
        # another value's undated rows still end the list: answered, in the service's order
        # (its undated rows, which tie, in the sandbox's order: by id in the sort's direction)
        for other, (dated, undated) in subsets(sb, ids, by).items():
            if other == value or not undated:
                continue
            sb.stats.reset()
            again = icoframes.load_list(status="past", progress=False, **{by: other},
                                        **{sort: "end_datetime"})
            if query_of(again)["from_cache"]:
                assert spent(sb)["icos"] == 0
                assert again["id"].tolist()[:len(dated)] == \
                    listed_by_service(sb, **{by: other}, **{sort: "end_datetime"})[:len(dated)]
                assert sorted(again["id"].tolist()[len(dated):]) == sorted(undated)
                break
        else:
            pytest.fail("no other value with undated rows answered from the sorted list")
