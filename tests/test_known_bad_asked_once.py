"""A profile whose last fetch failed, answered wrongly again the same way, costs one request a
load, not two (REVB M2).

A wrong answer (``"data": null``, another ICO's profile, an HTML page with HTTP 200) is asked
once more (``ANSWERS_REFUSED``): it may be a glitch. But a profile that failed in an earlier load
("known bad") and is answered as it was then tells nothing new on the second ask: it was asked
twice on every load, 2 requests per such profile, whenever a good answer came between them
(the breaker's count of wrong answers in a row, which already cuts retries, then never grows).
``refresh="all"`` of a directory whose few ids answer wrongly is that case: their copies are
kept, their refreshes fail, and they take their turns among the good ones load after load.
Now the same failure again (its reason the same but for its numbers: another wrong id) is not
asked again; a 503 or a cut of such a profile keeps its retries (they say nothing about the
item), and a wrong answer of another kind than its last failure is asked once more, as any.
Real loopback HTTP, one worker: the counts are exact.
"""

from __future__ import annotations

import warnings
from collections import Counter

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list, raw_reply

import icoframes
from icoframes.api.retry import ANSWERS_REFUSED

pytestmark = pytest.mark.usefixtures("quick_retries")

N = 60
BAD = frozenset(range(6, N + 1, 6))  # 10 ids spread over the list: a good answer between each

WRONG = {  # how a bad id is answered on load ``load``
    "data-null": lambda load, i: json_reply({"error": None, "data": None}),
    # another ICO's profile, another one each load: the reason differs by its numbers only
    "another-id": lambda load, i: json_reply({"error": None, "data": {
        "id": 1000 + load, "main": {"name": "someone else"}}}),
    "html": lambda load, i: raw_reply(b"<html><body>Welcome to the hotel wifi</body></html>",
                                      content_type="text/html"),
}


class _Service:
    """Profiles echo the id asked; from load 2 on, the ids of ``BAD`` are answered
    ``answer(load, id)``; ``asked`` counts the requests of each id in the current load."""

    def __init__(self, answer):
        self.answer, self.load, self.asked = answer, 1, Counter()

    def profile(self, h):
        asked = int(h.request_json()["id"])
        self.asked[asked] += 1
        if self.load >= 2 and asked in BAD:
            return self.answer(self.load, asked, self.asked[asked])(h)
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"}}})(h)


def _load(service, load):
    """Load ``load``: refresh="all" after the first; the frame and the requests per id."""
    service.load, service.asked = load, Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the StaleWarning of the rows kept: checked below)
        icos = icoframes.load_icos(status="past", progress=False,
                                   refresh="all" if load > 1 else False)
    return icos, service.asked


@pytest.mark.parametrize("wrong", WRONG, ids=list(WRONG))
def test_known_bad_profiles_spread_among_good_ones_cost_one_request_a_load(configure, wrong):
    service = _Service(lambda load, i, nth: WRONG[wrong](load, i))
    with HostileServer({LIST: paged_list(N), PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        icos, asked = _load(service, 1)
        assert len(icos) == N and set(asked.values()) == {1}
        # load 2: their first wrong answers, each asked once more (it may be a glitch)
        icos, asked = _load(service, 2)
        assert {i: n for i, n in asked.items() if n > 1} == dict.fromkeys(BAD, ANSWERS_REFUSED)
        assert sorted(icos["id"]) == list(range(1, N + 1))  # (their copies kept)
        assert icos.attrs["icoframes"]["not_refreshed"] == sorted(BAD)
        for load in (3, 4):  # known bad, answered as before: once each (was twice: 70)
            before = srv.hits[PROFILE]
            icos, asked = _load(service, load)
            assert set(asked) == set(range(1, N + 1)) and set(asked.values()) == {1}, load
            assert srv.hits[PROFILE] - before == N, load
            report = icos.attrs["icoframes"]
            assert sorted(icos["id"]) == list(range(1, N + 1))
            assert report["not_refreshed"] == sorted(BAD)  # reported as before
            assert "stopped" not in report and report["missing"] == []


def _first_then(first, wrong):
    """A bad id answered ``first`` on the first request of load 3, ``wrong`` otherwise."""
    def answer(load, i, nth):
        return first if load == 3 and nth == 1 else WRONG[wrong](load, i)
    return answer


@pytest.mark.parametrize("first", ["503", "html"])
def test_other_failures_of_known_bad_profiles_keep_their_retry(configure, first):
    # load 3: a bad id first answered 503 (the service's, nothing about the item: retried as
    # any), or HTML where it was "data": null (another failure than its last: asked once more,
    # as any wrong answer), then "data": null as in load 2: that one is not asked again
    # (2 requests each; 3 before, the repeated "data": null asked twice too)
    reply = html_reply(503, "busy") if first == "503" else WRONG["html"](3, 0)
    service = _Service(_first_then(reply, "data-null"))
    with HostileServer({LIST: paged_list(N), PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _load(service, 1)
        _load(service, 2)
        icos, asked = _load(service, 3)
        assert {i: n for i, n in asked.items() if n > 1} == dict.fromkeys(BAD, 2)
        assert icos.attrs["icoframes"]["not_refreshed"] == sorted(BAD)
        assert srv.hits[PROFILE] == N + (N + len(BAD)) + (N + len(BAD))
