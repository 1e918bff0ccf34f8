"""A status move has a profile fetched again once, when a list younger than the copy shows it,
never by every load: a service listing ICOs under two statuses, read from two cached lists in
turn, cost every shared profile on every call. The sandbox over loopback."""

from __future__ import annotations

import copy
import threading

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
    return spent_and_rows(sb, **query)[0]


def spent_and_rows(sb, **query):
    """:func:`spent`, and the ``icos`` table the load returned."""
    sb.stats.reset()
    tables = icoframes.load_tables(progress=False, **query)
    return (sb.stats.requests["icos"], sb.stats.requests["ico"]), tables.icos


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


def test_lists_that_overlap_with_another_summary_cost_nothing_once_both_are_cached(
        sb, monkeypatch):
    """The ongoing list also lists every past ICO, each with ``raised`` one more than the past
    list shows: a summary from the list older than the copy is no news, so loads of the two
    cached lists in turn send nothing (was: every past profile, on every call)."""
    query, summary = sb.directory.query, sb.directory.summary
    past = sb.directory.ids("past")
    serving = threading.local()  # the status of the list page this server thread renders

    def overlapping(params):
        serving.status = params.get("status")
        rows = query(params)
        if params.get("status") == "ongoing":
            rows = rows + query({**params, "status": "past"})
        return rows

    def bumped(ico_id):
        # the sandbox renders a page's rows by id through summary(), after query()
        shown = copy.deepcopy(summary(ico_id))
        if getattr(serving, "status", None) == "ongoing" and ico_id in past:
            raised = shown["finance"]["raised"]
            shown["finance"]["raised"] = (raised if isinstance(raised, int) else 0) + 1
        return shown
    monkeypatch.setattr(sb.directory, "query", overlapping)
    monkeypatch.setattr(sb.directory, "summary", bumped)
    pages, profiles = spent(sb, status="past")
    assert pages and profiles == len(past)
    pages, profiles = spent(sb, status="ongoing")
    assert pages and profiles == len(past) + len(sb.directory.ids("ongoing"))
    for _ in range(2):
        assert spent(sb, status="past") == (0, 0)
        assert spent(sb, status="ongoing") == (0, 0)


def test_an_ico_that_ended_with_its_raised_updated_is_fetched_once(sb):
    """An ongoing ICO ends and its ``raised`` grows: the past list paged again fetches it once;
    the ongoing list cached before, with the old ``raised``, neither fetches it back nor tags
    the copy with its status (a copy said fetched while ongoing reads its token price as the
    sale's)."""
    spent(sb, status="past")
    spent(sb, status="ongoing")
    ended = sb.directory.ids("ongoing")[0]
    sb.directory.update_ico(ended, status="past", raised=123_456_789)
    assert spent(sb, status="past", refresh=True)[1] == 1
    for _ in range(2):
        for status in ("ongoing", "past"):
            cost, icos = spent_and_rows(sb, status=status)
            assert cost == (0, 0), status
            row = icos[icos["id"] == ended]
            assert row["fetched_status"].tolist() == ["past"], status
