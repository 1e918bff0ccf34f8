"""What one sandbox has seen: thread-safe counters that tests and benchmarks read.

The server records into a :class:`SandboxStats` as it goes (requests by
endpoint, profiles served, faults injected, latency applied, connections and
requests open right now); :meth:`SandboxStats.wait_for` lets a test wait for a
state of the server instead of sleeping.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from ..errors import checked_methods

__all__ = ["SandboxStats"]


@checked_methods
class SandboxStats:
    """Thread-safe counters of one sandbox. Reading a counter returns a copy.

    Parameters
    ----------
    quota_used : callable
        Requests counted today against a public key (the quota keeps that count).

    Examples
    --------
    >>> stats = SandboxStats(quota_used=lambda key: 0)
    >>> stats.record_request("icos"); stats.request_started()
    >>> stats.requests, stats.in_flight, stats.max_in_flight
    (Counter({'icos': 1}), 1, 1)
    >>> stats.request_finished(); stats.wait_for(lambda s: s.in_flight == 0, timeout=1)
    True
    """

    def __init__(self, quota_used: Callable[[str], int]):
        # one condition guards every counter and wakes wait_for on each change
        self._changed = threading.Condition()
        self._quota_used = quota_used
        self._requests: Counter[str] = Counter()
        self._profile_hits: Counter[int] = Counter()
        self._faults = 0
        self._delayed = 0
        self._delay_seconds = 0.0
        self._connections = 0
        self._open_connections = 0
        self._in_flight = 0
        self._max_in_flight = 0

    @property
    def requests(self) -> Counter[str]:
        """Requests received, by endpoint: ``filters``, ``icos``, ``ico``, ``other``."""
        with self._changed:
            return Counter(self._requests)

    @property
    def profile_hits(self) -> Counter[int]:
        """ICO id -> times its profile was served successfully."""
        with self._changed:
            return Counter(self._profile_hits)

    @property
    def faults(self) -> int:
        """Injected faults so far."""
        with self._changed:
            return self._faults

    @property
    def delayed(self) -> int:
        """Requests that waited for the latency before being answered."""
        with self._changed:
            return self._delayed

    @property
    def delay_seconds(self) -> float:
        """Seconds of latency applied, summed over the requests (they wait concurrently)."""
        with self._changed:
            return self._delay_seconds

    @property
    def connections(self) -> int:
        """TCP connections accepted (pooled clients keep this low)."""
        with self._changed:
            return self._connections

    @property
    def open_connections(self) -> int:
        """TCP connections open right now (idle keep-alive ones included)."""
        with self._changed:
            return self._open_connections

    @property
    def in_flight(self) -> int:
        """Requests being answered right now."""
        with self._changed:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most requests answered at the same time since the start (or the last reset)."""
        with self._changed:
            return self._max_in_flight

    def quota_used(self, public_key: str) -> int:
        """Requests counted today (UTC) against ``public_key``'s daily allowance."""
        return self._quota_used(public_key)

    def reset(self) -> None:
        """Zero every counter; the quota and what is open right now are left alone."""
        with self._changed:
            self._requests.clear()
            self._profile_hits.clear()
            self._faults = self._delayed = self._connections = 0
            self._delay_seconds = 0.0
            self._max_in_flight = self._in_flight
            self._changed.notify_all()

    def wait_for(self, condition: Callable[[SandboxStats], bool], timeout: float = 10.0) -> bool:
        """Block until ``condition(stats)`` holds; False if it still does not after ``timeout`` s.

        The condition is checked again on every change of a counter, so no polling
        interval delays it.
        """
        with self._changed:
            return self._changed.wait_for(lambda: condition(self), timeout)

    # --- recording, by the server -------------------------------------------------------------

    def record_request(self, endpoint: str) -> None:
        """Count a request to ``endpoint`` (``other`` for an unknown one)."""
        with self._changed:
            self._requests[endpoint] += 1
            self._changed.notify_all()

    def record_profile(self, ico_id: int) -> None:
        """Count a profile served successfully."""
        with self._changed:
            self._profile_hits[ico_id] += 1
            self._changed.notify_all()

    def record_fault(self) -> None:
        """Count an injected fault."""
        with self._changed:
            self._faults += 1
            self._changed.notify_all()

    def record_delay(self, seconds: float) -> None:
        """Count a request that waits ``seconds`` of latency."""
        with self._changed:
            self._delayed += 1
            self._delay_seconds += seconds
            self._changed.notify_all()

    def connection_opened(self) -> None:
        """Count an accepted connection."""
        with self._changed:
            self._connections += 1
            self._open_connections += 1
            self._changed.notify_all()

    def connection_closed(self) -> None:
        """Note that a connection ended."""
        with self._changed:
            self._open_connections -= 1
            self._changed.notify_all()

    def request_started(self) -> None:
        """Note that a request is being answered."""
        with self._changed:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._changed.notify_all()

    def request_finished(self) -> None:
        """Note that a request was answered (or given up)."""
        with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    def __repr__(self) -> str:
        return (f"SandboxStats(requests={dict(self.requests)}, faults={self.faults}, "
                f"profiles_served={sum(self.profile_hits.values())})")
