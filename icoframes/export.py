"""Parquet exports of every table, for cron jobs and other tools (DuckDB, Polars, Spark).

``export_tables(out)`` writes ``out/<table>.parquet`` for every table and
``out/manifest.json``. With ``snapshot=True`` it writes under
``out/snapshot_date=YYYY-MM-DD/`` instead (the UTC day the export began), so
readers that understand hive partitions see every snapshot as one dataset with
the date as a column. A snapshot re-pages each list no run paged that UTC day
(and younger than ``max_age``; ``max_age=None`` keeps the day rule), so each day's
snapshot says what the service listed that day, and a second run the same day pays
no list page.

A plain export is daily too: it uses a cached list only when that list was
fetched during the current UTC day *and* is younger than ``max_age``; a list
fetched before today's 00:00 UTC is re-paged. So a cron job at a fixed hour
re-pages every day, even when yesterday's run finished a few seconds less than
``max_age`` (one day) ago, while a second run the same day spends nothing on
lists. ``max_age=None`` (never expires) turns the rule off. The manifest states
the moment a cached list had to be fetched after (``lists_fresh_after``) and
each list's fetch time (``queries[*].fetched_at``: its page 1, at latest the run's day's last ms if
the run paged it; ``lists_fetched``: the oldest and the newest), taken from another process's
paging only when after ``lists_fresh_after``. A list whose paging fails is never answered by a list
cached before the export's day (00:00 UTC; for a plain export ``max_age`` ago when later); an
export none of whose lists could be paged is not written, snapshot or plain (the service's error
is raised).
A day's rows are never replaced by fewer: a re-paging that comes back partial keeps the rows
of the day's earlier list it lacks (the query's ``kept``, and ``complete: false``). Nor is a
day replaced by an export whose lists are older than the day's: see :mod:`icoframes.daylists`.

What a reader can rely on:

* ``out`` is checked writable (created when missing) before any request is
  spent; if it is not, :class:`~icoframes.errors.ConfigError` names it.
* Everything is first written to this export's own staging folder *inside*
  ``out``: ``out/.icoframes-staging-<random>/export/data/``, made by
  :func:`tempfile.mkdtemp` (a name nobody can guess or plant beforehand, private
  to the user running the export). Being inside ``out``, the final renames
  never cross a filesystem (``out`` may be a mount point, and its parent need
  not be writable); being hidden and two levels down, the tables are never
  matched by ``out/*.parquet``, ``out/*/icos.parquet`` or ``out/*/*.parquet``.
* An export removes only what it made: its own staging folder, the previous
  snapshot folder of the day it replaces, and the staging folders of killed
  exports (real folders named ``.icoframes-staging-*``, owned by the user,
  holding the lock file an export makes first, which nobody holds). It never
  follows a symbolic link: the day's ``snapshot_date=`` entry being a link (or a file) is
  refused before any request (ConfigError, nothing moved), a planted
  ``.icoframes-staging*`` link is left alone.
* A snapshot folder is swapped in whole: the previous folder of the same day is
  renamed aside, the new one renamed into place, and the old one deleted after.
  A reader sees the old snapshot or the new one (or, for the instant between
  the two renames, none), never a mix; an export killed in that instant leaves
  the old one in its staging folder, and the next export puts it back.
* A plain export cannot be swapped as one folder, because ``out`` itself is
  the export: readers (:func:`icoframes.read_export`, ``out/icos.parquet`` in
  DuckDB) name its files directly, so a ``current`` symlink or a versioned
  subfolder would move every reader's path, and symlinks need privileges on
  Windows. ``manifest.json`` is the commit record instead: the old manifest is
  removed *first*, each table file is renamed into place (each rename atomic),
  and the new manifest is renamed in *last*. So whenever ``manifest.json``
  exists, the tables beside it are the ones it describes; a folder without one
  is an export in progress or one that was killed mid-swap (the next run
  completes it). A reader racing a running export reads ``manifest.json``
  before and after the tables and retries when it changed
  (:mod:`icoframes.exported`).
* Two exports into one ``out`` swap one at a time (``flock`` on ``out`` itself, so no lock file
  is left in it; a ``.icoframes-swap.lock`` file on Windows). What ``out`` holds (its layout; a
  tree's query) is checked before any request, once no swap is under way, and again under that
  lock before the swap: of two exports begun into one ``out`` that each found nothing in the
  way, the later to swap is refused there. The staging folder of a killed export is removed by
  the next run; that of a running export is not (each holds a lock on its folder while it runs,
  which the operating system releases when the process dies). After an export, ``out`` holds
  the export and nothing else of icoframes'.
* An export whose query lists no ICO raises :class:`~icoframes.errors.EmptyResult` and writes
  nothing, unless ``allow_empty=True``; ICOs listed but none fetched make an incomplete export.

``manifest.json`` records the arguments, the rows per table, the requests this
export spent (per endpoint in ``requests_spent``, and ``requests_total``), each
list query (its parameters, whether it was complete, whether it came from the
cache, its rows, when it was fetched, values lost) and as given (``queries_given``,
``resolution_changed``: see :func:`export_tables`), ``complete``, ``missing``,
``not_refreshed`` (see below), the fetch times of the oldest and newest exported profile
(``profiles_fetched``; null when the ``icos`` table has no ``fetched_at``
column), ``problems`` (the number of unreadable values), ``exported_at`` (when
the export was written, UTC) and what wrote it (``package_version``, ``parser_version``,
``parser_fingerprint``). ``lists_fresh_after`` and ``lists_fetched`` say how fresh the lists
are (see above).

Incomplete is an outcome, not a success. An export that could not fetch
everything still writes what it fetched, with ``complete: false`` and what it
lacks: ``missing`` (each listed ICO without a row: ``id``, ``name``, ``state``
(failed, gone, not_fetched) and ``reason``), ``not_refreshed`` (each row kept
from an earlier fetch because its new fetch failed or the budget ran out:
``id``, ``reason``, ``fetched_at``) and, per query, ``complete: false`` for a
list that came back partial. ``icoframes export`` then exits 5 (unless
``--allow-incomplete``); :func:`icoframes.changes` reads ``missing`` and the
partial lists so that such gaps never show as removed and new ICOs.

The daily limit (the service's error 485, or the ``daily_quota`` setting) that
stops the load part way makes such an export too: the rows it has, the ids it
left out in ``missing`` with reason ``"quota"``, the rows kept from an earlier
fetch that it stopped before fetching again in ``not_refreshed`` with reason
``"quota"`` (changed, or older than its maximum age), and ``stopped`` (``by``
``"service"`` or ``"daily_quota"``, ``code``, ``remaining``, ``message``).
:class:`~icoframes.errors.QuotaExceeded` is raised, and nothing written, only
when the limit came before anything the export may use was listed: no list page
answered, or only a list cached before ``lists_fresh_after``.
"""

