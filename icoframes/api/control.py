"""What the threads of one load share: a way to stop them, and a circuit breaker.

:class:`LoadControl` is the load's stop switch (:class:`~icoframes.api.switch.StopSwitch`:
:meth:`~LoadControl.cancel` wakes the waiting threads and cuts the reads in flight,
:meth:`~LoadControl.halt` lets no new attempt leave), and its breaker:

* it watches the failed attempts of the whole pool, each with the item it was for (a list page,
  a profile), and trips the breaker (the load is cancelled, :attr:`~LoadControl.last_failure`
  says why) when the service looks **down**, not when a few items are bad:

  - :data:`BREAKER_ITEMS` different items failed with no success in between
    (one item's retries count once, however many): a failure spread over many
    ids is the service's, a failure on the same few ids is theirs;
  - or :data:`BREAKER_FAILURES` attempts in a row never reached the service
    (connection refused, no connection made): no item can cause that;
  - or :data:`BREAKER_FAILURES` failed attempts in a row were each asked to wait
    (``Retry-After``), for :data:`BREAKER_ITEMS` different items, over at least the longest
    wait asked in that run (1 s at least: an ask of 0 is one under a second), and the attempts
    in flight then were answered (:mod:`~icoframes.api.asked`: a rate limiter lets some
    through; short of the items, each item asked gives up instead);
  - or :data:`BREAKER_REFUSED` different items failed or were answered wrongly
    (:meth:`~LoadControl.refused`: a JSON object that is not the item's, a body that
    is no JSON, an error about that request) with no good answer in between: one
    item answered wrongly is that item's failure, every item answered wrongly is a
    service that is down (a captive portal, ``{}`` for everything).

A trip of the last rule alone, on kinds of request (list pages, profiles) the service answered
right earlier in the load (:data:`SUSPECT_ITEMS` times at least: more than a coincidence, such
as one profile answered for every id), is :attr:`~LoadControl.on_items`: a run of bad ids looks
the same as a service broken since, so the load stops asking either way, but it keeps what came
and returns it, reporting the rest as not asked. When every item of such a trip had the same
error about the request (a 4xx, an error code: :attr:`~LoadControl.same_error`) and their kind
was never answered right, the error is likely about every request (the key, ``base_url``): the
load stops with it.

A run of the last rule whose wrong answers are all the service's own about profiles (its
envelope, ``{"error": null, "data": ...}``, around a wrong item), with fewer than
:data:`SUSPECT_ITEMS` failures besides (a 503 blip), may be a block of bad ids met in the load's
order (the newest ICOs) as much as a service answering every profile so: it does not trip yet.
The load asks up to :data:`PROBE_ITEMS` profiles out of turn, spread over the rest of its
plan (:meth:`~LoadControl.probing`); one answered right ends the run (the load goes on), every
one answered wrongly trips it (none left to ask: at once; or the run reaching twice the count).
A run holding any other wrong answer (HTML, ``{}``, a proxy's page) or more failures trips.
A run of the first rule alone, on profiles (a 5xx, a body cut short; no ask to wait, no item
that failed before, a count above :data:`PROBE_ITEMS`), may be such a block too: once it and
the attempts in flight are :data:`PROBE_ITEMS` short of the count, the load asks as many
profiles out of turn as the room left under the count (:meth:`~LoadControl.probes_wanted`) and
none in turn until they are answered (:meth:`~LoadControl.awaiting`): one answered right ends
the run, all failing trip it at the count (an outage costs no different request more). So does
a run of the last rule whose items are all profiles, each answered an error about itself (no
failure besides: ``{"error": 483}``, an HTTP 404), against :data:`BREAKER_REFUSED`: all its
probes refused too, it trips at that count with that error, as every request refused does.

A wrong answer is neutral for the first rule. A wrong answer to an item that failed in an earlier
load (:meth:`~LoadControl.known_bad`), or its failure, counts as any (that wrong answer again:
asked once), but a run holding such items is no outage: it is :attr:`~LoadControl.known_held`,
no trip (of the last rule, or of the first when the others failing number fewer than
:data:`BREAKER_ITEMS`): the load asks no item that failed before from then on (reported not
asked), asks every other one, and the run goes on without them: 32 wrong answers to *other*
items, or 16 failing, still trip it. So a few dozen ids always answered wrongly, or failing,
cost a load a bounded number of requests, never stopping the rest (docs/guide/errors.md).

Failures concentrated on a few ids end as those items' failures (reported, retried by the
next call) and the rest of the load completes. So that a service failing everywhere is found
within seconds and a few requests whatever the number of workers, an item stops retrying
early once :data:`SUSPECT_FAILURES` attempts failed in a row for :data:`SUSPECT_ITEMS` different
items, retrying together (many workers) or one after another (one worker; the first item so
found is retried once: a good id's blip after two bad ids is not lost), or once a run of
asks to wait would trip but for its items (:meth:`~LoadControl.keep_trying`): its next
attempt would tell less than another item's first.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from .asked import AskedRun
from .probes import ProbeRun
from .switch import Cancelled, StopSwitch
from .thresholds import (
    BREAKER_FAILURES,
    BREAKER_ITEMS,
    BREAKER_REFUSED,
    PROBE_ITEMS,
    SUSPECT_FAILURES,
    SUSPECT_ITEMS,
)

__all__ = ["BREAKER_FAILURES", "BREAKER_ITEMS", "BREAKER_REFUSED", "PROBE_ITEMS",
           "SUSPECT_FAILURES", "SUSPECT_ITEMS", "Cancelled", "LoadControl", "profile_item"]

_UNNUMBERED = str.maketrans("", "", "0123456789")  # a reason's ids, positions (not its status)


def profile_item(ico_id: object) -> tuple[str, object]:
    """The item the client's request for profile ``ico_id`` is, to the breaker."""
    return ("ico", ico_id)


