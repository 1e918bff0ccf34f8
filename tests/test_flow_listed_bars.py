"""``plot_status_flow`` counts an ICO listed without a row (its day's manifest names it in
``missing``, with the status it was listed under) in that day's bar, hatched, as its moves
and ``changes()`` count it: each bar holds every ICO the day listed, and the moves written
between two bars are what changes them ("+3 new" between bars of equal height was drawn).

A real tree of ``icoframes export --snapshot`` runs (the command, in-process) over five
simulated days (time-machine) of a 30-ICO sandbox, every status: day 1 complete; the service
adds A (upcoming), B (past) and C (upcoming); day 2 ``--budget 0`` (no profile fetched: the
three are listed without a row, the others' rows kept); A starts its sale (listed so on day
3), B is deleted and D, known by a row, starts its sale; day 3 ``--budget 0``; C starts its
sale; day 4 complete (A and C get their rows); the service adds E (past); day 5 ``--budget 0``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import warnings

import matplotlib
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, main
from icoframes.config import SETTINGS
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow

matplotlib.use("Agg")

import matplotlib.pyplot as plt

LISTED = "listed without a row"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("flowbars") / "out"
    codes = []
    with sandbox.serve(n_icos=30, seed=1, quota=None) as sb, pytest.MonkeyPatch.context() as mp:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            mp.delenv(setting.env, raising=False)
        for name, value in {**sb.settings(), "cache_dir": str(out.parent / "cache")}.items():
            mp.setenv(f"ICOFRAMES_{name.upper()}", str(value))

        def export(n, *extra):
            with time_machine.travel(dt.datetime(2026, 11, n, 12, tzinfo=dt.UTC)), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an incomplete day warns: its exit code says it
                codes.append(main(["export", "--out", str(out), "--snapshot",
                                   "--max-workers", "1", *extra]))

        try:
            export(1)
            d = sb.directory.ids("upcoming")[0]
            a, b, c = sb.add_ico("upcoming"), sb.add_ico("past"), sb.add_ico("upcoming")
            export(2, "--budget", "0")
            sb.update_ico(a, status="ongoing")
            sb.remove_ico(b)
            sb.update_ico(d, status="ongoing")
            export(3, "--budget", "0")
            sb.update_ico(c, status="ongoing")
            export(4)
            e = sb.add_ico("past")
            export(5, "--budget", "0")
        finally:
            icoframes.reset_configuration()
    assert codes == [EXIT_OK, EXIT_INCOMPLETE, EXIT_INCOMPLETE, EXIT_OK, EXIT_INCOMPLETE]
    return out, {"A": a, "B": b, "C": c, "D": d, "E": e}


def _listed(out):
    """Per day (in order), the ICOs it listed by status: its rows' and its manifest's
    ``missing`` (by the status each was listed under)."""
    snaps = read_snapshots(out)
    days = []
    for date, rows in snaps.groupby("snapshot_date", sort=True, observed=True):
        folder = out / f"snapshot_date={date:%Y-%m-%d}"
        missing = json.loads((folder / "manifest.json").read_text())["missing"]
        days.append((rows["status"].astype(str).value_counts().to_dict(),
                     {m["id"]: m["status"] for m in missing}))
    return snaps, days


def test_the_tree_lists_icos_without_a_row_of_which_no_row_is_known(tree):
    out, ico = tree
    _, days = _listed(out)
    assert [sorted(missing) for _, missing in days] == [
        [], sorted([ico["A"], ico["B"], ico["C"]]), sorted([ico["A"], ico["C"]]), [],
        [ico["E"]]]
    assert days[2][1] == {ico["A"]: "ongoing", ico["C"]: "upcoming"}


def _heights(ax):
    """Each container's label and bar heights."""
    return {c.get_label(): [int(p.get_height()) for p in c] for c in ax.containers}


