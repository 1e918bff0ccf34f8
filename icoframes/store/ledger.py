"""A ledger of requests spent per service and public key per UTC day, kept in the cache dir.

The service allows 5,000 requests per key per day and does not say when the
count resets; the ledger assumes midnight UTC. It is the budget every process
sharing the cache dir draws on, so it is honest in three ways:

* **A hard cap, before sending.** :meth:`QuotaLedger.take` books one request
  before it is sent and raises :class:`~icoframes.errors.QuotaExceeded` when
  the day's ``limit`` is reached: no process sends more than ``limit``
  requests per key per day.
* **Only what reached the service.** A request that got no HTTP response at
  all (connection refused, DNS failure) is handed back with :meth:`give_back`:
  the service never saw it, so it cost nothing.
* **Persisted as it goes.** Every booking is written at once (read-modify-write
  under a file lock, atomic rename), so a killed process loses no count; at
  worst it keeps the bookings of requests it had in flight. The file is not
  fsync'ed: a killed process cannot lose it, only a power cut could.

A 485 from the service marks the day as exhausted (:meth:`exhaust`). Ledgers
are kept per service address and key, so the sandbox's key and a real key never
share a count.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import QuotaExceeded
from ..files import locked, today

__all__ = ["QuotaLedger"]


class QuotaLedger:
    """Requests spent today by one public key at one service.

    Parameters
    ----------
    cache_dir : path-like
        The cache dir; the ledger lives in ``<cache_dir>/quota/``.
    public_key : str
        The key whose requests are counted (only a hash of it is written).
    limit : int
        The daily allowance: :meth:`take` refuses beyond it.
    service : str, optional
        The service address; each address keeps its own ledger.

    Examples
    --------
    >>> import tempfile
    >>> ledger = QuotaLedger(tempfile.mkdtemp(), "key", limit=2, service="http://127.0.0.1:1")
    >>> ledger.take("ico"); ledger.take("ico"); ledger.remaining()
    0
    >>> ledger.take("ico")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    icoframes.errors.QuotaExceeded: the daily_quota of 2 requests for this key is used up today ...
    >>> ledger.give_back("ico"); ledger.used_today()
    1
    """

    def __init__(self, cache_dir: Path, public_key: str, limit: int = 5000, *,
                 service: str = "") -> None:
        identity = f"{service}\n{public_key}" if service else public_key
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        self.path = Path(cache_dir) / "quota" / f"{digest}.json"
        self.limit = limit
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"QuotaLedger(used_today={self.used_today()}, limit={self.limit})"

    # -- the budget --------------------------------------------------------------------

    def take(self, endpoint: str = "") -> None:
        """Book one request before it is sent; :class:`QuotaExceeded` at the cap."""
        with self._update() as data:
            if data["used"] >= self.limit:
                raise QuotaExceeded(
                    f"the daily_quota of {self.limit} requests for this key is used up today "
                    f"({data['day']}, UTC){' (the service said 485)' if data['exhausted'] else ''}"
                    "; everything fetched is cached: call again after the reset (midnight "
                    "UTC) to fetch only the rest", code=None, endpoint=endpoint or None)
            data["used"] += 1

    def give_back(self, endpoint: str = "") -> None:
        """Undo one :meth:`take` whose request never reached the service (no response)."""
        with self._update() as data:
            data["used"] = max(0, data["used"] - 1)

    def exhaust(self) -> None:
        """The service answered 485: nothing more is sent today."""
        with self._update() as data:
            data["used"] = max(data["used"], self.limit)
            data["exhausted"] = True

    def used_today(self) -> int:
        """Requests booked today by every process sharing this cache dir."""
        return int(self._read()["used"])

    def remaining(self) -> int:
        """Requests left today under ``limit``."""
        return max(0, self.limit - self.used_today())

    # -- the file ------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        fresh = {"day": today(), "used": 0, "exhausted": False}
        try:
            data = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError, OSError):
            return fresh
        if (not isinstance(data, dict) or data.get("day") != fresh["day"]
                or not isinstance(data.get("used"), int) or data["used"] < 0):
            return fresh  # another day (the count resets) or an unreadable file
        return {**fresh, "used": data["used"], "exhausted": bool(data.get("exhausted"))}

    @contextlib.contextmanager
    def _update(self) -> Iterator[dict[str, Any]]:
        """Read, change and write the ledger under the thread lock and the file lock."""
        with self._lock, locked(self.path.with_suffix(".lock")):
            data = self._read()
            before = dict(data)
            yield data  # an exception here (the cap) leaves the file as it was
            if data != before:
                tmp = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex}.tmp")
                tmp.write_text(json.dumps(data))
                os.replace(tmp, self.path)
