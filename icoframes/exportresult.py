"""What an export returns: :class:`ExportResult`, the main facts of its manifest."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .reporting import AsDict, LoadReport

__all__ = ["ExportResult"]


@dataclass(frozen=True)
class ExportResult(AsDict):
    """What an export wrote: where, whether it is complete, what it cost.

    The main facts of ``manifest.json`` as typed attributes; ``manifest`` holds
    all of it, as written. Reading it as a dict (``result["rows"]``,
    ``result["path"]``, ``in``, ``get``, ``keys``, ``items``, ``dict(result)``),
    as in 0.1, still works in this version with a ``FutureWarning`` and goes in
    the next: use the attributes, or :meth:`as_dict` for 0.1's plain dict.

    Attributes
    ----------
    path : pathlib.Path
        The folder written: ``out``, or ``out/snapshot_date=YYYY-MM-DD``.
    complete : bool
        Every listed ICO has a fresh row and every list came back whole.
    rows : dict of str to int
        Rows per table.
    requests_spent : dict of str to int
        Requests this export sent, per endpoint (retries included).
    requests_total : int
        Their sum.
    missing : list of dict
        Listed ICOs without a row: ``id``, ``name``, ``state``, ``reason``.
    not_refreshed : list of dict
        Rows kept from an earlier fetch: ``id``, ``reason``, ``fetched_at``.
    exported_at : datetime.datetime
        When the export was written (UTC).
    stopped : dict or None
        What stopped the load: the daily limit (``reason`` "quota", ``by`` "service"
        or "daily_quota", ``code``, ``remaining``, ``message``) or a run of wrong
        answers (``reason`` "breaker", ``remaining``, ``message``); None if it ended.
    report : LoadReport
        The report of the load that made the export (``tables.report``): its
        queries, what it lacks, the requests it sent.
    manifest : dict
        ``manifest.json`` as written; when ``kept``, the day's, as it stays.
    kept : bool
        Nothing was written: this export was incomplete and fetched nothing newer than the
        complete export of the day already in ``path``, which is kept (``complete``,
        ``rows``, ``missing``, ``not_refreshed`` and ``exported_at`` are that export's;
        ``requests_spent``, ``stopped`` and ``report`` this one's).
    """

    path: Path
    complete: bool
    rows: dict[str, int]
    requests_spent: dict[str, int]
    requests_total: int
    missing: list[dict[str, Any]]
    not_refreshed: list[dict[str, Any]]
    exported_at: dt.datetime
    stopped: dict[str, Any] | None = None
    report: LoadReport = field(default_factory=LoadReport, repr=False)
    manifest: dict[str, Any] = field(default_factory=dict, repr=False)
    kept: bool = False

    _attribute: ClassVar[str] = "result.rows"

    def _dict_view(self) -> dict[str, Any]:
        """0.1's dict, which dict-style reads still see: the manifest, plus "path" as text."""
        return {**self.manifest, "path": str(self.path)}

    def as_dict(self) -> dict[str, Any]:
        """0.1's dict, without a warning: ``manifest.json`` as written plus ``path`` as text."""
        return self._dict_view()
