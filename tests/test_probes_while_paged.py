"""Probes while lists are still paged: a block of bad ids met then waits for them, not the count.

A load asks no profile out of turn while one of its lists is being paged (the rest of the plan
is not known: the probes might all fall in the block), so a block of 16 profiles failing (or
32 answered an error about themselves) met while a list page was slow or retried tripped the
breaker at its count and the load stopped with no row (REV-CM, the review of F1's probes). Now
the profiles in turn wait once the run wants probes, and the probes go to pages no profile of
the load was asked from yet, or wait for the lists to be paged.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list
from test_refused_id_blocks import _profiles

import icoframes
from icoframes.errors import IncompleteWarning

pytestmark = pytest.mark.usefixtures("quick_retries")

FAILURES = {"html-500": html_reply(500, "Internal Server Error"),
            "error-483": json_reply({"error": 483})}


@pytest.mark.parametrize("failure", FAILURES, ids=list(FAILURES))
def test_a_block_met_while_a_list_is_still_paged_waits_for_probes_not_the_count(configure,
                                                                                failure):
    # 100 ICOs; page 5 comes only once 50 profile requests were answered: meanwhile the
    # profiles of pages 1 to 4 go, the 40 of pages 1 and 2 failing. No probe went while a
    # list was paged: the run reached its count (27 requests for HTTP 500, 32 for 483) and
    # the load stopped, no row. Now the probes go to pages 3 and 4; page 5 comes
    asked: Counter[int] = Counter()
    released = threading.Event()
    answer = _profiles(set(range(1, 41)), FAILURES[failure], asked)
    whole = paged_list(100)

    def profiles(h):
        answer(h)
        if asked.total() >= 50:
            released.set()

    def pages(h):
        if h.request_json().get("page") == 5:
            released.wait()
        whole(h)

    with HostileServer({LIST: pages, PROFILE: profiles}) as srv:
        configure(srv, max_workers=2)  # (one for page 5, one for the profiles)
        try:
            with pytest.warns(IncompleteWarning, match="40 listed ICO.* have no row: 40 failed"):
                icos = icoframes.load_icos(status="past", progress=False)
        finally:
            released.set()
    assert sorted(icos["id"]) == list(range(41, 101))
    assert all(asked[i] == 1 for i in range(41, 101))
    assert max(asked[i] for i in range(1, 41)) <= 6
