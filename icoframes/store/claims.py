"""Claims on profile ids, so that processes sharing a cache fetch each profile once.

A claim is a row of the ``claims`` table naming the crawl, its process and host, and
when it lapses: a **lease** of :data:`LEASE` seconds, taken in the transaction that asks
whether a copy arrived since the crawl planned (``docs/guide/cache.md``). It also lapses
when it lies too far in the future (a clock stepped back): nobody waits longer than a lease.
A claim taken ``timed`` (a list query's) also keeps when it was taken, in the ``claimed``
table (a table of its own: an older version's process still writes ``claims`` rows as it
did), which tells another process which lists that crawl kept since it claimed.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterable
from typing import Any

from .db import IDS_IN, LEASE, Database

__all__ = ["LEASE", "Claims", "held_now"]

_HOST = socket.gethostname()
#: The tokens of this process's crawls not closed yet. A claim of this process under another
#: token was left by a crawl that ended without deleting it (a full disk refused the
#: release): it lapses at once, as a dead process's does.
_OPEN: set[str] = set()
#: When each id was last claimed ``timed``, and by which crawl (kept after the release).
_CLAIMED = ("CREATE TABLE IF NOT EXISTS claimed (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, "
            "at REAL NOT NULL)")
#: The moments of lists neither cached nor claimed go: none is read (a list is claimed under
#: its key's first 15 hex digits, negated, less one: fetch.sharedlists.list_claim_id).
_UNNAMED = ("DELETE FROM claimed WHERE id NOT IN (SELECT id FROM claims) AND "
            "printf('%015x', -1 - id) NOT IN (SELECT substr(key, 1, 15) FROM lists)")


def _alive(pid: int, host: str) -> bool:
    if host != _HOST or os.name != "posix":
        return True  # only the lease tells (os.kill(pid, 0) would signal on Windows)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        pass
    try:  # killed but not reaped yet (a zombie, state Z or X) holds nothing: Linux's /proc
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[:1] not in ([b"Z"], [b"X"])
    except OSError:  # no /proc (not Linux): only kill tells
        return True


#: The start of every token this process makes (new in a forked child), then a count: a
#: claim of this pid and host under a token without it is another process's (two containers
#: of one hostname, each Python as PID 1 of its own PID namespace, sharing a cache dir), live
#: until its lease ends. Nothing is kept per crawl: a long-lived process does not grow.
_PREFIX = uuid.uuid4().hex[:8]
_COUNT = itertools.count()


def _new_prefix() -> None:
    global _PREFIX
    _PREFIX = uuid.uuid4().hex[:8]


if hasattr(os, "register_at_fork"):  # (not on Windows: no fork)
    os.register_at_fork(after_in_child=_new_prefix)


def _live(rows: Iterable[Any], now: float, lease: float) -> list[Any]:
    """The claims ``rows`` (id, owner, pid, host, expires) a live crawl holds: its lease not
    over (nor more than two ahead), its process alive (each asked once per call), or this
    process's crawl not closed."""
    alive = functools.cache(_alive)
    return [(i, owner, pid, host, expires) for i, owner, pid, host, expires in rows
            if now < expires <= now + 2 * lease and (
                owner in _OPEN if (pid, host) == (os.getpid(), _HOST) and owner.startswith(_PREFIX)
                else alive(pid, host))]


def held_now(db: Database, ids: Iterable[int]) -> dict[int, float | None]:
    """Of ``ids``, those a live crawl holds now (another process's, or another crawl of
    this one), each with when that crawl claimed it (POSIX seconds; None: not kept, an older
    version's claim): a read, nothing claimed (a read-only cache's too)."""
    listed, now = json.dumps(sorted({int(i) for i in ids})), time.time()
    with db.read() as conn:
        rows = [] if conn is None else conn.execute(
            f"SELECT id, owner, pid, host, expires FROM claims WHERE {IDS_IN} AND expires > ? "
            "AND expires <= ?", (listed, now, now + 2 * LEASE)).fetchall()
        at: dict[tuple[int, str], float] = {}
        try:  # (no such table: no crawl of this version claimed in this cache yet)
            if conn is not None and rows:
                at = {(i, owner): when for i, owner, when in conn.execute(
                    f"SELECT id, owner, at FROM claimed WHERE {IDS_IN}", (listed,))}
        except sqlite3.OperationalError:
            pass
    return {i: at.get((i, owner)) for i, owner, *_ in _live(rows, now, LEASE)}


