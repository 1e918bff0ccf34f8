"""The typed load report (issue 21 part 4): LoadReport on Tables and on every loader's frame,
attrs["icoframes"] kept as a plain dict, and the cache functions' typed results."""

from __future__ import annotations

import dataclasses
import datetime as dt
import pickle

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes import LoadReport, sandbox
from icoframes.errors import IncompleteWarning, InvalidParameter, StaleWarning
from icoframes.reporting import MissingICO, QueryReport

DAY_ONE = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=70, seed=5) as server:
        yield server


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


def test_load_tables_has_a_typed_report_of_what_it_answers_and_cost(cfg):
    tables = icoframes.load_tables(status="past", progress=False)
    report = tables.report
    assert isinstance(report, LoadReport) and icoframes.report(tables) is report
    (query,) = report.queries
    past = len(cfg.directory.ids("past"))
    assert isinstance(query, QueryReport) and query.endpoint == "icos"
    assert query.params["status"] == "past" and query.complete and not query.from_cache
    assert query.rows == query.total_icos == past and query.missing == 0
    assert query.fetched_at is not None and query.fetched_at.utcoffset() == dt.timedelta(0)
    assert report.complete and report.missing == () and report.not_refreshed == ()
    assert report.requests == spent(cfg) == {"filters": 0, "icos": -(-past // 20), "ico": past}
    assert report.requests_total == sum(spent(cfg).values())
    assert not report.answered_from_cache and report.oldest_fetch == query.fetched_at
    # the dict of 0.1 stays (a dict, read-only: shared by the frames pandas derives), and
    # says the same
    attrs = tables.icos.attrs["icoframes"]
    assert isinstance(attrs, dict) and LoadReport.from_dict(attrs) == report
    again = icoframes.load_tables(status="past", progress=False)
    assert again.report.answered_from_cache and again.report.requests_total == 0
    assert again.report.queries[0].from_cache and again.report.queries[0].fetched_at is not None
    assert pickle.loads(pickle.dumps(report)) == report
    assert dataclasses.asdict(report)["queries"][0]["rows"] == past


def test_every_loaders_frame_has_its_report_and_says_when_it_is_lost(cfg):
    filters = icoframes.load_filters()
    (query,) = icoframes.report(filters).queries
    assert query.endpoint == "filters" and query.params == {} and query.rows == 0
    assert query.fetched_at is not None and icoframes.report(filters).requests["filters"] == 1
    listing = icoframes.load_list(status="past", progress=False)
    assert icoframes.report(listing).queries[0].rows == len(listing)
    icos = icoframes.load_icos(status="past", progress=False)
    report = icoframes.report(icos)
    assert report.complete and report.queries[0].params["status"] == "past"
    assert icoframes.report(icos[icos["raised"] > 0].copy()) == report  # selections keep it
    merged = icos.merge(listing[["id"]], on="id")
    merged.attrs.clear()  # what pandas does in merge and concat (it varies by version)
    with pytest.raises(InvalidParameter, match=r"carries no load report.*merge"):
        icoframes.report(merged)
    with pytest.raises(InvalidParameter, match="no load report"):
        icoframes.report(pd.DataFrame())
    tables = icoframes.load_tables(status="past", progress=False)
    sub = tables.subset(tables.icos["id"][:3])
    assert sub.report is tables.report and icoframes.report(sub.icos) == tables.report


@pytest.fixture
def hostile_cfg(tmp_path):
    def use(srv):
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
    yield use
    icoframes.reset_configuration()


def test_missing_icos_are_listed_with_their_reasons(hostile_cfg):
    items = [{"id": i, "main": {"name": f"ICO {i}"}} for i in (1, 2, 3)]
    page = {"total_icos": 3, "total_pages": 1, "current_page": 1, "error": None, "data": items}

    def profile(h):
        asked = h.request_json().get("id")
        echoed = asked + 1000 if asked == 3 else asked  # another ICO's profile for id 3
        json_reply({"error": None, "data": {"id": echoed, "main": {"name": f"P{echoed}"}}})(h)

    with HostileServer({LIST: json_reply(page), PROFILE: profile}) as srv:
        hostile_cfg(srv)
        with pytest.warns(IncompleteWarning):
            tables = icoframes.load_tables(status="past", progress=False)
    report = tables.report
    assert not report.complete and report.queries[0].complete
    (missing,) = report.missing
    assert isinstance(missing, MissingICO) and (missing.id, missing.name) == (3, "ICO 3")
    assert missing.state == "failed" and "not the 3 requested" in missing.reason


def test_rows_left_stale_by_the_budget_are_reported(tmp_path):
    with sandbox.serve(n_icos=40, seed=31) as own:
        icoframes.configure(**own.settings(), cache_dir=tmp_path / "cache")
        try:
            with time_machine.travel(DAY_ONE, tick=True):
                icoframes.load_icos(status="ongoing", progress=False)
            with (time_machine.travel(DAY_ONE + dt.timedelta(days=10), tick=True),
                  pytest.warns(StaleWarning, match="budget")):
                icos = icoframes.load_icos(status="ongoing", refresh=True, budget=1,
                                           progress=False)
        finally:
            icoframes.reset_configuration()
    report = icoframes.report(icos)
    assert len(report.not_refreshed) == len(icos) - 1 > 0
    assert list(report.not_refreshed) == icos.attrs["icoframes"]["not_refreshed"]
    assert report.requests["ico"] == 1


def test_cache_functions_return_typed_objects(cfg):
    icoframes.load_list(status="past", progress=False)
    info = icoframes.cache_info()
    assert isinstance(info, icoframes.CacheInfo) and dataclasses.is_dataclass(info)
    assert info.list_queries == 1 and info.quota is not None
    every = icoframes.cache_info(all=True)
    assert isinstance(every, icoframes.CacheDirInfo) and len(every.services) == 1
    pruned = icoframes.prune_cache(dt.timedelta(days=30))
    assert isinstance(pruned, icoframes.CacheReport) and pruned.removed == []
    assert pruned.freed_bytes == 0 and pruned.skipped == []
