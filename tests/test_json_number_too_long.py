"""A JSON integer too long for ``int`` (over 4,300 digits) in a profile is that value's
problem, not the whole answer's: the profile was "not JSON", failed, asked again by every
load and its row missing, while the same number sent as a string was one value problem.
A hostile service over loopback."""

from __future__ import annotations

from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list, raw_reply

import icoframes
from icoframes.api.gate import Rejected, decode_json

DIGITS = "9" * 5000


def _profiles(h):
    """Each profile echoes its id; id 1's ``raised`` is a 5,000-digit JSON number."""
    asked = int(h.request_json()["id"])
    if asked == 1:
        raw_reply(('{"error":null,"data":{"id":1,"main":{"name":"P1"},"finance":{"raised":'
                   + DIGITS + '}}}').encode())(h)
    else:
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def test_only_the_long_number_is_refused_and_the_profile_is_kept(configure):
    with HostileServer({LIST: paged_list(3), PROFILE: _profiles}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
        assert sorted(tables.icos["id"]) == [1, 2, 3]
        problems = tables.problems
        mine = problems[(problems["ico_id"] == 1) & (problems["reason"] == "infinite")]
        assert len(mine) == 1, problems
        hits = srv.hits[PROFILE]
        icoframes.load_tables(status="past", progress=False)
        assert srv.hits[PROFILE] == hits  # kept: not asked again


def test_a_json_error_is_cut_after_a_whole_word():
    body = b" " * 200_000 + b"{x}"
    try:
        decode_json(body)
    except Rejected as exc:
        said = str(exc)
    assert said == ("the body is not JSON (Expecting property name enclosed in double quotes: "
                    "line 1 column 200002...)")
