"""A snapshot tree holds one query: a day's folder is never replaced by another query's,
and a tree's days are never of two queries.

``out/snapshot_date=YYYY-MM-DD/`` holds one export per UTC day: its rows carry no
query, and :func:`icoframes.read_snapshots` and :func:`icoframes.changes` take the
folder as what the service listed that day, and consecutive folders as one query's
days. So a snapshot of another query the same day cannot be kept beside it (swapping
it in would lose the first query's rows), and one of another query on another day
would read as every ICO of the one query removed and the other's new:
:func:`check_tree` refuses either before any list or profile request.

A day's rows are never replaced by fewer: a re-run whose list comes back partial keeps the
rows the day's earlier list had (the load does, from the cache), and :func:`keep_exported`
those the day's snapshot holds that the cache no longer does (cleared, another cache dir).
"""

from __future__ import annotations

import datetime as dt
import json
import numbers
import os
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from .api.params import ID_LIST_PARAMS
from .errors import ExportMismatch, ExportReplaced, InvalidParameter, StaleWarning, warn
from .exported import (
    MANIFEST,
    SNAPSHOT_PREFIX,
    dicts,
    looked,
    manifest_damage,
    manifest_of,
    query_params,
    read_export,
    read_manifest,
)
from .fetch.result import recounted
from .files import utc_time
from .numerals import as_integer
from .queries import PLACE_PARAMS
from .reporting import LoadReport
from .tables import Tables

__all__ = ["check_layout", "check_one_query", "check_same_query", "check_tree",
           "given_queries", "held_queries", "held_query", "keep_exported", "query_key", "same_day"]


# the order rows are listed in: the same rows, whichever of them is asked
_SORTS = ("sort_asc", "sort_desc")


