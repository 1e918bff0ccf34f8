"""A filter set answered with none of its lists is a wrong answer, not an empty filter set.

``{}`` (a captive portal's JSON) or ``{"error": null, "data": null}`` holds none of
``platform``, ``category``, ``type``, ``location`` (spec 4.1). Kept, it would be a complete
empty filter set for ``max_age`` (a day), and every name a caller gives would be refused as
unknown (:class:`~icoframes.errors.InvalidParameter`, the caller's fault) with no request
sent to correct it. The gate refuses it as it refuses a hollow profile: a
:class:`~icoframes.errors.BadResponse` (the service's fault), nothing kept, asked again by
the next call.
"""

from __future__ import annotations

import pytest
from hostile import FILTERS, LIST, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import BadResponse

GOOD = {"error": None, "platform": [{"id": 1, "name": "Ethereum"}], "category": [],
        "type": [], "location": [{"name": "Germany"}]}


@pytest.mark.parametrize("hollow", [{}, {"error": None, "data": None}],
                         ids=["empty-object", "data-null"])
def test_a_filter_set_without_its_lists_is_refused_not_kept(configure, quick_retries, hollow):
    answers = [hollow]
    with HostileServer({FILTERS: lambda h: json_reply(answers[-1])(h),
                        LIST: paged_list(3)}) as srv:
        configure(srv)
        with pytest.raises(BadResponse, match="holds none of its lists") as info:
            icoframes.load_filters()
        assert isinstance(info.value, icoframes.ServiceUnavailable)
        assert srv.hits[FILTERS] == ANSWERS_REFUSED  # asked once more at most, as a profile
        # a name given: the service's answer is wrong, not the caller's argument (this was
        # InvalidParameter "unknown platform name", from an empty set kept for a day)
        for named in ({"platform": "Ethereum"}, {"location": "Germany"}):
            with pytest.raises(BadResponse):
                icoframes.load_list("past", progress=False, **named)
        assert srv.hits[FILTERS] == 3 * ANSWERS_REFUSED  # nothing kept: asked again each time
        assert srv.hits[LIST] == 0
        answers.append(GOOD)  # the service mends: the next call has the real set
        assert icoframes.load_filters()["name"].tolist() == ["Ethereum", "Germany"]
        assert icoframes.report(icoframes.load_filters()).complete
        assert len(icoframes.load_list("past", progress=False, platform="Ethereum")) == 3
        assert srv.hits[FILTERS] == 3 * ANSWERS_REFUSED + 1  # the good set kept


def test_a_filter_set_with_some_lists_empty_is_still_a_filter_set(configure):
    # keys present, empty: the directory offers no value of that kind (accepted as before)
    empty = {"error": None, "platform": [], "category": [], "type": [], "location": []}
    with HostileServer({FILTERS: json_reply(empty)}) as srv:
        configure(srv)
        assert icoframes.load_filters().empty
        assert srv.hits[FILTERS] == 1
