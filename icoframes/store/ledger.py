"""The request ledger: what each key sent today, and whether the service refused it.

Every process using the cache dir books its requests in ``quota/ledger.sqlite3``, one
row per service and public key (only a hash of them is written); the rules (a hard cap
booked with one conditional statement, the service's 485 and the probe after it) are in
``docs/guide/quota.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..errors import CacheError, InvalidParameter, QuotaExceeded, quoted
from ..files import utcnow
from ..numerals import INT64_MAX, as_integer, bounds, did_you_mean_number
from ..quoting import counted
from .db import InDatabase, from_ms, ms

__all__ = ["LEDGER_FOLDER", "LEDGER_NAME", "PROBES_UNANSWERED", "LedgerState", "QuotaLedger"]

LEDGER_FOLDER: Final = "quota"
LEDGER_NAME: Final = "ledger.sqlite3"
#: The ledger's own settings, run after :class:`~.db.Database`'s: a booking commits one
#: page, and ``synchronous=NORMAL`` syncs the log only at a checkpoint, so a power cut may
#: take back at most 256 bookings, for three fdatasync calls per 256 (``FULL`` would sync at
#: every booking, on the worker before each request).
_SCHEMA = f"""PRAGMA wal_autocheckpoint=256; PRAGMA journal_size_limit={1 << 20};
CREATE TABLE IF NOT EXISTS ledgers (
    key TEXT PRIMARY KEY, day TEXT NOT NULL, sent INTEGER NOT NULL,
    refused_at INTEGER, refused_after INTEGER);
