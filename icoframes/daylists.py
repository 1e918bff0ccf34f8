"""A day is never replaced by an export whose lists are older than the day's.

Two exports of one day may run from two cache dirs (a second cron host, a cleared cache).
Each uses a list its cache paged earlier that day as the day's ("a second run the same day
pays no list page"), so the later of them could swap in a list older than the day's own:
the ICOs the service listed meanwhile gone from the day, ``lists_fetched`` going back in
time, and exit 0. The rule is the lists' age, not a row count: when the service really
delisted ICOs, the newer export's list is the authority and its fewer rows are the day's.

So an export reads the day's manifest before any request (:func:`day_manifest`) and
re-pages every list whose cached copy is older than the day's list of that query
(:func:`stale_lists`); and under its swap lock it refuses (ExportBusy) a day whose lists
are newer than its own (:func:`newer_day`): another export swapped it in meanwhile.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .dayfolder import query_key
from .errors import ServiceUnavailable
from .exported import manifest_of
from .files import entry_kind, read_parquet_table, utc_time

__all__ = ["adds_nothing", "changed_meanwhile", "damaged_day", "day_manifest", "kept_day",
           "newer_day", "nothing_paged", "stale_lists"]


def day_manifest(folder: Path, since: dt.datetime | None) -> dict[str, Any] | None:
    """The manifest of the day's export in ``folder`` (a snapshot day's folder; with
    ``since``, the UTC day's start, a plain export's folder, when exported since then), or
    None: none, a damaged one, another day's."""
    manifest = manifest_of(folder)
    if not isinstance(manifest, dict):
        return None
    at = utc_time(manifest.get("exported_at"))
    return None if since is not None and (at is None or at < since) else manifest


def _lists(manifest: Mapping[str, Any] | None) -> dict[frozenset[str], dt.datetime]:
    """When each list query of ``manifest`` was fetched (its ``fetched_at``), by query."""
    times: dict[frozenset[str], dt.datetime] = {}
    for query in (manifest or {}).get("queries") or []:
        at = utc_time(query.get("fetched_at")) if isinstance(query, dict) else None
        if at is not None and isinstance(query.get("params"), dict):
            key = query_key([query["params"]])
            times[key] = max(at, times.get(key, at))
    return times


def _listed(manifest: Mapping[str, Any]) -> dict[frozenset[str], tuple[Any, Any]]:
    """What each list query of ``manifest`` listed: its rows and the service's total."""
    return {query_key([q["params"]]): (q.get("rows"), q.get("total_icos"))
            for q in manifest.get("queries") or []
            if isinstance(q, dict) and isinstance(q.get("params"), dict)}


def stale_lists(asked: list[dict[str, Any]], manifest: Mapping[str, Any] | None,
                fetched_at: Callable[[dict[str, Any]], dt.datetime | None]) -> list[str]:
    """The statuses of ``asked`` (this export's list queries) whose cached list
    (``fetched_at(params)``, None when none is cached) is older than the day's list of that
    query (``manifest``, :func:`day_manifest`): the export re-pages them."""
    day = _lists(manifest)
    return [str(params.get("status")) for params in asked
            if (held := day.get(query_key([params]))) is not None
            and ((at := fetched_at(params)) is None or at < held)]


def newer_day(folder: Path, before: Mapping[str, Any] | None, queries: list[dict[str, Any]],
              since: dt.datetime | None, cached: Callable[[dict[str, Any]], dt.datetime | None]
              ) -> str | None:
    """Why this export may not replace the day in ``folder`` (read again, under the swap
    lock): a list of it is newer than this export's list of that query (``queries``, as its
    manifest says them); None when none is. ``before`` is the day's manifest as read before
    any request (:func:`day_manifest`): a list this export paged itself after that read is
    newer than a day still the same, whatever two hosts' clocks say. ``cached(params)``: when
    this export's cache dir holds its list of that query from (None: none), which tells who
    swapped the day in: an export sharing the cache dir (it keeps its lists there, so the
    cache's is as new as the day's) or one with another cache dir."""
    now = day_manifest(folder, since)
    day = _lists(now)
    for query in queries:
        params, at = query.get("params") or {}, utc_time(query.get("fetched_at"))
        held = day.get(query_key([params])) if isinstance(params, dict) and params else None
        if held is None or at is None or held <= at:
            continue
        if now == before and not query.get("from_cache") and not query.get("kept"):
            continue
        here = cached(params)
        who = ("another export sharing this cache dir paged that list again after this one's "
               "list and exported this day meanwhile" if here is not None and here >= held
               else "another export, with another cache dir, exported this day meanwhile")
        return (f"{folder} holds a list newer than this export's: {params.get('status')} "
                f"fetched at {held.isoformat()} there, at {at.isoformat()} here ({who}); this "
                "one would put its older list, and maybe fewer rows, in the day's place. "
                "Nothing was written (what was fetched is cached): run the export again, it "
                "takes the day's list or re-pages the lists older than the day's")
    return None


