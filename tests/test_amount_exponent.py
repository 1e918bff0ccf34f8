"""An amount's exponent of any length is read (int() refuses text of over 4,300 digits): a
profile writing one is that field's problem, never a bare ValueError out of every load of
the cache, offline and other statuses included."""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.parse.rules import parse_amount

LONG = "1" * 5000


@pytest.mark.parametrize(("text", "read"), [
    ("$1e" + LONG, "infinite"),
    ("1.5e" + LONG + " mln", "infinite"),
    ("1e+" + LONG + " USD", "infinite"),
    ("1e-" + LONG + " USD", "underflow"),  # parser 30: no 0 (it was 0.0)
    ("1e" + "0" * 5000 + "3", 1000.0),  # leading zeros are no size
    ("2e3", 2000.0),
    ("4.1B", 4.1e9),
])
def test_an_exponent_of_any_length_is_read(text, read):
    value = parse_amount(text)
    assert value == read if isinstance(read, float) else str(value) == f"Bad({read!r})"


def _profile(h):
    asked = int(h.request_json()["id"])
    raised = "$1e" + LONG if asked == 2 else 100
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"},
                                        "finance": {"raised": raised}}})(h)


def test_a_profile_with_a_long_exponent_loads_online_offline_and_for_another_status(configure):
    with HostileServer({LIST: paged_list(3), PROFILE: _profile}) as srv:
        configure(srv, max_workers=1)
        loaded = icoframes.load_icos(status="past", progress=False)
        assert loaded["id"].tolist() == [1, 2, 3]
        assert loaded["raised"].isna().tolist() == [False, True, False]
        offline = icoframes.load_icos(status="past", offline=True, progress=False)
        assert offline["id"].tolist() == [1, 2, 3]
        assert len(icoframes.load_icos(status="ongoing", progress=False)) == 3
