"""The plots of the ``icos`` table count ICOs, one row each: a ``read_snapshots`` frame of
several days (each ICO once per day) is refused before drawing, with the fix.

Real snapshot exports of a 60-ICO sandbox over three simulated days (time-machine). On
ca98c47 ``plot_raised`` of the three days said "57 with known raised; 123 unknown" (19 of
60 ICOs have a known amount), ``plot_scores`` and ``plot_timeline`` the same threefold,
with bars three times as high and no warning.
"""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from made_exports import daily_snapshots

from icoframes.errors import InvalidParameter
from icoframes.history import read_export, read_snapshots
from icoframes.plotting import (
    plot_raised,
    plot_raised_vs_cap,
    plot_scores,
    plot_status_flow,
    plot_timeline,
)
from icoframes.plotting._axes import NOTE_GID

DAYS = (1, 2, 3)
NOW = "2026-11-03"


def _vs_cap(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as plot_raised_vs_cap takes it: features (``ico_id``) beside ``raised``."""
    out = frame.rename(columns={"id": "ico_id", "hard_cap": "hard_cap_usd"})
    return out.assign(reached_soft_cap=pd.array([None] * len(out), dtype="boolean"))


PLOTS = {
    "plot_raised": lambda f, **kw: plot_raised(f, **kw),
    "plot_scores": lambda f, **kw: plot_scores(f, **kw),
    "plot_timeline": lambda f, **kw: plot_timeline(f, now=NOW, **kw),
    "plot_raised_vs_cap": lambda f, **kw: plot_raised_vs_cap(_vs_cap(f), **kw),
}
#: What each plot's frame is called in its message's fix.
NAMES = {"plot_raised_vs_cap": "frame"}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Three daily snapshots (2026-11-01 to 03) of the same 60 ICOs."""
    out = tmp_path_factory.mktemp("exports") / "out"
    daily_snapshots(out, out.parent / "cache", DAYS)
    return out


@pytest.fixture(scope="module")
def snaps(tree):
    frame = read_snapshots(tree)
    assert (frame["id"].nunique(), len(frame)) == (60, 180)
    return frame


def notes(ax) -> list[str]:
    return [t.get_text() for t in ax.texts if t.get_gid() == NOTE_GID]


def drawn(ax) -> int:
    return len(ax.texts) + len(ax.patches) + len(ax.lines) + len(ax.collections)


@pytest.mark.parametrize("plot", PLOTS)
def test_several_days_are_refused_before_drawing_and_the_fix_draws_the_days_load(
        plot, snaps, tree):
    _, ax = plt.subplots()
    with pytest.raises(InvalidParameter) as info:
        PLOTS[plot](snaps, ax=ax)
    name = NAMES.get(plot, "icos")
    assert str(info.value) == (
        f"{plot} counts one row per ICO, but this frame holds 60 ids more than once "
        "(180 rows), across 3 snapshot days (2026-11-01 to 2026-11-03): each ICO would be "
        f"counted once per day. Select one day: {name}[{name}.snapshot_date == "
        f"{name}.snapshot_date.max()]")
    assert drawn(ax) == 0
    # the fix, as written, gives the plot of the latest day's export (as a load gives it)
    fix = str(info.value).rsplit("Select one day: ", 1)[1]
    latest = eval(fix, {name: snaps})
    assert latest["snapshot_date"].nunique() == 1 and len(latest) == 60
    day = read_export(tree / "snapshot_date=2026-11-03").icos
    assert notes(PLOTS[plot](latest)) == notes(PLOTS[plot](day))


def test_the_counts_are_of_the_sixty_icos(snaps):
    """What a day's plots say: 60 ICOs, as the days' frame said 180."""
    latest = snaps[snaps.snapshot_date == snaps.snapshot_date.max()]
    known = int(latest["raised"].notna().sum())
    assert notes(plot_raised(latest))[0].startswith(
        f"{known} with known raised; {60 - known} unknown")
    scored = int(latest["ico_score"].notna().sum())
    assert notes(plot_scores(latest))[0].startswith(
        f"n = {scored} scored; {60 - scored} without a score")


@pytest.mark.parametrize("keys", [["id"], ["snapshot_date", "id"], ["snapshot_date"]])
def test_an_id_or_a_day_in_the_index_is_read_as_the_readers_read_it(snaps, keys):
    indexed = snaps.set_index(keys)
    with pytest.raises(InvalidParameter, match=r"holds 60 ids more than once \(180 rows\), "
                       r"across 3 snapshot days \(2026-11-01 to 2026-11-03\)") as info:
        plot_raised(indexed)
    fix = str(info.value).rsplit("Select one day: ", 1)[1]
    if "snapshot_date" in keys:  # a level: no attribute of the frame
        assert fix == ("days = icos.index.get_level_values('snapshot_date'); "
                       "icos[days == days.max()]")
    space = {"icos": indexed}
    exec(fix.replace("; ", "\n").replace("icos[days", "latest = icos[days")
         if "days =" in fix else f"latest = {fix}", space)
    assert len(space["latest"]) == 60
    plot_raised(space["latest"])


@pytest.mark.parametrize("where", ["column", "index"])
def test_repeated_ids_without_days_are_refused_with_drop_duplicates(snaps, where):
    """Two loads put together (no snapshot_date), or one day holding an id twice."""
    day = snaps[snaps.snapshot_date == snaps.snapshot_date.max()]
    both = pd.concat([day, day.iloc[:5]]).drop(columns="snapshot_date")
    frame = both if where == "column" else both.set_index("id")
    with pytest.raises(InvalidParameter) as info:
        plot_timeline(frame, now=NOW)
    fix = ("icos.drop_duplicates('id', keep='last')" if where == "column"
           else "icos[~icos.index.duplicated(keep='last')]")
    assert str(info.value) == (
        "plot_timeline counts one row per ICO, but this frame holds 5 ids more than once "
        f"(10 rows): each would be counted once per row. Drop the duplicate ids: {fix}")
    assert len(eval(fix, {"icos": frame})) == 60
    same_day = pd.concat([day, day.iloc[:5]])  # a snapshot_date of one day: no day to pick
    with pytest.raises(InvalidParameter, match=r"holds 5 ids more than once \(10 rows\): "
                       r"each would be counted once per row. Drop the duplicate ids"):
        plot_scores(same_day)


def test_one_day_a_load_and_rows_of_no_ico_plot_as_before(snaps, tree):
    day = read_export(tree / "snapshot_date=2026-11-02").icos
    one = snaps[snaps.snapshot_date == "2026-11-02"]
    for plot in PLOTS.values():
        assert notes(plot(one)) == notes(plot(day))
        assert notes(plot(day.set_index("id"))) == notes(plot(day))
    # missing ids are rows of no ICO (a frame built by hand): not repeats of one
    blank = day.assign(id=pd.array([None] * len(day), dtype="Int64"))
    assert notes(plot_raised(blank)) == notes(plot_raised(day))
    assert notes(plot_raised(day.drop(columns="id"))) == notes(plot_raised(day))


def test_the_status_flow_still_takes_the_days(snaps):
    ax = plot_status_flow(snaps)
    assert len(ax.get_xticks()) == 3