def query_key(params: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """What a snapshot's list queries select (their wire parameters, sorts and unset ones
    left out), comparable with another snapshot's.

    Examples
    --------
    >>> query_key([{"status": "past", "sort_asc": "id", "platform": None}]) == \\
    ...     query_key([{"status": "past"}])
    True
    """
    return frozenset(json.dumps({k: v for k, v in p.items() if v is not None and k not in _SORTS},
                                sort_keys=True, default=str) for p in params)


def held_query(folder: Path) -> list[dict[str, Any]] | None:
    """The wire parameters of the list queries of the export in ``folder`` (one dict per
    query), or None when it says none: no manifest, one of an older version, or one that
    cannot be read (a damaged folder of another day never blocks the day's export)."""
    return held_queries(folder)[0]


def given_queries(filters: Mapping[str, Any], asked: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """``asked`` (the wire parameters of each list query) with each platform, category, type
    and place as the user gave it (names folded, ids as numbers), not as the filter set
    resolves it that day: the manifest's ``queries_given``. A name may resolve to other
    ids another day (the directory lists it twice, or drops a copy): the same query.

    Examples
    --------
    >>> given_queries({"platform": [" ETHEREUM", "7"]}, [{"status": "past", "platform": [1, 7]}])
    [{'status': 'past', 'platform': [7, 'ethereum']}]
    """
    given = {key: sorted({_folded(v) for v in ([value] if isinstance(value, str | numbers.Number)
                                                else list(value))}, key=str)
             for key in (*ID_LIST_PARAMS, *PLACE_PARAMS) if (value := filters.get(key)) is not None}
    return [{**params, **given} for params in asked]


def _folded(value: Any) -> Any:
    number = as_integer(value)  # ASCII, as ids are
    if number is not None:
        return number
    return str(value).strip().casefold()


def held_queries(folder: Path) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """:func:`held_query` of ``folder``, and its queries as given (None when its manifest,
    an older version's, does not say them)."""
    try:
        manifest = read_manifest(folder) if folder.is_dir() else None
    except (OSError, ValueError):  # unreadable, or not JSON: it says nothing of its query
        return None, None
    if manifest is None:
        return None, None
    held = query_params(manifest)
    return held, None if held is None else dicts(manifest.get("queries_given"))


def _same_query(pairs: Iterable[tuple[list[dict[str, Any]], list[dict[str, Any]] | None]]
                ) -> Callable[[list[dict[str, Any]]], Any]:
    """Which query each of ``pairs`` (wire parameters, and as given or None) is: queries
    are the same when their ids are, or their forms as given, or a chain of such links
    joins them. Returns the query of wire parameters (of one of ``pairs``)."""
    parent: dict[tuple[str, frozenset[str]], tuple[str, frozenset[str]]] = {}

    def root(node: tuple[str, frozenset[str]]) -> tuple[str, frozenset[str]]:
        while parent.setdefault(node, node) != node:
            node = parent[node]
        return node

    for held, given in pairs:
        if given is not None:
            parent[root(("ids", query_key(held)))] = root(("given", query_key(given)))
    return lambda held: root(("ids", query_key(held)))


def check_same_query(folder: Path, asked: list[dict[str, Any]], out: Path, *,
                     sent: bool = False, given: list[dict[str, Any]] | None = None) -> None:
    """InvalidParameter when ``folder`` (the day's snapshot) holds an export of another
    query than ``asked`` (this export's wire parameters, one dict per list query; ``given``:
    :func:`given_queries`, the same query when the held export's are those).

    A folder without a manifest, or whose manifest names no query (written by an
    older version), says nothing of its query: it is replaced, as ever.
    """
    held, held_given = held_queries(folder)
    if held is None or query_key(held) == query_key(asked) or (
            given is not None and held_given is not None
            and query_key(held_given) == query_key(given)):
        return
    raise InvalidParameter(
        f"{folder} holds this day's snapshot of another query ({_shown(held)}); this export "
        f"asks for {_shown(asked)}, and the folder holds one export a day: replacing it would "
        f"lose that query's rows of the day. {_nothing(sent)}. Export this query into another "
        f"folder (--out {_other(out, asked)}), or move that snapshot folder away first to "
        "replace it.")


def check_layout(out: Path, *, snapshot: bool, sent: bool = False,
                 swapping: bool = False) -> None:
    """InvalidParameter when ``out`` holds exports of the other layout: a plain export
    (``manifest.json``) for a snapshot, or ``snapshot_date=`` folders for a plain export;
    or a ``manifest.json`` that is no file (a symbolic link, a folder: damage, as the readers
    say) for a snapshot, or a folder of that name for a plain export (no swap replaces it;
    a plain export's swap replaces a link or a FIFO, as it does a manifest that is not JSON).

    Either would be written beside the other, and :func:`icoframes.read_export` then refuses
    ``out`` (a folder holding snapshots is no one export). Checked before any request, once
    no swap is under way when an export runs in ``out`` (a day renamed away, a plain
    export's manifest removed: the other layout seen as none); and again, the check that
    holds, under this export's swap lock (``swapping``; ``sent``: what it fetched is cached):
    an export of the other layout begun into the same empty ``out`` may have swapped in.
    """
    if not out.is_dir():
        return
    names, (damage, plain) = (os.listdir(out), _layout(out)) if swapping else looked(
        out, partial(_layout, out), exporting=True)  # a look under the lock would wait for us
    plain = plain and damage is None
    days = sorted(name for name in names if name.startswith(SNAPSHOT_PREFIX))
    if damage is not None and (snapshot or damage == "a folder"):
        raise InvalidParameter(  # a plain export's swap could not replace a folder
            f"{out / MANIFEST} is {damage}, not an export's manifest: {out} is "
            f"damaged (read_export refuses it). "
            f"{_nothing(sent) if sent else 'Nothing was sent or written'}. Move it away "
            "(or give --out a folder of its own), then export again.")
    if snapshot and plain:
        raise InvalidParameter(
            f"{out} holds a plain export ({MANIFEST} and its tables); a snapshot folder in it "
            f"would make read_export({str(out)!r}) refuse it, as a folder of snapshots. "
            f"{_nothing(sent)}. Give --snapshot exports an --out of their own (or move the "
            "plain export away first).")
    if not snapshot and days:
        raise InvalidParameter(
            f"{out} is a snapshot tree ({len(days)} snapshot folder(s), {days[0]} ...); a plain "
            "export written into it could not be read by read_export (a folder of snapshots "
            f"is no one export). {_nothing(sent)}. Did you mean --snapshot "
            "(snapshot=True)? Or give the plain export an --out of its own.")


def _layout(out: Path) -> tuple[str | None, bool]:
    return manifest_damage(out), (out / MANIFEST).is_file()


def check_tree(out: Path, day: Path, asked: list[dict[str, Any]], *,
               sent: bool = False, given: list[dict[str, Any]] | None = None,
               note: bool = True) -> list[dict[str, Any]]:
    """InvalidParameter when the snapshot tree ``out`` holds an export of another query than
    ``asked``: the day's folder (:func:`check_same_query`), or another day's.

    Checked before any request, and again before the swap (``sent``: an export of another
    query swapped its folder in meanwhile; what this one fetched is cached). Folders whose
    manifest names no query (older versions) say nothing: they are no other query. A query
    whose form as given (``given``, :func:`given_queries`) is that of a snapshot is the same,
    though its names now resolve to other ids. When they resolved otherwise on the tree's
    last day, the earlier resolutions are returned (the manifest's ``resolution_changed``:
    ``snapshot_dates`` and their ``params``) and said (a warning) when ``note``.
    """
    check_same_query(day, asked, out, sent=sent, given=given)
    held: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]] | None]] = {}
    for child in sorted(out.iterdir()) if out.is_dir() else []:
        if child.name.startswith(SNAPSHOT_PREFIX) and child != day and not child.is_symlink():
            params, as_given = held_queries(child)
            if params is not None:
                held[child.name.removeprefix(SNAPSHOT_PREFIX)] = (params, as_given)
    query = _same_query([*held.values(), (asked, given)])
    mine = query_key(asked)
    # per other query, its resolutions (one query as given may have resolved to several)
    others: dict[Any, dict[frozenset[str], tuple[list[dict[str, Any]], list[str]]]] = {}
    otherwise: dict[frozenset[str], tuple[list[dict[str, Any]], list[str]]] = {}
    for date, (params, _) in held.items():
        if query_key(params) != mine:
            kind = otherwise if query(params) == query(asked) else others.setdefault(
                query(params), {})
            kind.setdefault(query_key(params), (params, []))[1].append(date)
    if others:
        shown = "; and ".join(", then ".join(f"{_shown(h)} ({_days(dates)})"
                                            for h, dates in other.values())
                              for other in others.values())
        raise InvalidParameter(
            f"{out} is a snapshot tree of another query: {shown}; this export asks for "
            f"{_shown(asked)}. A tree holds one query: read_snapshots and changes compare its "
            "days as one query's, so every ICO of the one would read as removed and the "
            f"other's as new. {_nothing(sent)}. Start a new tree for this query (--out "
            f"{_other(out, asked)}), or move {out}'s snapshot_date= folders away first.")
    if held and query_key(held[max(held)][0]) == mine:  # resolved otherwise before the last
        otherwise = {}  # day: that day's manifest said so
    if otherwise and note:
        warn(f"the query as given ({_shown(given or asked)}) is that of {out}'s snapshots, but "
             "the service's filter set now resolves its names to other ids: "
             f"{_shown(asked)}, was " + "; and ".join(
                 f"{_shown(h)} ({_days(dates)})" for h, dates in otherwise.values())
             + ". The tree stays one query's (the manifest's resolution_changed says so); "
             "changes() shows the ICOs of ids it gained as new, of ids it lost as removed")
    return [{"snapshot_dates": dates, "params": h} for h, dates in otherwise.values()]


