"""What a load answers and lacks, as a typed object: :class:`LoadReport`.

Every loader says what its result answers (the queries, complete or not, from
the cache or the service, fetched when), what it lacks (listed ICOs without a
row, and why), what it left stale and what it cost. ``load_tables`` returns it
as ``tables.report``; a frame returned by ``load_filters``, ``load_list`` or
``load_icos`` carries it as ``df.attrs["icoframes"]`` (the dict of 0.1, read-only:
one value every derived frame shares; :func:`icoframes.thawed` copies it), which
:func:`report` reads back as a :class:`LoadReport`.

pandas keeps ``attrs`` through selections and copies but drops them in
``merge``, ``concat`` and most reshaping, so take the report of a frame before
combining it (or keep the ``Tables``: its ``report`` is an attribute of the
bundle, not of a frame).

:class:`AsDict` is the 0.1 dict view (deprecated) that the results of ``cache_info``,
``clear_cache``, ``prune_cache`` and ``export_tables`` keep.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from .errors import InvalidParameter, checked_keywords, checked_methods, warn
from .reportview import queries_html, report_html, report_text
from .snapshotdays import reported_days, utc_dates

__all__ = ["AsDict", "LoadReport", "MissingICO", "QueryReport", "manifest_summary",
           "queries_html", "report", "snapshots_report"]

class AsDict:
    """Reads as a dict too (``info["profiles"]``), as up to 0.1. Deprecated: each
    dict-style read (``[]``, ``in``, ``get``, ``keys``, ``items``, ``dict()``) warns with a
    ``FutureWarning`` at the user's line; use the attributes or :meth:`as_dict`. A subclass
    whose 0.1 dict was not its fields (:class:`~icoframes.export.ExportResult`) overrides
    :meth:`_dict_view`, and ``_attribute``, the attribute the warning suggests instead."""

    _attribute: ClassVar[str] = "info.profiles"

    def __init_subclass__(cls, **kwargs: Any) -> None:  # a keyword a method lacks: refused
        super().__init_subclass__(**kwargs)
        checked_methods(cls)

    def _dict_view(self) -> dict[str, Any]:
        return dict(vars(self))  # the fields, as they are (a dataclass's, in their order)

    def _read(self, read: str) -> dict[str, Any]:
        warn(f"{type(self).__name__}{read}: reading it as a dict goes in the next version; "
             f"use its attributes ({self._attribute}) or .as_dict()", FutureWarning)
        return self._dict_view()

    def keys(self) -> list[str]:
        return list(self._read(".keys()"))

    def __getitem__(self, key: str) -> Any:
        return self._read(f"[{key!r}]")[key]  # KeyError for a key it does not hold

    def __contains__(self, key: object) -> bool:
        return key in self._read(f": {key!r} in it")

    def get(self, key: str, default: Any = None) -> Any:
        return self._read(f".get({key!r})").get(key, default)

    def items(self) -> list[tuple[str, Any]]:
        return list(self._read(".items()").items())

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (nested results too)."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]


#: The key of ``DataFrame.attrs`` under which the loaders put their report as a read-only dict.
ATTRS_KEY = "icoframes"


@checked_methods
@dataclass(frozen=True)
class QueryReport:
    """One query a load answers: the filter set, or one list query (spec 4.2).

    Attributes
    ----------
    endpoint : str
        ``"icos"`` for a list query, ``"filters"`` for the filter set.
    params : dict
        The query's parameters as sent (``status`` and the filters); empty for
        the filter set.
    complete : bool
        The list came whole: every page came and the rows match the service's count.
        Whether each ICO it lists has its row is ``without_row`` (the load's
        ``complete`` says both, of every query).
    from_cache : bool
        Answered from the cache (no list page requested by this call).
    rows : int
        ICOs the list gave (rows of the filter set for ``"filters"``).
    without_row : int or None
        Of the ICOs the list gave, those without a row in the result (the load's
        ``missing`` listed under this query's status); None for the filter set, or
        when which query lists a missing ICO is unknown (a record without its status).
    total_icos : int or None
        The service's count, when known (of a list that moved while paged: the last its
        pages gave; the highest when they counted both more and fewer than page 1).
    missing : int or None
        ICOs the service counts that the list lacks (None: the count is unknown, or the
        rows of a partial list reach it, or its pages counted both ways: ``missing_unknown``).
    fetched_at : datetime or None
        When the list's paging began, its first page asked (an export's: no later than the
        last ms of its UTC day; UTC: its rows are no older); None when it never was.
    failed_pages : dict of str to str
        Page number -> why it failed.
    count_contradicts : bool
        Every page came (paging stops at the last of the ``total_pages`` page 1 gave, or at
        the first listing none), with fewer ICOs than the count says, and none moved.
    values_lost : int
        Raw values of the list that could not be read.
    answered_from : dict or None
        The parameters of the cached list that answered this narrower query
        without a request (None: answered by its own list).
    cache_declined : tuple of str
        Why no cached list could answer it, when one was considered.
    order_unstated : str or None
        A narrower query answered from the cache whose order is in part the cached
        list's, and why: unsorted (the spec states no default order, so the service
        may list the narrower query in another), or sorted with rows that tie under
        the sort (the spec states no order among them; it names the key and how
        many rows tie); None when the order is the service's.
    kept : dict or None
        An export's list whose paging came back partial: the rows it kept from
        the list a run of the export's day paged earlier (``rows``, ``ids``,
        ``fetched_at``); None when it kept none.
    missing_unknown : str or None
        A partial list whose rows reach its count, or whose pages counted both more and
        fewer ICOs than its page 1: why how many it lacks is unknown (rows of pages that
        failed or moved may have left the list, making up the count for ICOs that joined
        it where no page came; which count is the latest); None otherwise.
    """

    endpoint: str
    params: dict[str, Any]
    complete: bool
    from_cache: bool
    rows: int = 0
    total_icos: int | None = None
    missing: int | None = None
    fetched_at: dt.datetime | None = None
    failed_pages: dict[str, str] = field(default_factory=dict)
    count_contradicts: bool = False
    values_lost: int = 0
    answered_from: dict[str, Any] | None = None
    cache_declined: tuple[str, ...] = ()
    kept: dict[str, Any] | None = None
    order_unstated: str | None = None
    missing_unknown: str | None = None
    without_row: int | None = None

    @classmethod
    def from_dict(cls, query: Mapping[str, Any]) -> QueryReport:
        """A query as the loaders write it in ``attrs["icoframes"]["queries"]``."""
        params = query.get("params")
        at = query.get("fetched_at")
        # one record per value; records cached by older versions carry a count
        lost = sum(int(p.get("count", 1)) for p in query.get("problems") or [])
        return cls(
            endpoint="filters" if params == "filters" else "icos",
            params=dict(params) if isinstance(params, Mapping) else {},
            complete=bool(query.get("complete", True)),
            from_cache=bool(query.get("from_cache")),
            rows=int(query.get("rows") or 0),
            total_icos=query.get("total_icos"),
            missing=query.get("missing"),
            fetched_at=dt.datetime.fromisoformat(at) if isinstance(at, str) else at,
            failed_pages=dict(query.get("failed_pages") or {}),
            count_contradicts=bool(query.get("count_contradicts")),
            values_lost=lost,
            answered_from=(dict(query["answered_from"]) if query.get("answered_from")
                           else None),
            cache_declined=tuple(str(r) for r in query.get("cache_declined") or ()),
            kept=dict(query["kept"]) if query.get("kept") else None,
            order_unstated=(str(query["order_unstated"]) if query.get("order_unstated")
                            else None),
            missing_unknown=(str(query["missing_unknown"]) if query.get("missing_unknown")
                             else None),
        )


@checked_methods
@dataclass(frozen=True)
class MissingICO:
    """A listed ICO without a row: ``state`` is failed, gone or not_fetched; ``reason`` why;
    ``status`` the one it is listed under (None when not recorded)."""

    id: int
    name: str | None
    state: str
    reason: str
    status: str | None = None


@checked_methods
@dataclass(frozen=True)
class LoadReport:
    """What a load answers and lacks, and what it cost.

    Attributes
    ----------
    queries : tuple of QueryReport
        The queries the result answers, in order.
    complete : bool
        Every query complete and every listed ICO has its row (a row kept not
        refreshed counts: see ``not_refreshed``). Of an export read back, the
        manifest's ``complete``, which is also False when a row was kept not
        refreshed (the freshness guide says why the two differ).
    missing : tuple of MissingICO
        Listed ICOs without a row, with their state and why.
    requests : dict of str to int
        Requests this call sent per endpoint (``filters``, ``icos``, ``ico``),
        retries included.
    not_refreshed : tuple of int
        Ids whose rows are kept from an earlier fetch, out of date: the call's
        budget ran out or the daily limit stopped it before they were fetched
        again, or fetching them again failed (this call or an earlier one whose
        retry waits; ``attrs["icoframes"]["failed"]`` says why and when).
    stopped : str or None
        Why the load stopped before its end: ``"quota"`` (the daily limit) or
        ``"breaker"`` (a run of wrong answers stopped the asking); None when it ran
        to its end. Of a frame of several snapshots: the reason of each day that
        stopped, as ``"YYYY-MM-DD: reason"``, joined by ``"; "``.

    Examples
    --------
    >>> r = LoadReport.from_dict({"queries": [{"params": {"status": "past"}, "complete": True,
    ...     "from_cache": True, "rows": 3, "fetched_at": "2026-01-02T03:04:05+00:00"}],
    ...     "complete": True, "missing": [], "requests": {"icos": 0, "ico": 0}})
    >>> r.complete, r.requests_total, r.answered_from_cache, r.queries[0].fetched_at.year
    (True, 0, True, 2026)
    """

    queries: tuple[QueryReport, ...] = ()
    complete: bool = True
    missing: tuple[MissingICO, ...] = ()
    requests: dict[str, int] = field(default_factory=dict)
    not_refreshed: tuple[int, ...] = ()
    stopped: str | None = None

    @property
    def requests_total(self) -> int:
        """Requests this call sent, all endpoints together."""
        return sum(self.requests.values())

    @property
    def answered_from_cache(self) -> bool:
        """Every query was answered from the cache and the call sent no request."""
        return all(q.from_cache for q in self.queries) and not self.requests_total

    @property
    def oldest_fetch(self) -> dt.datetime | None:
        """When the oldest list the result answers was paged (UTC); None if none was."""
        times = [q.fetched_at for q in self.queries if q.fetched_at is not None]
        return min(times) if times else None

    @classmethod
    def from_dict(cls, summary: Mapping[str, Any]) -> LoadReport:
        """The report of a plain dict as the loaders put it in ``attrs["icoframes"]``."""
        queries = tuple(QueryReport.from_dict(q) for q in summary.get("queries") or [])
        missing = tuple(MissingICO(id=int(m["id"]), name=m.get("name"), state=str(m["state"]),
                                   reason=str(m["reason"]), status=m.get("status"))
                        for m in summary.get("missing") or [])
        queries = _without_row(queries, missing)
        complete = summary.get("complete")
        if complete is None:
            complete = all(q.complete for q in queries) and not missing
        stopped = summary.get("stopped")  # a load's "quota"/"breaker"; a manifest's record
        if isinstance(stopped, Mapping):
            stopped = stopped.get("reason")
        return cls(queries=queries, complete=bool(complete), missing=missing,
                   requests={str(k): int(v) for k, v in (summary.get("requests") or {}).items()},
                   not_refreshed=tuple(int(i) for i in summary.get("not_refreshed") or []),
                   stopped=None if stopped is None else str(stopped))

    def __repr__(self) -> str:
        # bounded: the dataclass's own repr wrote every missing ICO, thousands on a 485 day
        return report_text(self)

    def _repr_html_(self) -> str:
        """Complete or not (what is missing and why, how old), then the queries as an HTML
        table (complete, rows listed and without a row, source, fetch time, values lost)."""
        return report_html(self)


def _without_row(queries: tuple[QueryReport, ...], missing: tuple[MissingICO, ...]
                 ) -> tuple[QueryReport, ...]:
    """Each list query with its listed ICOs without a row: the missing ones listed under its
    status, when that status is no other query's and every missing one says its status."""
    statuses = [q.params.get("status") for q in queries if q.endpoint == "icos"]
    if any(m.status is None for m in missing):
        return queries
    return tuple(dataclasses.replace(q, without_row=sum(m.status == q.params["status"]
                                                        for m in missing))
                 if q.endpoint == "icos" and q.params.get("status") is not None
                 and statuses.count(q.params["status"]) == 1 else q for q in queries)


