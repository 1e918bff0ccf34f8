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
tree is dated after today, or its manifest says it was exported after now: before any
request, and again under the swap lock with the clock read then. :data:`CLOCK_SLACK` lets
two hosts whose clocks differ by less than it share a tree. Only those two stamps count:
the clock that wrote the day set them itself. The fetch times a manifest holds
(``lists_fetched``, ``profiles_fetched``) may come from the cache, where an earlier run
with a clock ahead left stamps still to come; a day written by a right clock holds them
as long as a limit keeps those profiles from being fetched again.
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


def latest_held(out: Path) -> tuple[dt.datetime, Path, dt.date] | None:
    """The latest moment the snapshot tree ``out`` shows, the day folder showing it and that
    folder's date: each folder's date (its 00:00 UTC: a snapshot dated a day was begun that
    day) and its manifest's ``exported_at``. None when it holds no day."""
    latest: tuple[dt.datetime, Path, dt.date] | None = None
    for child in sorted(out.iterdir()) if out.is_dir() else []:
        if not child.name.startswith(SNAPSHOT_PREFIX) or child.is_symlink():
            continue  # a link is no day of this tree (the day's own is refused apart)
        try:
            date = dt.date.fromisoformat(child.name.removeprefix(SNAPSHOT_PREFIX))
        except ValueError:  # no day's name: no reader takes it for one either
            continue
        at = dt.datetime.combine(date, dt.time(), dt.UTC)
        manifest = manifest_of(child) if child.is_dir() else None
        exported = utc_time(manifest.get("exported_at")) if isinstance(manifest, dict) else None
        at = max(at, exported or at)
        if latest is None or at > latest[0]:
            latest = at, child, date
    return latest


def _span(gap: dt.timedelta) -> str:
    """``gap`` in words a glance reads: "6 days 7 h", "2 min"."""
    minutes = round(gap.total_seconds() / 60)  # a run ticks on: 2 min less a few ms is 2 min
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days} day{'s' if days != 1 else ''}" if days else "",
             f"{hours} h" if hours else "", f"{mins} min" if mins and not days else ""]
    return " ".join(p for p in parts if p) or "under a minute"


def check_clock(out: Path, *, sent: bool = False) -> None:
    """:class:`~icoframes.errors.ClockBehind` when the snapshot tree ``out`` holds a day dated
    after today, or exported later than now (:func:`latest_held`, by more than
    :data:`CLOCK_SLACK`): this machine's clock is behind what it wrote before, or that day
    was written by a clock ahead. ``sent``: this export sent requests already (their
    answers are cached)."""
    now = utcnow()
    held = latest_held(out)
    if held is None or held[0] <= now + CLOCK_SLACK:
        return
    at, folder, date = held
    nothing = ("Nothing was written (what was fetched is cached)" if sent
               else "Nothing was sent or written")
    behind = ("If this clock is behind (set back, a VM restored from an image, an NTP step "
              f"back), this snapshot would file the service of now under {now.date()}: set "
              "the clock right (timedatectl; NTP), then export again")
    if date > now.date():  # both a clock behind and a folder from a clock ahead are possible
        begins = dt.datetime.combine(date, dt.time(), dt.UTC)
        raise ClockBehind(
            f"{folder} is dated after today: this machine's clock says it is {now.isoformat()}, "
            f"{_span(begins - now)} before that day begins. {nothing}. {behind}. If the clock "
            "is right, that folder was written while a clock was ahead: its rows are an "
            "earlier day's under a later date; move it out of the tree, then export again")
    late = at - dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), dt.UTC)
    if late > dt.timedelta(days=1):  # (a run begun before midnight ends the next day)
        raise ClockBehind(
            f"{folder} says in its manifest it was exported at {at.isoformat()}, "
            f"{_span(late)} after its own day ended: no clock writes a day's folder so long "
            f"after that day, so that manifest is damaged or was edited. {nothing}. Move the "
            "folder out of the tree (or set its manifest's exported_at right), then export "
            "again")
    raise ClockBehind(
        f"{folder} was exported at {at.isoformat()}, {_span(at - now)} later than this "
        f"machine's clock says it is now ({now.isoformat()}). {nothing}. {behind}. If the "
        "clock that wrote that folder was ahead (another host's), an export goes through "
        f"once its time has passed, in {_span(at - now)}")
