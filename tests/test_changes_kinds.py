"""changes(kinds=...): a refused kind says why, and a "did you mean" offers only a kind this
frame can compare; what is no kind (bytes, a list in the list) is refused as such; an alias
and its column given together are compared once."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import icoframes
from icoframes.errors import InvalidParameter, UnknownName

_DATES = pd.to_datetime(["2026-11-01", "2026-11-01", "2026-11-02"],
                        format="%Y-%m-%d").astype("datetime64[ms]")
SMALL = pd.DataFrame({"snapshot_date": _DATES, "id": [1, 2, 1],
                      "status": ["upcoming", "past", "ongoing"]})
FULL = SMALL.assign(ico_score=[1.0, 2.0, 3.0], name=["a", "b", "c"])


def _refusal(frame, kinds) -> str:
    with pytest.raises(InvalidParameter) as caught:
        icoframes.changes(frame, kinds=kinds)
    return str(caught.value)


@pytest.mark.parametrize("frame", [SMALL, FULL], ids=["status-only", "full"])
@pytest.mark.parametrize("kinds", ["Score", " score", "id", "Id", "ID", "ids", "nme", "naem",
                                   "rasied", "kind", "statuss", "snapshot_dates", "fetched_at"])
def test_a_did_you_mean_offers_only_a_kind_this_frame_compares(frame, kinds):
    """'Id' was told "did you mean 'id'?", 'nme' "did you mean 'name'?" on a frame without
    names, 'Score' "did you mean 'score'?" without ico_score: each then refused in turn."""
    message = _refusal(frame, kinds)
    meant = re.search(r"did you mean '([^']+)'", message)
    if meant is not None:
        assert not icoframes.changes(frame, kinds=[meant.group(1)]).empty, message


@pytest.mark.parametrize(("kinds", "said"), [
    ("id", "cannot compare 'id': the column telling the ICOs apart, not a value that changes"),
    ("snapshot_date", "cannot compare 'snapshot_date': the column telling the snapshots apart"),
    ("fetched_at", "cannot compare 'fetched_at': when icoframes fetched the profile (each "
                   "refetch moves it), not a value the service changed"),
    ("fetched_status", "cannot compare 'fetched_status': the status icoframes fetched the "
                       "profile under (a refetch moves it), not a value the service changed; "
                       "compare 'status'"),
    ("new", "cannot compare 'new': an event changes() gives by itself (new and removed ICOs "
            "always, unseen and first_seen with gaps='mark'), not a value to compare"),
    ("removed", "cannot compare 'removed': an event changes() gives by itself"),
    ("unseen", "cannot compare 'unseen': an event changes() gives by itself"),
    ("first_seen", "cannot compare 'first_seen': an event changes() gives by itself"),
])
def test_id_snapshot_date_and_the_events_say_what_they_are(kinds, said):
    # 'id' was "not a kind of change or a column", though it is a column
    message = _refusal(FULL, kinds)
    assert message.startswith(said)
    assert "not a kind of change or a column" not in message


@pytest.mark.parametrize(("kinds", "said"), [
    (b"status", "kinds must be a name or names (str) of what to compare, got b'status'; "
                "did you mean 'status'?"),  # was "cannot compare 115"
    (bytearray(b"status"), "kinds must be a name or names (str)"),
    (5, "kinds must be a name or names (str) of what to compare, got 5"),
    ([["status"]], "cannot compare ['status']: a kind is a name (str), of a kind of change or "
                   "a column; did you mean 'status'?"),  # was a bare TypeError (unhashable)
    ([1], "cannot compare 1: a kind is a name (str)"),
    ([None], "cannot compare None: a kind is a name (str)"),
])
def test_what_is_no_name_is_refused_as_such(kinds, said):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.changes(FULL, kinds=kinds)
    assert str(caught.value).startswith(said)
    assert isinstance(caught.value, UnknownName) is not isinstance(kinds, bytes | bytearray | int)


@pytest.mark.parametrize("kinds", [["score", "ico_score"], ["ico_score", "score"],
                                   ["status", "status"], ["score", "score", "ico_score"]])
def test_an_alias_and_its_column_given_together_compare_once(kinds):
    """changes(kinds=['score', 'ico_score']) reported each score change twice."""
    events = icoframes.changes(FULL, kinds=kinds)
    compared = events[~events["kind"].isin(["new", "removed"])]
    assert compared["kind"].tolist() == [kinds[0]]  # once, named as first given
    assert compared[["old", "new"]].values.tolist() == [
        ["upcoming", "ongoing"] if kinds[0] == "status" else ["1", "3"]]
