"""Tests for icoframes.plotting: what is drawn, checked against counts computed here."""

from __future__ import annotations

import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle, StepPatch

from icoframes import schema
from icoframes.errors import InvalidParameter
from icoframes.plotting import (
    FREQUENCIES,
    format_usd,
    plot_raised,
    plot_scores,
    plot_status_flow,
    plot_timeline,
)

ICOS = schema.TABLES["icos"]
CATEGORIES = ["Platform", "Cryptocurrency", "Business services", "Investment",
              "Smart Contract", "Entertainment", "Banking", "Infrastructure"]


# -- fixtures and helpers ------------------------------------------------------


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def make_icos(n: int, **columns) -> pd.DataFrame:
    """An icos frame of n rows at the schema's dtypes; unspecified columns are empty."""
    defaults = {"int": lambda: np.arange(n), "float": lambda: np.full(n, np.nan),
                "bool": lambda: np.zeros(n, dtype=bool), "text": lambda: [np.nan] * n,
                "datetime": lambda: [pd.NaT] * n, "utc": lambda: [pd.NaT] * n,
                "list": lambda: [[] for _ in range(n)]}
    data = {}
    for col in ICOS.columns:
        values = columns.pop(col.name, None)
        data[col.name] = pd.Series(defaults[col.kind]() if values is None else values,
                                   dtype=col.dtype)
    assert not columns, f"not icos columns: {sorted(columns)}"
    frame = pd.DataFrame(data)
    assert frame.dtypes.to_dict() == ICOS.dtypes
    return frame


@pytest.fixture
def icos() -> pd.DataFrame:
    """600 realistic ICOs: one-decimal scores, log-normal raised mostly unknown, 2017-2019."""
    rng = np.random.default_rng(42)
    n = 600
    scores = np.clip(rng.normal(2.9, 0.8, n), 0.2, 5.0).round(1)
    scores[rng.random(n) < 0.12] = np.nan
    raised = np.exp(rng.normal(np.log(15e6), 1.5, n)).round(-3)
    raised[rng.random(n) < 0.65] = np.nan
    raised[:3] = 0.0  # zeros exist and cannot go on a log axis
    days = rng.integers(0, 3 * 365, n)
    start = pd.Timestamp("2017-01-01") + pd.to_timedelta(days, unit="D")
    start = start + pd.to_timedelta(rng.integers(0, 86_400, n), unit="s")
    start = pd.Series(start).where(rng.random(n) >= 0.125)
    category = pd.Series(rng.choice(CATEGORIES, n, p=[.25, .2, .15, .12, .1, .08, .06, .04]))
    category[rng.random(n) < 0.05] = np.nan
    status = rng.choice(["past", "ongoing", "upcoming"], n, p=[0.8, 0.12, 0.08])
    return make_icos(n, ico_score=scores, raised=raised, start_datetime=start,
                     category=category, status=status)


def bars(ax) -> list[Rectangle]:
    """The bars of every bar container (not other rectangles such as a shaded span)."""
    return [p for container in ax.containers for p in container.patches]


def bar_edges(ax) -> np.ndarray:
    rects = bars(ax)
    return np.array([r.get_x() for r in rects] + [rects[-1].get_x() + rects[-1].get_width()])


def bar_heights(ax) -> np.ndarray:
    return np.array([r.get_height() for r in bars(ax)])


def notes(ax) -> str:
    return "\n".join(t.get_text() for t in ax.texts)


def legend_labels(ax) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def median_line(ax) -> Line2D:
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("median")]
    return line


