"""What the report in ``attrs["icoframes"]`` costs pandas operations, and ``changes()``.

Run ``python -m benchmarks.bench_attrs`` (prints a markdown table). pandas deep-copies a
frame's ``attrs`` into every frame it derives; icoframes' report is one read-only value
those frames share (:mod:`icoframes.frozen`), so it should cost nothing per operation:

- a partial load (``load_icos(budget=300)`` of a 3,000-ICO sandbox: 2,700 listed ICOs
  missing, each with its reason in the report): ``head`` + a column selection + a row
  filter, on the frame as loaded against a copy of it whose ``attrs`` are dropped;
- a tree of daily snapshots (one day's export of a 60-ICO sandbox, cut by its budget so
  that its manifest names missing ICOs, copied to ``days`` consecutive days):
  ``changes`` of its ``read_snapshots`` frame as read, against the same frame without
  ``attrs`` (which then knows nothing of the gaps, but does the same work).

Both pairs should time alike; before the report was shared the first of each pair took
~20x as long, and ``changes`` grew with the square of the days. ``changes`` now also
drops ``attrs`` from its working copy before the per-day work (a frame read back from
pickle or Parquet carries a plain, unshared report), so its pair would time alike even
without the shared report; the count of report copies in ``tests/test_attrs_shared.py``
is what guards the sharing itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import statistics
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import time_machine

import icoframes
from icoframes import sandbox

from .common import Target, timed

__all__ = ["markdown", "run", "targets"]
#: How much longer an operation on a frame as read may take than on the same frame without
#: its attrs: the report is shared, so the two should time alike.
RATIO_LIMIT = 1.5


def _operations(frame: pd.DataFrame, repeats: int) -> None:
    for _ in range(repeats):
        frame.head()
        frame[["id", "raised"]]  # a selection: what is timed
        frame[frame["raised"] > 0]


def _tree(work: Path, days: int) -> Path:
    """``days`` daily snapshot folders, copies of one incomplete export."""
    out = work / "tree"
    with sandbox.serve(n_icos=60, seed=3) as server:
        icoframes.configure(**server.settings(), cache_dir=work / "cache")
        try:
            noon = dt.datetime(2026, 1, 1, 12, tzinfo=dt.UTC)
            with time_machine.travel(noon), warnings.catch_warnings():
                warnings.simplefilter("ignore", icoframes.IcoframesWarning)
                icoframes.export_tables(out, snapshot=True, budget=25, progress=False)
        finally:
            icoframes.reset_configuration()
    first = out / "snapshot_date=2026-01-01"
    for i in range(1, days):
        day = (dt.date(2026, 1, 1) + dt.timedelta(days=i)).isoformat()
        shutil.copytree(first, out / f"snapshot_date={day}")
    return out


def _alternating(call: Callable[[pd.DataFrame], object], first: pd.DataFrame,
                 second: pd.DataFrame, rounds: int) -> tuple[float, float]:
    """Median seconds of ``call`` on each frame, over ``rounds`` rounds alternating which
    goes first (a shared machine's load then falls on both alike)."""
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(rounds):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            times[which].append(timed(call, (first, second)[which])[0])
    return statistics.median(times[0]), statistics.median(times[1])


def run(*, n_icos: int = 3000, budget: int = 300, days: tuple[int, ...] = (40, 120),
        repeats: int = 50, rounds: int = 10, change_rounds: int = 5) -> list[dict[str, object]]:
    """Rows of (case, size, seconds as read, seconds without attrs): medians of ``rounds``
    (``change_rounds`` for ``changes``) alternating rounds, ``repeats`` operations a round."""
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)
        work = Path(tmp)
        with sandbox.serve(n_icos=n_icos, seed=3) as server:
            icoframes.configure(**server.settings(), cache_dir=work / "load")
            try:
                icos = icoframes.load_icos(budget=budget)
            finally:
                icoframes.reset_configuration()
        bare = icos.copy()
        bare.attrs = {}
        kept = icos.copy()  # consolidated as bare is: only the attrs differ
        for frame in (kept, bare):  # (untimed: pandas's first operations warm its caches)
            _operations(frame, 1)
        with_attrs, without = _alternating(lambda f: _operations(f, repeats), kept, bare, rounds)
        rows.append({"case": "head+select+filter (ms)",
                     "size": f"{len(icoframes.report(icos).missing)} missing",
                     "as read": with_attrs / repeats * 1000,
                     "attrs dropped": without / repeats * 1000})
        for n in days:
            tree = _tree(work / f"days{n}", n)
            snaps = icoframes.read_snapshots(tree)
            dropped = snaps.copy()
            dropped.attrs = {}
            as_read, plain = _alternating(icoframes.changes, snaps, dropped, change_rounds)
            rows.append({"case": "changes (s)", "size": f"{n} days",
                         "as read": as_read, "attrs dropped": plain})
    return rows


def markdown(rows: list[dict[str, object]]) -> str:
    """The rows as a markdown table."""
    lines = ["| case | size | as read | attrs dropped |", "|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['size']} | {r['as read']:.2f} | {r['attrs dropped']:.2f} |"
              for r in rows]
    return "\n".join(lines)


def targets(rows: list[dict[str, object]]) -> list[Target]:
    """Each case: as read within :data:`RATIO_LIMIT` of the same work without ``attrs``."""
    found = []
    for row in rows:
        ratio = float(row["as read"]) / float(row["attrs dropped"])  # type: ignore[arg-type]
        found.append(Target("attrs", f"{row['case']}, {row['size']}: as read within "
                            f"{RATIO_LIMIT}× of the frame without attrs",
                            f"{ratio:.2f}× ({row['as read']:.2f} vs {row['attrs dropped']:.2f})",
                            ratio <= RATIO_LIMIT))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    quick = parser.parse_args().quick
    rows = (run(n_icos=300, budget=30, days=(5,), repeats=3, rounds=2, change_rounds=1)
            if quick else run())
    print(markdown(rows))


if __name__ == "__main__":
    main()
