"""A load report at a glance: complete or not, what is missing and why, how old.

The notebook views of a :class:`~icoframes.tables.Tables` (``repr`` and ``_repr_html_``)
and of a :class:`~icoframes.reporting.LoadReport` lead with it, so that "is this
everything?" is answered before the row counts: a per-list "complete" alone read as
the answer while most listed ICOs had no row. What it says is bounded whatever the
load: the missing ICOs are counted by reason (the most frequent first, the rest
summed), the queries listed up to a limit, never one line per ICO.

It reads a report through :class:`Report` (the attributes of ``LoadReport``), so that
the report's own module can show itself with it.
"""

from __future__ import annotations

import datetime as dt
import html
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from .files import utc_time, utcnow
from .quoting import counted

__all__ = ["DAMAGE", "MORE_QUERIES", "REASONS", "Report", "completeness_html",
           "completeness_lines", "leading", "manifest_damage", "queries_html", "query_complete",
           "report_damage", "report_html", "report_text", "unreadable"]

#: Reasons of missing ICOs said by count; the others are summed in one "more" phrase.
REASONS = 3
#: The most characters of one reason shown (a failure's text can be long).
REASON_WIDTH = 100
#: The most characters of a query's order said (its ``order_unstated``): the key, the
#: date of the list and what differs fit; the report holds the whole text.
ORDER_WIDTH = 200
#: Queries listed one by one (a report of a year of snapshots holds a thousand).
MORE_QUERIES = {"text": 6, "html": 30}
#: What reading a damaged report raises (a manifest edited by hand: a missing ICO without an
#: id, a count that is no number); a view says it cannot read it instead, never raising.
DAMAGE = (LookupError, TypeError, ValueError, ArithmeticError, AttributeError)
#: What a report's ``stopped`` means, said beside it.
_STOPS = {"quota": "the daily request limit", "breaker": "a run of wrong answers"}


class Query(Protocol):
    """What is read of a :class:`~icoframes.reporting.QueryReport`."""

    @property
    def endpoint(self) -> str: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def complete(self) -> bool: ...
    @property
    def from_cache(self) -> bool: ...
    @property
    def rows(self) -> int: ...
    @property
    def total_icos(self) -> int | None: ...
    @property
    def missing(self) -> int | None: ...
    @property
    def without_row(self) -> int | None: ...
    @property
    def fetched_at(self) -> dt.datetime | None: ...
    @property
    def values_lost(self) -> int: ...
    @property
    def answered_from(self) -> Mapping[str, Any] | None: ...
    @property
    def order_unstated(self) -> str | None: ...


class Missing(Protocol):
    """What is read of a :class:`~icoframes.reporting.MissingICO`."""

    @property
    def state(self) -> str: ...
    @property
    def reason(self) -> str: ...


class Report(Protocol):
    """What is read of a :class:`~icoframes.reporting.LoadReport`."""

    @property
    def queries(self) -> Sequence[Query]: ...
    @property
    def complete(self) -> bool: ...
    @property
    def missing(self) -> Sequence[Missing]: ...
    @property
    def requests(self) -> Mapping[str, int]: ...
    @property
    def not_refreshed(self) -> Sequence[int]: ...
    @property
    def stopped(self) -> str | None: ...
    @property
    def oldest_fetch(self) -> dt.datetime | None: ...


def _lists(report: Report) -> list[Query]:
    return [q for q in report.queries if q.endpoint == "icos"]


def headline(report: Report, what: str = "load") -> str:
    """One line: ``complete`` or ``INCOMPLETE`` (of a ``what``: a load, an export), how
    many listed ICOs have no row, partial lists, rows not refreshed, why it stopped."""
    lists = _lists(report)
    partial = [q for q in lists if not q.complete]
    said = []
    if report.missing:
        said.append(_without_rows(len(report.missing), lists))
    if partial:
        said.append(f"{len(partial)} of its {counted(len(lists), 'list')} partial")
    if report.complete and not said:
        said.append(f"every listed ICO of its {counted(len(lists), 'list')} has its row")
    if report.not_refreshed:
        said.append(f"{counted(len(report.not_refreshed), 'row')} kept from an earlier "
                    "fetch, not refreshed")
    if report.stopped:
        said.append(f"stopped: {report.stopped}"
                    + (f" ({_STOPS[report.stopped]})" if report.stopped in _STOPS else ""))
    if not said:  # incomplete, by a report built by hand or a query that is no list
        said.append("its report says so, without saying what is missing")
    return f"{'complete' if report.complete else 'INCOMPLETE'} {what}: {'; '.join(said)}"


