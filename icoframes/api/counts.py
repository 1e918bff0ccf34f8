"""What a client counts of its requests, and the ledger it books them with.

:class:`Counter` keeps a count per endpoint, safe to share between threads (the
client's attempts, requests sent and requests answered). :class:`Budget` is what a
request ledger offers the client: a booking before each attempt, and what became of
it after.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Budget", "Counter"]


@dataclass
class Counter:
    """A count per endpoint (``names``: those counted from 0), safe between threads."""

    names: tuple[str, ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock)
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.counts = {**dict.fromkeys(self.names, 0), **self.counts}

    def add(self, endpoint: str) -> None:
        with self.lock:
            self.counts[endpoint] = self.counts.get(endpoint, 0) + 1

    def snapshot(self) -> dict[str, int]:
        with self.lock:
            return dict(self.counts)


class Budget(Protocol):
    """A request ledger: ``take`` books (or refuses) before sending; ``settle`` hears what
    became of it: ``"not_sent"`` (it never left, or the load stopped while it waited for
    its booking) or, sent, so it counts: ``"no_answer"``, ``"timed_out"`` (its whole
    ``timeout`` waited), ``"asked_wait"`` (HTTP 429 or 503 with ``Retry-After``, no code) or
    the service's answer (its error code; None for none)."""

    def take(self, endpoint: str) -> None: ...

    def settle(self, endpoint: str, outcome: str | int | None) -> None: ...