def same_day(manifest: Mapping[str, Any] | None, out: Path, since: dt.datetime,
             stated: Mapping[str, Any]) -> bool:
    """Whether ``manifest`` (of the plain export in ``out``, read with its rows) is of this
    day (exported since ``since``, the UTC day's start, and before its end: a time in the
    future is said, no day's) and this export's query (``stated["queries"]``): another day's
    rows never stand in for this day's, another query's are not this one's."""
    held = None if manifest is None else query_params(dict(manifest))
    asked = [q["params"] for q in stated.get("queries") or []
             if isinstance(q, dict) and isinstance(q.get("params"), dict)]
    at = utc_time((manifest or {}).get("exported_at"))
    if held is None or not asked or query_key(held) != query_key(asked) or at is None:
        return False
    if at >= since + dt.timedelta(days=1):  # a clock set wrong, or a hand edit
        warn(f"{out / MANIFEST} says it was exported at {at.isoformat()}, after this day "
             f"({since.date().isoformat()} UTC): a time in the future names no day, its rows "
             "do not stand in for this day's")
        return False
    return at >= since


def keep_exported(day: Path, tables: Tables[LoadReport], stated: Mapping[str, Any], *,
                  since: dt.datetime | None = None, looked: dict[str, Any] | None = None
                  ) -> tuple[Tables[LoadReport], dict[str, Any]]:
    """``tables`` with the rows of ``day`` (the day's snapshot, of this query; or, ``since``
    the UTC day's start, a plain export's folder: when the manifest read with its rows is of
    this day and query, :func:`same_day`) that this export lacks though the day exported
    them, and ``stated`` (what the load says of its rows) saying so; the tables' report too.

    Two kinds of rows are kept, with their rows of every table as exported:

    * of a list that came back partial, each row of its status that no list of this
      export holds (fetched, or ``missing``: one listed under another status moved there):
      its query's ``kept`` counts it (``from_snapshot``, or ``from_export`` for a plain
      export's folder), and the query is as old as the list that listed it (``fetched_at``);
    * of an ICO listed now whose profile is not cached and could not be fetched (the daily
      limit, the budget, a failure; not one the service no longer has): out of
      ``missing``, into ``day_kept`` (``id``, ``reason``, ``fetched_at``: rows kept from
      an earlier fetch), with the status it is listed under now.

    The first needs the cache to have lost the day's list, the second its profiles (the
    load keeps what the cache holds): the cache cleared, or another cache dir. ``looked``
    receives the day's ``manifest`` (:func:`~icoframes.exported.manifest_of`), if looked at,
    and ``damage`` (why its rows could not be read, when they could not).
    """
    out = dict(stated)
    queries: list[dict[str, Any]] = list(stated.get("queries") or [])
    missing: list[dict[str, Any]] = [m for m in stated.get("missing") or []
                                     if isinstance(m, dict) and m.get("id") is not None]
    partial = {q["params"].get("status"): q for q in queries
               if not q.get("complete") and isinstance(q.get("params"), dict)}
    if not (partial or missing):
        return tables, out
    looked = {} if looked is None else looked
    try:  # a folder renamed away by another export's swap is waited for, not taken as none
        earlier = read_export(day)
    except (OSError, ValueError, ExportReplaced) as exc:  # none there (killed mid-swap), a
        # damaged one, or one another export keeps replacing: nothing to keep. Its manifest
        looked["manifest"] = manifest_of(day)  # as the swap reads it: a damaged table's has one
        looked["damage"] = None if isinstance(exc, ExportReplaced) else str(exc)
        return tables, out
    manifest = looked["manifest"] = earlier.icos.attrs["icoframes"]["manifest"]
    if since is not None and not same_day(manifest, day, since, stated):
        return tables, out
    kind = "snapshot" if day.name.startswith(SNAPSHOT_PREFIX) else "export"
    rows = earlier.icos.set_index("id", drop=False)
    listed = {int(m["id"]): m for m in missing}
    unlisted = rows[rows["status"].isin(list(partial))
                    & ~rows["id"].isin([*listed, *tables.icos["id"].tolist()])]
    refetch = [listed[i] for i in rows.index if i in listed and listed[i].get("state") != "gone"]
    if unlisted.empty and not refetch:
        return tables, out
    held = {(q.get("params") or {}).get("status"): q for q in
            (manifest or {}).get("queries") or []
            if isinstance(q, dict)}
    out["queries"] = [_kept_query(q, unlisted, held, kind) if q is partial.get(
        (q.get("params") or {}).get("status")) else q for q in queries]
    again = {int(m["id"]) for m in refetch}
    out["missing"] = [m for m in stated.get("missing") or [] if m.get("id") not in again]
    out["failed"] = {k: v for k, v in (stated.get("failed") or {}).items() if int(k) not in again}
    when = rows["fetched_at"] if "fetched_at" in rows else pd.Series(None, index=rows.index)
    out["day_kept"] = [{"id": int(m["id"]), "reason": f"{m.get('reason')} (the row of the "
                        f"day's {kind} kept)", "fetched_at": _stamp(when.at[m["id"]])}
                       for m in refetch]
    extra = earlier.subset([*unlisted["id"].tolist(), *again])
    moved = {int(m["id"]): m["status"] for m in refetch if m.get("status")}
    if moved:  # listed now under this status: the list says so, its row keeps the rest
        icos = extra.icos  # a day written before fetched_status: its status stands for it
        icos["fetched_status"] = icos["fetched_status"].fillna(icos["status"])
        icos["status"] = pd.Series([moved.get(i, s) for i, s in zip(
            icos["id"].tolist(), icos["status"].tolist(), strict=True)],
            index=icos.index, dtype=icos["status"].dtype)
    merged = Tables(**{name: _stacked(frame, extra[name]) for name, frame in tables.items()})
    warn(f"{len(extra.icos)} row(s) this export lacked are kept from the day's {kind} "
         f"{day.name if kind == 'snapshot' else day} (the cache no longer holds their list "
         f"or profile): {len(unlisted)} of a list that came back partial, {len(again)} listed "
         "but not fetched now (not_refreshed); the next run fetches them", StaleWarning)
    report = LoadReport.from_dict({**out, "not_refreshed": sorted(
        {*map(int, stated.get("not_refreshed") or []), *again})})  # day_kept rows too
    return merged.with_report(report), out


