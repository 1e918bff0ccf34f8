"""Style keywords of the plots: taken, or refused before drawing with a "did you mean"."""

from __future__ import annotations

import inspect

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter

PLOTS = ["plot_raised", "plot_scores", "plot_timeline", "plot_status_flow", "plot_raised_vs_cap"]


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=3) as server:
        yield server


@pytest.fixture
def icos(cfg):
    frame = icoframes.load_icos(progress=False)
    before = plt.get_fignums()
    yield frame
    for number in set(plt.get_fignums()) - set(before):
        plt.close(number)


def refused(icos, plot: str, **kw: object) -> str:
    before = plt.get_fignums()
    with pytest.raises(InvalidParameter) as info:
        getattr(icoframes, plot)(icos, **kw)
    assert plt.get_fignums() == before  # refused before drawing anything
    return str(info.value)


def drawn(ax) -> list:
    """What a plot drew: its bars' and points' places and sizes."""
    bars = [(p.get_x(), p.get_height()) for c in ax.containers for p in c.patches]
    return bars + [c.get_offsets().tolist() for c in ax.collections]


def data_of(icos, plot: str):
    if plot == "plot_status_flow":
        return icos.assign(snapshot_date=icos["fetched_at"].dt.tz_localize(None).dt.normalize())
    if plot == "plot_raised_vs_cap":
        return icos.assign(hard_cap_usd=icos["raised"] * 2, reached_soft_cap=True)
    return icos


@pytest.mark.parametrize("plot", PLOTS)
def test_the_data_given_by_its_name_is_drawn_as_given_first(icos, plot):
    # it was refused: "icos is not a keyword of plot_raised() nor a style of its bars"
    frame = data_of(icos, plot)
    name = next(iter(inspect.signature(getattr(icoframes, plot)).parameters))
    assert name == ("frame" if plot in ("plot_status_flow", "plot_raised_vs_cap") else "icos")
    by_name = drawn(getattr(icoframes, plot)(**{name: frame}, alpha=0.5))
    assert by_name and by_name == drawn(getattr(icoframes, plot)(frame, alpha=0.5))
    with pytest.raises(InvalidParameter) as twice:
        getattr(icoframes, plot)(frame, **{name: frame})
    assert str(twice.value) == (
        f"{name} is given twice to {plot}(): as argument 1 and as {name}=; give it once")


@pytest.mark.parametrize(("plot", "typed", "meant"), [
    ("plot_raised", "logscale", "'log'"), ("plot_scores", "binsize", "'bins'"),
    ("plot_timeline", "frequency", "'freq'"), ("plot_raised", "colour", "'color' or 'ecolor'"),
    ("plot_status_flow", "colour", "'color' or 'ecolor'"),
    ("plot_raised_vs_cap", "colour", "'color'")])
def test_an_unknown_keyword_is_refused_with_the_one_meant(icos, plot, typed, meant):
    # it went to matplotlib: "Rectangle.set() got an unexpected keyword argument 'logscale'"
    message = refused(icos, plot, **{typed: False})
    assert message.startswith(f"{typed} is not a keyword of {plot}() nor a style of its ")
    assert message.endswith(f"did you mean {meant}?")


def test_an_unknown_keyword_far_from_any_lists_the_plots_own(icos):
    assert refused(icos, "plot_scores", zzzzz=1).endswith(
        "its own keywords: by, bins, top, ax")