def _without_rows(missing: int, lists: list[Query]) -> str:
    """``missing`` of the ICOs its lists list have no row. Lists of distinct statuses list
    distinct ICOs (an ICO has one status); others (two lists of one status, a list of
    every status, the days of a snapshot frame) may list one ICO in several: their sum is
    said to be one, as the report holds no ids of the ICOs with a row to count."""
    listed = sum(q.rows for q in lists)
    statuses = [q.params.get("status") for q in lists]
    said = f"{missing:,} of its {listed:,} listed ICOs have no row"
    if len(lists) > 1 and (None in statuses or any(statuses.count(s) > 1 for s in statuses)):
        said += f" (summed over its {len(lists)} lists: an ICO in several counted in each)"
    return said


def unreadable(error: BaseException, manifest: Mapping[str, Any] | None, *,
               shown: bool = False) -> str:
    """What a view shows in place of a load report it cannot read (a manifest edited by
    hand: an entry without an id, a count that is no number), so that it still shows the
    rows: what failed and, of an export, what its manifest says of its completeness.
    ``shown``: the report was read whole (:func:`report_damage` found nothing) and showing
    it failed: the view's own fault, not the manifest's, and said so."""
    failed = _short(f"{type(error).__name__}: {error}")
    if shown:
        said = f"load report could not be shown ({failed})"
    elif manifest is None:
        return f"load report unreadable ({failed})"
    else:
        said = f"load report unreadable: the export's manifest is damaged ({failed})"
    if manifest is None:
        return said
    complete = manifest.get("complete")
    says = ("" if not isinstance(complete, bool) else
            f"; it says the export is {'complete' if complete else 'INCOMPLETE'}")
    return f"{said}{says}; attrs['icoframes']['manifest'] holds it"


def manifest_damage(manifest: Mapping[str, Any] | None) -> ValueError | None:
    """What of a manifest's completeness no report can be read from as its writer wrote it:
    a ``complete`` that is not true or false (read as no report: nothing said), a
    ``missing`` that is no list of ICOs (read as none missing: the view would hide them);
    None when neither (a manifest without ``complete`` has no report: nothing to say)."""
    if manifest is None:
        return None
    if "complete" in manifest and not isinstance(manifest["complete"], bool):
        return ValueError(f"its complete is {_short(repr(manifest['complete']))}, not true or "
                          "false")
    missing = manifest.get("missing", [])
    if not isinstance(missing, list) or not all(isinstance(m, Mapping) for m in missing):
        return ValueError(f"its missing is {_short(repr(missing))}, not a list of ICOs")
    return None


def report_damage(report: Report) -> ValueError | None:
    """The first value a view writes that is not of its type in ``report`` (a count that is
    no number, read from a manifest edited by hand), as an error to say; None when every
    one is: a view that fails after that fails by its own fault."""
    counts = {"rows": False, "total_icos": True, "missing": True, "without_row": True,
              "values_lost": False}  # name -> may be None
    for n, q in enumerate(report.queries, 1):
        for name, none in counts.items():
            value = getattr(q, name)
            if not (isinstance(value, int) or (none and value is None)):
                return ValueError(f"query {n}'s {name} is {_short(repr(value))}, not a count")
        if not isinstance(q.fetched_at, dt.datetime | None):
            return ValueError(f"query {n}'s fetched_at is {_short(repr(q.fetched_at))}, not a "
                              "time")
    for m in report.missing:
        if not (isinstance(m.state, str) and isinstance(m.reason, str)):
            return ValueError(f"a missing ICO's state or reason is not text ({m!r})")
    if not all(isinstance(v, int) for v in report.requests.values()):
        return ValueError(f"the requests spent are not counts ({report.requests!r})")
    return None


def leading(read: Callable[[], tuple[Report | None, dict[str, Any]]], view: str,
            manifest: Mapping[str, Any] | None) -> tuple[list[str], list[str]]:
    """What a bundle's ``view`` (text or html) says of its report first (complete or not,
    why, how old) and, as HTML, its queries last; nothing without a report. ``read`` gives
    the report and how to say it; ``manifest``, of an export read back, is its own. One that
    cannot be read (a manifest edited by hand) is said to be so instead, and one read whole
    that fails to show is said not shown: a view never raises."""
    def said(error: BaseException, *, shown: bool = False) -> tuple[list[str], list[str]]:
        text = unreadable(error, manifest, shown=shown)
        return [text if view == "text" else f"<p>{html.escape(text)}</p>"], []

    if (damage := manifest_damage(manifest)) is not None:  # (said, not what reading it met)
        return said(damage)
    try:
        shown, how = read()
        damage = None if shown is None else report_damage(shown)
    except DAMAGE as error:
        return said(error)
    if damage is not None:
        return said(damage)
    if shown is None:
        return [], []
    try:
        if view == "text":
            return completeness_lines(shown, **how), []
        return completeness_html(shown, **how), queries_html(shown)
    except DAMAGE as error:
        return said(error, shown=True)