def nothing_paged(queries: list[dict[str, Any]], started: dt.datetime, folder: Path,
                  since: dt.datetime | None, *, snapshot: bool) -> None:
    """ServiceUnavailable when an export paged none of its lists (each failed, answered only
    by a copy an earlier run cached that day): it would hold nothing the service said now,
    so nothing is written and the export in ``folder`` (a snapshot day's folder; with
    ``since``, a plain export's, as in :func:`day_manifest`) is left as it was, in either
    layout. A list used as cached (whole, or whose count lies) is no failure.

    Examples
    --------
    >>> import datetime as dt
    >>> from pathlib import Path
    >>> now = dt.datetime(2026, 11, 21, 9, tzinfo=dt.UTC)
    >>> nothing_paged([{"from_cache": False, "rows": 3}], now, Path("out"), now, snapshot=False)
    >>> nothing_paged([{"from_cache": True, "rows": 3, "complete": False,
    ...                 "fetched_at": "2026-11-21T03:15:00+00:00"}], now,
    ...               Path("nowhere"), now, snapshot=False)
    Traceback (most recent call last):
    ...
    icoframes.errors.ServiceUnavailable: no list of this export could be paged since ... (1 of \
1 list(s) failed ...; only lists an earlier run cached at 2026-11-21 03:15 UTC were left): ...
    """
    def fell_back(query: dict[str, Any]) -> bool:  # cached by an earlier run, for a failure
        at = utc_time(query.get("fetched_at"))  # (a list whose count lies is used as cached)
        return (bool(query.get("from_cache")) and not query.get("complete")
                and not query.get("count_contradicts") and at is not None and at < started)

    with_rows = [q for q in queries if q.get("rows")]
    if not with_rows or not all(fell_back(q) for q in with_rows):
        return
    which = "snapshot" if snapshot else "export"
    cached = sorted(f"{utc_time(q['fetched_at']):%Y-%m-%d %H:%M}" for q in with_rows)
    held = manifest_of(folder)
    if not isinstance(held, dict):
        kept = f"{folder.parent if snapshot else folder} holds no {which} of this day"
    else:  # a plain export's folder may hold an earlier day's
        whole = "complete" if held.get("complete") is True else "incomplete"
        day = "the day's" if day_manifest(folder, since) is not None else "an earlier day's"
        kept = (f"{day} {whole} {which} in {folder} (exported at {held.get('exported_at')}) "
                "is as it was")
    raise ServiceUnavailable(
        f"no list of this {which} could be paged since {started:%Y-%m-%d %H:%M} UTC "
        f"({sum(not q.get('complete') for q in queries)} of {len(queries)} list(s) failed after "
        f"their retries; only lists an earlier run cached at {cached[0]}"
        f"{'' if cached[0] == cached[-1] else ' to ' + cached[-1]} UTC were left): nothing was "
        f"written, and {kept}")


def adds_nothing(held: Mapping[str, Any] | None, manifest: Mapping[str, Any]) -> bool:
    """Whether the incomplete export of ``manifest`` could only make the day's complete
    export (``held``, :func:`day_manifest`) worse: the same list queries, none fetched after
    the day's, listing as many ICOs, no ICO missing that the day holds a row for (an ICO the
    service deleted since, error 482, is news) and no profile fetched after the day was
    exported. Its rows are then copies the day already holds (or older ones), and only its
    gaps are its own: a later run of the day that met the daily limit before it could
    refresh what had fallen due."""
    if not isinstance(held, dict) or held.get("complete") is not True or manifest.get("complete"):
        return False
    exported = utc_time(held.get("exported_at"))
    mine, day = _lists(manifest), _lists(held)
    if exported is None or not mine or set(mine) != set(day):
        return False
    if any(at > day[key] for key, at in mine.items()):
        return False  # a list paged since: the service of later that day
    if _listed(manifest) != _listed(held):
        return False  # its lists say other ICOs or statuses than the day's
    gone = {m.get("id"): m.get("state") for m in held.get("missing") or []
            if isinstance(m, dict)}
    if any(not isinstance(m, dict) or m.get("id") not in gone
           or (m.get("state") == "gone" and gone[m.get("id")] != "gone")
           for m in manifest.get("missing") or []):
        return False  # an ICO the day holds a row for is missing now: the service deleted it
    newest = (manifest.get("profiles_fetched") or {}).get("newest")
    at = utc_time(newest)
    return newest is None or (at is not None and at <= exported)


def kept_day(folder: Path, held: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    """What a log says when the day's complete export in ``folder`` is kept (see
    :func:`adds_nothing`): this export's gaps, and that nothing was written."""
    gaps = len(manifest.get("missing") or []) + len(manifest.get("not_refreshed") or [])
    stop = manifest.get("stopped") or {}
    why = {"quota": "the daily limit stopped it", "breaker": "a run of wrong answers stopped it"
           }.get(str(stop.get("reason")), "it could not fetch everything")
    return (f"the day's complete export in {folder} (exported at {held.get('exported_at')}) is "
            f"kept: this run is incomplete ({why}: {gaps} row(s) missing or not refreshed) and "
            "fetched nothing newer than it holds, so it would only mark the same rows stale. "
            "Nothing was written; what was fetched is cached")


def changed_meanwhile(folder: Path) -> str:
    return (f"{folder}: another export swapped its files in while this one ran; this one is "
            "incomplete and would replace their rows by fewer. Nothing was written (what was "
            "fetched is cached): run the export again to keep both")


def damaged_day(folder: Path, damage: str) -> str:
    """Why an incomplete export does not replace the day's export in ``folder``, whose
    manifest reads but whose tables do not (``damage``: what the reader said), naming the
    table files that cannot be read."""
    bad = []
    for path in sorted(folder.glob("*.parquet")):
        try:  # a FIFO or a link is named, never opened (it would block, or lead elsewhere)
            read_parquet_table(path)
        except (OSError, ValueError):  # pyarrow's errors derive from these
            kind = entry_kind(path)
            bad.append(path.name if kind == "a file" else f"{path.name} ({kind})")
    named = f"{', '.join(bad)} cannot be read: " if bad else ""
    return (f"{folder} is damaged ({named}{damage}): this export is incomplete and cannot keep the "
            "day's rows it lacks, so it would replace them by fewer. Nothing was written (what "
            "was fetched is cached). Move the damaged folder away (or let a complete export "
            "replace it), then export again")
