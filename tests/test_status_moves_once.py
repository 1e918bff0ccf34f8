"""A status move has a profile fetched again once, when a list younger than the copy shows it,
never by every load: a service listing ICOs under two statuses, read from two cached lists in
turn, cost every shared profile on every call. The sandbox over loopback."""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox


@pytest.fixture
def sb(tmp_path, monkeypatch):
    """A small sandbox of its own, configured with a fresh cache dir."""
    with sandbox.serve(n_icos=60, seed=5) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        icoframes.load_filters()
        server.stats.reset()
        yield server
        icoframes.reset_configuration()


def spent(sb, **query):
    """The list pages and profile requests one load_tables(**query) sent."""
    sb.stats.reset()
    icoframes.load_tables(progress=False, **query)
    return sb.stats.requests["icos"], sb.stats.requests["ico"]


def test_lists_that_overlap_cost_nothing_once_both_are_cached(sb, monkeypatch):
    """The ongoing list also lists every past ICO: its first paging fetches them again (it is
    younger than their copies), then loads of the two cached lists in turn send nothing (was:
    every past profile, on every call)."""
    query = sb.directory.query
    past = sb.directory.ids("past")

    def overlapping(params):
        rows = query(params)
        if params.get("status") == "ongoing":
            rows = rows + query({**params, "status": "past"})
        return rows
    monkeypatch.setattr(sb.directory, "query", overlapping)
    pages, profiles = spent(sb, status="past")
    assert pages and profiles == len(past)
    pages, profiles = spent(sb, status="ongoing")
    assert pages and profiles == len(past) + len(sb.directory.ids("ongoing"))
    for _ in range(2):
        assert spent(sb, status="past") == (0, 0)
        assert spent(sb, status="ongoing") == (0, 0)


def test_a_real_move_is_fetched_once(sb):
    """An ICO that moved from past to ongoing: the ongoing list paged again fetches it (and
    only it); the past list cached before the move does not fetch it back, nor does the next
    load of either."""
    spent(sb, status="past")
    spent(sb, status="ongoing")
    moved = sb.directory.ids("past")[0]
    sb.directory.update_ico(moved, status="ongoing")
    assert spent(sb, status="ongoing", refresh=True)[1] == 1
    assert spent(sb, status="past") == (0, 0)  # its cached list, older than the copy
    assert spent(sb, status="ongoing") == (0, 0)
    tables = icoframes.load_tables(status="ongoing", offline=True, progress=False)
    assert moved in tables.icos["id"].tolist()
