"""An ICO the service deleted while the day's lists still named it: its profile answers 482
and the day's manifest lists it ``missing`` with state ``gone``. The snapshot already knows
it is gone, so ``changes()`` says so that day: ``removed`` there when an earlier snapshot
held it, and no event at all when none did (it was never in a snapshot), never ``new`` (or
``unseen``) that day and ``removed`` the next.

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


def test_an_ico_known_gone_is_removed_that_day_and_one_never_held_has_no_event(tree):
    out, known, fresh = tree
    for snapshots in (out, read_snapshots(out)):
        events = changes(snapshots).fillna("-")
        got = events[events["ico_id"].isin([known, fresh])]
        assert got[["ico_id", "snapshot_date", "kind", "old", "new", "previous_date"]
                   ].values.tolist() == [[known, day(2), "removed", "ongoing", "-", day(1)]]
        assert not events["kind"].isin(["first_seen", "unseen"]).any()


def test_plot_status_flow_counts_it_removed_the_day_it_was_known_gone(tree):
    out, _, _ = tree
    ax = plot_status_flow(read_snapshots(out))
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves[0].endswith("-1 removed") and "new" not in moves[0] and "unseen" not in moves[0]
    assert "removed" not in moves[1] and "new" not in moves[1]
    plt.close(ax.figure)
