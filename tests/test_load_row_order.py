"""Two loads of the same data give the same frames, whatever order the profiles arrived in.

``load_tables`` kept ``icos`` in the lists' order, but every other table (``team``,
``distribution``, ``problems``, ...) in the order the profiles reached the cache: the order
the workers' requests came back, which two runs of the same code need not share. A notebook
comparing two runs, or ``tables.team.head()``, saw other rows. Now every other table's rows
follow their ICO's row in ``icos``, then the rest of the table's declared key
(icoframes.roworder.in_icos_order). Real loopback HTTP: a hostile server holds one profile
back until every other one is in the cache, so that it arrives last; the service lists the
ICOs in an order that is not their ids'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, list_item
from waiting import wait_until

import icoframes
from icoframes.schema import PROBLEMS, TABLES
from icoframes.store.cache import Cache
from icoframes.tables import Tables

#: The service's order of the list (not the ids').
LISTED = [3, 7, 1, 8, 2, 6, 4, 5]
N = len(LISTED)


def _profile(ico: int) -> dict[str, Any]:
    """A profile with rows in several child tables, written out of their key's order (the
    distribution's parts, the bonuses' names, the roadmap's labels as text), and an
    unreadable number (a problems row)."""
    return {"id": ico, "main": {"name": f"P{ico}", "ico_score": "3.0"},  # (the list's)
            "team": [{"name": f"M{ico}a", "role": "CEO",
                      "social": {"twitter": "https://t.example/a", "github": "https://g.example/a"}},
                     {"name": f"M{ico}b", "role": "CTO"}],
            "finance": {"tokens_for_sale": f"{ico} lots",
                        "distribution": {"team": "30%", "sale": "60%", "bounty": "10%"}},
            "additional": {"bonuses": {"week 2": "5%", "week 1": "10%"}},
            "roadmap": {"Q3 2018": "Token sale", "Q1 2019": "Main net"}}


def _list(order: list[int]):
    """The list of ``order`` (one page), as the service writes it; one item's ``raised`` is
    unreadable (a problem of the list page, with an ``ico_id``)."""
    items = [list_item(i) for i in order]
    items[0] = {**items[0], "finance": {"raised": "a lot"}}
    return json_reply({"total_icos": len(order), "current_page": 1, "error": None,
                       "total_pages": 1, "data": items})


def _held_until_the_others(held: int, cache: Cache):
    """Answers every profile, but ``held``'s only once every other one is in ``cache``."""
    held_back: list[bool] = []

    def behaviour(h):
        ico = int(h.request_json()["id"])
        if ico == held:
            held_back.append(wait_until(lambda: len(cache.profile_index()) >= N - 1))
        json_reply({"error": None, "data": _profile(ico)})(h)
    return behaviour, held_back


def _plain(tables: Tables) -> dict[str, pd.DataFrame]:
    """The frames to compare: without the fetch times (two loads differ there) and attrs."""
    frames = {name: frame.copy() for name, frame in tables.items()}
    frames["icos"] = frames["icos"].drop(columns="fetched_at")
    for frame in frames.values():
        frame.attrs = {}
    return frames


def _load(root, held: int, **filters: Any) -> tuple[Tables, list[int]]:
    """A cold ``load_tables`` of the listed ICOs, ``held``'s profile arriving last: the bundle
    and the ids in the order the cache stored their profiles."""
    with HostileServer({LIST: _list(LISTED)}) as srv:
        cache = Cache(root, srv.base_url)
        srv.behaviours[PROFILE], held_back = _held_until_the_others(held, cache)
        icoframes.configure(**srv.settings(), cache_dir=root, max_workers=2)
        try:
            tables = icoframes.load_tables(status="past", progress=False, **filters)
        finally:
            icoframes.reset_configuration()
        assert held_back == [True]
        stored = cache.profile_index().sort_values("version").index.tolist()
    return tables, stored


