"""A ledger of requests spent per public key per UTC day, kept in the cache dir.

The service allows 5,000 requests per key per day and does not say when the
count resets; the ledger assumes midnight UTC. It lets a loader warn before it
starts a load that cannot finish today, and it is shared by every process that
uses the same cache dir (updates are read-modify-write under a file lock).
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from ..files import atomic_write_bytes, locked, today

__all__ = ["QuotaLedger"]


class QuotaLedger:
    """Requests spent today by one public key.

    Parameters
    ----------
    cache_dir : path-like
        The cache dir; the ledger lives in ``<cache_dir>/quota/``.
    public_key : str
        The key whose requests are counted (only a hash of it is written).
    limit : int
        The daily allowance.
    """

    def __init__(self, cache_dir: Path, public_key: str, limit: int = 5000) -> None:
        digest = hashlib.sha256(public_key.encode("utf-8")).hexdigest()[:16]
        self.path = Path(cache_dir) / "quota" / f"{digest}.json"
        self.limit = limit
        self._pending = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"QuotaLedger(used_today={self.used_today()}, limit={self.limit})"

    def record(self, endpoint: str = "") -> None:
        """Count one request (cheap; call :meth:`flush` to persist)."""
        with self._lock:
            self._pending += 1

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError, OSError):
            return {"day": today(), "used": 0}
        if not isinstance(data, dict) or data.get("day") != today():
            return {"day": today(), "used": 0}
        return data

    def flush(self, *, exhausted: bool = False) -> int:
        """Persist counted requests; ``exhausted=True`` records that the service said 485."""
        with self._lock:
            pending, self._pending = self._pending, 0
        with locked(self.path.with_suffix(".lock")):
            data = self._read()
            used = int(data.get("used", 0)) + pending
            if exhausted:
                used = max(used, self.limit)
            data = {"day": today(), "used": used}
            atomic_write_bytes(self.path, json.dumps(data).encode())
        return used

    def used_today(self) -> int:
        with self._lock:
            pending = self._pending
        return int(self._read().get("used", 0)) + pending

    def remaining(self) -> int:
        return max(0, self.limit - self.used_today())
