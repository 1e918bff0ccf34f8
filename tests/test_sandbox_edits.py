"""Sandbox edits change what they name only: in profiles, and in changes() over snapshots."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pandas as pd
import pytest
from made_exports import daily_snapshots

from icoframes import sandbox, schema
from icoframes.history import changes, read_snapshots


def flat(value: Any, path: str = "") -> dict[str, Any]:
    """Every leaf of a profile by its dotted path (lists kept whole)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            out.update(flat(inner, f"{path}.{key}" if path else key))
        return out
    return {path: value}


def edited(n: int, seed: int, edit: dict[str, Any]) -> dict[int, set[str]]:
    """Per ICO of a fresh directory: the profile and summary paths one ``edit`` changed."""
    d = sandbox.generate_directory(n, seed=seed)
    out = {}
    for ico_id in d.ids():
        before = flat({"profile": d.profile(ico_id), "summary": d.summary(ico_id)})
        d.update_ico(ico_id, **edit)
        after = flat({"profile": d.profile(ico_id), "summary": d.summary(ico_id)})
        out[ico_id] = {k for k in before.keys() | after.keys()
                       if before.get(k, "absent") != after.get(k, "absent")}
    return out


def test_a_raised_edit_changes_only_raised_not_the_caps_or_markets():
    moved = edited(120, 3, {"raised": 2041})
    assert set().union(*moved.values()) == {"profile.finance.raised", "summary.finance.raised"}
    assert all(moved.values()), "raised 2041 is new for every ICO"


@pytest.mark.parametrize("status", ["past", "ongoing", "upcoming"])
def test_a_status_move_keeps_the_whole_profile(status):
    # the status is a list filter, not in the profile: team, advisors, distribution and
    # markets of an ICO whose sale ended are the ones it had
    assert set().union(*edited(120, 3, {"status": status}).values()) == set()


def test_edits_of_name_score_and_end_change_their_own_fields():
    names = set().union(*edited(60, 3, {"name": "Renamed Coin"}).values())
    assert names == {"profile.main.name", "profile.main.description", "summary.main.name"}
    scores = set().union(*edited(60, 3, {"ico_score": 4.9}).values())
    assert {k for k in scores if not k.startswith("profile.main.rating_details.")} == {
        "profile.main.ico_score", "summary.main.ico_score"}
    ends = set().union(*edited(60, 3, {"end": dt.datetime(2027, 3, 1, 12)}).values())
    assert ends == {"profile.dates.end_datetime", "profile.dates.tba"}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Two daily snapshot exports; between them one raised edit and one sale that ended."""
    out = tmp_path_factory.mktemp("exports") / "out"
    edited: list[int] = []

    def edit(sb, n: int) -> None:  # day 2: one raised edit, one sale that ended
        if n == 2:
            raised, ended = sb.directory.ids("past")[2], sb.directory.ids("ongoing")[0]
            sb.update_ico(raised, raised=2041)
            sb.update_ico(ended, status="past")
            edited.extend((raised, ended))

    daily_snapshots(out, tmp_path_factory.mktemp("cache"), (1, 2), edit=edit, hour=12)
    raised, ended = edited
    return out, raised, ended


def test_changes_over_an_edited_history_report_only_the_edits(history):
    out, raised, ended = history
    icos = read_snapshots(out)
    every = [c for c in schema.ICOS.names if c not in ("id", "fetched_at", "fetched_status")]
    events = changes(icos, kinds=every)
    got = sorted((int(e.ico_id), e.kind, e.new) for e in events.itertuples())
    assert got == sorted([(raised, "raised", "2041"), (ended, "status", "past")])


@pytest.mark.parametrize("table", [t for t in schema.TABLE_NAMES if t != "icos"])
def test_the_edited_icos_keep_their_other_tables(history, table):
    out, raised, ended = history
    rows = read_snapshots(out, table)
    rows = rows[rows["ico_id"].isin([raised, ended])]
    day1, day2 = (rows[rows["snapshot_date"] == pd.Timestamp(2026, 11, n)]
                  .drop(columns="snapshot_date").reset_index(drop=True) for n in (1, 2))
    pd.testing.assert_frame_equal(day1, day2)
