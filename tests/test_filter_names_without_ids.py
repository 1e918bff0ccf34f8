"""A filter-set entry whose id cannot be read is a row of ``load_filters()`` (id missing, a
row of problems); asked for by name, it is refused saying so, before any list request, not
as an "unknown platform name" that the rows contradict. Over real loopback HTTP."""

from __future__ import annotations

import pytest
from hostile import FILTERS, LIST, HostileServer, json_reply

import icoframes
from icoframes.errors import InvalidParameter

FILTER_SET = {"error": None,
              "platform": [{"id": 1, "name": "Ethereum"}, {"id": 7.5, "name": "Half"},
                           {"id": "x", "name": "Waves"}, {"id": 4, "name": "Waves"}],
              "category": [{"id": 1, "name": "Finance"}], "type": [], "location": []}


@pytest.fixture
def served(configure):
    sent = []

    def lists(h):
        sent.append(h.request_json())
        json_reply({"error": 482, "data": []})(h)

    with HostileServer({FILTERS: json_reply(FILTER_SET), LIST: lists}) as srv:
        configure(srv)
        yield sent


def test_a_name_listed_with_an_unreadable_id_is_refused_saying_so(served):
    rows = icoframes.load_filters()
    half = rows[rows["name"] == "Half"]
    assert len(half) == 1 and half["id"].isna().all()  # offered as a row
    with pytest.raises(InvalidParameter, match=r"the platform name 'half' is in the filter "
                       r"set, but its id could not be read") as info:
        icoframes.load_list(status="past", platform="half")
    assert "unknown" not in str(info.value)  # (was "unknown platform name 'Half'")
    assert served == []  # refused before any list request


def test_a_name_listed_twice_asks_with_its_readable_id_and_unknown_names_stay_unknown(served):
    with pytest.warns(icoframes.errors.NoMatchWarning):
        icoframes.load_list(status="past", platform="Waves")
    assert served[-1]["platform"] == [4]
    with pytest.raises(InvalidParameter, match="unknown platform name 'Nope'"):
        icoframes.load_list(status="past", platform="Nope")
    assert len(served) == 1


def test_a_name_without_a_readable_id_is_never_a_did_you_mean(served):
    # 'Hlf' was offered 'Half', which was then refused (its id could not be read)
    with pytest.raises(InvalidParameter, match="unknown platform name 'Hlf'") as info:
        icoframes.load_list(status="past", platform="Hlf")
    assert "Half" not in str(info.value) and "did you mean" not in str(info.value)
    with pytest.raises(InvalidParameter, match="did you mean 'Waves'"):  # one of its ids is read
        icoframes.load_list(status="past", platform="Wves")
    assert served == []
