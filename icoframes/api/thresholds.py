"""The counts at which the circuit breaker (:class:`~icoframes.api.control.LoadControl`) stops
a load or gives an item up early, each with why it is that many: re-exported by
:mod:`~icoframes.api.control`, where they are used.
"""

from __future__ import annotations

__all__ = ["BREAKER_FAILURES", "BREAKER_ITEMS", "BREAKER_REFUSED", "PROBE_ITEMS",
           "SUSPECT_FAILURES", "SUSPECT_ITEMS"]

# Attempts in a row that never reached the service (refused, no connection), or that it
# asked to wait (Retry-After), that stop a load: more than one item's own retries (6), few
# enough to stop within seconds (asked waits: at most 11 of max_asked_wait, 5 s, for one
# worker, not the 75 of them, 375 s, its 16 items' 6 attempts would wait without it).
BREAKER_FAILURES = 12
# Different items failing with no success in between that stop a load: more than "a few
# bad ids" (9 of 56 profiles answering 503 for good must not stop it), few enough that a
# service failing everywhere costs a few dozen requests at most.
BREAKER_ITEMS = 16
# Different items failed or answered wrongly (refused, an error about the item) with no good
# answer in between that stop a load: twice BREAKER_ITEMS, as a run of bad ids is likelier
# than a run of 503s (16 in a row must not stop it: each is its item's failure), few enough
# that a service answering every profile wrongly costs about 40 requests, not a day's quota.
BREAKER_REFUSED = 32
# Failed attempts in a row, for different items, at which an item is given up early: a
# healthy service's blips hardly ever give 8 in a row (at 15% failing at random, 1 in 4
# million). Items failed in the run count, not only those retrying: one worker meets an
# outage's items one after another; each spending its retries cost ~6 requests an item (91),
# against 16-20 for 8 or 14 workers, now 27. Two ids failing for good keep all their retries,
# and the run's first item found so keeps one: a good id's blip right after two bad ids is
# retried, not lost (its retry failing too shows the outage: the next items get one try).
SUSPECT_FAILURES = 8
SUSPECT_ITEMS = 3
# Profiles asked out of turn, spread over the rest of the plan, once a run of BREAKER_REFUSED
# profiles was answered wrongly in the service's envelope: one answered right shows the run a
# block of bad ids (the load goes on); all answered wrongly, a service answering every profile
# so (it costs PROBE_ITEMS more requests: 42, not 34). At 80% of profiles bad at random, 8
# probes all bad happen 17 times in 100; a block of bad ids is found with the first.
PROBE_ITEMS = 8