def test_each_bar_holds_every_ico_the_day_listed_and_the_moves_explain_the_bars(tree):
    out, _ = tree
    snaps, days = _listed(out)
    ax = plot_status_flow(snaps)
    heights = _heights(ax)
    statuses = ["past", "ongoing", "upcoming"]
    # each status: its rows, then its ICOs listed without a row, hatched
    for i, (rows, missing) in enumerate(days):
        for status in statuses:
            assert heights[status][i] == rows.get(status, 0)
            listed = sum(1 for s in missing.values() if s == status)
            assert heights.get(f"{status}, {LISTED}", [0] * len(days))[i] == listed
    totals = [sum(h[i] for h in heights.values()) for i in range(len(days))]
    assert totals == [sum(rows.values()) + len(missing) for rows, missing in days]
    assert totals == [30, 33, 32, 32, 33]

    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == ["+3 new", "2 upcoming\u2192ongoing\n-1 removed",
                     "1 upcoming\u2192ongoing", "+1 new"]
    per_day = [{s: sum(h[i] for k, h in heights.items() if k.split(",")[0] == s)
                for s in statuses} for i in range(len(days))]
    for before, after, text in zip(per_day, per_day[1:], moves, strict=False):
        counts = dict(before)
        new = removed = 0
        for line in text.split("\n"):
            if m := re.fullmatch(r"(\d+) (\w+)\u2192(\w+)", line):
                counts[m[2]] -= int(m[1])
                counts[m[3]] += int(m[1])
            elif m := re.fullmatch(r"\+(\d+) new", line):
                new = int(m[1])
            elif m := re.fullmatch(r"-(\d+) removed", line):
                removed = int(m[1])
            else:
                raise AssertionError(line)
        # what the status moves leave unexplained is exactly the new and removed ICOs
        rest = [after[s] - counts[s] for s in statuses]
        assert sum(r for r in rest if r > 0) == new
        assert -sum(r for r in rest if r < 0) == removed

    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [*statuses, LISTED]
    assert f"hatched: {LISTED} that day, by the status listed" in ax.texts[0].get_text()
    plt.close(ax.figure)


def test_the_moves_are_the_events_of_changes(tree):
    out, ico = tree
    events = changes(out)
    got = events[events["kind"].isin(["new", "removed", "status"])]
    assert sorted(got[["ico_id", "kind"]].itertuples(index=False, name=None)) == sorted([
        (ico["A"], "new"), (ico["B"], "new"), (ico["C"], "new"), (ico["A"], "status"),
        (ico["D"], "status"), (ico["B"], "removed"), (ico["C"], "status"), (ico["E"], "new")])


def test_a_tree_with_no_ico_listed_without_a_row_draws_as_before(tree):
    out, _ = tree
    snaps = read_snapshots(out)
    whole = snaps[snaps["snapshot_date"] <= snaps["snapshot_date"].min()]  # day 1 alone
    ax = plot_status_flow(whole)
    assert [c.get_label() for c in ax.containers] == ["past", "ongoing", "upcoming"]
    assert "hatched" not in ax.texts[0].get_text()
    plt.close(ax.figure)


@pytest.mark.parametrize("given", [{"fc": "red", "ec": "black"},
                                   {"facecolor": "red", "edgecolor": "black"}],
                         ids=["aliases", "names"])
def test_the_callers_colours_colour_the_hatched_bars(tree, given):
    """Colours given, by name or alias (``fc``, ``ec``), are the hatched bars' own: never
    the plot's white fill and status-coloured edge without a line."""
    from matplotlib.colors import to_rgba

    out, _ = tree
    ax = plot_status_flow(read_snapshots(out), **given)
    hatched = [p for c in ax.containers if c.get_label().endswith(LISTED) for p in c]
    assert hatched and {(p.get_facecolor(), p.get_edgecolor()) for p in hatched} == {
        (to_rgba("red"), to_rgba("black"))}
    assert all(p.get_linewidth() > 0 and p.get_hatch() == "///" for p in hatched)
    plt.close(ax.figure)
