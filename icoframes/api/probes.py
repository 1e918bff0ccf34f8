"""The breaker's probes: profiles a load asks out of turn before a run of them stops it.

A run of profiles failing, or answered wrongly in the service's envelope, may be a block of bad
ids met in the load's order (the newest ICOs) as much as a service that is down.
:class:`~icoframes.api.control.LoadControl` decides when to ask (its module docstring); this is
how the load's plan (:class:`~icoframes.fetch.planner.ProfilePlan`) is told and tells back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection

from .asked import AskedRun
from .thresholds import PROBE_ITEMS

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
    _erring: bool  # asked on errors about the items: their room is under refused_items
    refused_items: int
    retry_after: tuple[float, float] | None
    _asked: AskedRun

    def _trips(self) -> bool:
        raise NotImplementedError

    def _asks_probes(self, counted: set[object], known: Collection[object], *, service: bool,
                     enveloped: bool, failing: bool, erring: bool) -> bool:
        """Whether the run (read under the lock: ``counted`` its items, ``known`` those that
        failed in an earlier load) asks profiles elsewhere in the plan now, which tell a block
        of bad ids from a service that is down (:meth:`probing`): a run of ``enveloped`` wrong
        answers at its count, :data:`PROBE_ITEMS` more; profiles ``failing`` (HTTP 5xx, a cut
        body), or ``erring`` (each answered an error about itself, ``{"error": 483}``), once
        :data:`PROBE_ITEMS` short of their count (:attr:`items`, :attr:`refused_items`), the
        attempts in flight too, as many as the room left under it (:meth:`probes_wanted`):
        then a service failing or refusing every profile trips at the count still. None for a
        count of PROBE_ITEMS or less, a run holding items failed before (held instead), or
        asks to wait (a limiter's ids: each gives up, ``keep_trying``)."""
        short = len(self._asked.flying) + PROBE_ITEMS
        if not ((not service and len(counted) >= self.refused_items and enveloped)
                or (failing and not self._refused and self.items > PROBE_ITEMS
                    and self.retry_after is None and counted.isdisjoint(known)
                    and len(self._failing) + short >= self.items)
                or (erring and self.refused_items > PROBE_ITEMS and counted.isdisjoint(known)
                    and len(self._refused) + short >= self.refused_items)):
            return False
        self._probes, self._wanted, self._found = set(), PROBE_ITEMS, False
        self._held_back, self._erring = not enveloped, erring  # (held: :meth:`awaiting`)
        return True

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
        yet, or not picked yet (``ready`` said no to :meth:`probes_wanted`: the lists still
        paged may bring the profiles elsewhere they want): the plan hands out no other profile
        meanwhile (workers going on in turn through a block of failing ids would pass the
        count before the probes tell it an outage)."""
        with self._lock:
            probes = self._probes or set()
            return self._held_back and (self._wanted > 0 or (
                self._found and not probes <= self._failing | self._refused))

    def probes_wanted(self, flying: Collection[object] = (),
                      ready: Callable[[], bool] | None = None) -> int:
        """How many profiles the load should ask next out of turn, spread over the rest of
        its plan, and register with :meth:`probing` (0: none); said once per run, once
        ``ready()`` (asked only then: whether the plan has profiles to pick). After
        failures, as many as the room the items failing and ``flying`` (those the load is
        asking) leave under ``items`` (``refused_items``), all of it: every probe failing too,
        the run trips at its count, not short of it with profiles in turn asked after them
        (:data:`PROBE_ITEMS` with one worker; more when attempts in flight that were retries
        made the run ask early); with none, the run trips at its count as without."""
        with self._lock:
            pending = self._wanted
        if pending and ready is not None and not ready():  # (out of the lock: it may read
            return 0  # :meth:`run_items`; still wanted: :meth:`awaiting`)
        trip = False
        with self._lock:
            wanted, self._wanted = self._wanted, 0
            if wanted and self._held_back:
                run, count = ((self._refused, self.refused_items) if self._erring
                              else (self._failing, self.items))
                wanted = max(0, count - len(run | set(flying)))  # (all failing: the count)
                if not wanted:  # (none to ask: spent)
                    self._found = True
                    trip = self._trips()
        if trip:
            self.cancel()
        return wanted

    def run_items(self) -> set[object]:
        """The items failed or answered wrongly in the run (since the last good answer)."""
        with self._lock:
            return self._failing | self._refused

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
