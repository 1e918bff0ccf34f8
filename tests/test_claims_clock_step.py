"""A crawl's claims across a wall clock stepped back (an NTP or VM step): the throttled
renewal a live load calls (``renew(every=...)``, from its pool's tick and before each list
page) keeps them, so another process sharing the cache dir does not take them.

Real SQLite claims on a temporary cache dir; the clock is moved with time-machine (not
ticking), the monotonic clock is left as it is. A list dated after now (the clock stepped
back since it was kept) is not taken as kept since another process's moment either.
"""

from __future__ import annotations

import datetime as dt

import time_machine
from ledger_day import NOON

from icoframes.store.cache import Cache
from icoframes.store.claims import LEASE


def test_a_clock_stepped_back_past_a_lease_renews_at_once(tmp_path):
    """Crawl A claims an id at noon; the clock then steps back 3 leases. A's throttled
    renewal skipped (its last renewal "in the future" looked younger than a third of a
    lease), so its expiry lay more than two leases ahead of the clock: crawl B took the id at
    once and both fetched it. A renews on the step now, and B finds the id taken."""
    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    with time_machine.travel(NOON, tick=False):
        a = cache.claims()
        assert a.claim([-7])[0] == [-7]
    with time_machine.travel(NOON - dt.timedelta(seconds=3 * LEASE), tick=False):
        a.renew(every=LEASE / 3)
        with cache.claims() as b:
            mine, taken, _ = b.claim([-7])
    assert (mine, taken, sorted(a.held)) == ([], [-7], [-7])
    a.close()


def test_a_list_dated_after_now_is_not_taken_as_kept_since_a_peers_moment(tmp_path):
    """A load without a status waiting for a list another process claimed shares its other
    lists: one kept since that claim's moment (less the window) is used as cached. A list
    dated after now (kept at noon, the clock then stepped back an hour) counted as kept
    since, whatever its ICOs did in between; it is now claimed to page with the others."""
    from icoframes.fetch.moment import TOGETHER_WINDOW
    from icoframes.fetch.paging import ListQuery
    from icoframes.fetch.sharedlists import SharedLists, list_claim_id
    from icoframes.parse.lists import list_frame

    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    params = {"status": "ongoing"}
    items = [{"id": 7, "main": {"name": "Seven"}}]
    cache.write_list(params, items, list_frame(items, status="ongoing"), total_icos=1,
                     fetched_at=NOON, paged_at=NOON)
    back = NOON - dt.timedelta(hours=1)
    with time_machine.travel(back, tick=False), cache.claims() as claims:
        lists = SharedLists(cache, lambda: claims)
        shared = lists.share(ListQuery(dict(params)), cache.read_list(params),
                             back - TOGETHER_WINDOW)
        assert (shared, claims.held) == (True, {list_claim_id(params)})  # held: to page
