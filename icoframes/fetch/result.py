"""What a load returns: the rows asked for, and what they answer and lack.

:func:`filter_set` answers ``load_filters``; :func:`state_of_result` turns a
load's summary into the result's report (one dict per listed id without a row,
``complete``, ``not_refreshed``) and says what is lacking in one warning;
:func:`assemble` keeps the tables' rows of the listed ICOs, in the listing's order (the other
tables' rows in the order of their ICOs' there).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection
from functools import cache
from typing import Any

import pandas as pd

from ..errors import IncompleteWarning, MissingProfileWarning, StaleWarning, warn
from ..files import CLEARED, utcnow
from ..parse.lists import filters_frame
from ..parse.problems import Problems, problems_of_load
from ..roworder import in_icos_order
from ..schema import ICOS, PROBLEMS, TABLES, empty_frame
from ..store.cache import Cache
from ..store.db import from_ms, ms
from ..store.derived import DerivedTables
from ..tables import Tables
from .paging import MOVED, STOOD_IN
from .policy import next_try

__all__ = ["REMOVED_BY_A_CLEAR", "assemble", "filter_set", "recounted", "state_of_result",
           "warn_gaps"]

#: The reason of a profile this load fetched (paid for) that its result lacks: a clear run
#: meanwhile removed it (nothing else removes a kept copy; one set aside is said so).
REMOVED_BY_A_CLEAR = f"fetched by this call, then {CLEARED}; the next online load fetches it again"


def filter_set(cache: Cache, fetch: Callable[[Callable[[Any], Any]], Any], *, refresh: bool,
               limit: dt.timedelta | None, offline: bool) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The filter set and the query it answers: the cached copy when fresh enough (or
    offline), else what ``fetch(keep)`` hands ``keep`` (one request), kept in the cache
    (``fetch`` returns what ``keep`` does: a Ctrl-C it holds is raised once it is kept)."""
    cached = cache.read_filters()
    if cached is not None and not refresh:
        frame, fetched_at, meta, _ = cached
        if offline or limit is None or utcnow() - fetched_at <= limit:
            return frame, {"params": "filters", "from_cache": True,
                           "fetched_at": fetched_at.isoformat(),
                           "problems": meta.get("problems") or []}
    asked = from_ms(ms(utcnow()))  # it is as old as the request (at the cache's precision)

    def keep(raw: Any) -> tuple[pd.DataFrame, dict[str, Any]]:
        lost = Problems()
        frame = filters_frame(raw, lost)
        cache.write_filters(raw, frame, problems=lost.records(), fetched_at=asked)
        return frame, {"params": "filters", "from_cache": False,
                       "fetched_at": asked.isoformat(), "problems": lost.records()}

    result: tuple[pd.DataFrame, dict[str, Any]] = fetch(keep)
    return result


