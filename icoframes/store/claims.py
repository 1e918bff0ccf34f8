"""Claims on profile ids, so that processes sharing a cache fetch each profile once.

Before a crawl requests a profile it claims the id: a row of the ``claims``
table (:mod:`icoframes.store.cache`) naming the crawl, its process and host, and
when the claim lapses. Claiming is one write transaction that also asks whether
a copy of the id arrived since the crawl planned it (then it is not fetched
again), so two crawls never hold one id and never fetch what the other kept.

A claim is a **lease** of :data:`LEASE` seconds, which the crawl renews
(:meth:`Claims.renew`) while it works. It lapses, and the id goes to whoever
asks next, when it is not renewed in time (its owner was killed, stopped with
SIGSTOP or Ctrl-Z, or is paused in a debugger), at once when its owner's
process is gone (same host), and when it lies too far in the future (a clock
stepped back). A crawl waiting for ids another one holds thus never waits
longer than a lease.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterable
from types import TracebackType

from .db import LEASE, Database

__all__ = ["LEASE", "Claims"]

_HOST = socket.gethostname()


def _alive(pid: int, host: str) -> bool:
    """Whether the process ``pid`` on ``host`` may still run (unknowable elsewhere: yes)."""
    if host != _HOST or os.name != "posix":
        return True  # only the lease tells (os.kill(pid, 0) would signal on Windows)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


class Claims:
    """The ids one crawl holds; a context manager, and :meth:`close` releases them all.

    Parameters
    ----------
    db : Database
        The service's database (:meth:`icoframes.store.cache.Cache.claims` passes it).
    lease : float, default LEASE
        Seconds each claim lasts unless renewed.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.store.cache import Cache
    >>> cache = Cache(tempfile.mkdtemp(), "http://127.0.0.1:9")
    >>> with cache.claims() as first, cache.claims() as second:
    ...     first.claim([1, 2]), second.claim([2, 3])
    (([1, 2], [], []), ([3], [2], []))
    """

    def __init__(self, db: Database, *, lease: float | None = None) -> None:
        self._db = db
        self.lease = LEASE if lease is None else float(lease)
        self.token = uuid.uuid4().hex[:12]
        self._held: set[int] = set()
        self._renewed = time.time()
        self._closed = False
        with self._db.write() as conn:  # claims that lapsed long ago go
            conn.execute("DELETE FROM claims WHERE expires < ?", (time.time() - self.lease,))

    def __repr__(self) -> str:
        return f"Claims({self.token!r}, held={len(self._held)})"

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def held(self) -> frozenset[int]:
        """The ids this crawl holds now."""
        return frozenset(self._held)

    def claim(self, ids: Iterable[int], *, arrived_since: int | None = None,
              ) -> tuple[list[int], list[int], list[int]]:
        """Claim ``ids``: ``(mine, taken, arrived)``, each in the order given.

        ``mine``: held by this crawl now (also those it held already);
        ``taken``: held by another crawl whose claim is live; ``arrived``: with
        a copy newer than version ``arrived_since`` (not claimed: nothing to
        fetch). One transaction, so no copy can arrive in between.
        """
        if self._closed:
            raise RuntimeError("these claims were closed")
        wanted = list(dict.fromkeys(int(i) for i in ids))
        now = time.time()
        with self._db.write() as conn:
            listed = json.dumps(wanted)
            arrived = set() if arrived_since is None else {row[0] for row in conn.execute(
                "SELECT id FROM profiles WHERE id IN (SELECT value FROM json_each(?)) "
                "AND version > ?", (listed, arrived_since))}
            others = {row[0]: row[1:] for row in conn.execute(
                "SELECT id, owner, pid, host, expires FROM claims "
                "WHERE id IN (SELECT value FROM json_each(?)) AND owner != ?",
                (listed, self.token))}
            alive: dict[tuple[int, str], bool] = {}
            taken = []
            for ico_id, (_, pid, host, expires) in others.items():
                if (pid, host) not in alive:
                    alive[(pid, host)] = _alive(pid, host)
                if now < expires <= now + 2 * self.lease and alive[(pid, host)]:
                    taken.append(ico_id)
            mine = [i for i in wanted if i not in arrived and i not in set(taken)]
            self._take(conn, mine, now)
            conn.execute("DELETE FROM claims WHERE owner = ? AND id IN "
                         "(SELECT value FROM json_each(?))", (self.token, json.dumps(
                             [i for i in wanted if i in arrived and i in self._held])))
        self._held.difference_update(arrived)
        self._held.update(mine)
        return mine, [i for i in wanted if i in set(taken)], [i for i in wanted if i in arrived]

    def _take(self, conn: sqlite3.Connection, ids: list[int], now: float) -> None:
        conn.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                         [(i, self.token, os.getpid(), _HOST, now + self.lease) for i in ids])

    def renew(self, *, every: float | None = None) -> None:
        """Extend the lease of every claim held; with ``every``, only if the last renewal
        is older than that (seconds). A claim another crawl took after it lapsed stays its."""
        now = time.time()
        if not self._held or self._closed or (every is not None
                                              and now - self._renewed < every):
            return
        with self._db.write() as conn:
            conn.execute("UPDATE claims SET expires = ? WHERE owner = ?",
                         (now + self.lease, self.token))
            kept = {row[0] for row in conn.execute(
                "SELECT id FROM claims WHERE owner = ?", (self.token,))}
        self._held &= kept
        self._renewed = now

    def release(self, ids: Iterable[int]) -> None:
        """Give up ``ids`` (those this crawl holds; others are ignored)."""
        gone = {int(i) for i in ids} & self._held
        if not gone:
            return
        with self._db.write() as conn:
            conn.execute("DELETE FROM claims WHERE owner = ? AND id IN "
                         "(SELECT value FROM json_each(?))", (self.token, json.dumps(sorted(gone))))
        self._held -= gone

    def close(self) -> None:
        """Release every claim (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._held:
            with self._db.write() as conn:
                conn.execute("DELETE FROM claims WHERE owner = ?", (self.token,))
        self._held.clear()
