"""The realistic fixture (tests/real_like.py) against its truth table: per-field figures.

Every value the fixture wrote is classified: **right** (the cell holds the
truth and a problem row exists exactly when the truth says so), **reported**
(the truth is "missing and a problem", and it is, with the reason the truth
gives), **wrong** (the cell holds something else than the truth), **silent**
(missing, or kept, without the problem row the truth calls for; or a problem
row the truth does not call for) or **misreason** (the problem row is there
but gives another reason). The test prints the figures per field and fails
on any wrong, silent or misreasoned value.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import pandas as pd
from real_like import N_RECORDS, Truth, records

from icoframes.features import compute_features as features
from icoframes.parse.profiles import tidy
from icoframes.reasons import REASONS


def _equal(got: object, expected: object) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return got is None or (isinstance(got, float) and math.isnan(got)) or got is pd.NA
    if isinstance(expected, float):
        return isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-9)
    if expected is None:
        return got is None or got is pd.NA or (isinstance(got, float) and math.isnan(got))
    if isinstance(expected, list):
        return isinstance(got, list) and got == expected
    return bool(got == expected)


def _missing(got: object) -> bool:
    return got is None or got is pd.NA or (isinstance(got, float) and math.isnan(got)) or (
        isinstance(got, list | tuple) and not got)


def test_the_fixture_is_big_and_varied():
    profiles, truth = records()
    assert len(profiles) == N_RECORDS >= 200
    by_field = defaultdict(set)
    for row in truth:
        by_field[row.column].add(repr(row.raw))
    assert all(len(raws) >= 3 for raws in by_field.values()), by_field


def test_no_value_read_wrongly_and_none_dropped_silently(capsys):
    profiles, truth = records()
    tables = tidy(profiles)
    frame = features(tables)
    icos = tables.icos.set_index("id")
    feats = frame.set_index("ico_id")
    problems = tables.problems
    assert problems["reason"].notna().all()
    # (ico_id, table, column) -> the reasons of its problem rows, in order
    reported: dict[tuple, list[str]] = defaultdict(list)
    for key in zip(problems["ico_id"].astype("Int64").tolist(), problems["table"],
                   problems["column"], problems["value"], problems["reason"], strict=True):
        reported[key[:3]].append(key[4])
    figures: dict[str, Counter] = defaultdict(Counter)
    failures: list[str] = []

    for row in truth:
        got, reasons = _observe(row, tables, icos, feats, reported)
        ok = _equal(got, row.expected) if row.table not in ("roadmap", "distribution",
                                                          "bonuses") else got == row.expected
        want = [] if row.reason is None else [row.reason]
        if ok and reasons == want:
            figures[row.column]["reported" if row.reason else "right"] += 1
            continue
        if ok and reasons and want:
            kind = "misreason"
        else:
            kind = "wrong" if not ok and not _missing(got) else "silent"
        figures[row.column][kind] += 1
        failures.append(f"{kind}: {row.ico_id} {row.table}.{row.column} {row.raw!r}: "
                        f"got {got!r} (reported {reasons}), truth {row.expected!r} "
                        f"(reported {want})")

    kinds = ("right", "reported", "wrong", "silent", "misreason")
    with capsys.disabled():
        print(f"\n{len(profiles)} records, {len(truth)} values")
        print(f"{'field':<18}{'values':>7}" + "".join(f"{k:>10}" for k in kinds))
        for column, counts in sorted(figures.items()):
            print(f"{column:<18}{sum(counts.values()):>7}"
                  + "".join(f"{counts[k]:>10}" for k in kinds))
        by_reason = Counter(problems["reason"])
        print("reasons: " + ", ".join(f"{r} {n}" for r, n in by_reason.most_common()))
    assert not failures, "\n".join(failures[:20])
    # every problem row is one the truth called for, with the reason it gives
    expected: Counter = Counter()
    for row in truth:
        if row.reason:
            table = "icos" if row.table == "features" else row.table
            pairs = row.expected[1] if row.table == "distribution" else [(row.raw, row.reason)]
            for _, reason in pairs:
                expected[(row.ico_id, table, row.column, reason)] += 1
    got_rows = Counter(zip(problems["ico_id"].astype("Int64").tolist(), problems["table"],
                           problems["column"], problems["reason"], strict=True))
    assert got_rows == expected, (set(got_rows) ^ set(expected))
    # the fixture exercises most of the declared reasons
    assert len(set(by_reason)) >= 15, set(REASONS) - set(by_reason)


def _observe(row: Truth, tables, icos, feats, reported) -> tuple[object, list[str]]:
    """The value the tables hold for a truth row, and the reasons of its problem rows."""
    key = (row.ico_id, "icos" if row.table == "features" else row.table, row.column)
    if row.table == "icos":
        got = icos.loc[row.ico_id, row.column]
        if got is pd.NaT:
            got = None
        elif isinstance(got, pd.Timestamp):
            got = str(got)
        return got, reported[key]
    if row.table == "features":
        value = feats.loc[row.ico_id, row.column]
        return (value if isinstance(value, str) else bool(value)), []
    if row.table == "bonuses":
        mine = tables.bonuses[tables.bonuses["ico_id"] == row.ico_id]
        return tuple(zip(mine["name"], mine["terms"], strict=True)), reported[key]
    frame = tables.problems
    if row.table == "distribution":
        mine = tables.distribution[tables.distribution["ico_id"] == row.ico_id]
        rows = tuple(zip(mine["part"], mine["percent"], strict=True))
        lost = frame[(frame["ico_id"] == row.ico_id) & (frame["table"] == "distribution")]
        bad = tuple(zip(lost["value"], lost["reason"], strict=True))
        expected_rows, _ = row.expected
        same = len(rows) == len(expected_rows) and all(
            a[0] == b[0] and _equal(a[1], b[1]) for a, b in zip(rows, expected_rows, strict=True))
        return (expected_rows if same else rows, bad), [reason for _, reason in bad][:1]
    # roadmap: the date and precision of this label
    mine = tables.roadmap[(tables.roadmap["ico_id"] == row.ico_id)
                          & (tables.roadmap["label"] == row.raw)]
    date = mine["date"].iloc[0]
    precision = mine["precision"].iloc[0]
    got = (None if pd.isna(date) else str(date.date()), None if pd.isna(precision) else precision)
    was = frame[(frame["ico_id"] == row.ico_id) & (frame["table"] == "roadmap")
                & (frame["value"] == row.raw)]
    return got, was["reason"].tolist()