def state_of_result(summary: dict[str, Any], listing: pd.DataFrame, present: Any, *,
                    cache: Cache, offline: bool, kept: Collection[int] = ()) -> dict[str, Any]:
    """Say what the result lacks: in the summary returned and in one warning.

    Parameters
    ----------
    summary : dict
        The load's summary of ``listing`` (queries, failed, gone, over_budget, requests;
        ``stopped`` and ``not_done`` when the daily limit stopped it).
    listing : DataFrame
        The listed rows the load answers.
    present : array-like of int, optional
        Ids that have a row in the result (``None``: only the lists count).
    cache : Cache
        Read for the fetch state of listed ids without a row.
    offline : bool
        The load was offline (what is not cached is missing for that reason).
    kept : collection of int, optional
        Ids whose outcome the load kept: one the cache lacks at the end (or whose row a
        result lacks), a clear run meanwhile removed (:data:`REMOVED_BY_A_CLEAR`).

    Returns
    -------
    dict
        ``summary`` plus ``complete`` and ``missing`` (one dict per listed id
        without a row: id, name, state, reason, and the status it is listed under)
        and ``not_refreshed``; a partial query whose rows reach its count says so in its
        ``missing_unknown`` (its ``missing`` is None).
    """
    summary = dict(summary)
    failed = summary.get("failed") or {}
    over_budget = set(summary.get("over_budget") or [])
    gone = set(summary.get("gone") or [])
    unasked = set(summary.get("not_done") or []) if summary.get("stopped") == "breaker" else set()
    missing: list[dict[str, Any]] = []
    if present is not None:
        lacking = listing[~listing["id"].isin(pd.Index(present))]
        if not lacking.empty:
            index = cache.profile_index()
            states = index.get("state")
            for ico_id, name, status in zip(lacking["id"].tolist(), lacking["name"].tolist(),
                                            lacking["status"].tolist(), strict=True):
                state = (states.get(ico_id) if states is not None
                         else ("fetched" if ico_id in index.index else None))
                if ico_id in failed:
                    state, reason = "failed", failed[ico_id] + _waiting(index, ico_id)
                elif state == "gone" or ico_id in gone:
                    state = "gone"
                    reason = "error 482: the service has no profile"
                elif ico_id in over_budget:
                    state, reason = "not_fetched", "the call's budget ran out"
                elif summary.get("stopped") == "quota" and state in (None, "not_fetched"):
                    state, reason = "not_fetched", "quota"  # the daily limit stopped it
                # a run of wrong answers left it unasked, its state kept: the stop says why,
                # then its last failure (not "not fetched", as if never asked)
                elif ico_id in unasked and state not in (None, "not_fetched"):
                    earlier = index["reason"].get(ico_id) if "reason" in index else None
                    reason = (f"{summary['stop']} (its last fetch, in an earlier load: "  # failed
                              f"{earlier if isinstance(earlier, str) else state})")
                elif summary.get("stopped") == "breaker" and state in (None, "not_fetched"):
                    state, reason = "not_fetched", summary["stop"]  # a run of bad items did
                elif state is None and ico_id in cache.set_aside:  # (this load's reading)
                    why, removed = cache.set_aside[ico_id]
                    state, reason = "not_fetched", f"its stored copy was set aside ({why}); " + (
                        "the next online load fetches it again" if removed else "the cache is "
                        "read-only here: a load that can write to it fetches it again")
                elif ico_id in kept and state in (None, "fetched"):  # (the only remover)
                    state, reason = state or "not_fetched", REMOVED_BY_A_CLEAR
                elif offline:
                    state, reason = "not_fetched", "offline, and not in the cache"
                else:
                    state = state or "not_fetched"
                    earlier = index["reason"].get(ico_id) if "reason" in index else None
                    reason = (earlier if isinstance(earlier, str) and earlier  # (NA: none)
                              else "not fetched") + _waiting(index, ico_id)
                missing.append({"id": ico_id, "name": None if pd.isna(name) else name,
                                "state": state, "reason": reason,
                                "status": None if pd.isna(status) else status})
    if present is not None:  # rows whose copy a failed fetch could not replace: stale
        failed = summary["failed"] = {**failed, **_failing_kept(cache, present, failed)}
    summary["queries"] = [_unknown_why(q) for q in summary.get("queries", [])]
    partial = [q for q in summary["queries"] if not q.get("complete")]
    summary["missing"] = missing
    summary["complete"] = not partial and not missing
    present_ids = set() if present is None else set(pd.Index(present))
    # rows kept from an earlier fetch that this load wanted again and did not get: the
    # budget ran out, or the daily limit stopped the load first (``not_done``)
    quota_kept = (set(summary.get("not_done") or []) & present_ids  # (or a run of bad items)
                  if summary.get("stopped") in ("quota", "breaker") else set())
    failing = set(failed) & present_ids  # kept: fetching them again failed
    stale_kept = sorted((over_budget & present_ids) | quota_kept | failing)
    summary["not_refreshed"] = stale_kept
    warn_gaps(partial, missing, offline)
    if stale_kept:
        whys = []
        if quota_kept or over_budget & present_ids:
            why = ("the budget of this call ran out (the most stale went first)" if not quota_kept
                   else "the daily limit stopped the load" if summary.get("stopped") == "quota"
                   else "the load stopped asking after a run of wrong answers")
            whys.append(f"{why} before they were fetched again")
        if failing:
            first = min(failing)
            whys.append(f"fetching {len(failing)} of them again failed (e.g. id {first}: "
                        f"{failed[first]}; attrs['icoframes']['failed'])")
        warn(f"{len(stale_kept)} row(s) are kept from an earlier fetch: {'; '.join(whys)}; "
             "ids in attrs['icoframes']['not_refreshed']", StaleWarning)
    return summary