def _kept_query(query: dict[str, Any], unlisted: pd.DataFrame,
                held: Mapping[Any, Any], kind: str) -> dict[str, Any]:
    """A partial query's summary counting the rows kept of its status from the day's
    ``kind`` (snapshot, or plain export), its ``missing`` counted anew."""
    status = (query.get("params") or {}).get("status")
    ids = sorted(int(i) for i in unlisted.loc[unlisted["status"] == status, "id"])
    if not ids:
        return query
    listed_at = (held.get(status) or {}).get("fetched_at")
    kept: dict[str, Any] = dict(query.get("kept") or {"rows": 0, "ids": []})
    kept.update(rows=kept["rows"] + len(ids), ids=sorted([*kept["ids"], *ids]),
                fetched_at=_oldest(kept.get("fetched_at"), listed_at))
    kept[f"from_{kind}"] = len(ids)
    return recounted({**query, "kept": kept, "fetched_at": _oldest(
        query.get("fetched_at"), listed_at)}, int(query.get("rows") or 0) + len(ids))


def _stacked(frame: pd.DataFrame, more: pd.DataFrame) -> pd.DataFrame:
    """``frame`` then ``more`` (never a concat with an empty frame: pandas 2.2 warns)."""
    if not len(more):
        return frame
    return pd.concat([frame, more], ignore_index=True) if len(frame) else more


