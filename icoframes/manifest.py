"""What an export's ``manifest.json`` states, worked out from the load (:mod:`icoframes.export`).

How fresh the lists must be (:func:`lists_fresh_after`), how old the exported
profiles are, which rows were kept from an earlier fetch, whether a stopped load
listed anything the export may use, and why the daily limit stopped it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pandas as pd

from ._version import __version__
from .errors import IncompleteWarning, QuotaExceeded
from .fetch import age_limit
from .fetch.result import warn_gaps
from .held import Held, hold, tell
from .loaders import MaxAge
from .parse.rules import PARSER_VERSION
from .store.derived import parser_fingerprint

__all__ = ["code_identity", "dump", "jsonable", "kept_words", "listed", "lists_fresh_after",
           "not_refreshed", "nothing_matched", "oldest_newest", "profile_ages",
           "quota_stop", "seconds_given", "stop_record", "stop_said", "told_as_kept"]


def code_identity() -> dict[str, Any]:
    """What wrote an export, as its manifest says: ``package_version`` (icoframes' version,
    the last release's until the next one: CHANGELOG.md's *Unreleased* lists what changed
    since), ``parser_version`` (:data:`icoframes.parse.rules.PARSER_VERSION`) and
    ``parser_fingerprint`` (the schema, parser version and parser source that read the tables,
    as the cache's derived tables are keyed: :func:`icoframes.store.derived.
    parser_fingerprint`). Two exports whose tables were read by different rules never say
    the same, though a version in development says one package version throughout.
    """
    return {"package_version": __version__, "parser_version": PARSER_VERSION,
            "parser_fingerprint": parser_fingerprint()}


def lists_fresh_after(max_age: MaxAge, now: dt.datetime) -> dt.datetime | None:
    """The moment a cached list must have been fetched after to be used by an export.

    The later of the current UTC day's start and ``now - max_age``: an export
    run by cron at a fixed hour re-pages the lists every day, never serving
    yesterday's because it is a few seconds short of ``max_age``. None when
    ``max_age`` is None (lists never expire).

    Examples
    --------
    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 21, 3, 15, tzinfo=dt.UTC)
    >>> lists_fresh_after(86400, now).isoformat()
    '2026-11-21T00:00:00+00:00'
    >>> lists_fresh_after(dt.timedelta(hours=1), now).isoformat()
    '2026-11-21T02:15:00+00:00'
    >>> lists_fresh_after(None, now) is None
    True
    """
    limit = age_limit(max_age)  # InvalidParameter for what is not an age, before any request
    if limit is None:
        return None
    midnight = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    # compared before subtracting: now - timedelta.max is before datetime.min
    return midnight if limit >= now - midnight else now - limit


def listed(listing: pd.DataFrame, fresh_after: dt.datetime | None) -> bool:
    """A stopped load listed rows this export may use: paged by it, or cached fresh enough
    (fetched after ``fresh_after``; None: any cached list will do)."""
    if listing.empty:
        return False
    for query in listing.attrs.get("icoframes", {}).get("queries", []):
        at = query.get("fetched_at")
        if query.get("rows") and (not query.get("from_cache") or fresh_after is None or (
                isinstance(at, str) and dt.datetime.fromisoformat(at) >= fresh_after)):
            return True
    return False


def quota_stop(stop: QuotaExceeded, stated: dict[str, Any]) -> dict[str, Any]:
    """The manifest's ``stopped``: who refused, how many listed ICOs remain, the message.

    ``by`` is ``"service"`` (its error 485) or ``"daily_quota"`` (the setting);
    ``remaining`` counts the listed ICOs the limit left without a row (``missing``
    with reason ``"quota"``) and those kept from an earlier fetch it could not
    fetch again.
    """
    left_out = sum(1 for m in stated.get("missing", []) if m.get("reason") == "quota")
    return {"reason": "quota", "by": "service" if stop.code == 485 else "daily_quota",
            "code": stop.code, "remaining": max(left_out, stop.remaining or 0),
            "message": str(stop)}


def stop_record(stop: QuotaExceeded | None, stated: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest's ``stopped``: the daily limit's (:func:`quota_stop`), or a run of wrong
    answers that halted the asking, not the load (the load's ``stopped`` "breaker"):
    ``reason`` "breaker", ``remaining`` (the listed ICOs it did not ask: missing, or kept
    from an earlier fetch) and ``message`` (why, as said of each); None when it ran to its
    end."""
    if stop is not None:
        return quota_stop(stop, stated)
    if stated.get("stopped") != "breaker":
        return None
    return {"reason": "breaker", "remaining": len(stated.get("not_done") or []),
            "message": str(stated.get("stop"))}


def stop_said(stopped: Mapping[str, Any]) -> str:
    """A manifest's ``stopped`` (:func:`stop_record`) in a line: what stopped the load (the
    daily limit, or a run of wrong answers: ``reason`` "breaker"), and what it left."""
    left, why = stopped.get("remaining"), str(stopped.get("message")).rstrip(".")
    if stopped.get("reason") == "breaker":  # (a stop of its own, not the daily limit)
        why = why.removeprefix("not asked: ")  # (said once)
        return f"a run of wrong answers stopped the asking, {left} listed ICO(s) not asked: {why}"
    return f"the daily request limit stopped the load, {left} listed ICO(s) remain to fetch: {why}"


def oldest_newest(stamps: Iterable[Any]) -> dict[str, str | None]:
    times = sorted(dt.datetime.fromisoformat(s) for s in stamps if isinstance(s, str))
    if not times:
        return {"oldest": None, "newest": None}
    return {"oldest": times[0].isoformat(), "newest": times[-1].isoformat()}


def profile_ages(icos: pd.DataFrame) -> dict[str, str | None]:
    """When the oldest and the newest exported profile was fetched (UTC, ISO 8601).

    Null for both when ``icos`` has no ``fetched_at`` column, or no time in it.

    Examples
    --------
    >>> import pandas as pd
    >>> stamps = pd.to_datetime(["2026-11-20 03:15", None, "2026-11-18 03:15"],
    ...                         format="%Y-%m-%d %H:%M", utc=True)
    >>> profile_ages(pd.DataFrame({"fetched_at": stamps}))
    {'oldest': '2026-11-18T03:15:00+00:00', 'newest': '2026-11-20T03:15:00+00:00'}
    >>> profile_ages(pd.DataFrame({"id": [1]}))
    {'oldest': None, 'newest': None}
    """
    if "fetched_at" not in icos.columns:
        return {"oldest": None, "newest": None}
    stamps = icos["fetched_at"]
    if not isinstance(stamps.dtype, pd.DatetimeTZDtype):
        # naive times are UTC by the package's convention; text is ISO 8601
        stamps = pd.to_datetime(stamps, utc=True, format="ISO8601")
    stamps = stamps.dropna()
    if stamps.empty:
        return {"oldest": None, "newest": None}
    return {"oldest": stamps.min().tz_convert("UTC").isoformat(),
            "newest": stamps.max().tz_convert("UTC").isoformat()}


def not_refreshed(icos: pd.DataFrame, stated: dict[str, Any]) -> list[dict[str, Any]]:
    """Exported rows this load tried to fetch again and could not: kept, older than asked.

    One dict per row: ``id``, ``reason`` (why its new fetch failed, that the
    budget ran out, ``"quota"``: the daily limit stopped the load before it was
    fetched again, or why a run of wrong answers stopped the asking before it) and
    ``fetched_at`` (when the exported row was fetched).
    """
    failed = {int(k): v for k, v in (stated.get("failed") or {}).items()}
    kept = [int(i) for i in stated.get("not_refreshed") or [] if int(i) not in failed]
    if not failed and not kept:
        return []
    # the ids a stop left unasked: said as the daily limit's, or as the run's reason
    stop = {"quota": "quota", "breaker": str(stated.get("stop"))}.get(str(stated.get("stopped")))
    unasked = {int(i) for i in stated.get("not_done") or []} if stop else set()
    when = (dict(zip(icos["id"].tolist(), icos["fetched_at"].tolist(), strict=True))
            if "fetched_at" in icos.columns else {})
    present = set(icos["id"].tolist())
    rows = [(i, str(failed[i])) for i in failed if i in present]
    rows += [(i, stop if stop and i in unasked
              else "the budget ran out before it was fetched again") for i in kept]
    return [{"id": i, "reason": reason,
             "fetched_at": None if pd.isna(when.get(i)) else pd.Timestamp(when[i]).isoformat()}
            for i, reason in sorted(rows)]


def nothing_matched(queries: list[dict[str, Any]], status: str | None,
                     filters: Mapping[str, Any]) -> str:
    asked = [q.get("params") for q in queries if not q.get("rows")] or [
        {"status": status, **filters}]
    described = "; ".join(  # status first: it is what tells the queries of one export apart
        ", ".join(f"{k}={v}" for k, v in sorted(p.items(), key=lambda kv: kv[0] != "status")
                  if v is not None) if isinstance(p, dict) else str(p)
        for p in asked)
    return (f"no ICO matched the query ({described}), so nothing was exported; pass "
            "allow_empty=True (--allow-empty) to write empty tables for such a query")


def kept_words(kept: dict[str, Any]) -> str:
    """The rows a partial list kept from the day's list (or, the cache having lost them, from
    the day's snapshot or plain export: ``from_snapshot``, ``from_export``) and when they
    were listed, for the log line."""
    kind = "snapshot" if kept.get("from_snapshot") else "export"
    snap = int(kept.get("from_snapshot") or kept.get("from_export") or 0)
    if snap == kept["rows"]:
        return (f" ({snap} of its rows kept from the day's {kind}, listed at "
                f"{kept['fetched_at']})")
    return (f" ({kept['rows']} of its rows kept from the day's list paged at "
            f"{kept['fetched_at']}{f', {snap} of them from its {kind}' if snap else ''})")


def seconds_given(value: Any) -> Any:
    """An age argument (``max_age``, ``profile_max_age``) as a manifest records it, once the
    load has checked it: its seconds, whatever form it was given in (text, a NumPy number, a
    timedelta: ``" 3 "`` is 3.0, not that text), a mapping by status of them, or None.

    Examples
    --------
    >>> seconds_given(" 3 "), seconds_given(dt.timedelta(hours=1)), seconds_given(None)
    (3.0, 3600.0, None)
    >>> seconds_given({"past": "60", " Ongoing ": 5})
    {'past': 60.0, 'ongoing': 5.0}
    """
    if isinstance(value, Mapping):  # each status as the load reads it (policy.profile_max_age)
        return {str(status).strip().lower(): seconds_given(age) for status, age in value.items()}
    limit = age_limit(value)
    return None if limit is None else limit.total_seconds()


def jsonable(value: Any) -> Any:
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def dump(manifest: dict[str, Any]) -> bytes:
    text = json.dumps(manifest, indent=2, ensure_ascii=False, default=str)
    return text.encode("utf-8") + b"\n"


@contextlib.contextmanager
def told_as_kept(offline: bool) -> Iterator[dict[str, Any]]:
    """Hold icoframes' warnings of the block (the load's, keeping the day's rows; in this
    context only: :mod:`icoframes.held`) and tell them at its end, in order, each where it
    was issued, through the caller's filters: the load's word on what its result
    lacks as the rows kept from the day's export left it, when the block sets the dict it
    gets (``["stated"]``: what the kept rows' export says of its rows).

    After a cleared cache the load said "13 listed ICO(s) have no row" and the export then
    kept all 13 from the day's snapshot: a cron log said they were missing, then kept.
    An error ending the block is raised as it is: a held warning told then (an error under
    the caller's filters) never replaces it.
    """
    told: dict[str, Any] = {}
    try:
        with hold(restated=_restated) as held:
            yield told
    except BaseException:
        for one in held:  # the block's error is raised, never a held warning made an error
            with contextlib.suppress(Warning):
                _tell(one, told, offline)
        raise
    for one in held:
        _tell(one, told, offline)


def _restated(one: Held) -> bool:
    """The load's "incomplete result", which :func:`told_as_kept` says as the kept rows leave
    it (held even under an "error" filter: issued as the load ends, no request follows)."""
    return issubclass(one.category, IncompleteWarning) and one.message.startswith(
        "incomplete result: ")


def _tell(one: Held, told: dict[str, Any], offline: bool) -> None:
    if "stated" in told and _restated(one):
        stated = told["stated"]
        warn_gaps([q for q in stated.get("queries") or [] if not q.get("complete")],
                  list(stated.get("missing") or []), offline)
    else:
        tell(one)
