"""The profiles a load got, kept a batch at a time: :class:`Arrivals`.

The load hands each outcome (a profile, a 482 or a failure) to :meth:`Arrivals.add` as
its request comes back, and calls :meth:`Arrivals.keep` once it has taken every request
finished by then, before it sends any more: those outcomes are kept in one transaction
(:meth:`~icoframes.store.cache.Cache.record`), so the outcomes received and not yet
on disk are never more than the requests the load has workers for, and a load (or the
process) killed loses no more than the requests in flight. Each transaction costs the
same whatever it holds: at 0 ms latency, one per profile was the most of a load's time.
A profile whose failure is kept is done for the load (it is not asked again in it): its claim
is given up then, so that another process loading the same cache may ask it at once.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from typing import Any, NamedTuple

from ..api.client import Client
from ..files import utcnow
from ..store.cache import Cache, ProfileRecord
from ..store.claims import Claims
from ..store.derived import DerivedTables
from .policy import Want, failure_stamp

__all__ = ["Arrivals", "Fetched", "fetch"]


class Fetched(NamedTuple):
    """A profile as decoded by the client, and its text as the store keeps it."""

    profile: dict[str, Any]
    raw: str


def fetch(client: Client, ico_id: int) -> Fetched:
    """``client.profile(ico_id)`` (a request, on a worker) with its text encoded there: the
    load's thread, which keeps every arrival and sends every next request, does not
    spend its time encoding each profile (0.1 ms each) while workers wait for it."""
    got = client.profile(ico_id)
    return Fetched(got, _text(got))


def _text(profile: dict[str, Any]) -> str:
    return json.dumps(profile, separators=(",", ":"), ensure_ascii=False)


class Arrivals:
    """The outcomes a load received and has not kept yet, for ``cache`` (and its
    ``derived`` tables, which take each decoded profile instead of decoding it again);
    ``claimer`` returns the load's claims, those of failures kept given up; ``started``:
    when the load began (made with it: now by default), from which the time its failures are
    kept with is reckoned (:func:`~icoframes.fetch.policy.failure_stamp`)."""

    def __init__(self, cache: Cache, derived: DerivedTables,
                 claimer: Callable[[], Claims] | None = None, *,
                 started: dt.datetime | None = None) -> None:
        self._cache = cache
        self._derived = derived
        self._claimer = claimer
        # a failing profile's backoff counts from the start of the load it failed in (or
        # later in a load longer than half its wait: policy.failure_stamp): a job run at a
        # fixed hour then finds it due by its run a wait later, whenever in the run it failed
        # (counted from the failure, one failing 10 minutes into an hourly run would wait 2
        # hours)
        self._started = utcnow() if started is None else started
        self._records: list[ProfileRecord] = []
        self._profiles: list[Any] = []  # the decoded profile of each record (None: none)

    def __len__(self) -> int:
        return len(self._records)

    def add(self, want: Want, profile: dict[str, Any] | Fetched | None, *,
            state: str = "fetched", reason: str | None = None) -> None:
        """One outcome for ``want``: its ``profile`` (decoded; :class:`Fetched`: with its
        text), or none (``state`` gone or failed, with the ``reason``)."""
        raw: str | None = None
        if isinstance(profile, Fetched):
            profile, raw = profile
        elif profile is not None:
            raw = _text(profile)
        self._records.append(ProfileRecord(want.id, want.status, want.summary, raw,
                                           state=state, reason=reason))
        self._profiles.append(profile)

    def keep(self) -> None:
        """Keep every outcome added since the last call, in one transaction (on disk on
        return); a :class:`~icoframes.errors.CacheError` (a full disk) loses them all. Then
        the claims of the failures kept are given up: each failed for good in this load
        (held, another process waited for them until the load ended, then asked them anyway:
        a failure is no copy)."""
        records, profiles = self._records, self._profiles
        if not records:
            return
        self._records, self._profiles = [], []
        versions = self._cache.record(*records, failed_at=functools.partial(
            failure_stamp, started=self._started, now=utcnow()))
        for record, profile, version in zip(records, profiles, versions, strict=True):
            if profile is not None and version:
                self._derived.keep_decoded(record.id, version, profile)
        failed = [record.id for record in records if record.state == "failed"]
        if failed and self._claimer is not None:
            self._claimer().release(failed)