def manifest_summary(manifest: Any) -> dict[str, Any] | None:
    """The load summary an export's manifest holds, as a loader writes it in
    ``attrs["icoframes"]`` (:meth:`LoadReport.from_dict` reads it): its queries,
    ``complete``, ``missing``, the ids ``not_refreshed``, the ``requests`` the export
    spent and why it ``stopped``. None for a manifest that says nothing of its
    completeness (written by hand, or by another program)."""
    if not isinstance(manifest, Mapping) or not isinstance(manifest.get("complete"), bool):
        return None
    # a query's values lost as one count: the records stay in the manifest (a snapshot
    # frame's attrs hold one summary a day, copied by pandas with the frame)
    queries = [{**q, "problems": [{"count": sum(int(p.get("count", 1)) for p in
                                                q.get("problems") or [])}]}
               for q in manifest.get("queries") or [] if isinstance(q, Mapping)]
    stopped = manifest.get("stopped")
    return {
        "queries": queries, "complete": manifest["complete"],
        "missing": [{"id": m["id"], "name": m.get("name"), "state": m.get("state", "not_fetched"),
                     "reason": m.get("reason", ""), "status": m.get("status")}
                    for m in manifest.get("missing") or [] if isinstance(m, Mapping)],
        "requests": dict(manifest.get("requests_spent") or {}),
        "not_refreshed": [m["id"] if isinstance(m, Mapping) else m
                          for m in manifest.get("not_refreshed") or []],
        "stopped": stopped.get("reason") if isinstance(stopped, Mapping) else None}


