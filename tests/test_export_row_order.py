"""Two exports of the same data list every table's rows in one order, whatever order the
profiles arrived in.

An export's ``icos`` came in the lists' order, and every other table (``team``, ``problems``,
...) in the order the profiles reached the cache: the order the workers' requests came back.
Two exports of one service's data whose profiles came back in another order listed their
child rows otherwise, and a user diffing the files saw changes where there were none. Now
each table is in a declared order (icoframes.roworder): ``icos`` by id, or by the sort asked;
the others by ``ico_id`` and the rest of their key. Real loopback HTTP: a hostile server
holds one profile back until every other one is in the cache, so that it arrives last.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from waiting import wait_until

import icoframes
from icoframes.schema import TABLES
from icoframes.store.cache import Cache

N = 8


def _profile(ico: int) -> dict[str, object]:
    """A profile with child rows (two team members, a category) and an unreadable number
    (a problems row)."""
    return {"id": ico, "main": {"name": f"P{ico}"},
            "categories": [{"name": "Finance"}],
            "team": [{"name": f"M{ico}a", "role": "CEO"}, {"name": f"M{ico}b", "role": "CTO"}],
            "finance": {"tokens_for_sale": f"{ico} lots"}}


def _last(held: int, cache: Cache):
    """Answers every profile, but ``held``'s only once every other one is in ``cache``."""
    held_back = []

    def behaviour(h):
        ico = int(h.request_json()["id"])
        if ico == held:
            held_back.append(wait_until(lambda: len(cache.profile_index()) >= N - 1))
        json_reply({"error": None, "data": _profile(ico)})(h)
    return behaviour, held_back


def _export(tmp_path, held: int, **filters) -> tuple[dict[str, pd.DataFrame], list[int]]:
    """An export of the N profiles, ``held`` arriving last: its tables (the fetch times left
    out: they differ) and the ids in the order the cache stored them."""
    root = tmp_path / f"cache-{held}"
    with HostileServer({LIST: paged_list(N)}) as srv:
        cache = Cache(root, srv.base_url)
        srv.behaviours[PROFILE], held_back = _last(held, cache)
        icoframes.configure(**srv.settings(), cache_dir=root, max_workers=2)
        try:
            icoframes.export_tables(tmp_path / f"out-{held}", status="past", progress=False,
                                    **filters)
        finally:
            icoframes.reset_configuration()
        assert held_back == [True]
        stored = cache.profile_index().sort_values("version").index.tolist()
    out = tmp_path / f"out-{held}"
    tables = {name: pd.read_parquet(out / f"{name}.parquet") for name in [*TABLES, "problems"]}
    tables["icos"] = tables["icos"].drop(columns="fetched_at")
    return tables, stored


@pytest.mark.parametrize("filters", [{}, {"sort_desc": "name"}])
def test_two_exports_list_rows_alike_whatever_order_the_profiles_arrived(tmp_path, filters):
    first, arrived_first = _export(tmp_path, held=1, **filters)
    last, arrived_last = _export(tmp_path, held=N, **filters)
    assert arrived_first[-1] == 1 and arrived_last[-1] == N  # two arrival orders
    assert len(first["team"]) == 2 * N and len(first["problems"]) >= N  # (rows to order)
    for name, frame in first.items():  # (was: team, categories, problems in arrival order)
        pd.testing.assert_frame_equal(frame, last[name], obj=name)
    icos = first["icos"]["id"].tolist()
    assert icos == (sorted(icos) if not filters else sorted(icos, reverse=True))  # P8 ... P1
    team = first["team"]
    assert team[["ico_id", "position"]].values.tolist() == sorted(
        team[["ico_id", "position"]].values.tolist())