"""
#: The one conditional statement booking a request (?1 key, ?2 day, ?3 cap): a new day
#: starts at 0, the day never goes back, nothing is booked at the cap (nor under a cap of 0).
_BOOK = ("INSERT INTO ledgers (key, day, sent) SELECT ?1, ?2, 1 WHERE ?3 > 0 "
         "ON CONFLICT (key) DO UPDATE SET "
         "sent = CASE WHEN ?2 > day THEN 1 ELSE sent + 1 END, day = max(day, ?2) "
         "WHERE CASE WHEN ?2 > day THEN 0 ELSE sent END < ?3")
_ROW = "SELECT day, sent, refused_at, refused_after FROM ledgers WHERE key = ?"
#: Probes of one call that may get no answer (a connection cut, a proxy's HTML 503) before
#: the call stops: one such failure is a blip, retried as any. One that timed out ends the
#: call at once: a hanging service costs one ``timeout`` of waiting, not one per probe.
PROBES_UNANSWERED: Final = 3
#: What :meth:`QuotaLedger.settle` hears of a request that was sent and tells nothing of the
#: allowance: no answer, its deadline passed, or an ask to wait (HTTP 429 or 503 with a
#: ``Retry-After`` but no error code: the service is up, a probe may follow after the wait).
_NOTHING_LEARNT = frozenset({"no_answer", "timed_out", "asked_wait"})


@dataclass(frozen=True)
class LedgerState:
    """Today's count of one key: the day (UTC), requests sent, the cap, the service's refusal."""

    day: str
    sent: int
    limit: int
    #: Requests left today under the ``daily_quota`` cap (the service may refuse earlier):
    #: a field, made from the others, so that ``dataclasses.asdict`` (``cache info``) has it
    remaining: int = field(init=False)
    refused_at: dt.datetime | None = None
    refused_after: int | None = None
    reset: dt.time | None = None  #: the service's reset time, when known (quota_reset)
    day_ends: dt.datetime | None = None  #: when the count starts again (UTC)
    #: the stored day if after this clock's: not today's count (a run's clock was ahead, this
    #: one is behind, or, a day after, ``quota_reset`` was set or moved later since)
    ahead_day: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "remaining", max(0, self.limit - self.sent))


class QuotaLedger(InDatabase):
    """Requests sent today by ``public_key`` at ``service``, from every process using
    ``cache_dir``: :meth:`take` refuses beyond ``limit`` (``daily_quota``). ``reset``
    (``quota_reset``): the UTC time of day the service's count resets, when known.

    Examples
    --------
    >>> import tempfile
    >>> ledger = QuotaLedger(tempfile.mkdtemp(), "key", limit=2, service="http://127.0.0.1:1")
    >>> ledger.take("ico"); ledger.take("ico"); ledger.state().remaining
    0
    >>> ledger.take("ico")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    icoframes.errors.QuotaExceeded: the daily_quota setting (2 requests) is reached: ...
    >>> ledger.settle("not_sent"); ledger.state().sent  # it never left
    1
    """

    SCHEMA = _SCHEMA

    def __init__(self, cache_dir: str | Path, public_key: str, limit: int = 5000, *,
                 service: str = "", reset: dt.time | None = None) -> None:
        identity = f"{service}\n{public_key}" if service else public_key
        self.key = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        self.root = Path(cache_dir)
        self.path = self.root / LEDGER_FOLDER / LEDGER_NAME
        number = as_integer(limit)  # as every integer argument: np.int64(5), never True nor 2.5
        if number is None or not 0 <= number <= INT64_MAX:  # what SQLite can bind
            raise InvalidParameter(
                f"limit must be a whole number{bounds(0, INT64_MAX)}, got {quoted(limit)}"
                + did_you_mean_number(limit, low=0, high=INT64_MAX))
        self.limit, self.reset = number, reset  # a limit of 0: nothing is sent
        # this call's probe: None (none yet), "open" (awaiting its answer), "done" (refused:
        # this call's 485), "unanswered" (timed out, or the PROBES_UNANSWERED-th without one)
        self._probe: str | None = None
        self._unanswered = 0
        # per thread (each request is booked and settled on one): whether it is the probe.
        # Only the probe's answer tells whether the allowance is back: another worker's
        # request in flight, booked before the refusal, neither clears it nor ends the wait
        self._booked = threading.local()
        self._unrecorded: tuple[int, CacheError] | None = None  # a 485 it could not record
        self._cond = threading.Condition()

    def __repr__(self) -> str:
        # no I/O: a repr is shown in tracebacks, where the cache may be what failed
        return f"QuotaLedger({str(self.path)!r}, limit={self.limit}, reset={self.reset!r})"

    # -- the day counted ---------------------------------------------------------------

    def day(self, now: dt.datetime | None = None) -> str:
        """The day counted at ``now`` (ISO): the UTC day, or the one begun at :attr:`reset`.

        Only this date is stored with the count: a ``reset`` set or moved during a day moves
        what that date covers until the next reset (docs/guide/quota.md).
        """
        now = utcnow() if now is None else now
        if self.reset is not None:
            now -= dt.timedelta(hours=self.reset.hour, minutes=self.reset.minute)
        return now.date().isoformat()

    def next_reset(self, now: dt.datetime | None = None, *, day: str | None = None,
                   ) -> dt.datetime:
        """When the day counted at ``now`` (or the counted ``day``, ISO) ends (UTC): the next
        count starts then."""
        if now is not None and day is not None:
            raise TypeError("next_reset takes now or day, not both")
        return dt.datetime.combine(dt.date.fromisoformat(day or self.day(now)),
                                   self.reset or dt.time(0), tzinfo=dt.UTC) + dt.timedelta(days=1)

    # -- booking -------------------------------------------------------------------------

    def take(self, endpoint: str = "") -> None:
        """Book one request before it is sent; :class:`QuotaExceeded` when it may not go."""
        with self._cond:
            # the first request after a refusal goes alone: the others wait for its answer,
            # however long (every request booked is settled by its deadline): a wait that gave
            # up first could only refuse, however the probe is answered
            while self._probe == "open":
                self._cond.wait()
            if self._unrecorded is not None:  # this call was refused: it sends nothing more
                raise self._service_refused(*self._unrecorded, endpoint)
            self._book(endpoint)

    def _book(self, endpoint: str) -> None:
        now = utcnow()
        today = self.day(now)
        # no refusal on record (the usual case): the one conditional statement alone, its
        # own transaction. The day booked on is the one stored (a later one than the clock's
        # when the clock was stepped back): a hand-back (settle) goes to that day
        if on_day := self._rows(_BOOK + " AND refused_at IS NULL RETURNING day", self.key,
                                 today, self.limit, write=True):
            self._booked.refused, self._booked.day = False, on_day[0][0]
            return
        with self.write() as conn:
            day, sent, at, after = conn.execute(_ROW, (self.key,)).fetchone() or (
                today, 0, None, None)
            if refused := at is not None:
                # a known reset time: nothing, not even a probe, before it (after it, a probe:
                # a reset time set wrong costs that one request, not a wave of max_workers)
                if self.reset is not None and at >= ms(self.next_reset(now) - dt.timedelta(1)):
                    raise self._service_refused(at, after, endpoint, now)
                if self._probe is not None:
                    raise self._service_refused(at, after, endpoint,
                                                unanswered=self._probe == "unanswered")
            booked = conn.execute(_BOOK + " RETURNING day",
                                  (self.key, today, self.limit)).fetchone()
        if booked is None:
            counts = "UTC" if self.reset is None else f"from {self.reset:%H:%M} UTC, quota_reset"
            said = (f"{counted(sent, 'request')} counted on {day} ({counts}), after this "
                    f"clock's day {today}," if day > today else
                    f"{counted(sent if day == today else 0, 'request')} sent today ({today}, "
                    f"{counts})")
            raise QuotaExceeded(
                f"the daily_quota setting ({counted(self.limit, 'request')}) is reached: "
                f"{said} with this key from this cache dir", code=None, endpoint=endpoint or None)
        self._booked.refused, self._booked.day = refused, booked[0]
        if refused:
            self._probe = "open"

    @property
    def probe_unanswered(self) -> bool:
        """This call's probe got no answer (it timed out, or :data:`PROBES_UNANSWERED` in a
        row did not come back): the call sends nothing more, the 485 is kept."""
        return self._probe == "unanswered"

    def _service_refused(self, at: int, after: int | CacheError | None, endpoint: str,
                         now: dt.datetime | None = None, *,
                         unanswered: bool = False) -> QuotaExceeded:
        when = from_ms(at).strftime("%Y-%m-%d %H:%M UTC")
        until = ("" if now is None else
                 f"; it resets at {self.reset:%H:%M} UTC (the quota_reset setting): no request "
                 f"is sent before {self.next_reset(now):%Y-%m-%d %H:%M} UTC")
        if unanswered:
            until = ("; this call's probe (its first request since, sent alone) timed out, or "
                     f"{PROBES_UNANSWERED} in a row got no answer, so the refusal stays on "
                     "record and the call sends nothing more")
        count = (f"which the quota ledger could not record ({after})"
                 if isinstance(after, CacheError) else f"after {counted(after or 0, 'request')} "
                 "sent that day with this key from this cache dir")  # (None: never with at)
        return QuotaExceeded(
            f"the service refused with error 485 (its daily allowance is used up) at {when}, "
            f"{count}{until}", code=485, endpoint=endpoint or None)

    def settle(self, outcome: str | int | None) -> None:
        """What became of a request booked on this thread (:meth:`take`).

        ``"not_sent"``: handed back to the day it was booked on (a probe so lets the next
        request probe). ``"no_answer"``, ``"timed_out"``, ``"asked_wait"``: it counts, and a
        probe learnt nothing: the next request probes again, unless it timed out or was the
        :data:`PROBES_UNANSWERED`-th without an answer (the call sends nothing more). Else the
        service's error code (None for none): a 485 is recorded as its refusal (if it cannot
        be, its :class:`~icoframes.errors.CacheError` is raised once the waiting ones are
        woken, and the call still stops); any other answer to the probe clears it."""
        probe, self._booked.refused = getattr(self._booked, "refused", False), False
        if outcome == 485:
            self._refused_now()
            return
        try:
            if outcome == "not_sent":
                # only from the day it was booked on: after midnight the count is another
                # day's, and handing it back there would let one request over that day's cap
                self._rows("UPDATE ledgers SET sent = max(0, sent - 1) WHERE key = ? AND day = ?",
                           self.key, getattr(self._booked, "day", None), write=True)
            elif outcome not in _NOTHING_LEARNT and probe:
                self._rows("UPDATE ledgers SET refused_at = NULL, refused_after = NULL "
                           "WHERE key = ?", self.key, write=True)
        finally:
            if probe:  # (another request's answer tells nothing of the probe's: no wake-up)
                with self._cond:
                    if self._probe == "open":
                        self._unanswered += outcome in ("no_answer", "timed_out")
                        self._probe = ("unanswered" if outcome == "timed_out"
                                       or self._unanswered >= PROBES_UNANSWERED else None)
                    self._cond.notify_all()

    def _refused_now(self) -> None:
        # under take()'s lock: no request of this call may see the refusal before it is known
        # as this call's own, and go as its probe after the 485
        with self._cond:
            at = ms(utcnow())
            try:
                self._rows("UPDATE ledgers SET refused_at = ?, refused_after = sent "
                           "WHERE key = ?", at, self.key, write=True)
            except CacheError as exc:
                self._unrecorded = (at, exc)
                raise
            finally:
                self._probe = "done"
                self._cond.notify_all()

    def state(self) -> LedgerState:
        """Today's count (0 on a new day; a later day's, kept), the cap, the service's refusal."""
        today = self.day()
        day, sent, refused_at, refused_after = (self._rows(_ROW, self.key)
                                                or [(today, 0, None, None)])[0]
        if day < today:
            day, sent = today, 0
        # any later day: how many of its requests were sent today is not known (a day later:
        # a clock ahead by minutes at midnight, or quota_reset moved later, does that too)
        ahead = day if day > today else None
        return LedgerState(day, sent, self.limit, from_ms(refused_at), refused_after,
                           reset=self.reset, day_ends=self.next_reset(day=day), ahead_day=ahead)

    def count(self) -> int:
        """How many keys have a ledger in this cache dir."""
        return len(self._rows("SELECT key FROM ledgers"))

    def forget(self) -> bool:
        """Delete this key's count (``clear_cache(ledgers=True or "only")``); whether it had one."""
        return bool(self._rows("DELETE FROM ledgers WHERE key = ? RETURNING key", self.key,
                               write=self.path.exists()))

    def forget_unused(self, before: dt.datetime) -> list[str]:
        """Delete the counts of every key that sent nothing since the UTC day of ``before``:
        the keys whose ledger went."""
        return [row[0] for row in self._rows("DELETE FROM ledgers WHERE day < ? RETURNING key",
                                             before.date().isoformat(), write=self.path.exists())]