def reasons(report: Report) -> str | None:
    """The missing ICOs counted by state and reason, the most frequent first (at most
    :data:`REASONS`, then the others summed); None when none is missing."""
    if not report.missing:
        return None
    counts = Counter((m.state, m.reason) for m in report.missing)
    shown = [f"{n:,} {state} ({_short(reason)})"
             for (state, reason), n in counts.most_common(REASONS)]
    rest = len(counts) - REASONS
    if rest > 0:
        others = sum(n for _, n in counts.most_common()[REASONS:])
        shown.append(f"{others:,} more for {counted(rest, 'other reason')}")
    return ", ".join(shown)


def _short(reason: str, width: int = REASON_WIDTH) -> str:
    text = " ".join(reason.split()) or "no reason given"
    return text if len(text) <= width else text[:width - 1] + "…"


def query_complete(report: Report, query: Query) -> str:
    """``"yes"`` when the list came whole and each ICO it lists has its row, ``"NO"`` when
    either fails, ``"?"`` when which missing ICOs it lists is unknown."""
    if not query.complete:
        return "NO"
    if query.endpoint != "icos" or not report.missing:
        return "yes"
    if query.without_row is None:
        return "?"
    return "yes" if query.without_row == 0 else "NO"


def _list_state(query: Query) -> str:
    if query.complete:
        return "whole"
    if query.rows == 0 and query.total_icos is None:
        return "not paged"
    if query.missing:
        return f"partial: {query.missing:,} of {query.total_icos:,} missing"
    return "partial"


def _without(report: Report, query: Query) -> str:
    if query.endpoint != "icos":
        return "-"
    if query.without_row is None:
        return "0" if not report.missing else "?"
    return f"{query.without_row:,}"


def _more(n: int) -> str:
    return f"{n:,} more {'query' if n == 1 else 'queries'}"


def _name(query: Query) -> str:
    return _params(query.params) or query.endpoint


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def freshness(report: Report, rows: tuple[dt.datetime, dt.datetime] | None = None,
              manifest: Mapping[str, Any] | None = None) -> str | None:
    """How old it is: when the oldest list was fetched, the rows' fetch times (``rows``:
    the oldest and newest of ``icos.fetched_at``), an export's time; each with its age."""
    now = utcnow()
    said = []
    if manifest is not None and (at := utc_time(manifest.get("exported_at"))) is not None:
        said.append(f"exported {_at(at, now)}")
    if (oldest := report.oldest_fetch) is not None:
        said.append(f"oldest list fetched {_at(oldest, now)}")
    if rows is not None:
        first, last = rows
        minute = "%Y-%m-%d %H:%M"  # one minute said once
        said.append(f"rows fetched {_at(first, now)}" if first.strftime(minute) == last.strftime(
            minute) else f"rows fetched from {_at(first, now)} to {last:%Y-%m-%d %H:%M} UTC")
    return "; ".join(said) or None


def _at(when: dt.datetime, now: dt.datetime) -> str:
    seconds = (now - when).total_seconds()
    ago = ("after now (this machine's clock)" if seconds < -60 else
           "under a minute ago" if seconds < 60 else
           f"{seconds // 60:.0f} min ago" if seconds < 3600 else
           f"{seconds // 3600:.0f} h ago" if seconds < 2 * 86_400 else
           f"{seconds // 86_400:.0f} days ago")
    return f"{when:%Y-%m-%d %H:%M} UTC ({ago})"