def _follow_icos(tables: Tables) -> None:
    """Every other table's rows in the order of their ICO's row in ``icos``, an ICO's rows
    as its profile gives them (``tidy`` of that profile alone; problems by the rest of their
    key), the rows of no loaded ICO last (checked by hand, not by the package's sort)."""
    place = {ico: n for n, ico in enumerate(tables.icos["id"].tolist())}
    for schema in (*TABLES.values(), PROBLEMS):
        if schema.name == "icos" or tables[schema.name].empty:
            continue
        frame = tables[schema.name]
        rest = [k for k in schema.key if k != "ico_id"]
        rows = [(place.get(ico, N) if not pd.isna(ico) else N + 1, *values)
                for ico, *values in frame[["ico_id", *rest]].astype(object).itertuples(
                    index=False)]
        assert [r[0] for r in rows] == sorted(r[0] for r in rows), schema.name
        for n in set(r[0] for r in rows) - {N, N + 1}:
            if schema is PROBLEMS:  # an ICO's problems by the rest of their key
                own = [tuple("" if pd.isna(v) else v for v in r[1:]) for r in rows if r[0] == n]
                assert own == sorted(own), schema.name
                continue
            ico = tables.icos["id"].iloc[n]  # an ICO's rows as its profile lists them
            own = frame[frame["ico_id"] == ico].reset_index(drop=True)
            alone = icoframes.tidy([_profile(int(ico))])[schema.name]
            pd.testing.assert_frame_equal(own, alone, check_dtype=False, obj=schema.name)


@pytest.mark.parametrize("filters", [{}, {"sort_desc": "name"}])
def test_two_loads_give_equal_frames_whatever_order_the_profiles_arrived(tmp_path, filters):
    first, arrived_first = _load(tmp_path / "a", held=LISTED[0], **filters)
    last, arrived_last = _load(tmp_path / "b", held=LISTED[-1], **filters)
    assert arrived_first[-1] == LISTED[0] and arrived_last[-1] == LISTED[-1]  # two orders
    assert len(first.team) == 2 * N and len(first.distribution) == 3 * N
    assert first.problems["ico_id"].notna().all() and len(first.problems) > N
    expected = _plain(first)
    for name, frame in _plain(last).items():  # (were: every child table in arrival order)
        pd.testing.assert_frame_equal(frame, expected[name], obj=name)
    # icos keep the service's order (a status: the service sorts); the others follow it
    assert first.icos["id"].tolist() == LISTED
    _follow_icos(first)
    assert first.team["ico_id"].tolist()[:4] == [3, 3, 7, 7]
    # one ICO's rows as its profile wrote them, not by their key as text
    assert first.distribution["part"].tolist()[:3] == ["team", "sale", "bounty"]
    assert first.bonuses["name"].tolist()[:2] == ["week 2", "week 1"]
    assert first.roadmap["label"].tolist()[:2] == ["Q3 2018", "Q1 2019"]


def test_every_way_of_answering_lists_child_rows_after_icos(tmp_path):
    """load_icos first (the cache builds only ``icos``), then load_tables answered from the
    cached list, offline, its subsets; the profile listed first arrives last."""
    root = tmp_path / "cache"
    with HostileServer({LIST: _list(LISTED)}) as srv:
        cache = Cache(root, srv.base_url)
        srv.behaviours[PROFILE], held_back = _held_until_the_others(LISTED[0], cache)
        icoframes.configure(**srv.settings(), cache_dir=root, max_workers=2)
        try:
            icos = icoframes.load_icos(status="past", progress=False)
            assert held_back == [True] and icos["id"].tolist() == LISTED
            hits = dict(srv.hits)
            warm = icoframes.load_tables(status="past", progress=False)
            assert dict(srv.hits) == hits  # the cached list and profiles: no request
            offline = icoframes.load_tables(status="past", offline=True, progress=False)
        finally:
            icoframes.reset_configuration()
    assert warm.icos["id"].tolist() == LISTED
    _follow_icos(warm)
    expected = _plain(warm)
    for name, frame in _plain(offline).items():
        pd.testing.assert_frame_equal(frame, expected[name], obj=name)
    part = warm.subset([5, 1, 7])  # ids in any order: icos keep theirs, the others follow
    assert part.icos["id"].tolist() == [7, 1, 5] and len(part.team) == 6
    _follow_icos(part)
    masked = warm.subset(warm.icos["id"] > 4)
    assert masked.icos["id"].tolist() == [7, 8, 6, 5]
    _follow_icos(masked)