from __future__ import annotations

import datetime as dt
import os
from functools import partial
from typing import Any, Unpack, cast

import pyarrow as pa

from .api.params import Status
from .clockguard import check_clock
from .dayfolder import check_layout, check_tree, given_queries, keep_exported, same_day
from .daylists import (
    adds_nothing,
    changed_meanwhile,
    damaged_day,
    day_manifest,
    kept_day,
    newer_day,
    nothing_paged,
    stale_lists,
)
from .errors import (
    EmptyResult,
    ExportBusy,
    IcoframesWarning,
    InvalidParameter,
    QuotaExceeded,
    check_flags,
    checked_keywords,
    warn,
)
from .exported import MANIFEST, SNAPSHOT_PREFIX, manifest_of
from .exportresult import ExportResult
from .fetch import Load
from .files import atomic_write_bytes, atomic_write_table, utc_time, utcnow
from .loaders import DEFAULT_MAX_AGE, ListFilters, MaxAge, ProfileMaxAge, Refresh, load_tables
from .manifest import (
    code_identity,
    dump,
    jsonable,
    listed,
    lists_fresh_after,
    not_refreshed,
    nothing_matched,
    oldest_newest,
    profile_ages,
    seconds_given,
    stop_record,
    told_as_kept,
)
from .paths import folder_path
from .queries import build_queries, check_keywords, check_load_arguments, keywords_of, read_once
from .reporting import LoadReport
from .roworder import in_key_order
from .schema import PROBLEM_SUMMARY, TABLES
from .staging import (
    STAGING_PREFIX,
    Staging,
    check_replaceable,
    full_disk_said,
    swap_files,
    swap_folder,
    swap_lock,
)
from .swaps import confirm
from .tablefiles import check_out

