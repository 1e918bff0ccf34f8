"""A ``snapshot_date`` made text, dates or categorical, and one in the index (review REVK
M1, M2, L6): every reader counts the days of the frame as it counts read_snapshots'.

Real snapshot exports of a sandbox over five simulated days (time-machine), ``status=
"upcoming"``: three ICOs upcoming on days 1, 2 and 4; none on day 3 (the query matched
nothing: empty tables, ``allow_empty``); on day 5 three others are, and the daily limit
(1 request) stops the export before it holds any (``rows`` 0, ``complete`` false).
On 9315728 a text (``.dt.strftime``), ``datetime.date`` (``.dt.date``) or categorical
``snapshot_date`` made ``changes`` and ``plot_status_flow`` drop day 3 (no event: days 1,
2 and 4 hold the same ICOs) and day 5 without the warning the read_snapshots frame gets,
and ``report`` count 3 days (complete); ``report`` of a frame whose ``snapshot_date`` is in
the index, cut to one day, reported every day, while ``changes`` refused it.
"""

from __future__ import annotations

import datetime as dt
import warnings

import matplotlib
import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.sandbox import generate_directory
from icoframes.snapshots import utc_dates

matplotlib.use("Agg")

_DAY5 = (r"the snapshot of 2026-11-05 stopped before it held any ICO \(rows 0 and complete "
         r"false in attrs: incomplete, not a query that matched nothing\) and lies outside")

# the ways a notebook turns read_snapshots' days into others (each read as those days)
KINDS = {
    "text": lambda c: c.dt.strftime("%Y-%m-%d"),
    "text objects": lambda c: c.dt.strftime("%Y-%m-%d").astype(object),
    "pandas string": lambda c: c.dt.strftime("%Y-%m-%d").astype("string"),
    "datetime.date": lambda c: c.dt.date,
    "Timestamp objects": lambda c: c.astype(object),
    "categorical": lambda c: c.astype("category"),
    "categorical text": lambda c: c.dt.strftime("%Y-%m-%d").astype("category"),
}


def day(d: int) -> pd.Timestamp:
    return pd.Timestamp(2026, 11, d).as_unit("ms")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The tree: days 1, 2, 4 three upcoming ICOs, day 3 none, day 5 stopped empty."""
    out = tmp_path_factory.mktemp("exports") / "out"
    directory = generate_directory(30, seed=1)
    for ico_id in directory.ids():
        directory.update_ico(ico_id, status="past")
    chosen, later = sorted(directory.ids()[:3]), sorted(directory.ids())[10:13]
    results = []
    with sandbox.serve(directory=directory, quota=None) as sb:
        try:
            for n in (1, 2, 3, 4, 5):
                for ico_id in chosen:
                    directory.update_ico(ico_id, status="upcoming" if n in (1, 2, 4) else "past")
                for ico_id in later:  # day 5: the query matches ICOs it cannot fetch
                    directory.update_ico(ico_id, status="upcoming" if n == 5 else "past")
                icoframes.configure(**sb.settings(), cache_dir=out.parent / "cache",
                                    **({"daily_quota": 1} if n == 5 else {}))
                with time_machine.travel(dt.datetime(2026, 11, n, 12, tzinfo=dt.UTC)), \
                        warnings.catch_warnings():
                    warnings.simplefilter("ignore", IcoframesWarning)  # day 5: said here
                    result = icoframes.export_tables(out, status="upcoming", snapshot=True,
                                                     refresh=True, progress=False,
                                                     allow_empty=True)
                results.append((result.complete, result.rows["icos"]))
        finally:
            icoframes.reset_configuration()
    assert results == [(True, 3), (True, 3), (True, 0), (True, 3), (False, 0)]
    return out, chosen


def test_a_categorical_date_lets_no_pandas_warning_out(tree):
    """REVK L6: under pandas 2.2 changes() and the plot of a categorical snapshot_date let
    pandas' FutureWarning ("The default of observed=False is deprecated") out (9315728).
    Without attrs: the days of its rows alone (1, 2 and 4), the same three ICOs."""
    out, _ = tree
    snaps = read_snapshots(out)
    made = snaps.assign(snapshot_date=snaps["snapshot_date"].astype("category"))
    made.attrs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        events = changes(made)
        ax = plot_status_flow(made)
    assert events.empty and list(events.columns) == [
        "ico_id", "snapshot_date", "kind", "old", "new", "previous_date"]
    assert [p.get_height() for b in ax.containers for p in b.patches] == [3, 3, 3]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "2026-11-01", "2026-11-02", "2026-11-04"]
    matplotlib.pyplot.close(ax.figure)
