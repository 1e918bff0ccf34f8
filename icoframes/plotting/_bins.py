"""Bin edges: fixed-width score bins, log-spaced raised bins, and checked explicit edges."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidParameter, quoted
from ..numerals import as_integer, did_you_mean_number

#: What ``bins=`` accepts: a number of bins or the bin edges.
Bins = int | Sequence[float] | np.ndarray

__all__ = ["Bins", "explicit_edges", "raised_edges", "score_edges", "score_range"]

_SCORE_BIN_WIDTH = 0.25
_TENTHS_BIN_WIDTH = 0.2
_SCORE_RANGE = (0.0, 5.0)
_LOG_BINS_PER_DECADE = 4
_LINEAR_BINS = 30
#: The most bins a plot draws, as the timeline's periods: more bars than a figure can show.
_MAX_BINS = 5000


def score_range(scores: np.ndarray) -> tuple[float, float]:
    lo, hi = _SCORE_RANGE
    if scores.size:
        w = _SCORE_BIN_WIDTH
        lo = min(lo, math.floor(scores.min() / w) * w)
        hi = max(hi, math.ceil(scores.max() / w) * w)
    return lo, hi


def score_edges(scores: np.ndarray, bins: Bins | None) -> np.ndarray:
    lo, hi = score_range(scores)
    if bins is not None:
        return explicit_edges(bins, lo, hi, log=False)
    tenths = scores * 10
    if scores.size and np.allclose(tenths, np.round(tenths), rtol=0, atol=1e-6):
        # Scores are published to one decimal. 0.25-wide bins would hold two and
        # three possible scores in turn and draw a false comb; 0.2-wide bins with
        # edges halfway between tenths (..., 2.85, 3.05, ...) hold exactly two,
        # and no score can sit on an edge where float rounding would pick its bin.
        step, offset = _TENTHS_BIN_WIDTH, 0.05
        first = math.floor((lo - offset) / step)
        last = math.ceil((hi - offset) / step)
        return offset + step * np.arange(first, last + 1)
    return np.linspace(lo, hi, round((hi - lo) / _SCORE_BIN_WIDTH) + 1)


def raised_edges(values: np.ndarray, bins: Bins | None, log: bool) -> np.ndarray:
    vmin, vmax = float(values.min()), float(values.max())
    if log:
        if bins is None:
            k = _LOG_BINS_PER_DECADE
            lo = math.floor(math.log10(vmin) * k) / k
            hi = math.ceil(math.log10(vmax) * k) / k
            if hi <= lo:
                hi = lo + 1 / k
            edges = np.logspace(lo, hi, round((hi - lo) * k) + 1)
            # 10**x may land a hair inside the data's extremes; np.histogram would
            # then drop the smallest or largest amount.
            edges[0] = min(edges[0], vmin)
            edges[-1] = max(edges[-1], vmax)
            return edges
        return explicit_edges(bins, vmin, vmax, log=True)
    if bins is None:
        bins = _LINEAR_BINS
    return explicit_edges(bins, vmin, vmax, log=False)


def explicit_edges(bins: Bins, lo: float, hi: float, *, log: bool) -> np.ndarray:
    count = as_integer(bins)  # np.timedelta64(10) is no 10 bins: refused as no edges below
    if count is not None:
        if not 1 <= count <= _MAX_BINS:  # 10**400 was numpy's "Maximum allowed size exceeded"
            raise InvalidParameter(f"bins must be from 1 to {_MAX_BINS:,} bins, got "
                                   f"{quoted(bins)}")
        if hi <= lo:
            lo, hi = (lo / 2, hi * 2) if log else (lo - 0.5, hi + 0.5)
        if log:
            return np.logspace(math.log10(lo), math.log10(hi), count + 1)
        return np.linspace(lo, hi, count + 1)
    if isinstance(bins, (str, bytes)) or np.ndim(bins) == 0:  # "10", 10.0: did you mean 10?
        raise InvalidParameter(f"bins must be an int or a sequence of bin edges, got {quoted(bins)}"
                               + did_you_mean_number(bins, low=1))
    try:
        edges = np.asarray(bins, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidParameter(
            f"bins must be an int or a sequence of bin edges, got {quoted(bins)}") from None
    if edges.ndim != 1 or edges.size < 2 or not np.all(np.isfinite(edges)):
        raise InvalidParameter("bins must be at least two finite bin edges")
    if np.any(np.diff(edges) <= 0):
        raise InvalidParameter(f"bins must be strictly increasing edges, got {quoted(bins)}")
    if log and edges[0] <= 0:
        raise InvalidParameter("bins must be positive on a log axis (log=True), got "
                               f"{quoted(bins)}")
    return edges
