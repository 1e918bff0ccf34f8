"""A load that a stop makes wait for its requests in flight keeps their claims meanwhile.

At the daily limit a load waits for each request in flight (it is paid for), by its own
deadline (30 s by default, longer if set), while a claim is a lease of
:data:`~icoframes.store.claims.LEASE` (20 s) renewed as the load works. Before the fix
nothing renewed them in that wait: once the lease lapsed, another process sharing the
cache dir could claim a profile still in flight and fetch it again (paying twice).

Here a 485 stops the load while profile 2 is in flight; profile 2 is answered only after
the clock moved three leases on (time-machine) and the load's claim on it was renewed,
and another crawl of the same cache (another process's, in all that matters) tried to
claim it meanwhile.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import NOON
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes.config import get_settings
from icoframes.errors import QuotaExceeded
from icoframes.store.cache import Cache
from icoframes.store.claims import LEASE


def test_a_stop_waiting_for_a_paid_request_keeps_its_claim(configure, stopping):
    seen: dict[str, object] = {}

    with time_machine.travel(NOON, tick=True) as clock:
        def profile(h) -> None:
            ico_id = int(h.request_json()["id"])
            if ico_id == 1:  # once profile 2 is in flight too: the daily limit
                assert wait_until(lambda: h.server.owner.hits[PROFILE] >= 2)
                json_reply({"error": 485})(h)
                return
            assert stopping.wait(HANG_GUARD)
            settings = get_settings()
            cache = Cache(settings.cache_dir, settings.service_id or "")
            clock.shift(dt.timedelta(seconds=3 * LEASE))  # its claim lapses unless renewed

            def renewed() -> bool:
                [[expires]] = cache.database(write=False).rows(  # type: ignore[union-attr]
                    "SELECT expires FROM claims WHERE id = 2")
                return bool(expires > dt.datetime.now(dt.UTC).timestamp())  # (moved clock)
            seen["renewed"] = wait_until(renewed)
            with cache.claims() as other:
                seen["other"] = other.claim([2])
            json_reply({"error": None, "data": {"id": "2", "main": {"name": "B"}}})(h)

        with HostileServer({LIST: paged_list(2), PROFILE: profile}) as server:
            configure(server, max_workers=2, timeout=2 * HANG_GUARD)  # the stop waits
            with pytest.raises(QuotaExceeded) as stopped:
                icoframes.load_icos(status="ongoing", progress=False)
            assert server.hits == {LIST: 1, PROFILE: 2}

    assert stopped.value.code == 485
    assert seen["renewed"] is True  # before: never renewed while the stop waited
    assert seen["other"] == ([], [2], [])  # the other crawl finds it taken: not fetched twice
