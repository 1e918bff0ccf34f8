"""plot_raised_vs_cap: raised against the USD hard cap, drawn from compute_features."""

from __future__ import annotations

import inspect

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.plotting import plot_raised_vs_cap


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"raised": [1e6, 5e6, np.nan], "hard_cap_usd": [2e6, 4e6, 1e6],
                         "reached_soft_cap": pd.array([False, True, None], dtype="boolean")})


def _note(ax) -> str:
    return next(t.get_text() for t in ax.texts if t.get_gid() == "icoframes-note")


def test_ax_is_keyword_only_in_every_plot_helper():
    for name in ("plot_raised_vs_cap", "plot_raised", "plot_scores", "plot_timeline",
                 "plot_status_flow"):
        ax = inspect.signature(getattr(icoframes, name)).parameters["ax"]
        assert ax.kind is inspect.Parameter.KEYWORD_ONLY, name
    _fig, axes = plt.subplots(1, 2)
    with pytest.raises(TypeError, match="positional"):
        plot_raised_vs_cap(_frame(), axes[1])  # type: ignore[misc]
    assert plot_raised_vs_cap(_frame(), ax=axes[1]) is axes[1]
    assert not axes[0].collections and axes[1].collections
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot_raised_vs_cap(_frame(), ax="left")  # type: ignore[arg-type]


def test_the_note_counts_what_could_not_be_placed():
    ax = plot_raised_vs_cap(_frame())
    assert _note(ax) == ("2 ICOs shown; 1 not placed (raised or USD hard cap unknown or "
                         "not positive)")
