"""What a crawl's requests in flight get when it stops, and its first Ctrl-C held for them.

Every request counts against the day's quota once sent, answered or not: the service counted
it. When a crawl stops, what it sent is waited for (:func:`grace`): at the daily limit (or a
ledger's error), each until its own deadline; after another stop, :data:`GRACE` seconds; after
a Ctrl-C, SIGTERM or SIGHUP, :data:`FINISHING` seconds.

While a crawl hands out requests (or a load fetches the filter set,
:func:`~.pool.held_request`), the first of these signals is caught (:class:`FirstSignal`):
the handler set before runs at once, and what it raises (``KeyboardInterrupt``; the command's
``Terminated``; a service's ``SystemExit``) is held. From that moment no new request or retry
leaves; the load waits for the requests in flight, keeps their answers as it keeps any (the
next load does not ask for them again), then raises what was held. The handlers set before
are back from that first signal on: a second signal whose handler raises anything stops the
load at once, cutting what is in flight (:meth:`~.pool.RequestPool.shut_down`), and that
exception is raised. A second SIGTERM to the command is ignored (its handler raises nothing
then); its Ctrl-C stops it.

A handler that raises nothing (one that only logs) changes nothing: the load goes on, as it
would have. Only the main thread sets handlers (and runs them): a load in another thread
holds nothing; a handler Python did not set (None), ``SIG_DFL`` and ``SIG_IGN`` are left as
they are (a process a default SIGTERM kills keeps nothing in flight).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Collection
from types import FrameType, TracebackType
from typing import Any

from ..errors import CacheError, QuotaExceeded
from ..quoting import counted

__all__ = ["FINISHING", "GRACE", "FirstSignal", "grace"]

log = logging.getLogger(__name__)

#: Seconds the requests in flight get after a stop other than the daily limit's or the
#: ledger's (at those, each is waited for until its deadline) or a signal's.
GRACE = 2.0
#: Seconds the requests in flight at a crawl's first Ctrl-C (SIGTERM, SIGHUP) get to be
#: answered, at most (each ends by its own deadline, the ``timeout`` setting, when that comes
#: first): a service answers in a second or two, and a user waiting, or a ``kill``, is not
#: kept long by one that hangs (a second signal whose handler raises cuts them at once).
FINISHING = 5.0
_CAUGHT = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))


class FirstSignal:
    """While the block runs, the first SIGINT, SIGTERM or SIGHUP runs the handler set before
    and holds what it raises (:attr:`caught`), then calls ``on_caught`` (it must be safe in a
    signal's handler: take no lock); the handlers are set back at once, or, with
    ``until_exit``, when the block ends (a signal after the one held is ignored until then,
    and one whose handler raised as they were being set is held as the first).

    Examples
    --------
    >>> import signal
    >>> before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    >>> with FirstSignal() as first:
    ...     signal.raise_signal(signal.SIGINT)  # held: the block goes on
    ...     went_on = True
    >>> went_on, type(first.caught).__name__
    (True, 'KeyboardInterrupt')
    >>> signal.getsignal(signal.SIGINT) is signal.default_int_handler
    True
    >>> _ = signal.signal(signal.SIGINT, before)
    """

    def __init__(self, on_caught: Callable[[], object] = lambda: None, *,
                 until_exit: bool = False) -> None:
        self.caught: BaseException | None = None  # what the first signal's handler raised
        self.signum: int | None = None
        self._on_caught = on_caught  # called in the handler, once it holds an exception
        self._previous: dict[int, Any] = {}
        self._fired = False
        self._until_exit = until_exit  # no handler set back before the block ends

    def __enter__(self) -> FirstSignal:
        if threading.current_thread() is not threading.main_thread():
            return self
        for attempt in range(len(_CAUGHT) + 2):
            try:
                self._set()
                break
            except BaseException as exc:
                # a signal before its handler was set here: with until_exit held as one
                # caught and the rest set, so that the block (a pool's cut) runs held; else
                # (or an error that stays) raised, every handler set back
                if not self._until_exit or attempt > len(_CAUGHT):
                    self._restore()
                    raise
                self._fired = True
                if self.caught is None:
                    self.caught = exc
                    self.signum = signal.SIGINT if isinstance(exc, KeyboardInterrupt) else None
                    self._on_caught()
        if self._fired and not self._until_exit:  # a signal came between two: the one set
            self._restore()  # after it goes back too
        return self

    def _set(self) -> None:
        # each noted before it is set: what a handler raises between two is not left holding
        # a signal after the block (set back, raised); one set already is left as it is
        for sig in _CAUGHT:
            if callable(previous := signal.getsignal(sig)) and previous != self._on_signal:
                self._previous[sig] = previous
                signal.signal(sig, self._on_signal)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._restore()

    def _restore(self) -> None:
        # one at a time, each forgotten once set back: a signal whose handler is back may
        # raise between two of them, and what is left is set back when the block ends. Over
        # a copy: a signal still caught here runs this again inside (it changes the dict)
        for sig, handler in list(self._previous.items()):
            signal.signal(sig, handler)
            self._previous.pop(sig, None)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._fired = True
        handler = self._previous.get(signum)
        if not self._until_exit:  # a second signal goes where it went before: it stops
            self._restore()  # the load now
        if handler is None or self.caught is not None:
            return
        try:
            handler(signum, frame)
        except BaseException as exc:  # KeyboardInterrupt, Terminated: raised by raise_caught
            self.caught, self.signum = exc, signum
            self._on_caught()  # in the handler: a retry whose back-off ends now stays home

    def raise_caught(self) -> None:
        """Raise what the first signal's handler raised, if a signal came."""
        if self.caught is not None:
            raise self.caught


def grace(stop: BaseException | None, *, interrupted: bool, unpaid: Collection[object],
          held: FirstSignal, sent: int, halt: Callable[[], object]) -> float | None:
    """The seconds the requests in flight get once a crawl ended, after ``halt()`` (no new
    attempt, not even a retry, leaves) when it was stopped (None: each until its
    deadline): none when ``interrupted`` (a Ctrl-C not held, or a second one); each waited
    for at the daily limit or a ledger's error (``stop``, paid for: a cache error of the crawl
    itself, ``unpaid``, is not the ledger's); :data:`GRACE` after another stop. After a signal
    ``held`` caught, :data:`FINISHING` at most, which is said when ``sent`` requests are on
    their way (a user pressed Ctrl-C, and the load goes on): those sent or still connecting
    (not paid for should the connection fail), read once no other may start
    (:attr:`~icoframes.api.switch.StopSwitch.on_wire`), not those handed to the pool that
    never will (one waiting for its turn or a retry's)."""
    if stop is not None or held.caught is not None:
        halt()
    if interrupted:
        return 0.0
    paid = isinstance(stop, QuotaExceeded | CacheError) and stop not in unpaid
    if held.caught is None:
        return None if paid else GRACE
    seconds = FINISHING if paid or stop is None else min(GRACE, FINISHING)
    if sent:
        name = signal.Signals(held.signum).name if held.signum else "a signal"
        log.warning("%s (%s): finishing %s already sent or connecting (paid for once sent: "
                    "their answers are kept), for %g s at most; %s",
                    "interrupted" if name == "SIGINT" else "terminated",
                    name, counted(sent, "request"), seconds,
                    "press Ctrl-C again to stop now" if name == "SIGINT"
                    else "a Ctrl-C (SIGINT) stops it now")
    return seconds