def test_a_label_replaces_the_one_bar_series_label(icos):
    # it crashed: "Axes.bar() got multiple values for keyword argument 'label'"
    for plot in ("plot_raised", "plot_scores"):
        ax = getattr(icoframes, plot)(icos, label="my ICOs")
        assert [c.get_label() for c in ax.containers] == ["my ICOs"]
        if plot == "plot_raised":  # the one with a legend
            assert "my ICOs" in [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize(("plot", "key"), [(plot, "data") for plot in PLOTS] + [
    (plot, "orientation") for plot in PLOTS if plot != "plot_raised_vs_cap"])
def test_a_matplotlib_keyword_that_would_break_the_plot_is_refused_saying_why(icos, plot, key):
    # it was "not a keyword of plot_raised() nor a style of its bars"; for data "did you mean 'aa'?"
    message = refused(data_of(icos, plot), plot, **{key: None})
    draws = "scatter" if plot == "plot_raised_vs_cap" else "bar"
    assert message.startswith(f"{key} is a keyword of matplotlib's Axes.{draws} that {plot}() "
                              "does not pass on: ")
    assert "did you mean" not in message


@pytest.mark.parametrize(("key", "advice"), [
    ("figsize", "make the figure first and draw on its Axes: fig, ax = plt.subplots(figsize=...); "
                "{plot}(..., ax=ax)"),
    ("dpi", "fig, ax = plt.subplots(dpi=...); {plot}(..., ax=ax)"),
    ("xlabel", "set it on the Axes the plot returns: ax = {plot}(...); ax.set_xlabel(...)"),
    ("ylabel", "ax = {plot}(...); ax.set_ylabel(...)"),
    ("title", "ax = {plot}(...); ax.set_title(...)"),
    ("grid", "ax = {plot}(...); ax.grid(True)"),
    ("fontsize", "with plt.rc_context({{'font.size': ...}}): {plot}(...)")])
@pytest.mark.parametrize("plot", ["plot_raised", "plot_raised_vs_cap"])
def test_a_figure_or_axes_word_says_how_to_do_it_not_a_false_friend(icos, plot, key, advice):
    # figsize: "did you mean 'figure'?" (scatter: 'sizes'), xlabel: 'label' (the legend's),
    # grid: 'gid', fontsize: 'sizes' (the points')
    message = refused(data_of(icos, plot), plot, **{key: 1})
    assert message.endswith(advice.format(plot=plot))
    assert "did you mean" not in message


@pytest.mark.parametrize(("plot", "key"), [
    ("plot_status_flow", "label"), ("plot_timeline", "label"), ("plot_raised_vs_cap", "label"),
    ("plot_raised", "x"), ("plot_raised", "width"), ("plot_status_flow", "bottom"),
    ("plot_timeline", "align"), ("plot_raised_vs_cap", "c")])
def test_a_keyword_the_plot_sets_itself_is_refused_saying_why(icos, plot, key):
    assert refused(icos, plot, **{key: 1}).startswith(
        f"{key} is set by {plot}() itself, from the data or for its legend")


def test_an_alias_replaces_the_plots_own_style(icos):
    ax = icoframes.plot_raised(icos, lw=2.5, ec="black", alpha=0.5)
    bars = ax.containers[0].patches
    assert {(p.get_linewidth(), p.get_edgecolor(), p.get_alpha()) for p in bars} == {
        (2.5, (0.0, 0.0, 0.0, 0.5), 0.5)}
    assert refused(icos, "plot_raised", lw=2, linewidth=3).endswith("give one of them")


@pytest.mark.parametrize("plot", PLOTS)
def test_matplotlib_styles_still_pass(icos, plot):
    frame = icos.assign(snapshot_date=icos["fetched_at"].dt.tz_localize(None).dt.normalize())
    if plot == "plot_raised_vs_cap":
        frame = icos.assign(hard_cap_usd=icos["raised"] * 2, reached_soft_cap=True)
        ax = icoframes.plot_raised_vs_cap(frame, alpha=0.3, marker="s", edgecolors="k", zorder=3)
        assert {c.get_alpha() for c in ax.collections} == {0.3}
    else:
        ax = getattr(icoframes, plot)(frame, alpha=0.3, edgecolor="k", hatch="//", zorder=3)
        assert ax.containers[0].patches[0].get_alpha() == 0.3
        assert ax.containers[0].patches[0].get_hatch() == "//"


@pytest.mark.parametrize("plot", ["plot_raised", "plot_scores"])
def test_a_style_with_by_is_refused_not_ignored(icos, plot):
    # each group is drawn in rows and a colour of its own: color= and alpha= were accepted
    # (valid bar styles) and drawn with neither, without a word
    said = refused(icos, plot, by="status", color="red", alpha=0.1)
    assert said == (f"alpha, color cannot style {plot}() with by=: each group is drawn in rows "
                    "and a colour of its own; leave by= out to style the bars, or restyle the "
                    "returned Axes' artists")
    plt.close(getattr(icoframes, plot)(icos, by="status").figure)  # by= alone still draws
