"""``changes(path, start=, end=)`` is ``changes(path)`` cut to those days, also when the day
before ``start`` is incomplete: an ICO that day lacks (its profile answered 482 that day
alone) is compared with the row an earlier day held of it, as the whole tree compares it,
never ``first_seen``; one unseen there and listed no more on ``start`` is ``removed``.

Real snapshot exports from a hostile server over loopback HTTP (six past ICOs), on four
simulated days (time-machine): day 1 complete; on day 2 ICOs 2 and 5 answer 482 (listed,
no row: the day is incomplete); on day 3 5 is back, its ``raised`` moved, and 2 is
listed no more; on day 4 3's ``raised`` moves.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots

# the tree is of the past ICOs (one query): changes() says what such a query cannot tell
pytestmark = pytest.mark.filterwarnings("ignore:changes. the snapshots are of a query")

DAYS = [dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC) + dt.timedelta(days=i) for i in range(4)]


class _Service:
    def __init__(self) -> None:
        self.listed = [1, 2, 3, 4, 5, 6]
        self.gone: set[int] = set()
        self.raised = {i: 1000 * i for i in self.listed}

    def _item(self, i: int) -> dict:
        return {"id": i, "main": {"name": f"ICO {i}", "ico_score": "3.0"},
                "finance": {"raised": str(self.raised[i])}}

    def page(self, h) -> None:
        json_reply({"total_icos": len(self.listed), "current_page": 1, "total_pages": 1,
                    "error": None, "data": [self._item(i) for i in self.listed]})(h)

    def profile(self, h) -> None:
        asked = h.request_json().get("id")
        if asked in self.gone:
            json_reply({"error": 482, "message": f"no ICO has id {asked}"})(h)
        else:
            json_reply({"error": None, "data": self._item(asked)})(h)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("window") / "out"
    svc = _Service()
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        icoframes.configure(**server.settings(), cache_dir=out.parent / "cache")
        try:
            for n, when in enumerate(DAYS):
                if n == 1:
                    svc.gone = {2, 5}
                elif n == 2:
                    svc.gone = set()
                    svc.raised[5] = 5555  # (a list unchanged since it went: not asked again)
                    svc.listed.remove(2)
                elif n == 3:
                    svc.raised[3] = 3333
                with time_machine.travel(when, tick=True), warnings.catch_warnings():
                    warnings.simplefilter("ignore", IcoframesWarning)  # day 2 is incomplete
                    icoframes.export_tables(out, status="past", snapshot=True,
                                            profile_max_age=3600, progress=False)
        finally:
            icoframes.reset_configuration()
    complete = [i["complete"] for i in read_snapshots(out).attrs["icoframes"]["snapshots"]]
    assert complete == [True, False, True, True]
    return out


def _day(n: int) -> pd.Timestamp:
    return pd.Timestamp(DAYS[n].date()).as_unit("ms")


def test_the_whole_tree_compares_across_the_incomplete_day(tree):
    events = changes(tree).fillna("-")
    assert events[["ico_id", "snapshot_date", "kind", "old", "new", "previous_date"]
                  ].values.tolist() == [
        [2, _day(1), "unseen", "past", "-", _day(0)],
        [5, _day(1), "unseen", "past", "-", _day(0)],
        [2, _day(2), "removed", "past", "-", _day(0)],
        [5, _day(2), "raised", "5000", "5555", _day(0)],
        [3, _day(3), "raised", "3000", "3333", _day(2)],
    ]


@pytest.mark.parametrize("gaps", ["mark", "skip"])
def test_every_window_is_the_whole_trees_events_of_its_days(tree, gaps):
    every = changes(tree, gaps=gaps)
    bounds = [None, *(_day(n) for n in range(4))]
    for start in bounds:
        for end in bounds:
            if start is not None and end is not None and start > end:
                continue
            want = every
            if start is not None:
                want = want[want["snapshot_date"] >= start]
            if end is not None:
                want = want[want["snapshot_date"] <= end]
            got = changes(tree, gaps=gaps, start=start, end=end)
            pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_exact=True,
                                          obj=f"changes(start={start}, end={end})")
            assert got.attrs == want.attrs


def test_attrs_describe_the_columns_returned(tree):
    whole = read_snapshots(tree)
    empty = read_snapshots(tree, start="2026-12-01")  # a window of no day
    assert dict(empty.attrs["columns"]) == dict(whole.attrs["columns"])
    reasons = read_snapshots(tree, "problems", columns=["reason"])
    assert list(reasons.attrs["columns"]) == [c for c in reasons.columns if c != "snapshot_date"]


def test_arguments_are_refused_before_the_path_is_looked_at(tmp_path):
    missing = tmp_path / "nothing"
    with pytest.raises(icoframes.InvalidParameter, match=r"start .2026-11-05. is after end"):
        read_snapshots(missing, start="2026-11-05", end="2026-11-02")
    with pytest.raises(icoframes.InvalidParameter, match="start"):
        changes(missing, start="garbage")
    with pytest.raises(icoframes.errors.UnknownName, match=r"5 is not a column of the icos "
                       r"table: a column is a name \(str\)"):
        read_snapshots(missing, columns=[5])
