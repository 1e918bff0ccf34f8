"""The circuit breaker's asked-to-wait rule: failed attempts in a row each asked to wait.

A service down for every request may say so with ``Retry-After`` on each (a 503 asking 5 s):
a load of one worker honouring every ask would wait minutes before the breaker's other rules
stop it, so :data:`~icoframes.api.control.BREAKER_FAILURES` asks in a row stop it
(:class:`~icoframes.api.control.LoadControl`). A rate limiter asks too, many requests in a
row when a pool's workers meet it together, but it lets some through in each wait it asks.
So a run of asks trips only

* once it lasted the longest wait asked in it (8 workers meeting a limiter at once get 12
  asks within its first second), and :data:`ASK_FLOOR` (1 s) at least: ``Retry-After``
  counts whole seconds, so ``0`` asks a wait under one, not none (a fixed-window limiter
  may round the rest of its window down to ``0``: 8 workers get a dozen such asks within its
  second, though each second serves some, and would stop the load in under 1 s);
* once it holds asks for as many different items as the breaker's items rule counts
  (:data:`~icoframes.api.control.BREAKER_ITEMS`, 16): one item's asks are its own (a limiter
  on one expensive id; its 429s, a limiter's turns, spend none of its attempts, so one such id
  makes 12 asks in a row alone), and so are a few items' (one worker meeting two such ids next
  to each other made 24 asks in a row of theirs, though the service answered every other id).
  A run that would trip but for its items (:meth:`AskedRun.due`: two at least) gives up the
  item that asks instead (its failure, reported, retried by a later load): its next ask tells
  less than another item's first, which either ends the run (the service answers others) or
  adds an item to it. So a service asking every request to wait costs one worker 27 requests
  (the first item's 12 asks, then one ask of each other item), each sent once the wait asked
  before it ran out (a request giving up, no other retrying, holds the load's next one for the
  wait it was asked: :meth:`~icoframes.api.control.LoadControl.hold`), no more than an outage
  answering 503
  without asking
  (:meth:`~icoframes.api.control.LoadControl.keep_trying`), and up to 15 ids refused for good
  in a row fail alone, as 15 ids failing with 503 do;
* and once every attempt that was in flight when it reached the count was answered: a
  limiter answers its asks at once and lets one through that takes its time (a 200 in 50 ms),
  so workers coming back together from their backoff (2-4 s) may be asked 12 times before
  the one let through is answered (a 14-worker load against a token bucket of 5 requests a
  second would stop within 3 s). Attempts sent after that moment do not hold it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["ASK_FLOOR", "AskedRun"]

#: The shortest run of asks that trips (seconds): the unit of ``Retry-After`` (RFC 9110 section
#: 10.2.3 counts it in whole seconds), so that an ask of 0, a wait under a second rounded
#: down, counts as a second; a service down that asks 0 each time still stops a load after
#: its count of asks, once they spanned a second (the backoff between them grows).
ASK_FLOOR = 1.0


class AskedRun:
    """The run of failed attempts in a row each asked to wait, and the attempts in flight.

    Not thread-safe: :class:`~icoframes.api.control.LoadControl` calls it under its lock.
    Threads are named by :func:`threading.get_ident`: a thread sends one attempt at a time.

    Parameters
    ----------
    clock : callable, optional
        The seconds of a monotonic clock (:attr:`clock`, :func:`time.monotonic`, by default):
        a test's own makes a run last its waits without waiting them.

    Examples
    --------
    >>> ticks = iter(range(0, 100, 5))  # a clock 5 s on at each reading
    >>> run = AskedRun(clock=lambda: next(ticks))
    >>> run.sending(1); run.sending(2)  # two attempts in flight
    >>> run.answered(1); run.ask(0.0); run.due(1, thread=1)  # one item's asks: its own
    False
    >>> run.answered(2); run.ask(0.0); run.due(1, thread=2), run.trips(1, 3, thread=2)
    (True, False)
    >>> run.sending(1); run.answered(1); run.ask(0.0); run.trips(1, 3, thread=1)  # a third item
    True
    """

    #: The default clock (seconds): replaced on the class, it is every load's (a test's).
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        if clock is not None:
            self.clock = clock
        self.count = 0  # failed attempts in a row, each asked to wait
        self.start = 0.0  # the run's first ask (clock)
        self.longest = 0.0  # the longest wait asked in the run (seconds)
        self.items: set[object] = set()  # the different items the run holds asks for
        self.flying: set[int] = set()  # threads whose attempt was sent, its answer not counted
        # the threads whose answers the trip awaits (in flight when the run reached the count);
        # None: the run did not reach it yet
        self.held: set[int] | None = None

    def sending(self, thread: int) -> None:
        """``thread`` sends an attempt: its previous one is over, whatever came of it."""
        self.flying.add(thread)
        if self.held is not None:
            self.held.discard(thread)

    def answered(self, thread: int) -> None:
        """The answer to ``thread``'s attempt (or its failure) is being counted."""
        self.flying.discard(thread)
        if self.held is not None:
            self.held.discard(thread)

    def ask(self, wait: float, item: object = None) -> None:
        """One more failed attempt in the run, for ``item`` (None: one of its own), asked to
        wait ``wait`` seconds."""
        item = object() if item is None else item
        if not self.count:
            self.start, self.longest, self.items = self.clock(), 0.0, set()
        self.items.add(item)
        self.longest = max(self.longest, wait)
        self.count += 1

    def end(self) -> None:
        """The run is over (an attempt answered, or failed without asking a wait)."""
        self.count, self.held = 0, None

    def due(self, failures: int, *, thread: int) -> bool:
        """Whether the run, its last ask counted by ``thread``, would trip the breaker but for
        its items: ``failures`` asks in a row at least, for two items at least, once it lasted
        its longest wait (an ask shorter than :data:`ASK_FLOOR` counts as that long) and the
        attempts in flight when it got there were answered (asks too, or it would have ended).
        The item that asked then gives up (:meth:`trips` needs more items)."""
        if (self.count < failures or len(self.items) < 2
                or self.clock() - self.start < max(self.longest, ASK_FLOOR)):
            return False
        if self.held is None:
            self.held = self.flying - {thread}
        return not self.held

    def trips(self, failures: int, items: int, *, thread: int) -> bool:
        """Whether the run trips the breaker now: :meth:`due`, with asks for ``items`` different
        items at least (never on a few items' asks alone: each gives up instead)."""
        return self.due(failures, thread=thread) and len(self.items) >= items