class Claims:
    """The ids one crawl holds; a context manager, and :meth:`close` releases them all.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.store.cache import Cache
    >>> cache = Cache(tempfile.mkdtemp(), "http://127.0.0.1:9")
    >>> with cache.claims() as first, cache.claims() as second:
    ...     first.claim([1, 2]), second.claim([2, 3])
    (([1, 2], [], []), ([3], [2], []))
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self.lease = LEASE
        self.token = f"{_PREFIX}{next(_COUNT):04x}"  # (unique in the process)
        self._held: set[int] = set()
        self._renewed, self._renewed_mono = time.time(), time.monotonic()
        self._closed = False
        #: When each id of the last ``timed`` :meth:`claim` was last claimed before it (POSIX
        #: seconds; its claim may be released since): none when not said (an older version).
        self.moments: dict[int, float] = {}
        #: Of the ids the last :meth:`claim` made this crawl's, those another crawl's claim
        #: on had lapsed (its lease over, or its process gone), not been released.
        self.lapsed: set[int] = set()
        with self._db.write() as conn:  # claims that lapsed long ago go
            conn.execute("DELETE FROM claims WHERE expires < ?", (time.time() - self.lease,))
            conn.execute(_CLAIMED)
            conn.execute(_UNNAMED)
        _OPEN.add(self.token)

    def __repr__(self) -> str:
        return f"Claims({self.token!r}, held={len(self._held)})"

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def held(self) -> frozenset[int]:
        """The ids this crawl holds now."""
        return frozenset(self._held)

    def claim(self, ids: Iterable[int], *, arrived_since: int | None = None,
              timed: bool = False) -> tuple[list[int], list[int], list[int]]:
        """Claim ``ids``: ``(mine, taken, arrived)``, each in the order given.

        ``mine``: held by this crawl now (also those it held already); ``taken``: held
        by another crawl whose claim is live; ``arrived``: with a copy newer than version
        ``arrived_since`` (not claimed: nothing to fetch). One transaction. ``timed``: keep
        when each id newly held was claimed, and say in :attr:`moments` when each of ``ids``
        was last claimed before this call (a taken one: by its owner now).
        """
        if self._closed:
            raise RuntimeError("these claims were closed")
        wanted = list(dict.fromkeys(int(i) for i in ids))
        now, listed = time.time(), json.dumps(wanted)
        with self._db.write() as conn:
            arrived = set() if arrived_since is None else {row[0] for row in conn.execute(
                f"SELECT id FROM profiles WHERE {IDS_IN} AND version > ?", (listed, arrived_since))}
            others = conn.execute(f"SELECT id, owner, pid, host, expires FROM claims WHERE "
                                  f"{IDS_IN} AND owner != ?", (listed, self.token)).fetchall()
            taken = {row[0] for row in _live(others, now, self.lease)}
            mine = [i for i in wanted if i not in arrived and i not in taken]
            # another crawl's row, not taken: its claim lapsed (no row: released, or none)
            self.lapsed = {row[0] for row in others} - taken - arrived
            conn.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                             [(i, self.token, os.getpid(), _HOST, now + self.lease) for i in mine])
            if timed:
                owners = {i: owner for i, owner, _, _, _ in others}
                self.moments = {i: at for i, owner, at in conn.execute(
                    f"SELECT id, owner, at FROM claimed WHERE {IDS_IN}", (listed,))
                    if i not in taken or owners[i] == owner}
                conn.executemany("INSERT OR REPLACE INTO claimed VALUES (?, ?, ?)",
                                 [(i, self.token, now) for i in mine if i not in self._held])
            self._drop(conn, arrived & self._held)
        self._held = (self._held - arrived) | set(mine)
        return mine, [i for i in wanted if i in taken], [i for i in wanted if i in arrived]

    def renew(self, *, every: float | None = None) -> None:
        """Extend the lease of every claim held (with ``every``, only if the last renewal is
        older than that, in seconds); one another crawl took after it lapsed stays its."""
        now, mono = time.time(), time.monotonic()
        # skipped only if neither clock moved ``every`` on: a wall clock stepped back (an NTP or
        # VM step) renews at once, else the expiries kept lie ahead of every other process's
        # clock by more than two leases (read as lapsed: taken) until it catches up
        if not self._held or self._closed or (every is not None and 0 <= now - self._renewed
                                              < every and mono - self._renewed_mono < every):
            return
        with self._db.write() as conn:
            self._held &= {row[0] for row in conn.execute(
                "UPDATE claims SET expires = ? WHERE owner = ? RETURNING id",
                (now + self.lease, self.token))}
        self._renewed, self._renewed_mono = now, mono

    def release(self, ids: Iterable[int]) -> None:
        """Give up ``ids`` (those this crawl holds; others are ignored)."""
        if gone := {int(i) for i in ids} & self._held:
            with self._db.write() as conn:
                self._drop(conn, gone)
            self._held -= gone

    def _drop(self, conn: sqlite3.Connection, ids: set[int]) -> None:
        conn.execute(f"DELETE FROM claims WHERE owner = ? AND {IDS_IN}",
                     (self.token, json.dumps(sorted(ids))))

    def close(self) -> None:
        """Release every claim (idempotent); the crawl is over even if the release fails."""
        try:
            self.release(self._held)
        finally:
            self._closed = True
            _OPEN.discard(self.token)
