"""Real exports of a sandbox that several test modules read, each made one way here.

- :func:`snapshot_tree`: snapshot exports (``status="upcoming"``) over simulated days of
  November 2026 (time-machine, noon UTC). A directory of 30 ICOs (seed 1), every one past
  but three (``chosen``) upcoming on the days named; a tree may end on a day the daily
  limit (1 request) stops before it holds any ICO, three others (``later``) upcoming then,
  so that its query matches ICOs it cannot fetch (``rows`` 0, ``complete`` false).
- :func:`cut_export`: one export its daily limit cut (INCOMPLETE).
- :func:`daily_snapshots`: complete snapshot exports of a 60-ICO sandbox (seed 3) on
  consecutive simulated days, the sandbox edited before a day when asked.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pandas as pd
import time_machine
from ledger_day import noon

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.sandbox import generate_directory


def day(d: int) -> pd.Timestamp:
    """Day ``d`` of November 2026, as a ``read_snapshots`` frame's ``snapshot_date`` holds it."""
    return pd.Timestamp(2026, 11, d).as_unit("ms")


def stopped_empty(d: int) -> str:
    """What the snapshot readers warn (a regex) of day ``d``, stopped before it held any ICO."""
    return (rf"the snapshot of 2026-11-{d:02d} stopped before it held any ICO \(rows 0 and "
            r"complete false in attrs: incomplete, not a query that matched nothing\) and lies "
            r"outside")


def snapshot_tree(out: Path, cache_dir: Path, *, days: int, upcoming: Collection[int],
                  stopped: bool) -> tuple[list[int], list[int], list[tuple[bool, int]]]:
    """Export days 1 to ``days`` into ``out``: ``chosen`` upcoming on the days in
    ``upcoming``; the last day ``stopped`` by the daily limit, when asked. Returns
    ``chosen``, ``later`` and each day's ``(complete, rows of icos)``."""
    directory = generate_directory(30, seed=1)
    for ico_id in directory.ids():
        directory.update_ico(ico_id, status="past")
    chosen, later = sorted(directory.ids()[:3]), sorted(directory.ids())[10:13]
    results = []
    with sandbox.serve(directory=directory, quota=None) as sb:
        try:
            for n in range(1, days + 1):
                last = stopped and n == days
                for ico_id in chosen:
                    directory.update_ico(ico_id, status="upcoming" if n in upcoming else "past")
                for ico_id in later:
                    directory.update_ico(ico_id, status="upcoming" if last else "past")
                icoframes.configure(**sb.settings(), cache_dir=cache_dir,
                                    **({"daily_quota": 1} if last else {}))
                with time_machine.travel(dt.datetime(2026, 11, n, 12, tzinfo=dt.UTC)), \
                        warnings.catch_warnings():
                    if last:  # the stopped day warns; the tests say it. Any other day's
                        # warning (an empty first or last day too) fails the tree
                        warnings.simplefilter("ignore", IcoframesWarning)
                    result = icoframes.export_tables(out, status="upcoming", snapshot=True,
                                                     refresh=True, progress=False,
                                                     allow_empty=True)
                results.append((result.complete, result.rows["icos"]))
        finally:
            icoframes.reset_configuration()
    return chosen, later, results


def cut_export(out: Path, cache_dir: Path, **serve: Any) -> None:
    """Export a sandbox (``sandbox.serve(**serve)``, its ``quota`` the day's limit that cuts
    the export) into ``out`` at :data:`ledger_day.NOON`; the load's warnings are said in
    the manifest."""
    with sandbox.serve(**serve) as sb:
        icoframes.configure(**sb.settings(), cache_dir=cache_dir)
        try:
            with noon(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                icoframes.export_tables(out, progress=False)
        finally:
            icoframes.reset_configuration()


def daily_snapshots(out: Path, cache_dir: Path, days: Collection[int], *,
                    edit: Callable[[Any, int], None] | None = None, hour: int = 3) -> None:
    """Export every ICO of a 60-ICO sandbox (seed 3) into ``out`` as snapshots, on the days
    ``days`` of November 2026 at ``hour`` UTC, each complete with its 60 rows (checked);
    ``edit(sb, n)`` changes the sandbox before day ``n`` is exported."""
    with sandbox.serve(n_icos=60, seed=3, quota=None) as sb:
        try:
            icoframes.configure(**sb.settings(), cache_dir=cache_dir)
            for n in days:
                if edit is not None:
                    edit(sb, n)
                with time_machine.travel(dt.datetime(2026, 11, n, hour, tzinfo=dt.UTC)), \
                        warnings.catch_warnings():
                    warnings.simplefilter("ignore", IcoframesWarning)
                    result = icoframes.export_tables(out, snapshot=True, refresh=True,
                                                     progress=False)
                assert result.complete and result.rows["icos"] == 60
        finally:
            icoframes.reset_configuration()