def render(ax, tmp_path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 1000


# -- format_usd ----------------------------------------------------------------


@pytest.mark.parametrize(("x", "expected"), [
    (950, "$950"), (10_000, "$10K"), (1_500_000, "$1.5M"), (2e9, "$2B"), (0, "$0"),
    (float("nan"), ""), (None, ""), (pd.NA, ""), (float("inf"), ""),
    (15_070_000, "$15.1M"), (1_250_000, "$1.25M"), (999_950, "$1M"), (999.6, "$1K"),
    (12.5, "$12.5"), (3e12, "$3T"), (-2_500, "-$2.5K"), (np.float64(1e6), "$1M"),
])
def test_format_usd(x, expected):
    assert format_usd(x) == expected


# -- plot_scores ---------------------------------------------------------------


def test_scores_default_bins_are_quarter_points_for_continuous_scores(tmp_path):
    rng = np.random.default_rng(1)
    scores = rng.uniform(0.2, 5.0, 300)
    scores[:40] = np.nan
    ax = plot_scores(make_icos(300, ico_score=scores))
    render(ax, tmp_path, "scores")
    expected_edges = np.arange(0, 5.0001, 0.25)
    np.testing.assert_allclose(bar_edges(ax), expected_edges)
    expected, _ = np.histogram(scores[~np.isnan(scores)], bins=expected_edges)
    np.testing.assert_array_equal(bar_heights(ax), expected)
    assert "n = 260 scored; 40 without a score" in notes(ax)
    assert ax.get_title() and ax.get_xlabel() == "ICO score" and ax.get_ylabel()


def test_scores_one_decimal_bins_hold_two_tenths_each(icos, tmp_path):
    ax = plot_scores(icos)
    render(ax, tmp_path, "scores_tenths")
    scores = icos["ico_score"].dropna().to_numpy()
    tenths = np.round(scores * 10).astype(int)
    # Bin k holds the scores (2k-1)/10 and 2k/10 when edges sit at 0.05 + 0.2(k-1).
    expected = np.bincount((tenths + 1) // 2, minlength=26)
    edges = bar_edges(ax)
    np.testing.assert_allclose(np.diff(edges), 0.2)
    first = round((edges[0] + 0.15) / 0.2)
    np.testing.assert_array_equal(bar_heights(ax), expected[first:first + len(edges) - 1])
    assert bar_heights(ax).sum() == len(scores)
    n_missing = icos["ico_score"].isna().sum()
    assert f"n = {len(scores)} scored; {n_missing} without a score" in notes(ax)


def test_scores_int_bins_and_explicit_edges():
    scores = np.array([0.2, 1.0, 2.5, 2.5, 4.99, 5.0, np.nan])
    ax = plot_scores(make_icos(7, ico_score=scores), bins=5)
    np.testing.assert_allclose(bar_edges(ax), np.linspace(0, 5, 6))
    np.testing.assert_array_equal(bar_heights(ax), [1, 1, 2, 0, 2])
    plt.close("all")
    ax = plot_scores(make_icos(7, ico_score=scores), bins=[1, 3, 4])
    np.testing.assert_array_equal(bar_heights(ax), [3, 0])
    assert "3 outside the bins" in notes(ax)


def row_labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def rows(ax) -> list[StepPatch]:
    return [p for p in ax.patches if isinstance(p, StepPatch)]


def test_scores_by_group_one_row_each_ranked_other_apart(icos, tmp_path):
    ax = plot_scores(icos, by="category")
    render(ax, tmp_path, "scores_by")
    scored = icos[icos["ico_score"].notna()]
    ranking = scored["category"].value_counts()
    top = list(ranking.index[:5])
    labels = row_labels(ax)
    assert [lab.split(" (n=")[0] for lab in labels] == [*top, "other", "unknown"]
    assert "3 more as other" in ax.get_title()  # 8 categories: 5 named, 3 as other
    steps = rows(ax)
    assert len(steps) == 7
    groups = [scored[scored["category"] == name] for name in top]
    groups.append(scored[scored["category"].notna() & ~scored["category"].isin(top)])
    groups.append(scored[scored["category"].isna()])
    scales = []
    for step, group, label in zip(steps, groups, labels, strict=True):
        heights, edges, baseline = step.get_data()
        expected, _ = np.histogram(group["ico_score"].to_numpy(), bins=edges)
        assert label.endswith(f"(n={len(group)})")
        share = expected / len(group)
        drawn = heights - baseline
        np.testing.assert_allclose(drawn[share == 0], 0, atol=1e-12)
        scales.append(drawn[share > 0] / share[share > 0])
    # one scale for every row: shares compare across rows, "other" cannot swamp them
    np.testing.assert_allclose(np.concatenate(scales), scales[0][0])
    # rows top to bottom in rank order, "other" and "unknown" below a gap
    bases = [step.get_data()[2] for step in steps]
    assert bases == sorted(bases, reverse=True)
    gaps = -np.diff(bases)
    assert gaps[4] > gaps[0] and gaps[0] == pytest.approx(1.0)
    assert max(np.max(s.get_data()[0] - s.get_data()[2]) for s in steps) == pytest.approx(0.85)


def test_scores_by_lone_leftover_group_is_named_and_top_is_configurable():
    status = ["past"] * 6 + ["ongoing"] * 3 + ["upcoming"]
    frame = make_icos(10, ico_score=np.linspace(1, 4, 10), status=status)
    ax = plot_scores(frame, by="status", top=2)
    assert [lab.split(" (")[0] for lab in row_labels(ax)] == ["past", "ongoing", "upcoming"]
    assert ax.get_title() == "ICO scores by status"
    plt.close("all")
    ax = plot_scores(frame, by="status", top=1)
    assert row_labels(ax) == ["past (n=6)", "other (n=4)"]
    assert ax.get_title() == "ICO scores by status: the 1 largest groups, 2 more as other"


# -- plot_raised ---------------------------------------------------------------


def test_raised_log_bins_counts_median_and_notes(icos, tmp_path):
    ax = plot_raised(icos)
    render(ax, tmp_path, "raised")
    raised = icos["raised"].to_numpy()
    known = raised[~np.isnan(raised)]
    positive = known[known > 0]
    assert ax.get_xscale() == "log"
    edges = bar_edges(ax)
    ratios = edges[1:-1] / edges[:-2]
    np.testing.assert_allclose(ratios, 10 ** 0.25)  # four bins per decade
    expected, _ = np.histogram(positive, bins=edges)
    np.testing.assert_array_equal(bar_heights(ax), expected)
    assert bar_heights(ax).sum() == len(positive)
    median = np.median(known)
    assert median_line(ax).get_xdata()[0] == pytest.approx(median)
    assert f"median {format_usd(median)}" in legend_labels(ax)
    text = notes(ax)
    assert f"{len(known)} with known raised; {len(raised) - len(known)} unknown" in text
    assert "3 at $0 or less" in text


def test_raised_amounts_on_bin_edges_are_all_counted():
    # Quarter-decade powers are where 10**x rounding could push an amount off the end.
    raised = np.array([10 ** (k / 4) for k in range(21, 37)] + [1e6, 1e9])
    ax = plot_raised(make_icos(len(raised), raised=raised))
    assert bar_heights(ax).sum() == len(raised)
    assert "outside" not in notes(ax)


def test_raised_axis_labels_every_decade_it_spans(icos, tmp_path):
    ax = plot_raised(icos)
    render(ax, tmp_path, "raised_ticks")
    formatter = ax.xaxis.get_major_formatter()
    assert formatter(1e6, 0) == "$1M"
    positive = icos["raised"][icos["raised"] > 0]
    first = int(np.floor(np.log10(positive.min())))
    last = int(np.ceil(np.log10(positive.max())))
    lo, hi = ax.get_xlim()
    assert (lo, hi) == pytest.approx((10.0 ** first, 10.0 ** last))
    shown = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert shown == [format_usd(10.0 ** k) for k in range(first, last + 1)]
    assert bar_edges(ax)[0] >= lo and bar_edges(ax)[-1] <= hi


@pytest.mark.parametrize(("amounts", "expected"), [
    ([2.5e6, 4e7, 1.5e8], ["$1M", "$10M", "$100M", "$1B"]),  # the left edge is labelled
    ([1e6, 9e6], ["$1M", "$2M", "$5M", "$10M"]),  # one decade: 2x and 5x labelled too
    ([3e4, 2e9], ["$10K", "$100K", "$1M", "$10M", "$100M", "$1B", "$10B"]),
])
def test_raised_tick_labels(amounts, expected, tmp_path):
    ax = plot_raised(make_icos(len(amounts), raised=np.array(amounts)))
    render(ax, tmp_path, "raised_decades")
    assert [t.get_text() for t in ax.get_xticklabels() if t.get_text()] == expected


def test_raised_linear(icos, tmp_path):
    ax = plot_raised(icos, log=False)
    render(ax, tmp_path, "raised_linear")
    assert ax.get_xscale() == "linear"
    known = icos["raised"].dropna().to_numpy()
    edges = bar_edges(ax)
    assert len(edges) == 31
    expected, _ = np.histogram(known, bins=edges)
    np.testing.assert_array_equal(bar_heights(ax), expected)
    assert bar_heights(ax).sum() == len(known)  # zeros are on a linear axis
    assert median_line(ax).get_xdata()[0] == pytest.approx(np.median(known))
    assert "not shown" not in notes(ax)


def test_raised_by_status_legend_has_group_medians(icos):
    ax = plot_raised(icos, by="status")
    labels = row_labels(ax)
    known = icos[icos["raised"].notna()]  # zeros count in the medians, as in the line
    expected = [f"{status} (n={len(group)}, median {format_usd(group.median())})"
                for status in ["past", "ongoing", "upcoming"]
                for group in [known.loc[known["status"] == status, "raised"]]]
    assert labels == expected
    assert [lab for lab in legend_labels(ax)] == [f"median {format_usd(known['raised'].median())}"]
    marks = [ln for ln in ax.get_lines() if ln.get_label().endswith(" median")
             and ln.get_label().startswith("_")]
    positive = known[known["raised"] > 0]
    medians = [positive.loc[positive["status"] == s, "raised"].median()
               for s in ["past", "ongoing", "upcoming"]]
    np.testing.assert_allclose([m.get_xdata()[0] for m in marks], medians)


def test_raised_all_unknown_is_an_empty_note():
    ax = plot_raised(make_icos(5))
    text = notes(ax)
    assert "no ICOs to plot" in text
    assert "0 with known raised; 5 unknown" in text


# -- plot_timeline -------------------------------------------------------------


def monthly(icos: pd.DataFrame) -> pd.DataFrame:
    """Counts and known raised per calendar month, via Period grouping (not resample)."""
    dated = icos[icos["start_datetime"].notna()]
    months = dated["start_datetime"].dt.to_period("M")
    span = pd.period_range(months.min(), months.max(), freq="M")
    counts = months.value_counts().reindex(span, fill_value=0)
    totals = dated.groupby(months)["raised"].sum(min_count=1).reindex(span)
    return pd.DataFrame({"n": counts, "raised": totals})


def test_timeline_monthly_bars_and_raised_line(icos, tmp_path):
    ax = plot_timeline(icos)
    render(ax, tmp_path, "timeline")
    expected = monthly(icos)
    np.testing.assert_array_equal(bar_heights(ax), expected["n"].to_numpy())
    # Each bar sits inside its own month.
    import matplotlib.dates as mdates

    centres = [mdates.num2date(r.get_x() + r.get_width() / 2) for r in bars(ax)]
    assert [pd.Period(c.replace(tzinfo=None), "M") for c in centres] == list(expected.index)
    (line,) = ax.right_ax.get_lines()
    np.testing.assert_allclose(line.get_ydata(), expected["raised"].to_numpy(), equal_nan=True)
    assert ax.right_ax in ax.figure.axes and ax.right_ax is not ax
    assert ax.right_ax.yaxis.get_major_formatter()(2e9, 0) == "$2B"
    n_undated = icos["start_datetime"].isna().sum()
    assert f"{len(icos) - n_undated} with a start date; {n_undated} without" in notes(ax)
    assert ax.get_title() == "ICOs per month by start date"
    assert ax.get_xlabel() == "start date (start_datetime)"
    assert [c.get_label() for c in ax.containers] == [f"started ({len(icos) - n_undated})"]


@pytest.mark.parametrize("freq", sorted(FREQUENCIES))
def test_timeline_frequencies_raise_no_warning(icos, freq):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_timeline(icos, freq=freq)
    assert bar_heights(ax).sum() == icos["start_datetime"].notna().sum()


def test_timeline_quarterly_counts(icos):
    ax = plot_timeline(icos, freq="Q")
    quarters = icos["start_datetime"].dropna().dt.to_period("Q")
    span = pd.period_range(quarters.min(), quarters.max(), freq="Q")
    expected = quarters.value_counts().reindex(span, fill_value=0)
    np.testing.assert_array_equal(bar_heights(ax), expected.to_numpy())
    assert ax.get_title() == "ICOs per quarter by start date"


def test_timeline_rejects_bad_freq_and_too_many_periods(icos):
    for freq in ["m", "H", "A", "", 3, None]:
        with pytest.raises(ValueError, match="freq must be one of"):
            plot_timeline(icos, freq=freq)
    stray = make_icos(2, start_datetime=pd.to_datetime(["1970-01-01", "2018-01-01"]))
    with pytest.raises(ValueError, match="longer freq"):
        plot_timeline(stray, freq="D")
    assert bar_heights(plot_timeline(stray, freq="Y")).sum() == 2


def test_timeline_without_any_raised_has_no_twin():
    frame = make_icos(3, start_datetime=pd.to_datetime(["2018-01-05", "2018-03-01", None]))
    ax = plot_timeline(frame)
    np.testing.assert_array_equal(bar_heights(ax), [1, 0, 1])
    assert not hasattr(ax, "right_ax")
    assert "2 with a start date; 1 without" in notes(ax)


# -- common behaviour ----------------------------------------------------------

ALL_PLOTS = [plot_scores, plot_raised, plot_timeline]


@pytest.mark.parametrize("plot", ALL_PLOTS)
def test_given_ax_is_drawn_on_and_returned(icos, plot, monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plt.show called"))
    _fig, axes = plt.subplots(1, 2)
    before = plt.get_fignums()
    ax = plot(icos, ax=axes[1])
    assert ax is axes[1]
    assert plt.get_fignums() == before
    assert bars(axes[1]) or ax.patches
    assert not axes[0].patches and not axes[0].texts


@pytest.mark.parametrize("plot", ALL_PLOTS)
def test_new_figure_when_no_ax(icos, plot):
    before = len(plt.get_fignums())
    ax = plot(icos)
    assert len(plt.get_fignums()) == before + 1
    assert ax.figure.number == plt.get_fignums()[-1]


@pytest.mark.parametrize("plot", ALL_PLOTS)
def test_empty_frame_draws_a_note(plot, tmp_path):
    ax = plot(schema.empty_frame(ICOS))
    render(ax, tmp_path, plot.__name__)
    assert "no ICOs to plot" in notes(ax)
    assert not bars(ax) and not ax.get_lines()
    assert ax.get_title()


@pytest.mark.parametrize(("plot", "column"), [
    (plot_scores, "ico_score"), (plot_raised, "raised"),
    (plot_timeline, "start_datetime"), (plot_timeline, "raised"),
])
def test_missing_column_is_named(icos, plot, column):
    with pytest.raises(KeyError, match=column):
        plot(icos.drop(columns=column))


@pytest.mark.parametrize("plot", [plot_scores, plot_raised])
def test_by_validation(icos, plot):
    with pytest.raises(ValueError, match="nope"):
        plot(icos, by="nope")
    with pytest.raises(ValueError, match="markets"):
        plot(icos.assign(markets=[["x"]] * len(icos)), by="markets")
    with pytest.raises(ValueError, match="top"):
        plot(icos, by="status", top=0)
    with pytest.raises(ValueError, match="bins"):
        plot(icos, bins=[3, 2, 1])


def test_wrong_dtypes_and_arguments_are_clear_errors(icos):
    with pytest.raises(TypeError, match="ico_score"):
        plot_scores(icos.assign(ico_score=icos["ico_score"].astype(schema.TEXT_DTYPE)))
    with pytest.raises(TypeError, match="start_datetime"):
        plot_timeline(icos.assign(start_datetime="2018-01-01"))
    with pytest.raises(TypeError, match="DataFrame"):
        plot_scores(icos["ico_score"])
    with pytest.raises(TypeError, match="Axes"):
        plot_scores(icos, ax="left")
    with pytest.raises(ValueError, match="log"):
        plot_raised(icos, log="yes")
    with pytest.raises(ValueError, match="positive"):
        plot_raised(icos, bins=[0, 1e6, 1e9])
    with pytest.raises(ValueError, match="bins"):
        plot_raised(schema.empty_frame(ICOS), bins=0)


def test_a_positional_ax_or_a_tables_is_refused_saying_what_to_give(icos):
    """``plot(icos, ax)`` names ``ax=``, and a ``Tables`` given for the ICOs points to its
    ``icos``; both an InvalidParameter, as the package's other refusals, and still a
    TypeError. ``plot_status_flow`` names its own parameter, ``frame``."""
    from icoframes import Tables, plot_raised_vs_cap

    _fig, ax = plt.subplots()
    for plot in (plot_raised, plot_scores, plot_timeline, plot_status_flow, plot_raised_vs_cap):
        with pytest.raises(InvalidParameter, match=r"positional.*give the Axes as ax=") as got:
            plot(icos, ax)
        assert isinstance(got.value, TypeError)
    for plot in (plot_raised, plot_scores, plot_timeline):
        with pytest.raises(InvalidParameter, match=r"^icos must be a pandas DataFrame, got "
                           r"Tables; did you mean tables\.icos\?$"):
            plot(Tables.empty())
    with pytest.raises(InvalidParameter, match=r"^frame must be a pandas DataFrame, got Tables$"):
        plot_status_flow(Tables.empty())
    assert not ax.patches  # nothing drawn by a refused call


def test_importing_plots_does_not_load_pyplot():
    code = "import sys, icoframes.plotting; print('matplotlib.pyplot' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    code = ("import sys, icoframes, icoframes.history; "
            "print(sorted(m for m in sys.modules if m.startswith('matplotlib')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_raised_groups_with_nothing_drawable_and_an_offscreen_median():
    frame = make_icos(4, raised=np.array([0.0, 0.0, 1e6, 2e6]),
                      status=np.array(["ongoing", "ongoing", "past", "past"], dtype=object))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_raised(frame, by="status")
    labels = row_labels(ax)
    assert not any(lab.startswith("ongoing") for lab in labels)  # all $0: not drawable
    assert "past (n=2, median $1.5M)" in labels
    frame = make_icos(2, raised=np.array([0.0, 1e6]))
    ax = plot_raised(frame)
    median = median_line(ax).get_xdata()[0]
    assert median == pytest.approx(5e5)
    assert ax.get_xlim()[0] <= median <= ax.get_xlim()[1]


def test_timeline_right_axis_with_zero_and_negative_totals():
    start = pd.to_datetime(["2018-01-05", "2018-02-05"], format="%Y-%m-%d").astype(
        "datetime64[ms]")
    for raised in ([0.0, 0.0], [-5.0, 10.0]):
        frame = make_icos(2, raised=np.array(raised), start_datetime=start.to_numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ax = plot_timeline(frame)
        low, high = ax.right_ax.get_ylim()
        assert low <= min(raised) and high >= max(raised) and high > low


# -- timeline: scheduled starts and cut-out empty stretches ---------------------


def past_and_scheduled() -> pd.DataFrame:
    """30 ICOs started in 2018, 12 starting from late 2026 to 2027: years of nothing between."""
    starts = [f"2018-{m:02d}-15" for m in range(1, 11) for _ in range(3)]
    starts += [f"2026-{m:02d}-10" for m in (10, 11, 12)] * 2
    starts += [f"2027-0{m}-01" for m in range(1, 7)]
    starts = pd.to_datetime(starts, format="%Y-%m-%d").astype("datetime64[ms]")
    raised = np.where(np.arange(len(starts)) < 30, 1e6, np.nan)
    return make_icos(len(starts), start_datetime=starts.to_numpy(), raised=raised)


def test_timeline_draws_scheduled_starts_apart_and_never_calls_them_started(tmp_path):
    frame = past_and_scheduled()
    ax = plot_timeline(frame, now="2026-11-01")
    render(ax, tmp_path, "timeline_scheduled")
    started, scheduled = ax.containers
    # started: 30 in 2018 and the two that started on 2026-10-10
    assert started.get_label() == "started (32)"
    assert scheduled.get_label() == "scheduled: starts after 2026-11-01 (10)"
    assert sum(r.get_height() for r in started.patches) == 32
    assert sum(r.get_height() for r in scheduled.patches) == 10
    assert all(r.get_hatch() for r in scheduled.patches)
    assert "32 started by 2026-11-01, 10 scheduled" in notes(ax)
    assert "started" not in ax.get_title() and "start_datetime" in ax.get_xlabel()
    legend = [t.get_text() for t in ax.right_ax.get_legend().get_texts()]
    assert "now (2026-11-01)" in legend
    # everything starts in the future: no bar is called started
    plt.close("all")
    ax = plot_timeline(frame, now="2000-01-01")
    assert [c.get_label() for c in ax.containers][1].startswith("scheduled")
    assert sum(r.get_height() for r in ax.containers[0].patches) == 0


def test_timeline_cuts_a_long_empty_stretch_and_labels_both_sides(tmp_path):
    ax = plot_timeline(past_and_scheduled(), now="2026-11-01")
    render(ax, tmp_path, "timeline_gap")
    assert ax.get_xscale() == "function"
    (gap,) = [t for t in ax.texts if t.get_gid() == "icoframes-gap"]
    assert gap.get_text() == "no start dates\n2018-11 to 2026-09"
    # the cut stretch takes two months of axis, not eight years
    lo, hi = ax.get_xlim()
    to_screen = ax.transData.transform
    import matplotlib.dates as mdates

    a, b = (mdates.date2num(pd.Timestamp(d)) for d in ("2018-11-01", "2026-10-01"))
    width = to_screen([(hi, 0)])[0][0] - to_screen([(lo, 0)])[0][0]
    cut = to_screen([(b, 0)])[0][0] - to_screen([(a, 0)])[0][0]
    assert cut < 0.15 * width
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert any("2018" in lab for lab in labels) and any("2026" in lab for lab in labels)
    ticks = ax.xaxis.get_majorticklocs()
    assert not any(a < t < b for t in ticks)  # no tick inside the cut


def test_timeline_short_dips_are_not_cut(icos):
    ax = plot_timeline(icos)
    assert ax.get_xscale() == "linear"
    assert not [t for t in ax.texts if t.get_gid() == "icoframes-gap"]


# a number is no date: pandas reads 2018 as 1970-01-01 plus 2018 nanoseconds
@pytest.mark.parametrize("now", ["NaT", "soon", [2018], 2018, 2018.0, np.int64(2018), True,
                                  1.5e18])
def test_timeline_now_must_be_a_date(icos, now):
    # the same words and class as compute_features' as_of (one helper: moments.as_naive_utc)
    with pytest.raises(InvalidParameter) as caught:
        plot_timeline(icos, now=now)
    rule = (" (as text: an ISO date with a 4-digit year, 'YYYY-MM-DD' with an optional time)"
            if isinstance(now, str) else "")
    assert str(caught.value) == f"now must be a date or datetime, got {now!r}{rule}"


def test_timeline_now_and_features_as_of_read_a_moment_alike():
    import time_machine

    from icoframes.features import as_naive_utc

    # 22:00 in New York is 02:00 UTC the next day, for the one and the other
    local = pd.Timestamp("2026-10-31 22:00", tz="America/New_York")
    assert as_naive_utc(local, "now") == pd.Timestamp("2026-11-01 02:00")
    assert "32 started by 2026-11-01" in notes(plot_timeline(past_and_scheduled(), now=local))
    with time_machine.travel(local.to_pydatetime(), tick=False):  # the default: the clock
        ax = plot_timeline(past_and_scheduled())
        assert as_naive_utc(None, "now") == pd.Timestamp("2026-11-01 02:00")
    assert "32 started by 2026-11-01" in notes(ax)


# -- plot_status_flow ----------------------------------------------------------


def snapshots_frame() -> pd.DataFrame:
    days = pd.to_datetime(["2026-11-01", "2026-11-02", "2026-11-03"], format="%Y-%m-%d")
    rows = [  # (day, id, status)
        (0, 1, "upcoming"), (0, 2, "upcoming"), (0, 3, "ongoing"), (0, 4, "past"),
        (1, 1, "ongoing"), (1, 2, "upcoming"), (1, 3, "past"), (1, 4, "past"), (1, 5, "upcoming"),
        (2, 1, "ongoing"), (2, 2, "ongoing"), (2, 3, "past"), (2, 5, "upcoming"),
    ]
    return pd.DataFrame({"snapshot_date": [days[d] for d, _, _ in rows],
                         "id": [i for _, i, _ in rows], "status": [s for _, _, s in rows]})


def test_status_flow_from_snapshots(tmp_path):
    ax = plot_status_flow(snapshots_frame())
    render(ax, tmp_path, "flow")
    heights = {c.get_label(): [r.get_height() for r in c.patches] for c in ax.containers}
    assert heights == {"past": [1, 2, 1], "ongoing": [1, 1, 2], "upcoming": [2, 2, 1]}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-01", "2026-11-02",
                                                            "2026-11-03"]
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == ["1 ongoing→past\n1 upcoming→ongoing\n+1 new",
                     "1 upcoming→ongoing\n-1 removed"]


def test_status_flow_from_events(tmp_path):
    days = pd.to_datetime(["2026-11-02", "2026-11-02", "2026-11-03", "2026-11-03", "2026-11-03"],
                          format="%Y-%m-%d")
    events = pd.DataFrame({"ico_id": [1, 5, 2, 4, 3], "snapshot_date": days,
                           "kind": ["status", "new", "status", "removed", "score"],
                           "old": ["upcoming", None, "upcoming", "past", "3.1"],
                           "new": ["ongoing", "upcoming", "ongoing", None, "3.4"]})
    ax = plot_status_flow(events)
    render(ax, tmp_path, "flow_events")
    heights = {c.get_label(): [r.get_height() for r in c.patches] for c in ax.containers}
    assert heights == {"upcoming→ongoing": [1, 1], "new": [1, 0], "removed": [0, 1]}


def test_status_flow_names_the_columns_it_needs():
    with pytest.raises(ValueError, match="snapshot_date, id, status"):
        plot_status_flow(pd.DataFrame({"id": [1]}))
    with pytest.raises(TypeError, match="DataFrame"):
        plot_status_flow([1, 2])