def _unknown_why(query: dict[str, Any]) -> dict[str, Any]:
    """``query`` with ``missing_unknown`` when it is partial yet its rows reach its count: the
    rows of pages that failed or moved, or kept from an earlier list, may include ICOs that
    left the list, making up the count for ICOs that joined it where no page came."""
    if query.get("complete") or query.get("missing") is not None or query.get(
            "total_icos") is None or query.get("missing_unknown"):  # (its count moved: said)
        return query
    pages = sorted(query.get("failed_pages") or {}, key=int)
    where = (f"page(s) {_named(pages)} failed or moved (failed_pages): what the list holds "
             "there now is unknown" if pages else "its paging came back partial")
    return {**query, "missing_unknown": (
        f"its {query.get('rows', 0)} rows reach its count of {query['total_icos']}, but "
        f"{where} (an ICO that joined it{' there' if pages else ''} may be missing while a "
        "row it no longer lists makes up the count)")}


def recounted(query: dict[str, Any], rows: int) -> dict[str, Any]:
    """A partial ``query`` (its summary) holding ``rows`` rows now (an export's, rows kept
    from its day's folder): ``missing`` counted anew, None with ``missing_unknown`` when the
    rows reach the count (never 0 beside ``complete`` False). A count said unknown (its
    ``missing_unknown`` beside fewer rows than it: pages that counted both ways) stays so."""
    total, said = query.get("total_icos"), query.get("missing_unknown")
    if not isinstance(total, int) or (said and int(query.get("rows") or 0) < total):
        return {**query, "rows": rows}
    query = {k: v for k, v in query.items() if k != "missing_unknown"}  # (its rows: anew)
    return _unknown_why({**query, "rows": rows, "missing": total - rows if total > rows
                         else None})


def _named(pages: list[str]) -> str:
    """The first three of ``pages``, and how many more."""
    return ", ".join(pages[:3]) + (f" and {len(pages) - 3} more" if pages[3:] else "")


def _failing_kept(cache: Cache, present: Any, failed: dict[int, str]) -> dict[int, str]:
    """Rows of the result whose copy a fetch failed to replace (its summary or status
    changed, or it grew old, or refresh="all"), in this load or an earlier one it did not
    fetch again (waiting out its backoff, or left by the budget or a stop: each is wanted
    again by every load, :func:`.policy.plan_profiles`): why, and when it is tried again."""
    failing = cache.failing_copies()
    ids = failing.index[failing.index.isin(pd.Index(present))]
    return {int(i): (failed[int(i)] if int(i) in failed else
                     str(failing["reason"].get(i) or "its fetch failed") + ", in an earlier load")
            + _waiting(failing, i) for i in ids}


def _waiting(index: pd.DataFrame, ico_id: int) -> str:
    """For a profile failing load after load: how often, and when it is tried again."""
    if "attempts" not in index or "failed_at" not in index:
        return ""
    failures = int(index["attempts"].get(ico_id, 0))
    after = next_try(failures, index["failed_at"].get(ico_id), utcnow())
    # the minute named rounded up: one rounded down would name a minute nothing is tried in
    return ("" if after is None else f" (failed on {failures} loads in a row: tried again "
            f"from {pd.Timestamp(after).ceil('min'):%Y-%m-%d %H:%M} UTC, "
            "or with refresh='all')")


