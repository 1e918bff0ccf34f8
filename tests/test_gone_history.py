"""An ICO the service deleted while the day's lists still named it: its profile answers 482
and the day's manifest lists it ``missing`` with state ``gone``. One that no snapshot held
a row of was never in a snapshot: ``changes()`` gives no event of it, not ``new`` that day
(by the status it was listed under) and ``removed`` the next. One known by a row is a gap
that day (``unseen``: a listed ICO may be listed again), ``removed`` from the next complete
snapshot that lists it no more.

Real snapshot exports of every status of a 30-ICO sandbox over loopback HTTP, on three
simulated days (time-machine): day 1 complete; on day 2 a morning run spends nothing on
profiles (``budget=0``: the lists paged and cached, a new ICO listed without a row, an
ongoing one kept from day 1), then the service deletes both, and an afternoon run of the
same day (the day's lists from the cache) asks their profiles: 482 for each; day 3 complete.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings

import matplotlib
import pytest
import time_machine
from made_exports import day

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow

matplotlib.use("Agg")

import matplotlib.pyplot as plt


def _export(out, when, cache_dir, sb, **options):
    icoframes.reset_configuration()
    icoframes.configure(**sb.settings(), cache_dir=cache_dir)
    with time_machine.travel(when), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # day 2 is said incomplete
        return icoframes.export_tables(out, snapshot=True, progress=False, **options)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The tree, the id of the ICO known by a row before it went, and of the one never held."""
    out = tmp_path_factory.mktemp("gone") / "out"
    cache = out.parent / "cache"
    with sandbox.serve(n_icos=30, seed=1, quota=None) as sb:
        try:
            first = _export(out, dt.datetime(2026, 11, 1, 12, tzinfo=dt.UTC), cache, sb)
            assert first.complete
            frame = icoframes.read_export(out / "snapshot_date=2026-11-01").icos
            known = int(frame.loc[frame["status"] == "ongoing", "id"].iloc[0])
            fresh = sb.add_ico("upcoming")
            _export(out, dt.datetime(2026, 11, 2, 3, tzinfo=dt.UTC), cache, sb, budget=0)
            sb.remove_ico(known)
            sb.remove_ico(fresh)
            # more than a day after its fetch: the ongoing ICO's profile is due again
            second = _export(out, dt.datetime(2026, 11, 2, 15, tzinfo=dt.UTC), cache, sb)
            third = _export(out, dt.datetime(2026, 11, 3, 12, tzinfo=dt.UTC), cache, sb)
            assert third.complete
        finally:
            icoframes.reset_configuration()
    manifest = json.loads((out / "snapshot_date=2026-11-02" / "manifest.json").read_text())
    assert second.complete is False
    assert {m["id"]: m["state"] for m in manifest["missing"]} == {known: "gone", fresh: "gone"}
    return out, known, fresh


def test_an_ico_gone_before_any_snapshot_held_it_has_no_event(tree):
    out, known, fresh = tree
    for snapshots in (out, read_snapshots(out)):
        events = changes(snapshots).fillna("-")
        got = events[events["ico_id"].isin([known, fresh])]
        assert got[["ico_id", "snapshot_date", "kind", "old", "new", "previous_date"]
                   ].values.tolist() == [
            [known, day(2), "unseen", "ongoing", "-", day(1)],
            [known, day(3), "removed", "ongoing", "-", day(1)],
        ]
        assert not events["kind"].isin(["new", "first_seen"]).any()


def test_plot_status_flow_counts_no_new_ico_for_it(tree):
    out, _, _ = tree
    ax = plot_status_flow(read_snapshots(out))
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == ["1 unseen", "-1 removed"]
    plt.close(ax.figure)
