"""Parser version 28: an ICO score outside 0-10 (the scale the list filters by, 1-10: spec 4.2)
is missing and a row of ``problems`` (``negative`` below 0, ``out_of_bounds`` above 10), in
profiles and list summaries alike; -3, 11 and 1e6 were read as given, with no row. Over real
loopback HTTP (tests/hostile.py) and through ``tidy``."""

from __future__ import annotations

import json

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes.parse.rules import PARSER_VERSION

SCORES = {1: 11, 2: -3, 3: 1e6, 4: "10.5", 5: "4.5", 6: 0, 7: 10, 8: "-0.1"}
READ = {1: None, 2: None, 3: None, 4: None, 5: 4.5, 6: 0.0, 7: 10.0, 8: None}
WHY = {1: "out_of_bounds", 2: "negative", 3: "out_of_bounds", 4: "out_of_bounds",
       8: "negative"}


def _profile(ico_id):
    return {"id": ico_id, "main": {"name": f"P{ico_id}", "ico_score": SCORES[ico_id]},
            "links": {}, "finance": {}, "dates": {}, "additional": {}, "roadmap": [],
            "team": "", "advisors": ""}


def _list(h):
    items = [{"id": i, "main": {"name": f"P{i}", "ico_score": s}} for i, s in SCORES.items()]
    json_reply({"total_icos": len(items), "total_pages": 1, "current_page": 1, "error": None,
                "data": items})(h)


def _profiles(h):
    json_reply({"error": None, "data": _profile(int(h.request_json()["id"]))})(h)


def _read(frame, key):
    return {int(i): (None if s != s else s) for i, s in zip(frame[key], frame["ico_score"],
                                                             strict=True)}


def test_a_score_off_the_scale_is_missing_and_a_problem_in_profiles_and_lists(configure):
    with HostileServer({LIST: _list, PROFILE: _profiles}) as srv:
        configure(srv)
        tables = icoframes.load_tables(status="past", progress=False)
        listing = icoframes.load_list(status="past")
    assert _read(tables.icos, "id") == READ  # (was 11.0, -3.0, 1e6, 10.5, -0.1)
    assert _read(listing, "id") == READ
    for table in ("icos", "list"):
        rows = tables.problems[(tables.problems["table"] == table)
                               & (tables.problems["column"] == "ico_score")]
        assert dict(zip(rows["ico_id"].astype(int), rows["reason"], strict=True)) == WHY, table
        assert json.loads(rows.loc[rows["ico_id"] == 3, "value"].iloc[0]) == 1e6


@pytest.mark.parametrize(("score", "read", "reason"), [
    ("1e-400", None, "underflow"), (5, 5.0, None), ("11", None, "out_of_bounds")])  # 30: no 0
def test_tidy_reads_scores_by_the_same_bounds(score, read, reason):
    tables = icoframes.tidy([{"id": 1, "main": {"ico_score": score}}])
    value = tables.icos.loc[0, "ico_score"]
    assert (None if value != value else value) == read
    assert tables.problems["reason"].tolist() == ([reason] if reason else [])


def test_the_parser_version_says_the_rules_changed():
    assert PARSER_VERSION >= 28  # cached profiles are parsed again, with no request
