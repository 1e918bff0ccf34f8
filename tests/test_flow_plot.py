"""plot_status_flow stays legible at 5, 30 and 90 daily snapshots (issue 19 part 7)."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.plotting import plot_status_flow
from icoframes.plotting.flow import MAX_DATE_LABELS

matplotlib.use("Agg")


def daily_snapshots(days: int, seed: int = 0) -> pd.DataFrame:
    """300 ICOs moving upcoming -> ongoing -> past, a few new and removed each day."""
    rng = np.random.default_rng(seed)
    status = {i: str(rng.choice(["upcoming", "ongoing", "past"], p=[.3, .2, .5]))
              for i in range(300)}
    rows, next_id = [], 300
    for day in pd.date_range("2026-08-01", periods=days, freq="D"):
        for ico_id in list(status):
            draw = rng.random()
            if status[ico_id] == "upcoming" and draw < .05:
                status[ico_id] = "ongoing"
            elif status[ico_id] == "ongoing" and draw < .05:
                status[ico_id] = "past"
            elif draw < .003:
                del status[ico_id]
        for _ in range(int(rng.integers(0, 4))):
            status[next_id] = "upcoming"
            next_id += 1
        rows += [(day, i, s) for i, s in status.items()]
    frame = pd.DataFrame(rows, columns=["snapshot_date", "id", "status"])
    return frame.astype({"snapshot_date": "datetime64[ms]"})


def _boxes(ax) -> list[tuple[str, object]]:
    """Every piece of text drawn on the figure, with its box on screen."""
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts,
             *(t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text())]
    boxes = []
    for text in texts:
        patch = text.get_bbox_patch()
        box = (patch if patch is not None else text).get_window_extent(renderer)
        boxes.append((text.get_text(), box))
    legend = ax.get_legend()
    boxes.append(("legend", legend.get_window_extent(renderer)))
    return boxes


def _overlaps(ax) -> list[tuple[str, str]]:
    return [(a, b) for (a, box_a), (b, box_b) in itertools.combinations(_boxes(ax), 2)
            if box_a.overlaps(box_b)]


@pytest.mark.parametrize("days", [5, 30, 90])
@pytest.mark.parametrize("view", ["snapshots", "events"])
def test_the_status_flow_is_legible_at_5_30_and_90_daily_snapshots(days, view, tmp_path):
    snaps = daily_snapshots(days)
    frame = snaps if view == "snapshots" else icoframes.changes(snaps, kinds=["status"])
    ax = plot_status_flow(frame)
    ax.figure.savefig(tmp_path / f"flow_{view}_{days}.png")
    assert _overlaps(ax) == []
    labels = [t.get_text() for t in ax.get_xticklabels()]
    shown = [label for label in labels if label]
    n_dates = frame["snapshot_date"].nunique()
    assert len(labels) == n_dates  # a tick per snapshot date
    assert 1 <= len(shown) <= MAX_DATE_LABELS and labels[0] == shown[0]
    assert ax.get_title().startswith("Number of ICOs per")  # says what is counted
    assert ax.get_xlabel() and ax.get_ylabel() == "number of ICOs"
    moves = [t for t in ax.texts if t.get_gid() == "icoframes-moves"]
    note = next(t.get_text() for t in ax.texts if t.get_gid() != "icoframes-moves")
    if view == "snapshots" and days == 5:
        assert len(moves) == days - 1  # between the bars, since they fit
        assert "moves in all" not in note
    elif view == "snapshots":
        assert moves == [] and "moves in all:" in note  # too many to write: summed up
        assert f"{days} snapshots, 2026-08-01 to" in note
    matplotlib.pyplot.close(ax.figure)


def test_moves_that_do_not_fit_between_the_bars_are_summed_in_the_note():
    snaps = daily_snapshots(3)
    ax = plot_status_flow(snaps)
    written = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert len(written) == 2
    matplotlib.pyplot.close(ax.figure)
    # a narrow figure: the same moves no longer fit side by side
    fig, ax = matplotlib.pyplot.subplots(figsize=(4.5, 4), layout="constrained")
    plot_status_flow(snaps, ax=ax)
    assert not [t for t in ax.texts if t.get_gid() == "icoframes-moves"]
    note = next(t.get_text() for t in ax.texts)
    assert "moves in all:" in note
    for line in written[0].splitlines():  # every move is counted in the totals
        assert line.split(" ", 1)[1] in note
    matplotlib.pyplot.close(fig)


def _notes(ax) -> list[str]:
    texts = [t.get_text() for t in ax.texts if t.get_gid() != "icoframes-moves"]
    matplotlib.pyplot.close(ax.figure)
    return texts


@pytest.mark.parametrize(("ids", "note"), [
    ([7], "1 snapshot; 1 ICO seen"), ([7, 8], "1 snapshot; 2 ICOs seen")])
def test_the_notes_say_one_snapshot_and_one_move_in_the_singular(ids, note):
    """Review REVE L5: "1 snapshots; 1 ICOs seen", "1 moves on 1 snapshot dates" (9ad5469)."""
    one_day = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-01"] * len(ids)),
                            "id": ids, "status": "past"}).astype(
                                {"snapshot_date": "datetime64[ms]"})
    assert _notes(plot_status_flow(one_day)) == [note]
    assert _notes(plot_status_flow(one_day.iloc[:0])) == ["no ICOs to plot"]
    one_day.attrs["icoframes"] = {"snapshots": [{"snapshot_date": "2026-11-01", "rows": 0}]}
    assert _notes(plot_status_flow(one_day.iloc[:0])) == [
        "no ICOs to plot", "1 snapshot, none holding an ICO"]
    two_days = pd.concat([one_day, one_day.assign(snapshot_date=pd.Timestamp("2026-11-02"),
                                                  status="ongoing")], ignore_index=True)
    # the days of its rows: attrs naming 2026-11-01 alone (concat kept one_day's) would say
    # its rows of 2026-11-02 are of no snapshot, which changes() refuses as report() does
    two_days.attrs = {}
    events = icoframes.changes(two_days, kinds=["status"])
    moves = len(ids)
    assert _notes(plot_status_flow(events)) == [
        f"{moves} move{'s' if moves > 1 else ''} on 1 snapshot date"]
    assert _notes(plot_status_flow(events.iloc[:0])) == ["no ICOs to plot"]
    assert _notes(plot_status_flow(events.assign(kind="team").iloc[:1])) == [
        "no ICOs to plot", "1 event, none of status, new or removed"]