class LoadControl(StopSwitch, ProbeRun):
    """The stop switch and circuit breaker shared by the threads of one load.

    Parameters
    ----------
    failures : int, default BREAKER_FAILURES
        Attempts in a row that never reached the service, or that it asked to wait
        (``Retry-After``), that trip the breaker.
    items : int, default BREAKER_ITEMS
        Different items failing with no success in between that trip it.
    refused_items : int, default BREAKER_REFUSED
        Different items failing or answered wrongly with no good answer between that trip it.
    asked_items : int, default BREAKER_ITEMS
        Different items a run of ``failures`` asks to wait holds that trip it (2 at least).
    per_call : bool, default False
        Each request a call of its own (a ``Client``'s own control): items failed in calls that
        ended give no item up early (a call an hour after an outage keeps its retries).
    clock : callable, optional
        The monotonic clock (seconds) that times a run of asks to wait (:class:`AskedRun`).

    Examples
    --------
    >>> control = LoadControl(items=2)
    >>> for _ in range(20):
    ...     control.failed("HTTP 503", item="profile 7")  # one bad item: its own failure
    >>> control.tripped
    False
    >>> control.failed("HTTP 503", item="profile 8"); control.tripped, control.cancelled
    (True, True)
    >>> control.last_failure
    'HTTP 503'
    """

    def __init__(self, *, failures: int = BREAKER_FAILURES, items: int = BREAKER_ITEMS,
                 refused_items: int = BREAKER_REFUSED, asked_items: int = BREAKER_ITEMS,
                 per_call: bool = False, clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.failures = int(failures)
        self.items = int(items)
        self.refused_items = int(refused_items)
        self.asked_items, self.per_call = int(asked_items), per_call
        self.in_a_row = 0  # failed attempts since the last success
        self.successes = 0  # attempts with a usable answer, in the load
        self.unsent_in_a_row = 0  # of which the last ones in a row never reached the service
        self._asked = AskedRun(clock)  # of which the last ones in a row asked to wait; in flight
        self.last_failure: str | None = None
        # the latest end of a wait the service asked (Retry-After) in the run of failures:
        # (a time.time() value, the wait in seconds); the breaker's error says it
        self.retry_after: tuple[float, float] | None = None
        self.tripped = False
        self._failing: set[object] = set()  # the items failed since the last success
        self._refused: set[object] = set()  # the items answered wrongly since the last success
        self._known: dict[object, str | None] = {}  # failed in an earlier load: why
        self._answered: Counter[object] = Counter()  # good answers per kind, in this load
        self.on_items = False  # tripped by wrong answers alone, on kinds answered right before
        # the run that reached the last rule holding items that failed before (not a trip):
        # (its items, of them answered wrongly, the last failure); None: no such run yet
        self.known_held: tuple[int, int, str | None] | None = None
        self._errors: dict[object, object] = {}  # per item of the run: (reason, code) or not
        self._enveloped: set[object] = set()  # profiles of the run answered in the envelope
        self._probes: set[object] | None = None  # asked out of turn in this run (None: none)
        self._wanted = 0  # probes the run asked for, not yet handed to the plan
        self._found = False  # the plan said the run's probes (:meth:`probing`; maybe none)
        self._held_back = False  # asked on failures: no profile in turn until answered
        self._erring = False  # asked on errors about the items: room under refused_items
        self._retrying: set[object] = set()  # the failed items trying again
        self._checked: object = None  # the item of the run given one retry, found suspect first

    def __repr__(self) -> str:
        return (f"LoadControl(cancelled={self.cancelled}, tripped={self.tripped}, "
                f"failures_in_a_row={self.in_a_row}, items_failing={self.items_failing})")

    @property
    def asked_in_a_row(self) -> int:
        """Failed attempts in a row, since the last success, each asked to wait."""
        return self._asked.count

    @property
    def items_failing(self) -> int:
        """Different items that failed since the last success."""
        with self._lock:
            return len(self._failing)

    @property
    def items_refused(self) -> int:
        """Different items answered wrongly since the last good answer."""
        with self._lock:
            return len(self._refused)

    @property
    def items_bad(self) -> int:
        """Different items failed or answered wrongly since the last good answer."""
        with self._lock:
            return len(self._failing | self._refused)

    @property
    def same_error(self) -> tuple[str, int | None] | None:
        """``(reason, code)`` of the error about the request (a 4xx, an error code) that every
        item counted since the last good answer had, when they all had the same one; else
        None. Tripping the breaker on a kind never answered right, it is about every request
        (the key, ``base_url``), not about bad items."""
        with self._lock:
            errors = set(self._errors.values())
            if len(errors) == 1:
                (error,) = errors
                if isinstance(error, tuple):
                    return error
        return None

    def _why(self) -> str:  # (the failure that tripped it)
        return self.last_failure if self.tripped and self.last_failure else super()._why()

    def failed(self, reason: str, *, item: object = None, sent: bool = True,
               wait: float | None = None, waited: bool = True) -> None:
        """Count one failed attempt for ``item`` (None: an item of its own).

        ``sent`` is False when the attempt never reached the service (the
        connection was refused or never made); ``wait``: the seconds its answer asked to
        wait (``Retry-After``), kept in :attr:`retry_after` when it ends the latest in the
        run; not ``waited`` (longer than the retry policy waits: the item gave up), no ask of
        the run below (else an ask of 3600 s makes the run's longest wait an hour). The
        breaker trips after :attr:`items` different items failed, or :attr:`failures`
        attempts in a row that were not sent, or that were asked to wait (once that run
        lasted the longest wait asked in it, held :attr:`asked_items` items, and the attempts
        in flight then were answered: :class:`~icoframes.api.asked.AskedRun`; short of that,
        from two items, the item asked gives up instead), with no success in between.
        """
        asked = None if wait is None else (time.time() + wait, wait)
        with self._lock:
            self._asked.answered(threading.get_ident())
            if asked is not None and (self.retry_after is None or asked > self.retry_after):
                self.retry_after = asked
            self.in_a_row += 1
            self.unsent_in_a_row = 0 if sent else self.unsent_in_a_row + 1
            self.last_failure = reason
            item = object() if item is None else item
            if wait is None or not waited:
                self._asked.end()
            else:
                self._asked.ask(wait, item)
            if item not in self._known or self.known_held is None:  # (held: not counted)
                self._failing.add(item)  # (kept in _enveloped: its wrong answer was so)
                self._errors[item] = object()  # (not an error about one request)
            trip = self._trips()
        if trip:
            self.cancel()

    def known_bad(self, item: object, failure: str | None = None) -> None:
        """``item`` failed in an earlier load (why: ``failure``): a wrong answer to it is expected,
        its failure again. It counts toward the breaker as any (a load's cost stays bounded), but
        a run holding it is :attr:`known_held`, no trip (nor of :attr:`items` failing, unless as
        many others fail; no such item is asked from then on, nor counted; the others
        are), unless every item of the run had the same error about the request
        (:attr:`same_error`) on a kind never answered right in this load: a revoked key is no
        item's failure; ``failure`` again is the item's own (ids answering 404 load
        after load are held)."""
        with self._lock:
            self._known[item] = failure

    def expected(self, item: object) -> bool:
        """Whether ``item`` failed in an earlier load (:meth:`known_bad`)."""
        with self._lock:
            return item in self._known

    def refused(self, reason: object, *, item: object = None) -> bool:
        """The service answered ``item``, wrongly (a JSON object not its answer, a body that is
        no JSON, an error about that request): that item's failure, neutral for the run of
        failures (no count, no success). The breaker trips once :attr:`refused_items`
        different items failed or were answered wrongly with no good answer in between
        (:attr:`on_items` when items :meth:`known_bad` are among them). ``reason``: why, as
        text or the client's failure (a ``final`` one, an error about that request alone, with its
        ``code``: when every item of the run had the same, :attr:`same_error` says it).

        Returns whether the item is worth asking once more: not once :data:`SUSPECT_ITEMS`
        different items were answered wrongly since the last good answer (another item's first
        answer tells more), nor when it is the item's :meth:`known_bad` failure again (the same
        reason but for the numbers after its status): a second ask only repeats it.
        """
        with self._lock:
            self.unsent_in_a_row = 0  # (it reached the service and was answered)
            self._asked.answered(threading.get_ident())
            self._asked.end()
            self.last_failure = str(reason)
            item = object() if item is None else item
            self._retrying.discard(item)  # answered: no longer a failure retrying
            if item in self._known and self.known_held is not None:
                return False  # expected, and no longer counted: its retry tells nothing
            self._refused.add(item)
            if getattr(reason, "enveloped", False) and _kind(item) == "ico":
                self._enveloped.add(item)
            else:
                self._enveloped.discard(item)
            # what the run holds: the error about the request, or one of the item's own (an
            # error it already failed with in an earlier load: theirs again)
            final = getattr(reason, "final", False) and (
                item not in self._known or self._known[item] != str(reason))
            self._errors.setdefault(item, (str(reason), getattr(reason, "code", None)) if final
                                    else object())
            before = self._known.get(item)  # (that failure again, another wrong id aside)
            kinds = {(head, rest.translate(_UNNUMBERED)) for head, _, rest in (
                str(why).partition(":") for why in (before, reason))}
            again = len(self._refused) < SUSPECT_ITEMS and (before is None or len(kinds) > 1)
            trip = self._trips()
        if trip:
            self.cancel()
        return again and not trip

    def _trips(self) -> bool:
        """Whether the counts (read under the lock) trip the breaker now: True once."""
        if self.tripped:
            return False
        counted, known = self._failing | self._refused, self._known.keys()
        others = (self._asked.trips(self.failures, self.asked_items, thread=threading.get_ident())
                  or self.unsent_in_a_row >= self.failures)  # (no item causes those)
        if (not others and self.known_held is None and not counted.isdisjoint(known)
                and len(self._failing - known) < self.items
                and (len(self._failing) >= self.items
                     or (len(counted) >= self.refused_items
                         and not self._about_requests(counted)))):
            # a run holding items that failed before: their failures were expected, so it
            # tells nothing of the service. No such item is asked from now on (the load
            # skips them); the run goes on without them, so that as many wrong answers to
            # other items still trip it (else ~32 ids always answered wrongly, asked first,
            # would halt every refresh of every other profile, load after load), as many
            # failures too (else 16 kept copies failing with HTTP 500 again, asked first,
            # would stop every daily export: no snapshot written)
            self.known_held = (len(counted), len(self._refused), self.last_failure)
            self._checked = None  # (the run goes on without them: its first suspect anew)
            self._failing -= known
            self._refused -= known
            for item in counted & known:
                self._errors.pop(item, None)
            counted = self._failing | self._refused
        service = len(self._failing) >= self.items or others
        # wrong answers all the service's own about profiles, and a failure or two besides (a
        # 503 whose retry waits its backoff while other workers go through a block of bad ids:
        # the run may reach the count before it, with no probes): decided on the answers
        enveloped = (self._refused <= self._enveloped
                     and len(self._failing - self._refused) < SUSPECT_ITEMS)
        # profiles failing (a 5xx, a body cut short), any wrong answer the service's own: a
        # block of ids failing for good met in the load's order as much as an outage (a load's:
        # a Client's own calls have no plan to probe)
        failing = (not others and not self.per_call and self._refused <= self._enveloped
                   and all(_kind(i) == "ico" for i in self._failing))
        # profiles each answered an error about itself ({"error": 483}, a 404): such a block
        # as much as every request refused (the key, the query: :attr:`same_error`)
        erring = (not others and not self.per_call and not self._failing and bool(self._refused)
                  and all(_kind(i) == "ico" and isinstance(self._errors.get(i), tuple)
                          for i in self._refused))
        if self._probes is None and self._asks_probes(
                counted, known, service=service, enveloped=enveloped, failing=failing,
                erring=erring):
            return False
        if self._probes is not None and (enveloped or failing or erring) and not others:
            # tripped once every probe was answered wrongly or failed too, the run at its
            # count (or doubled): every one the plan found or still asks, none left trips at
            # once (a small load or budget may have fewer than PROBE_ITEMS left); on failures,
            # the count trips before the plan picked them too
            spent = (self._found or self._held_back) and (self._probes <= counted)
            self.tripped = ((spent and (len(self._failing) >= self.items
                                        or len(counted) >= self.refused_items))
                            or len(self._failing) >= 2 * self.items
                            or len(counted) >= 2 * self.refused_items)
        else:
            self.tripped = service or len(counted) >= self.refused_items
        # held: a run of wrong answers to kinds answered right before in this load
        self.on_items = self.tripped and not service and all(
            self._answered[_kind(i)] >= SUSPECT_ITEMS for i in counted)
        return self.tripped

    def _about_requests(self, counted: set[object]) -> bool:
        """Whether every item ``counted`` (the run, read under the lock) had the same error
        about the request, of kinds never answered right in this load (:attr:`same_error`)."""
        errors = set(self._errors.values())
        return (len(errors) == 1 and isinstance(next(iter(errors)), tuple)
                and not any(self._answered[_kind(i)] for i in counted))

    def keep_trying(self, item: object, allowed: bool, *, asked: bool = False) -> bool:
        """Whether ``item``, which just failed, tries again: when its retry policy ``allowed``
        it, unless its retry would tell less than another item's first try (it is given up,
        reported, retried by the next call):

        * its failure ``asked`` no wait and :data:`SUSPECT_FAILURES` attempts failed in a row,
          for :data:`SUSPECT_ITEMS` different items (retrying together, or failed in that run:
          one worker meets them one after another; not those of ended calls, :attr:`per_call`),
          but for one retry of the run's first item so found while fewer are retrying together
          (a blip, answered at its retry, ends the run; a failure again shows an outage);
        * or its failure ``asked`` a wait and the run of asks would trip the breaker but for
          its items (:meth:`~icoframes.api.asked.AskedRun.due`; :attr:`per_call`, two retrying).
          Short of that, an ask is a limiter's turn: a burst must not give items up one by one."""
        with self._lock:
            self._retrying.add(item)
            run = self._retrying | (set() if self.per_call else self._failing - self._refused)
            if asked:
                suspect = self._asked.due(self.failures, thread=threading.get_ident()) and (
                    not self.per_call or len(run & self._asked.items) >= 2)
            else:
                suspect = self.in_a_row >= SUSPECT_FAILURES and len(run) >= SUSPECT_ITEMS
                if suspect and allowed and self._checked is None:  # its retry tells a blip
                    self._checked = item  # (answered) from an outage; but items failing
                    suspect = len(self._retrying) >= SUSPECT_ITEMS  # together show the outage
            if allowed and not suspect:
                return True
            self._retrying.discard(item)
            return False

    def hold(self, seconds: float, item: object = None) -> None:
        """:meth:`StopSwitch.hold <icoframes.api.switch.StopSwitch.hold>`, asked by ``item``'s
        request giving up; not while another item is retrying: it waits its own asks, and the
        workers held with it would leave together, each asked again (8 or 14 workers: 3 to 14
        requests more before a service asking every request to wait stops them)."""
        with self._lock:
            if not self._retrying - {item}:
                self._held = max(self._held, self.clock() + seconds)

    def succeeded(self, item: object = None) -> None:
        """An attempt (for ``item``) got a usable answer: the run of failures is over."""
        with self._lock:
            self.in_a_row = self.unsent_in_a_row = 0
            self.successes += 1
            self._asked.answered(threading.get_ident())
            self._asked.end()
            self.retry_after = self._checked = None  # (a wait asked before a success: over,
            self._held = 0.0  # or that request's own)
            self._failing.clear()
            self._refused.clear()
            self._errors.clear()
            self._enveloped.clear()
            self._probes, self._wanted, self._found = None, 0, False
            self._retrying.discard(item)
            self._answered[_kind(item)] += 1

    def sending(self) -> None:
        """An attempt leaves (:meth:`StopSwitch.sending`): an asked-wait trip awaits its answer
        (:meth:`failed`, :meth:`refused`, :meth:`succeeded`; :class:`AskedRun`)."""
        super().sending()  # (Cancelled once the load is stopped: not sent)
        with self._lock:
            self._asked.sending(threading.get_ident())


def _kind(item: object) -> object:
    """The kind of request an item is: its endpoint ("icos", "ico", "filters")."""
    return item[0] if isinstance(item, tuple) and item else None
