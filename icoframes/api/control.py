"""What the threads of one load share: a way to stop them, and a circuit breaker.

A load sends its requests from a pool of threads. When the user presses
Ctrl-C, or the service keeps failing, every one of them must stop within
moments, including a thread stuck reading a body that trickles in byte by
byte. :class:`LoadControl` is that switch:

* :meth:`~LoadControl.cancel` wakes threads waiting between retries and shuts
  down the sockets of the requests in flight, so a blocked read returns at once;
* it counts failed attempts across the whole pool: after
  :data:`BREAKER_FAILURES` failures in a row (no success in between) the
  breaker trips, the load is cancelled, and :attr:`~LoadControl.last_failure`
  says why ("connection refused", "HTTP 500", "not JSON"...).

One failing profile cannot trip it alone: an item is given up after at most
:attr:`~icoframes.api.retry.RetryPolicy.max_attempts` (6) tries, fewer than
:data:`BREAKER_FAILURES`, and any success elsewhere resets the run.
"""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ["BREAKER_FAILURES", "Cancelled", "LoadControl"]

# Failed attempts in a row, across every thread of a load, that stop it: more than one
# item's own retries (6), few enough that a dead service stops a load within seconds.
BREAKER_FAILURES = 12


class Cancelled(Exception):
    """The load this request belonged to was stopped (Ctrl-C, SIGTERM or the breaker)."""


class LoadControl:
    """The stop switch and circuit breaker shared by the threads of one load.

    Parameters
    ----------
    failures : int, default BREAKER_FAILURES
        Failed attempts in a row that trip the breaker.

    Examples
    --------
    >>> control = LoadControl(failures=2)
    >>> control.failed("HTTP 500"); control.tripped
    False
    >>> control.failed("connection refused"); control.tripped, control.cancelled
    (True, True)
    >>> control.last_failure
    'connection refused'
    """

    def __init__(self, *, failures: int = BREAKER_FAILURES) -> None:
        self.failures = int(failures)
        self.in_a_row = 0
        self.last_failure: str | None = None
        self.tripped = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sockets: dict[int, socket.socket] = {}  # thread id -> socket being read

    def __repr__(self) -> str:
        return (f"LoadControl(cancelled={self.cancelled}, tripped={self.tripped}, "
                f"failures_in_a_row={self.in_a_row})")

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called or the breaker tripped."""
        return self._stop.is_set()

    def cancel(self) -> None:
        """Stop every thread of the load: wake the waiting, cut the reading."""
        self._stop.set()
        with self._lock:
            sockets = list(self._sockets.values())
        for sock in sockets:
            # shutdown (not close) makes a recv blocked in another thread return now,
            # and leaves closing the descriptor to its owner
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def check(self) -> None:
        """Raise :class:`Cancelled` once the load is stopped (called before each attempt)."""
        if self._stop.is_set():
            raise Cancelled(self.last_failure if self.tripped else "the load was cancelled")

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` between retries, or raise :class:`Cancelled` as soon as stopped."""
        if self._stop.wait(seconds):
            self.check()

    def failed(self, reason: str) -> None:
        """Count one failed attempt; trip the breaker after :attr:`failures` in a row."""
        with self._lock:
            self.in_a_row += 1
            self.last_failure = reason
            trip = self.in_a_row >= self.failures and not self.tripped
            if trip:
                self.tripped = True
        if trip:
            self.cancel()

    def succeeded(self) -> None:
        """An attempt got a usable answer: the run of failures is over."""
        with self._lock:
            self.in_a_row = 0

    def register(self, sock: socket.socket) -> None:
        """The calling thread now reads ``sock``: :meth:`cancel` will cut it."""
        with self._lock:
            self._sockets[threading.get_ident()] = sock
        if self._stop.is_set():  # cancelled just before: do not start a read
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def release(self) -> None:
        """The calling thread is done reading its socket."""
        with self._lock:
            self._sockets.pop(threading.get_ident(), None)