def _summary(text: str | Mapping[str, Any]) -> Mapping[str, Any]:
    return json.loads(text) if isinstance(text, str) else text


def snapshots_report(frame: Any, infos: list[Mapping[str, Any]]) -> LoadReport:
    """The report of a :func:`~icoframes.read_snapshots` frame: of the days it holds (as
    :func:`~icoframes.snapshots.snapshot_dates` counts them for ``changes`` and
    ``plot_status_flow``: its rows' UTC days, and the days without a row between its first
    and last day with rows unless the frame was cut; every day when it lacks
    ``snapshot_date``; an incomplete day without a row next to them too:
    :func:`~icoframes.snapshotdays.reported_days`), one day's manifest's, or several days'
    together: complete when every day is, each day's missing ICOs (their reason naming the
    day), requests summed."""
    days = [str(i.get("snapshot_date")) for i in infos]
    if isinstance(frame, pd.DataFrame):  # its days in a snapshot_date index level too
        frame = utc_dates(frame)
    if "snapshot_date" in getattr(frame, "columns", ()):
        days = reported_days(frame)  # a zoned day in UTC; a latest day stopped empty kept
    if not days:
        raise InvalidParameter(
            "this frame holds no row of any snapshot that its attrs['icoframes'] name: which "
            "snapshots it answers is unknown; icoframes.history.snapshot_info(out) says what each "
            "snapshot's manifest holds")
    summaries = {str(i.get("snapshot_date")): _summary(i["report"]) for i in infos
                 if isinstance(i.get("report"), str | Mapping)}  # JSON text, as read_snapshots
    unknown = [day for day in days if day not in summaries]
    if unknown:
        raise InvalidParameter(
            f"the snapshot of {unknown[0]} has no manifest that says whether it is complete "
            f"({len(unknown)} day(s) of this frame): its load report is unknown; "
            "icoframes.history.snapshot_info(out) says what each snapshot's manifest holds")
    reports = {day: LoadReport.from_dict(summaries[day]) for day in days}
    if len(reports) == 1:
        return next(iter(reports.values()))
    requests: dict[str, int] = {}
    for r in reports.values():
        for endpoint, n in r.requests.items():
            requests[endpoint] = requests.get(endpoint, 0) + n
    return LoadReport(
        queries=tuple(q for r in reports.values() for q in r.queries),
        complete=all(r.complete for r in reports.values()),
        missing=tuple(dataclasses.replace(m, reason=f"{m.reason} (the snapshot of {day})")
                      for day, r in reports.items() for m in r.missing),
        requests=requests,
        not_refreshed=tuple(sorted({i for r in reports.values() for i in r.not_refreshed})),
        stopped="; ".join(f"{day}: {r.stopped}" for day, r in reports.items()
                          if r.stopped) or None)


