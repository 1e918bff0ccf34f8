"""A snapshot is never written by a clock that says an earlier moment than the tree holds.

A snapshot export files what the service lists now under the UTC day its clock reads. A
clock set back (a VM restored from an image, an RTC reset, an NTP step back across
midnight) would file today's service under an earlier day: that day's snapshot replaced
by a later service, with nothing in its manifest to show it (every stamp comes from the
same wrong clock), and :func:`icoframes.changes` then reporting moves backwards,
removals and re-appearances that never happened. The day's earlier data cannot be
fetched again, and only the export, at write time, can see it: the tree already holds a
later day, or a manifest written later than now.

So :func:`check_clock` refuses a snapshot export when any ``snapshot_date=`` folder of the
tree is dated after today, or its manifest says it was exported (or its lists or profiles
fetched) after now: before any request, and again under the swap lock with the clock read
then. :data:`CLOCK_SLACK` lets two hosts whose clocks differ by less than it share a tree.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from .errors import ClockBehind
from .exported import SNAPSHOT_PREFIX, manifest_of
from .files import utc_time, utcnow

__all__ = ["CLOCK_SLACK", "check_clock", "latest_held"]

#: How far behind a tree's latest stamp a clock may be and still write into it: two cron
#: hosts sharing one tree are never exactly in step, and no clock step worth the name is
#: this small.
CLOCK_SLACK = dt.timedelta(minutes=1)


def latest_held(out: Path) -> tuple[dt.datetime, Path] | None:
    """The latest moment the snapshot tree ``out`` shows, and the day folder showing it: each
    folder's date (its 00:00 UTC: a snapshot dated a day was begun that day), its manifest's
    ``exported_at`` and newest list and profile fetch times. None when it holds no day."""
    latest: tuple[dt.datetime, Path] | None = None
    for child in sorted(out.iterdir()) if out.is_dir() else []:
        if not child.name.startswith(SNAPSHOT_PREFIX) or child.is_symlink():
            continue  # a link is no day of this tree (the day's own is refused apart)
        try:
            date = dt.date.fromisoformat(child.name.removeprefix(SNAPSHOT_PREFIX))
        except ValueError:  # no day's name: no reader takes it for one either
            continue
        stamps: list[dt.datetime | None] = [dt.datetime.combine(date, dt.time(), dt.UTC)]
        manifest = manifest_of(child) if child.is_dir() else None
        if isinstance(manifest, dict):
            stamps.append(utc_time(manifest.get("exported_at")))
            for key in ("lists_fetched", "profiles_fetched"):
                newest = manifest.get(key)
                stamps.append(utc_time(newest.get("newest")) if isinstance(newest, dict)
                              else None)
        at = max(t for t in stamps if t is not None)
        if latest is None or at > latest[0]:
            latest = at, child
    return latest


def check_clock(out: Path, *, sent: bool = False) -> None:
    """:class:`~icoframes.errors.ClockBehind` when the snapshot tree ``out`` holds a day dated
    after today, or written later than now (:func:`latest_held`, by more than
    :data:`CLOCK_SLACK`): this machine's clock is behind what it wrote before. ``sent``:
    this export sent requests already (their answers are cached)."""
    now = utcnow()
    held = latest_held(out)
    if held is None or held[0] <= now + CLOCK_SLACK:
        return
    at, folder = held
    nothing = ("Nothing was written (what was fetched is cached)" if sent
               else "Nothing was sent or written")
    raise ClockBehind(
        f"{folder} was written at {at.isoformat()} or later, but this machine's clock says it "
        f"is {now.isoformat()} now: the clock is behind (set back, a VM restored from an "
        "image, an NTP step back), and this snapshot would file the service of now under "
        f"{now.date().isoformat()} (replacing that day's snapshot, if the tree holds one). "
        f"{nothing}. Set the clock right (timedatectl; NTP), then export again. If the clock "
        "is right and that folder was written while it was ahead (its time is still to come), "
        "its rows are an earlier day's under a later date: move it out of the tree.")