def test_in_icos_order_rows_of_no_loaded_ico_and_empty_frames():
    """Problems of no loaded ICO (a list page's, an unreadable id's) come last, by ico_id,
    missing last; an empty or one-row frame comes back as it is, index from 0."""
    from icoframes.roworder import in_icos_order  # (here: the loopback tests run on any tree)

    icos = pd.DataFrame({"id": [5, 2]})
    problems = pd.DataFrame({
        "ico_id": pd.array([None, 9, 2, 5, 2, 4], dtype="Int64"),
        "table": ["list", "list", "icos", "icos", "icos", "list"],
        "column": ["id", "raised", "raised", "raised", "name", "raised"]})
    ordered = in_icos_order(problems, icos, PROBLEMS.key)
    assert ordered.astype(object).where(ordered.notna(), None).values.tolist() == [
        [5, "icos", "raised"], [2, "icos", "name"], [2, "icos", "raised"],
        [4, "list", "raised"], [9, "list", "raised"], [None, "list", "id"]]
    none = in_icos_order(problems, icos.iloc[:0], PROBLEMS.key)  # no ICO loaded: by id
    assert none["ico_id"].astype(object).where(none["ico_id"].notna(), None).tolist() == [
        2, 2, 4, 5, 9, None]
    assert in_icos_order(problems, icos.iloc[:0], PROBLEMS.key, others=False).empty
    empty = Tables.empty().team
    assert in_icos_order(empty, icos, TABLES["team"].key).equals(empty)
    one = pd.DataFrame({"ico_id": [2], "position": [0]}, index=[7])
    assert in_icos_order(one, icos, TABLES["team"].key).index.tolist() == [0]


def test_in_icos_order_agrees_with_a_plain_sort():
    """Random rows (repeated keys, missing values, ids of no ICO) against Python's sorted():
    by the ICO's place in icos, then its id, then the key, missing last, ties kept."""
    import random

    from icoframes.roworder import in_icos_order

    rng = random.Random(0)
    icos = pd.DataFrame({"id": [5, 3, 9]})
    rows = [(rng.choice([5, 3, 9, 4, 7, None]), rng.choice(["b", "a", "c", None]),
             rng.choice([1, 0, 2, None]), n) for n in range(300)]
    frame = pd.DataFrame({"ico_id": pd.array([r[0] for r in rows], dtype="Int64"),
                          "owner": pd.array([r[1] for r in rows], dtype="string"),
                          "position": pd.array([r[2] for r in rows], dtype="Int64"),
                          "n": [r[3] for r in rows]})
    place = {ico: n for n, ico in enumerate(icos["id"].tolist())}

    def last(value: Any) -> tuple[int, Any]:  # missing after every value
        return (1, 0) if value is None else (0, value)

    expected = sorted(rows, key=lambda r: (place.get(r[0], len(place)), last(r[0]),
                                           last(r[1]), last(r[2])))
    got = in_icos_order(frame, icos, ("ico_id", "owner", "position"))
    assert got["n"].tolist() == [r[3] for r in expected]
    kept = in_icos_order(frame, icos, ("ico_id", "owner", "position"), others=False)
    assert kept["n"].tolist() == [r[3] for r in expected if r[0] in place]


def test_ranks_too_many_to_pack_are_sorted_alike():
    """Ranks whose sizes multiply past 63 bits are sorted by numpy's lexsort: the same order
    as one packed sort, ties kept."""
    from icoframes.roworder import _stable_order

    rng = np.random.default_rng(0)
    ranks = [rng.integers(0, 4, 500), rng.integers(0, 3, 500), rng.integers(0, 5, 500)]
    packed = _stable_order(ranks, 3)
    assert _stable_order([*ranks[:1], *ranks[1:], np.zeros(500, dtype=np.int64) + 2**40,
                          np.zeros(500, dtype=np.int64) + 2**40], 3).tolist() == packed.tolist()
    assert _stable_order(ranks, 2**62).tolist() == packed.tolist()


def test_a_narrower_query_answered_from_the_cache_lists_child_rows_after_icos(tmp_path):
    """A query narrower than a cached one is answered from the cache (no request): its child
    rows too follow its icos, though the cache holds them in arrival order."""
    root = tmp_path / "cache"
    with HostileServer({LIST: _list(sorted(LISTED))}) as srv:
        cache = Cache(root, srv.base_url)
        srv.behaviours[PROFILE], held_back = _held_until_the_others(1, cache)
        icoframes.configure(**srv.settings(), cache_dir=root, max_workers=2)
        try:
            wide = icoframes.load_tables(status="past", sort_asc="id", progress=False)
            assert held_back == [True]
            hits = dict(srv.hits)
            narrow = icoframes.load_tables(status="past", sort_asc="id", ico_score=3,
                                           progress=False)
            assert dict(srv.hits) == hits  # answered from the cache
        finally:
            icoframes.reset_configuration()
    assert narrow.report.queries[0].from_cache
    assert narrow.icos["id"].tolist() == wide.icos["id"].tolist() == sorted(LISTED)
    _follow_icos(narrow)
    expected = _plain(wide)
    for name, frame in _plain(narrow).items():
        pd.testing.assert_frame_equal(frame, expected[name], obj=name)