def warn_gaps(partial: list[dict[str, Any]], missing: list[dict[str, Any]],
               offline: bool) -> None:
    """One warning for everything a result lacks, or none when it is whole."""
    if not partial and not missing:
        return
    parts = []
    for q in partial:
        params = {k: v for k, v in q["params"].items() if v is not None}
        if q.get("rows", 0) == 0 and q.get("total_icos") is None:
            declined = q.get("cache_declined") or ()
            why = (f"not answered from the cache: {'; '.join(declined)}" if offline and declined
                   else "not in the cache" if offline else
                   f"could not be paged ({'; '.join(q.get('failed_pages', {}).values())})")
            parts.append(f"the list {params} {why}")
        else:
            stood_in = any(why.startswith(STOOD_IN) for why in q.get("cache_declined") or ())
            short, failed = q.get("missing"), q.get("failed_pages") or {}
            pages = sorted(failed, key=int) if stood_in else []
            moved = bool(failed) and all(why.startswith(MOVED) for why in failed.values())
            how = "moved" if moved else "failed"  # (none failed: it moved on each pass)
            count = (f"{short} of its {q['total_icos']} ICOs missing" if short
                     else f"page(s) {_named(pages)} {how}" if pages else f"pages {how}")
            if unread := sum(p.get("reason") == "unreadable_id" for p in q.get("problems") or ()):
                count += (f"; {unread} of its items with an id unread, in its problems in "  # (no
                          "attrs['icoframes']['queries'], not in missing")  # id to list)
            if q.get("kept"):  # an export's day: what the paging lacked, kept from its list
                count += (f"; {q['kept']['rows']} of its rows kept from the list paged at "
                          f"{q['kept']['fetched_at']}")
            again = ("its pages came (to the last of the total_pages it gave, or to the first "
                     "listing none), with fewer ICOs than the count says: it is paged again "
                     "once older than max_age"
                     if q.get("count_contradicts")
                     else "the next call pages it again")
            if stood_in:  # (not cached: the cache's list, whole as of its time, is kept)
                again = ("the next call answers it from the cache's list while that and the "
                         "other lists are within max_age, else pages it again")
            parts.append(f"the list {params} is partial ({count}); {again}")
    if missing:
        by_state: dict[str, int] = {}
        for m in missing:
            by_state[m["state"]] = by_state.get(m["state"], 0) + 1
        counts = ", ".join(f"{n} {state}" for state, n in sorted(by_state.items()))
        first = ", ".join(f"{m['id']} ({m['reason']})" for m in missing[:3])
        parts.append(f"{len(missing)} listed ICO(s) have no row: {counts}; first: {first}")
        if all(m["state"] == "gone" for m in missing):
            parts[-1] = (f"{len(missing)} ICO(s) listed but without a profile (error 482), "
                         f"left out: {[m['id'] for m in missing[:10]]}")
    only_gone = not partial and all(m["state"] == "gone" for m in missing)
    warn("incomplete result: " + "; ".join(parts)
         + ". Missing ids and their state are in attrs['icoframes']['missing']; calling "
         "again retries what failed.",
         MissingProfileWarning if only_gone else IncompleteWarning)


@cache
def _children() -> dict[str, pd.DataFrame]:
    """The empty child tables, made once (a Series per column: about 1 ms per table)."""
    return {name: empty_frame(TABLES[name]) for name in TABLES if name != "icos"}


def assemble(derived: DerivedTables, listing: pd.DataFrame, *, only_icos: bool) -> Tables:
    """The tables' rows of the listed ICOs, in the listing's order, with their listed status.

    Every other table's rows follow their ICO's row in ``icos`` (:func:`icoframes.roworder.
    in_icos_order`), one ICO's in the order its profile gives them (``problems``: by table,
    then column): the cache holds them in the order the profiles reached it, which the
    workers' completion decides and two runs need not share.
    ``only_icos``: the other tables stay empty (``load_icos`` reads no child table).
    """
    everything = None if only_icos else derived.tables()
    icos = derived.table("icos") if everything is None else everything.icos
    positions = pd.Index(icos["id"]).get_indexer(listing["id"].to_numpy())
    icos = icos.take(positions[positions >= 0]).reset_index(drop=True)
    status = pd.Series(listing["status"].to_numpy(), index=listing["id"].to_numpy())
    icos = icos.assign(status=icos["id"].map(status).astype(ICOS.column("status").dtype))
    if everything is None:  # (copies: each result's frames are its own)
        return Tables(icos=icos, **{name: frame.copy() for name, frame in _children().items()})
    # (only the rows of these ICOs; one ICO's as its profile lists them: a roadmap by its
    # label as text would put "Q1 2019" before "Q3 2018")
    children = {name: in_icos_order(everything[name], icos, ("ico_id",), others=False)
                for name in TABLES if name != "icos"}
    # the cache's problems (over every cached profile) of these ICOs, and the lists'
    queries = listing.attrs.get("icoframes", {}).get("queries") or []
    problems = problems_of_load(everything.problems, icos["id"].to_numpy(), queries)
    return Tables(icos=icos, **children, problems=in_icos_order(problems, icos, PROBLEMS.key))
