"""plot_status_flow on an Axes the caller drew on keeps the caller's labelled artists in its
legend (and lists no hidden label), and a hand-made frame whose ids are missing or text draws
as a frame of whole ids does: a row without an id is no ICO."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import icoframes


def _frame(ids: object) -> pd.DataFrame:
    frame = pd.DataFrame({
        "snapshot_date": pd.to_datetime(["2026-01-01"] * 2 + ["2026-01-02"] * 2, format="%Y-%m-%d"),
        "status": ["upcoming", "past", "ongoing", "past"]})
    frame["id"] = ids
    return frame


def _legend(ax: plt.Axes) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_a_line_the_caller_labelled_stays_in_the_legend() -> None:
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 2], label="target")
    ax.bar([8], [3])  # unlabelled: never listed
    ax.bar([9], [3], label="_hidden")  # a leading underscore hides a label
    try:
        assert icoframes.plot_status_flow(_frame([1, 2, 1, 2]), ax=ax) is ax
        assert _legend(ax) == ["target", "past", "ongoing", "upcoming"]
    finally:
        plt.close(fig)


@pytest.mark.parametrize(("ids", "seen"), [
    ([1, 2, 1, 2], "2 ICOs seen"),
    ([1.0, np.nan, 1.0, np.nan], "1 ICO seen"),
    (pd.array([1, None, 1, None], dtype="Int64"), "1 ICO seen"),
    (["a", "b", "a", "b"], "2 ICOs seen"),
])
def test_missing_or_text_ids_are_counted_not_cast(ids: object, seen: str) -> None:
    ax = icoframes.plot_status_flow(_frame(ids))
    try:
        assert any(seen in text.get_text() for text in ax.texts), [t.get_text() for t in ax.texts]
    finally:
        plt.close(ax.figure)