def completeness_lines(report: Report, *, what: str = "load",
                       rows: tuple[dt.datetime, dt.datetime] | None = None,
                       manifest: Mapping[str, Any] | None = None) -> list[str]:
    """The text view: the headline, then (indented) why ICOs are missing, each query
    (at most ``MORE_QUERIES["text"]``) and how old it is."""
    lines = [headline(report, what)]
    if (why := reasons(report)) is not None:
        lines.append(f"  why: {why}; icoframes.report(...).missing lists each")
    queries = list(report.queries)
    width = max((len(_name(q)) for q in queries[:MORE_QUERIES["text"]]), default=0)
    for q in queries[:MORE_QUERIES["text"]]:
        said = f"  query {_name(q):<{width}}  complete: {query_complete(report, q)}"
        if q.endpoint == "icos":
            said += (f" ({q.rows:,} listed, {_without(report, q)} without a row; list "
                     f"{_list_state(q)})")
        lines.append(said)
        if q.answered_from:  # a narrower query the cache answered: which list it read
            lines.append(f"    answered from the cache: the cached list {_params(q.answered_from)}")
        if q.order_unstated:  # not the service's order for this query, or not the dates shown
            lines.append(f"    order: {_short(q.order_unstated, ORDER_WIDTH)}")
    if len(queries) > MORE_QUERIES["text"]:
        lines.append(f"  and {_more(len(queries) - MORE_QUERIES['text'])}")
    if (old := freshness(report, rows, manifest)) is not None:
        lines.append(f"  {old}")
    return lines


def completeness_html(report: Report, *, what: str = "load",
                      rows: tuple[dt.datetime, dt.datetime] | None = None,
                      manifest: Mapping[str, Any] | None = None) -> list[str]:
    """The HTML view's first paragraphs: the headline (bold), why ICOs are missing, and
    how old it is."""
    esc = html.escape
    head, _, rest = headline(report, what).partition(": ")
    out = [f"<p><strong>{esc(head)}</strong>: {esc(rest)}</p>"]
    if (why := reasons(report)) is not None:
        out.append(f"<p>why: {esc(why)}; <code>icoframes.report(...).missing</code> lists "
                   "each</p>")
    if (old := freshness(report, rows, manifest)) is not None:
        out.append(f"<p>{esc(old)}</p>")
    return out


def queries_html(report: Report | None) -> list[str]:
    """A report's queries as HTML rows (at most ``MORE_QUERIES["html"]``), and what the
    call spent; nothing for no report."""
    if report is None or not report.queries:
        return []
    esc = html.escape
    out = ["<table><thead><tr><th>query</th><th>complete</th><th>listed</th>"
           "<th>without a row</th><th>list</th><th>from</th><th>fetched at (UTC)</th>"
           "<th>values lost</th></tr></thead><tbody>"]
    for q in list(report.queries)[:MORE_QUERIES["html"]]:
        at = "-" if q.fetched_at is None else q.fetched_at.isoformat()
        out.append(
            f"<tr><td>{esc(_name(q))}</td><td>{query_complete(report, q)}</td>"
            f"<td>{q.rows:,}</td><td>{_without(report, q)}</td><td>{esc(_list_state(q))}</td>"
            f"<td>{_source(q)}</td>"
            f"<td>{esc(at)}</td><td>{q.values_lost:,}</td></tr>")
    out.append("</tbody></table>")
    out += [f"<p>order of {esc(_name(q))}: {esc(_short(q.order_unstated, ORDER_WIDTH))}</p>"
            for q in list(report.queries)[:MORE_QUERIES["html"]] if q.order_unstated]
    if len(report.queries) > MORE_QUERIES["html"]:
        out.append(f"<p>and {_more(len(report.queries) - MORE_QUERIES['html'])}</p>")
    spent = ", ".join(f"{esc(k)} {v:,}" for k, v in report.requests.items() if v)
    out.append(f"<p>requests spent: {spent or 'none'}</p>")
    return out


def _source(query: Query) -> str:
    """Where a query's rows came from, for the HTML table (escaped)."""
    if query.answered_from:
        return html.escape(f"cache (the list {_params(query.answered_from)})")
    return "cache" if query.from_cache else "service"


def report_text(report: Report) -> str:
    """A report's own text view (``LoadReport``'s ``repr``): :func:`completeness_lines` and
    the requests it spent; bounded, and never raising."""
    if (damage := report_damage(report)) is not None:
        return f"LoadReport({unreadable(damage, None)})"
    try:
        first, *more = completeness_lines(report)
        return "\n".join([f"LoadReport({first}", *more, f"  requests: {report.requests})"])
    except DAMAGE as error:
        return f"LoadReport({unreadable(error, None, shown=True)})"


def report_html(report: Report) -> str:
    """A report's own HTML view: :func:`completeness_html`, then :func:`queries_html`."""
    if (damage := report_damage(report)) is not None:
        return f"<p>{html.escape(unreadable(damage, None))}</p>"
    try:
        return "\n".join([*completeness_html(report), *queries_html(report)])
    except DAMAGE as error:
        return f"<p>{html.escape(unreadable(error, None, shown=True))}</p>"
