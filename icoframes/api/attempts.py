"""The attempts of one request: after a failed one, whether another is sent, and when.

:class:`Attempts` is what the client's loop asks after each failure
(:class:`~icoframes.api.retry.Transient`): it counts the failure toward the load's breaker
(:class:`~icoframes.api.control.LoadControl`) on the scale it belongs to (a failure of the
service, or a wrong answer to this item: :meth:`~icoframes.api.control.LoadControl.refused`),
and returns the wait before the next attempt (the retry policy's backoff, or the longer
wait a 429 or 503 asked with ``Retry-After``), or raises the request's error when there is
none: the retry policy's attempts or time are spent (a ``Retry-After`` past its
``max_elapsed`` is said), the breaker gave the item up, an answer refused
:data:`~icoframes.api.retry.ANSWERS_REFUSED` times, or the load stopped. A request that gives
up on a wait it was asked (up to ``max_asked_wait``, and within ``max_elapsed``: a wait a retry
could have waited) leaves it to the load: no request of the load (of a ``Client``: its next
call) is sent until it ran out, or another request was answered before that one began to
wait (a request already waiting waits it out), as the service asked; each ask more would be
booked against the day's quota. Not while another item is retrying
(:meth:`~icoframes.api.control.LoadControl.hold`): that one waits its own asks.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from ..errors import BadResponse, ServiceUnavailable
from .control import Cancelled, LoadControl
from .retry import ANSWERS_REFUSED, RetryPolicy, Transient

__all__ = ["EARLY", "Attempts"]

#: Said after the failure of an item given up before its retries were spent, the service
#: failing (or refusing, asking a wait) other ids too: the item is not to blame.
EARLY = (", given up early: the service was {} other ids too; tried again by a later load")


class Attempts:
    """The attempts of one request to ``path``, for ``item`` (its retries are one item's); a
    context manager: on leaving it the item is no longer one retrying, however it ended.

    Parameters
    ----------
    policy : RetryPolicy
        How many attempts, how long between them and in all.
    control : LoadControl
        The load's stop switch and breaker, told of every failure.
    item : object
        What the breaker counts the request as (a profile: ``("ico", id)``).
    path : str
        The endpoint's path, said in the error.
    service : str, optional
        The service's address without user information, named when the request is given up
        early (the service failing as a whole: where it is matters, not the one path).
    """

    def __init__(self, policy: RetryPolicy, control: LoadControl, item: object,
                 path: str, *, service: str = "") -> None:
        self.policy, self.control, self.item, self.path = policy, control, item, path
        self.service = service  # its host is read only when it is said
        self.started = time.monotonic()
        self.count = 0  # attempts made
        self.limited = 0  # of which a rate limiter asked to wait, the wait honoured (not spent)
        self.seen = control.successes  # the load's answers at the last such ask (or the start)
        self.alone = 0  # such asks in a row with no other request answered between
        self.refused = 0  # of which answered wrongly (the item's own answer, refused)
        self.cut: bytes | None = None  # the last body cut short (stopping inside a JSON text)

    def __enter__(self) -> Attempts:
        return self

    def __exit__(self, *exc: object) -> None:
        # however the request ended (a Ctrl-C or a stop in its backoff too), its item retries no
        # more: left among the items retrying, it would keep a Client's control from ever
        # holding a wait a request gave up on (LoadControl.hold waits for the others' retries)
        self.control.keep_trying(self.item, False)

    def begin(self) -> None:
        """One more attempt, once no wait a request of the load gave up on is pending
        (:meth:`~icoframes.api.switch.StopSwitch.wait_turn`);
        :class:`~icoframes.api.control.Cancelled` when the load stopped (it sends nothing more)."""
        self.count += 1
        self.control.wait_turn()

    def after(self, failure: Transient) -> float:
        """The seconds to wait before the next attempt, the attempt :meth:`begin` counted
        having failed with ``failure``; raises the request's error when none follows
        (:class:`~icoframes.errors.BadResponse` for an answer the gate refused,
        :class:`~icoframes.errors.ServiceUnavailable` otherwise), or
        :class:`~icoframes.api.control.Cancelled` when the load stopped meanwhile.

        Called after the handler of ``failure``: what it raises has no ``__context__`` (a
        transport error's frames, its request)."""
        stopped, note, early = False, "", False
        if failure.cut is not None:  # retried as a cut in transit, unless the same bytes came
            if failure.cut == self.cut and self.control.expected(self.item):  # again, to an
                failure.answered = True  # item that failed in its last load: its answer (no
                self.refused += 1  # transit cuts twice alike), the first cut one too
                note = " (the same body cut short twice, after a failed load: its answer)"
            self.cut = failure.cut
        try:  # after a stop no retry and no breaker count; but an error about the item is
            self.control.check()  # its answer, kept as any in flight then (not left unfetched)
        except Cancelled:
            if not (stopped := failure.final):
                raise
        delay = self.policy.wait(self.count - 1)
        asked = failure.retry_after  # the service's own wait (Retry-After): at least that
        if asked is not None:
            delay = max(delay, asked)
        elapsed = time.monotonic() - self.started
        too_long = asked is not None and asked > self.policy.max_asked_wait
        # a 429's wait honoured is the request's turn at a rate limiter, no attempt of the
        # item's (else a limiter refusing again and again spends the 6 attempts of items a
        # moment from their turn: 9 of 60 rows lost at 3 requests/s); max_elapsed bounds them,
        # and max_attempts in a row with no other request answered between (else an id a
        # limiter always refuses, alone, takes turns until max_elapsed)
        if failure.limited and asked is not None and not too_long:
            turn = self.control.successes != self.seen  # another request answered since
            self.seen, self.alone = self.control.successes, 0 if turn else self.alone + 1
            self.limited += turn or self.alone <= self.policy.max_attempts
        allowed = (not stopped and not too_long and self.count - self.limited
                   < self.policy.max_attempts and elapsed + delay <= self.policy.max_elapsed)
        if failure.answered and not stopped:  # the service up, this item's answer bad: its
            self.refused += 1  # own count toward the breaker; asked once more at most (next
            again = self.control.refused(failure, item=self.item)  # load: again; an error:
            allowed = (allowed and again and not failure.final  # its code)
                       and self.refused < ANSWERS_REFUSED)
        elif not failure.answered:  # (a final failure is answered)
            self.control.failed(str(failure), item=self.item, sent=failure.sent, wait=asked,
                                waited=not too_long)
            kept = self.control.keep_trying(self.item, allowed, asked=asked is not None)
            # given up early: the reason says so, or it reads as an id failing on its own
            # (worth retrying at once, not after the outage that other ids showed)
            early, allowed = allowed and not kept, kept
        if allowed:
            return delay
        if (asked is not None and not too_long and not stopped  # a wait a retry could have
                and asked <= self.policy.max_elapsed):  # waited still runs: the load's next
            self.control.hold(asked, item=self.item)  # request (any item's) waits it
        if asked is not None and too_long:  # (no retry: why)
            note = (f" (the service asked to wait {_seconds(asked)} before another try, "
                    f"Retry-After, longer than the retry policy's max_asked_wait of "
                    f"{self.policy.max_asked_wait:g} s)")
        elif asked is not None and elapsed + asked > self.policy.max_elapsed:
            note = (f" (the service asked to wait {_seconds(asked)} before another try, "
                    f"Retry-After, past the retry policy's {self.policy.max_elapsed:g} s)")
        elif early:
            host = urlsplit(self.service).netloc or self.service
            note = (f" (given up early: the service{' at ' if host else ''}{host} was "
                    f"{'failing other requests' if asked is None else 'refusing other ids'} too)")
        message = (f"{self.path}: {failure}" if failure.final else f"{self.path}: gave up after "
                   f"{self.count} attempts in {elapsed:.1f} s{note}; last failure: {failure}")
        error = (BadResponse(message, code=failure.code, endpoint=self.path, reason=str(failure))
                 if failure.rejected else ServiceUnavailable(message, endpoint=self.path))
        error.last_failure = str(failure) + (EARLY.format(
            "failing" if asked is None else "refusing") if early else "")
        raise error


def _seconds(seconds: float) -> str:
    """A wait as the error says it: seconds, or more than a day (a date years ahead)."""
    return f"{seconds:.0f} s" if seconds < 86_400 else "more than a day"
