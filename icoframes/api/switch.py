"""The stop switch the threads of one load share (the circuit breaker builds on it).

A load sends its requests from a pool of threads. When the user presses Ctrl-C, or the service
is down, every one of them must stop within moments, including a thread stuck reading a body
that trickles in byte by byte. :class:`StopSwitch` is that switch (with the breaker:
:class:`~icoframes.api.control.LoadControl`): :meth:`~StopSwitch.cancel` wakes threads waiting
between retries and shuts down the sockets of the requests in flight, so a blocked read returns
at once; :meth:`~StopSwitch.halt` lets the attempts in flight end, but no new one (a retry)
leaves; :meth:`~StopSwitch.hold` keeps every new attempt waiting for a while (a wait the
service asked that the request it asked did not wait; the breaker's
:meth:`~icoframes.api.control.LoadControl.hold` says when).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Callable

__all__ = ["Cancelled", "StopSwitch"]

log = logging.getLogger(__name__)


class Cancelled(Exception):
    """The load this request belonged to was stopped (Ctrl-C, SIGTERM or the breaker)."""


class StopSwitch:
    """A way to stop every thread of a load: wake the waiting, cut the reading.

    Examples
    --------
    >>> switch = StopSwitch()
    >>> switch.halt(); switch.cancelled  # no new attempt, the reads go on
    False
    >>> switch.cancel(); switch.cancelled
    True
    """

    #: The monotonic clock (seconds) of :meth:`hold`: replaced on the class, every load's.
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(self) -> None:
        self._held = 0.0  # no new attempt leaves before this time (clock), :meth:`hold`
        self._stop = threading.Event()  # cancelled: reads cut
        self._halt = threading.Event()  # no new attempt (set by cancel too)
        self._stopping = False  # no new attempt either (set by a signal's handler)
        self._lock = threading.Lock()
        self._sockets: dict[int, socket.socket] = {}  # thread id -> socket being read
        self._sending: set[int] = set()  # the threads whose attempt left and is not over

    @property
    def on_wire(self) -> int:
        """Attempts that left and are not over (:meth:`sending` to :meth:`release`): sent, or
        still connecting (the count comes before the connection, which may fail: then nothing
        was sent). Read once the load is stopped (:meth:`stop_sending`), it holds every attempt
        sent: none leaves after it, and one that is leaving was counted (what a Ctrl-C's
        "finishing" line says)."""
        with self._lock:
            return len(self._sending)

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (the breaker trips it too)."""
        return self._stop.is_set()

    def cancel(self) -> None:
        """Stop every thread of the load: wake the waiting, cut the reading."""
        self._halt.set()
        self._stop.set()
        with self._lock:
            sockets = list(self._sockets.values())
        for sock in sockets:
            # shutdown (not close) makes a recv blocked in another thread return now,
            # and leaves closing the descriptor to its owner
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def halt(self) -> None:
        """Send no new attempt: :meth:`check` and :meth:`sleep` raise :class:`Cancelled`
        from now on (a retry never leaves); the reads in flight go on (they may end)."""
        self._halt.set()

    def stop_sending(self) -> None:
        """:meth:`halt` for a signal's handler: no new attempt leaves from now on, but the
        waiting are not woken (:meth:`halt` does it later). A flag, no lock: the thread the
        handler interrupted may hold the lock an ``Event`` takes."""
        self._stopping = True

    def check(self) -> None:
        """Raise :class:`Cancelled` once the load is stopped or halted (called before each
        attempt)."""
        if self._stopping or self._halt.is_set():
            raise Cancelled(self._why())

    def _why(self) -> str:
        """What :class:`Cancelled` says (the breaker: the failure that tripped it)."""
        return "the load was cancelled"

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` between retries, or raise :class:`Cancelled` as soon as stopped.
        A wait past what a lock can wait (``threading.TIMEOUT_MAX``: a ``Retry-After`` of
        centuries allowed by an infinite policy) waits that long, not an ``OverflowError``."""
        if self._halt.wait(min(seconds, threading.TIMEOUT_MAX)):
            self.check()

    def hold(self, seconds: float) -> None:
        """Let no new attempt leave for ``seconds`` (:meth:`wait_turn`): a wait the service asked
        (``Retry-After``) that the request asked did not wait, giving up; another request
        sent within it would be asked to wait too, each ask booked against the day's quota.
        The breaker (:class:`~icoframes.api.control.LoadControl`) ends it when another request
        is answered: the wait was that request's own, or it is over."""
        with self._lock:
            self._held = max(self._held, self.clock() + seconds)

    def wait_turn(self) -> None:
        """Wait for the end of a :meth:`hold`, then :meth:`check` (called before each attempt);
        raise :class:`Cancelled` as soon as stopped."""
        if (left := self._held - self.clock()) > 0:  # (said: a Client's next call waits too)
            log.info("next request in %.2f s: a wait the service asked (Retry-After) of a "
                     "request that gave up", left)
            self.sleep(left)  # (once: a sleep returns early only when stopped)
        self.check()

    def sending(self) -> None:
        """The calling thread's attempt leaves now, to connect then send (counted in
        :attr:`on_wire` until :meth:`release`), or :class:`Cancelled` once the load is
        stopped (:meth:`check`).
        Both under the lock: a count read after a stop holds every attempt that passed."""
        with self._lock:
            self.check()
            self._sending.add(threading.get_ident())

    def register(self, sock: socket.socket) -> None:
        """The calling thread now reads ``sock``: :meth:`cancel` will cut it."""
        with self._lock:
            self._sockets[threading.get_ident()] = sock
        if self._stop.is_set():  # cancelled just before: do not start a read
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def release(self) -> None:
        """The calling thread's attempt is over: done reading its socket."""
        with self._lock:
            self._sockets.pop(threading.get_ident(), None)
            self._sending.discard(threading.get_ident())