__all__ = ["MANIFEST", "STAGING_PREFIX", "ExportResult", "export_tables"]


@checked_keywords
def export_tables(
    out: str | os.PathLike[str],
    *,
    status: Status | None = None,
    snapshot: bool = False,
    refresh: Refresh = False,
    max_age: MaxAge = DEFAULT_MAX_AGE,
    profile_max_age: ProfileMaxAge = None,
    budget: int | None = None,
    allow_empty: bool = False,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    **filters: Unpack[ListFilters],
) -> ExportResult:
    """Load every table for the matching ICOs and write them as Parquet with a manifest.

    Parameters
    ----------
    out : path-like
        The export folder (created when missing; it must be writable). ``~`` is
        expanded; a shell variable (``"$HOME/x"``) is refused, with the path it names.
    status, refresh, profile_max_age, budget, max_workers, progress, **filters
        As for :func:`icoframes.load_tables`.
    max_age : timedelta, str or seconds, default one day
        A cached list is used only when it was fetched during the current UTC
        day and is younger than this; otherwise it is re-paged (so a daily cron
        export always holds that day's lists). ``None``: cached lists never expire
        (a snapshot still re-pages a list no run paged that UTC day), but a list
        whose paging fails is never answered by one cached before the current UTC
        day, as with any ``max_age``.
    snapshot : bool, default False
        Write under ``out/snapshot_date=<UTC date>/`` (the day the export began,
        when its lists were paged, even if it ends after midnight), replacing that
        day's snapshot of the same query (a tree holding a snapshot of another
        query, of any day, is refused: InvalidParameter; the same query as given whose
        names the filter set now resolves to other ids is none: the manifest's
        ``queries_given`` and ``resolution_changed``). A list paged that UTC day
        by an earlier run is used as it is (``refresh=True`` re-pages it now).
    allow_empty : bool, default False
        Write empty tables when no ICO matches, instead of raising.
    cache_dir : path-like, optional
        Overrides the configured cache dir.

    Returns
    -------
    ExportResult
        Where the export went (``path``), ``complete``, ``rows``,
        ``requests_spent``, ``requests_total``, ``missing``, ``not_refreshed``,
        ``exported_at``, ``stopped``, ``report`` (the load's
        :class:`~icoframes.LoadReport`) and the whole ``manifest`` as written; or, when
        this export was incomplete and fetched nothing newer than the day's complete export
        already written, that export, kept (``kept``; a warning says so).

    Raises
    ------
    ConfigError
        ``out`` cannot be created or written, or the day's ``snapshot_date=`` entry is a
        symbolic link or a file (raised before any request); or the settings are incomplete.
    InvalidParameter
        An argument is refused (``out`` a file, a FIFO, or under a file: no folder); or,
        with ``snapshot``, ``out`` holds a snapshot of
        another query, of this day or another (raised before any list or profile
        request: a tree holds one query); or ``out`` holds the other layout (a plain
        export for a snapshot, snapshots for a plain export); or, incomplete, the day's
        export it would replace has a damaged table (its rows cannot be kept).
    ExportBusy
        Another export holds the swap too long, or swapped in meanwhile what this one
        may not replace: the day with a list newer than this export's (nothing written).
    ClockBehind
        With ``snapshot``, the tree holds a day dated after today, or exported later than
        the clock says it is now (by more than a minute): the clock was set back, or a
        clock ahead wrote that day. Raised
        before any request, and again before the swap; nothing is written.
    DiskFull
        The disk holding ``out`` filled up while the export made its staging folder, wrote
        its files or swapped them in: nothing is written, the export it would replace is
        whole (a plain export's swap cut half way leaves no manifest until the next run).
    EmptyResult
        No ICO was listed and ``allow_empty`` is False; nothing was written.
    ServiceUnavailable
        The service did not answer (after the retries); or no list could be paged, only
        lists an earlier run cached that day were left: nothing is written, either layout.
    QuotaExceeded
        The daily limit came before anything this export may use was listed:
        nothing is written, what was fetched is cached, and the next run
        resumes. (A limit reached later makes an incomplete export, returned.)

    Examples
    --------
    >>> import icoframes, json, tempfile
    >>> from icoframes import sandbox
    >>> with sandbox.serve(n_icos=40) as sb:
    ...     _ = icoframes.configure(**sb.settings(), cache_dir=tempfile.mkdtemp())
    ...     manifest = export_tables(tempfile.mkdtemp(), status="past", snapshot=True,
    ...                              progress=False)
    >>> icoframes.reset_configuration()
    >>> manifest.path.name.startswith("snapshot_date="), manifest.complete
    (True, True)
    >>> manifest.rows["icos"] > 0, manifest.requests_spent["icos"] > 0
    (True, True)
    >>> written = json.loads((manifest.path / "manifest.json").read_text())
    >>> written == manifest.manifest, written["rows"] == manifest.rows
    (True, True)
    """
    check_keywords(filters, keywords_of(export_tables))  # snapshott=True: did you mean
    filters = cast(ListFilters, read_once(filters))  # a generator: read once, as recorded
    folder = folder_path(out, "out")
    check_out(folder)  # a file there: named, not "cannot be written (File exists)"
    budget = check_load_arguments(budget=budget)  # a Python int: the manifest is JSON
    check_flags(snapshot=snapshot, allow_empty=allow_empty)  # "no" would be a snapshot
    now = utcnow()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    fresh_after = lists_fresh_after(max_age, now)  # lists fetched before today are re-paged
    if snapshot:  # the day's service: a list paged that day (a run ago), never an older one
        fresh_after = fresh_after or today
    list_max_age = None if fresh_after is None else now - fresh_after
    load = Load(progress=progress, max_workers=max_workers, cache_dir=cache_dir)
    # a failed paging is never answered by a copy cached before today (or max_age, never
    # before it), even with max_age=None; a snapshot's, by any list paged that day (rows never
    # replaced by fewer). A list is dated by its page 1 (a later list's rows win in later
    # loads), at latest the run's day's last ms: the next day's run pages it again
    load.lists_after = today if snapshot else fresh_after or today
    load.lists_by = today + dt.timedelta(days=1, milliseconds=-1)
    # the day it began, when its lists were paged (its end may be past midnight)
    day = folder / f"{SNAPSHOT_PREFIX}{now.date().isoformat()}"
    check_layout(folder, snapshot=snapshot)  # one layout per out: before any request
    if snapshot:  # the day's entry a link or a file: refused before any request
        check_replaceable(day)
        check_clock(folder)  # a clock set back would file now's service under an earlier day
    with Staging(folder) as staging:  # out is checked writable here: no request yet
        # again: a killed export's day, put back by Staging, may make out a tree
        check_layout(folder, snapshot=snapshot)
        asked = build_queries(status, filters, load._filter_set,  # cached a day: no request
                              keywords=keywords_of(load_tables)) if snapshot else []
        given = given_queries(filters, asked) if snapshot else []  # as given: not today's ids
        # one query's days, no other's: looked at while no swap is under way (a day renamed
        # away by its swap is no day of another query, nor the tree's last day)
        resolved = confirm(folder, partial(check_tree, folder, day, asked, given=given, sent=any(
            load.requests_spent().values())), exporting=True)[0] if snapshot else None
        # the day's lists (another cache dir's, maybe): a cached list older is paged again
        held = confirm(folder, partial(day_manifest, day if snapshot else folder,
                                       None if snapshot else today), exporting=True)[0]
        load.repaged = frozenset([] if held is None else stale_lists(asked or build_queries(
            status, filters, load._filter_set, keywords=keywords_of(load_tables)), held,
            load.cache.list_fetched_at))
        stop: QuotaExceeded | None = None
        with told_as_kept(load.offline) as told:  # the load's warnings, as kept rows leave them
            try:
                tables = load.tables(status, filters, refresh=refresh, max_age=list_max_age,
                                     profile_max_age=profile_max_age, budget=budget,
                                     only_icos=False, keywords=keywords_of(load_tables))
            except QuotaExceeded as exc:  # the daily limit: export what was listed and fetched
                stop, listing = exc, exc.listing
                if listing is None or not listed(listing, fresh_after):
                    raise  # nothing this export may use was listed: nothing is written
                tables = load.tables_of(listing, status, filters, only_icos=False)
            stated = tables.icos.attrs.get("icoframes", {})  # what the loaders say of the rows
            queries = list(stated.get("queries", []))
            if stop is None:  # no list paged now: either layout's export of the day as it was
                nothing_paged(queries, now, day if snapshot else folder,
                              None if snapshot else today, snapshot=snapshot)
            # a day's exported rows are never replaced by fewer: a plain export's when the
            # manifest read with them is of this day and query (one read, no other between)
            looked: dict[str, Any] = {}  # the day's manifest, if read: again at the swap
            kept = keep_exported(day if snapshot else folder, tables, stated,
                                 since=None if snapshot else today, looked=looked)
            damage = looked.get("damage") if isinstance(looked.get("manifest"), dict) else None
            if damage and (snapshot or same_day(looked["manifest"], folder, today, stated)):
                raise InvalidParameter(damaged_day(day if snapshot else folder, damage))
            if snapshot or kept[0] is not tables:
                tables, stated = kept
                told["stated"] = stated
                queries = list(stated.get("queries", []))
            if not snapshot:  # a plain export's queries are known once listed: as given, too
                given = given_queries(filters, [q.get("params") or {} for q in queries])
        # ICOs listed but none fetched (a budget of 0, an empty cache): the query matched them
        if not (len(tables.icos) or allow_empty or stop is not None or stated.get("missing")):
            raise EmptyResult(nothing_matched(queries, status, filters))
        # rows in a declared order, not in the order they came (icoframes.roworder)
        tables = in_key_order(tables, filters)
        exported_at = utcnow()
        stale = sorted([*not_refreshed(tables.icos, stated), *stated.get("day_kept", [])],
                       key=lambda row: row["id"])
        summary = tables.problem_summary()
        manifest: dict[str, Any] = {
            "arguments": {"status": status, "snapshot": snapshot, "refresh": refresh,
                          "max_age": seconds_given(max_age),  # " 3 ": 3.0, as the load read it
                          "profile_max_age": seconds_given(profile_max_age), "budget": budget,
                          "allow_empty": allow_empty, "filters": jsonable(filters)},
            "rows": {name: len(tables[name]) for name in TABLES},
            "requests_spent": load.requests_spent(),
            "requests_total": sum(load.requests_spent().values()),
            "queries": [jsonable(q) for q in queries],
            "queries_given": jsonable(given) or None,
            "resolution_changed": jsonable(resolved) if resolved else None,
            "lists_fresh_after": None if fresh_after is None else fresh_after.isoformat(),
            "lists_fetched": oldest_newest(q.get("fetched_at") for q in queries),
            "complete": bool(stated.get("complete",
                                        all(bool(q.get("complete")) for q in queries)))
                        and not stale and stop is None,
            "missing": [jsonable(m) for m in stated.get("missing", [])],
            "not_refreshed": stale,
            "stopped": stop_record(stop, stated),
            "profiles_fetched": profile_ages(tables.icos),
            "problems": len(tables.problems),
            "problems_by_column": {f"{t}.{c}": int(n) for t, c, n in zip(
                summary["table"], summary["column"], summary["count"], strict=True)},
            "exported_at": exported_at.isoformat(),
            **code_identity(),  # package_version, parser_version, parser_fingerprint
        }
        replaced = "Nothing was written: the " + (
            "day's snapshot" if snapshot else "export") + " it would replace is whole"
        with full_disk_said(folder, replaced):  # a full disk is said in one line: no bug
            tables.to_parquet(staging.data)
            # problems.parquet has one row per unreadable value (ico_id, table, column, value);
            # its per-column summary is written beside it, for a glance
            atomic_write_table(pa.Table.from_pandas(
                summary, schema=PROBLEM_SUMMARY.arrow_schema(), preserve_index=False),
                staging.data / "problem_summary.parquet")
            atomic_write_bytes(staging.data / MANIFEST, dump(manifest))
        target = day if snapshot else staging.out
        with swap_lock(staging.out):
            # what holds: an export of the other layout, or of another query, may have
            # swapped its files in since the checks before any request
            check_layout(folder, snapshot=snapshot, sent=True, swapping=True)
            if "manifest" in looked and manifest_of(day if snapshot else folder) != looked[
                    "manifest"]:
                raise ExportBusy(changed_meanwhile(day if snapshot else folder))
            newer = newer_day(day if snapshot else folder, held, manifest["queries"],
                              None if snapshot else today, load.cache.list_fetched_at)
            if newer is not None:  # the day's lists newer than this export's: never replaced
                raise ExportBusy(newer)
            # a complete day is not replaced by a run that met the limit (or failures) before
            # it could refresh anything: the same rows, only marked stale
            whole = day_manifest(day if snapshot else folder, None if snapshot else today)
            if whole is not None and adds_nothing(whole, manifest):
                warn(kept_day(day if snapshot else folder, whole, manifest), IcoframesWarning)
                return ExportResult(
                    path=target, complete=True, rows=whole["rows"],
                    requests_spent=manifest["requests_spent"],
                    requests_total=manifest["requests_total"], missing=whole.get("missing", []),
                    not_refreshed=whole.get("not_refreshed", []),
                    exported_at=utc_time(whole.get("exported_at")) or exported_at,
                    stopped=manifest["stopped"], report=tables.report or LoadReport(),
                    manifest=whole, kept=True)
            # a signal held back during the swap is raised after it: the export is written
            note = f"{target} was written ({'' if manifest['complete'] else 'in'}complete)"
            if snapshot:
                check_clock(folder, sent=True)  # the clock read again: it may have stepped
                check_tree(folder, day, asked, given=given, sent=True, note=False)
                with full_disk_said(folder, replaced):  # the previous day is put back
                    swap_folder(staging.data, target, staging.scratch, note)
            else:  # cut half way, out has no manifest: the next run completes the swap
                with full_disk_said(folder, "The swap stopped half way: the folder holds no "
                                    "manifest (an export in progress) until the next run"):
                    swap_files(staging.data, target, note)
    return ExportResult(path=target, complete=manifest["complete"], rows=manifest["rows"],
                        requests_spent=manifest["requests_spent"],
                        requests_total=manifest["requests_total"], missing=manifest["missing"],
                        not_refreshed=manifest["not_refreshed"], exported_at=exported_at,
                        stopped=manifest["stopped"], report=tables.report or LoadReport(),
                        manifest=manifest)