def _stamp(value: Any) -> str | None:
    return None if value is None or pd.isna(value) else pd.Timestamp(value).isoformat()


def _oldest(*stamps: Any) -> str | None:
    times = [t for t in map(utc_time, stamps) if t is not None]
    return min(times).isoformat() if times else None


def check_one_query(frame: pd.DataFrame, days: Iterable[Any] | None = None) -> None:
    """ValueError when the snapshots of ``frame`` (of :func:`icoframes.read_snapshots`) hold
    exports of different queries (a tree written before the export refused that): the ICOs
    of one would read as removed, the other's as new (:func:`icoframes.changes`,
    :func:`icoframes.plot_status_flow`). Snapshots whose manifest names no query are taken
    as the same; a frame without ``attrs`` says nothing. The same query as given whose
    names resolved to other ids (the manifests' ``queries_given``) is one query: a
    warning says from which snapshot on. ``days``: the days compared (by default the rows'
    ones; :func:`icoframes.snapshots.snapshot_dates` adds those without a row)."""
    dates = {pd.Timestamp(d).date().isoformat()
             for d in (frame["snapshot_date"].unique() if days is None else days)}
    infos = [info for info in (frame.attrs.get("icoframes") or {}).get("snapshots") or []
             if info.get("queries") and str(info.get("snapshot_date")) in dates]
    query = _same_query((info["queries"], dicts(info.get("queries_given"))) for info in infos)
    held: dict[Any, dict[frozenset[str], tuple[list[dict[str, Any]], list[str]]]] = {}
    for info in sorted(infos, key=lambda info: str(info["snapshot_date"])):
        held.setdefault(query(info["queries"]), {}).setdefault(
            query_key(info["queries"]), (info["queries"], []))[1].append(
            str(info["snapshot_date"]))
    if len(held) < 2:
        for resolved in held.values():
            if len(resolved) > 1:
                warn("the snapshots hold one query as given, whose names the service resolved "
                     "to other ids: " + "; then ".join(_resolved(q, d) for q, d in
                                                        resolved.values())
                     + ". They are compared as one query's: the ICOs of ids it gained read as "
                     "new, of ids it lost as removed")
        return
    shown = "; ".join(_resolved(q, d) for resolved in held.values() for q, d in resolved.values())
    raise ExportMismatch(
        f"the snapshots hold exports of {len(held)} different queries ({shown}): changes "
        "between them are no change at the service (the ICOs of one would read as removed, "
        "the other's as new). Read each query's snapshots apart: move one query's "
        "snapshot_date= folders into a tree of their own, or pass changes() the frame of "
        "read_snapshots filtered to one query's dates.")


def _resolved(queries: list[dict[str, Any]], dates: list[str]) -> str:
    shown = " | ".join(_shown([p]) for p in queries)
    more = f" to {dates[-1]}, {len(dates)} snapshots" if len(dates) > 1 else ""
    return f"{shown} ({dates[0]}{more})"


def _days(dates: list[str]) -> str:
    return (f"the snapshot of {dates[0]}" if len(dates) == 1
            else f"{len(dates)} snapshots, {dates[0]} to {dates[-1]}")


def _nothing(sent: bool) -> str:
    return "Nothing was written (what was fetched is cached)" if sent else "Nothing was sent"


def _other(out: Path, asked: list[dict[str, Any]]) -> Path:
    statuses = sorted({str(p.get("status")) for p in asked})
    return out.parent / f"{out.name}-{'-'.join(statuses) if len(statuses) == 1 else 'other'}"


def _shown(params: list[dict[str, Any]]) -> str:
    return "; ".join(", ".join(f"{k}={v}" for k, v in sorted(
        p.items(), key=lambda kv: kv[0] != "status") if v is not None) for p in params)
