"""Snapshots of a query that selects ICOs (``status="ongoing"``), next to an incomplete
snapshot: an ICO that left the query (its sale ended) while the day's list came back
partial is ``unseen``, a gap's event, and ``changes()`` and ``plot_status_flow()`` gave
no word that it may have left the query (df2645a warned of ``new`` and ``removed`` alone).

Real snapshot exports of a 60-ICO sandbox, 30 of them ongoing (two list pages), over two
simulated days (time-machine): day 1 complete; before day 2 one ongoing sale ends, and
day 2's daily limit allows one list page (its list partial, complete false).
"""

from __future__ import annotations

import datetime as dt
import warnings

import matplotlib
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.sandbox import generate_directory

matplotlib.use("Agg")

import matplotlib.pyplot as plt

SAID = r"the snapshots are of a query that selects ICOs \(\{'status': 'ongoing'\}\)"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The ``status="ongoing"`` tree, and the id of the sale that ended."""
    out = tmp_path_factory.mktemp("query_cut_gaps") / "out"
    directory = generate_directory(60, seed=2)
    ids = sorted(directory.ids())
    for n, ico_id in enumerate(ids):
        directory.update_ico(ico_id, status="ongoing" if n < 30 else "past")
    ended = ids[0]
    results = []
    with sandbox.serve(directory=directory, quota=None) as sb:
        try:
            for n in (1, 2):
                icoframes.reset_configuration()
                icoframes.configure(**sb.settings(), cache_dir=out.parent / "cache",
                                    **({"daily_quota": 1} if n == 2 else {}))
                if n == 2:
                    sb.update_ico(ended, status="past")
                with time_machine.travel(dt.datetime(2026, 11, n, 12, tzinfo=dt.UTC)), \
                        warnings.catch_warnings():
                    warnings.simplefilter("ignore", IcoframesWarning)  # day 2: incomplete
                    results.append(icoframes.export_tables(
                        out, status="ongoing", snapshot=True, refresh=True, progress=False))
        finally:
            icoframes.reset_configuration()
    assert [r.complete for r in results] == [True, False]
    assert [q.complete for q in results[1].report.queries if q.endpoint == "icos"] == [False]
    return out, ended


def test_gap_events_alone_are_said_to_be_of_a_query_that_selects_icos(tree):
    out, ended = tree
    for snapshots in (out, read_snapshots(out)):
        with pytest.warns(IcoframesWarning, match=SAID):
            events = changes(snapshots)
        assert set(events["kind"]) == {"unseen"}
        assert ended in events["ico_id"].tolist()
    with pytest.warns(IcoframesWarning, match=SAID):
        ax = plot_status_flow(read_snapshots(out))
    assert [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"] == [
        f"{len(events)} unseen"]
    plt.close(ax.figure)


def test_no_event_given_no_warning(tree):
    """``gaps="skip"`` gives none of the gap's events: nothing to misread."""
    out, _ = tree
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert changes(out, gaps="skip").empty