@checked_keywords
def report(result: Any) -> LoadReport:
    """The :class:`LoadReport` of a loader's result, or of an export read back.

    Parameters
    ----------
    result : Tables or pandas.DataFrame
        What ``load_tables`` returned (its ``report``), or a frame of
        ``load_filters``, ``load_list``, ``load_icos`` or of a ``Tables``,
        or a selection or copy of one (read from ``attrs["icoframes"]``);
        or what ``read_export`` returned (a ``Tables``, or its ``icos``): the report
        its manifest holds; or a ``read_snapshots`` frame, or a selection of one: the
        report of the snapshots it holds (its ``snapshot_date`` a column, or an index
        level: ``set_index("snapshot_date").loc["2026-11-02"]`` is that day's).

    Returns
    -------
    LoadReport
        Of an export read back: the manifest's ``complete``, ``missing``,
        ``not_refreshed`` (ids), ``stopped`` (its reason), the requests the export
        spent and its queries. Of a snapshot frame: one day's so; of several days
        together, complete only when every day is (each missing ICO's reason names
        its day, requests summed, ``stopped`` names each day that stopped).

    Raises
    ------
    InvalidParameter
        The object carries no report: it was not returned by a loader or a reader
        of exports, or pandas dropped its ``attrs`` (``merge``, ``concat``,
        ``features``...). Take the report before combining frames. Also an export
        or a snapshot whose manifest says nothing of its completeness, and a
        snapshot frame cut to no row, or holding rows of a day no snapshot of its
        ``attrs`` names (which snapshots it answers is unknown).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"id": [1]})
    >>> frame.attrs["icoframes"] = {"queries": [], "requests": {"icos": 2}}
    >>> report(frame[frame["id"] > 0]).requests_total
    2
    """
    carried = getattr(result, "report", None)
    if isinstance(carried, LoadReport):
        return carried
    attrs = getattr(result, "attrs", None)
    if attrs is None and carried is None:  # a Tables read back (read_export): its icos'
        attrs = getattr(getattr(result, "icos", None), "attrs", None)
    summary = attrs.get(ATTRS_KEY) if isinstance(attrs, Mapping) else None
    if isinstance(summary, Mapping) and "queries" in summary:  # a loader's
        return LoadReport.from_dict(summary)
    if isinstance(summary, Mapping) and "manifest" in summary:  # read_export's
        found = manifest_summary(summary["manifest"])
        if found is None:
            raise InvalidParameter(
                "the manifest of this export says nothing of whether it is complete (no "
                "'complete'): it has no load report; attrs['icoframes']['manifest'] holds it")
        return LoadReport.from_dict(found)
    if isinstance(summary, Mapping) and isinstance(summary.get("snapshots"), list):
        return snapshots_report(result, summary["snapshots"])
    raise InvalidParameter(
        f"this {type(result).__name__} carries no load report: only what a loader returns "
        "has one (Tables.report, or a frame's attrs['icoframes']), and pandas drops attrs "
        "in merge, concat and most reshaping; take icoframes.report(...) of the loader's "
        "result before combining it")
