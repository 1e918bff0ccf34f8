"""The breaker's probes: profiles a load asks out of turn before a run of them stops it.

A run of profiles failing, or answered wrongly in the service's envelope, may be a block of bad
ids met in the load's order (the newest ICOs) as much as a service that is down.
:class:`~icoframes.api.control.LoadControl` decides when to ask (its module docstring); this is
how the load's plan (:class:`~icoframes.fetch.planner.ProfilePlan`) is told and tells back.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

__all__ = ["ProbeRun"]


class ProbeRun:
    """The probes of the run of failures in :class:`~icoframes.api.control.LoadControl` (a
    mixin: its lock, counts and :meth:`_trips` are the control's)."""

    _lock: threading.Lock
    items: int
    _failing: set[object]
    _refused: set[object]
    _probes: set[object] | None  # asked out of turn in this run (None: none)
    _wanted: int  # probes the run asked for, not yet handed to the plan
    _found: bool  # the plan said the run's probes (:meth:`probing`; maybe none)
    _held_back: bool  # asked on failures: no profile in turn until they are answered

    def _trips(self) -> bool:
        raise NotImplementedError

    def cancel(self) -> None:
        raise NotImplementedError

    @property
    def probed(self) -> int:
        """Profiles asked out of turn in the run (:meth:`probing`) and answered wrongly or
        failed: of ``items_bad``, those that did not end it (0: none)."""
        with self._lock:
            return len((self._probes or set()) & (self._failing | self._refused))

    def awaiting(self) -> bool:
        """Whether the profiles asked out of turn after a run of failures are not all answered
        yet: the plan hands out no other profile meanwhile (workers going on in turn through a
        block of failing ids would pass the count before the probes tell it an outage)."""
        with self._lock:
            probes = self._probes or set()
            return (self._held_back and self._found
                    and not probes <= self._failing | self._refused)

    def probes_wanted(self, flying: Collection[object] = ()) -> int:
        """How many profiles the load should ask next out of turn, spread over the rest of
        its plan, and register with :meth:`probing` (0: none); said once per run. After
        failures, no more than the room the items failing and ``flying`` (those the load is
        asking) leave under ``items``: with none, the run trips at its count as without."""
        trip = False
        with self._lock:
            wanted, self._wanted = self._wanted, 0
            if wanted and self._held_back:
                wanted = max(0, min(wanted, self.items - len(self._failing | set(flying))))
                if not wanted:  # (none to ask: spent)
                    self._found = True
                    trip = self._trips()
        if trip:
            self.cancel()
        return wanted

    def probing(self, items: Collection[object], asked: bool = True) -> None:
        """``items`` (profiles) go next out of turn (``PROBE_ITEMS``, or those left), or never
        will (not ``asked``: the budget): the run trips once every probe is answered wrongly
        (or failed)."""
        with self._lock:
            if self._probes is None or (not asked and not self._found):
                return
            self._probes = (self._probes | set(items) if asked else  # (a retry refused: kept)
                            self._probes - (set(items) - self._failing - self._refused))
            self._found = True
            trip = self._trips()
        if trip:
            self.cancel()
