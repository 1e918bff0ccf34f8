"""Processes sharing a cache dir under ``refresh="all"`` fetch each profile once: a copy
another process kept after this load began is this load's refresh too.

Each load wants every profile again; claims kept two loads off one id at a time, but a
load counted as "arrived" only copies kept after its first list page came: what another
process had fetched before then (and still held) it fetched again once that process ended
(REVB M3: 3 processes, 600 ICOs, up to 183 of 449 profiles asked twice or more).
"""

from __future__ import annotations

import json
import sys
import textwrap
import threading

from waiting import HANG_GUARD, run_together

from icoframes import sandbox

KEPT_FIRST = 10  # profiles the first load keeps before the others' first page is answered

# each child refreshes every past ICO under its own sort (its own list: each pages one)
_CHILD = textwrap.dedent("""
    import json, sys
    import icoframes
    sort = json.loads(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    icos = icoframes.load_icos(status="past", progress=False, refresh="all", max_workers=1,
                               **sort)
    report = icos.attrs["icoframes"]
    print(json.dumps({"rows": len(icos), "complete": report["complete"],
                      "requests": report["requests"]}), flush=True)
""")
FIRST, OTHERS = {"sort_asc": "id"}, [{"sort_desc": "id"}, {}]


class Gate:
    """The sandbox's answers held so that the loads overlap the same way on any machine:
    no list page is answered until each load has asked its first (each has begun), and the
    others' pages wait until the first load has kept :data:`KEPT_FIRST` profiles (with one
    worker it keeps each before asking the next: its request after them says so)."""

    def __init__(self, directory) -> None:
        self._lock = threading.Lock()
        self.lists: set[str] = set()
        self.profiles = 0
        self.began, self.kept = threading.Event(), threading.Event()
        query, profile = directory.query, directory.profile

        def held_query(params):
            wire = {k: v for k, v in params.items() if k != "page"}
            with self._lock:
                self.lists.add(json.dumps(wire, sort_keys=True))
                if len(self.lists) == 1 + len(OTHERS):
                    self.began.set()
            self.began.wait(HANG_GUARD)
            if wire.get("sort_asc") != "id":  # the others' lists
                self.kept.wait(HANG_GUARD)
            return query(params)

        def counted_profile(ico_id):
            with self._lock:
                self.profiles += 1
                if self.profiles > KEPT_FIRST:
                    self.kept.set()
            return profile(ico_id)

        directory.query, directory.profile = held_query, counted_profile


def test_loads_refreshing_together_fetch_each_profile_once(tmp_path, monkeypatch):
    with sandbox.serve(n_icos=120, seed=5, quota=None) as sb:
        past = sb.directory.ids("past")
        for key, value in sb.settings().items():  # (the children inherit the environment)
            monkeypatch.setenv(f"ICOFRAMES_{key.upper()}", str(value))
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
        cold = run_together([[sys.executable, "-c", _CHILD, json.dumps(FIRST)]], tmp_path)
        assert cold[0][0] == 0, cold[0][2]  # every copy cached: the loads below refresh
        gate = Gate(sb.directory)
        sb.stats.reset()
        results = run_together([[sys.executable, "-c", _CHILD, json.dumps(sort)]
                                for sort in (FIRST, *OTHERS)], tmp_path)
    assert gate.began.is_set() and gate.kept.is_set()  # the premises: they overlapped so
    reports = []
    for code, out, err in results:
        assert code == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert [(r["rows"], r["complete"]) for r in reports] == [(len(past), True)] * 3
    hits = sb.stats.profile_hits
    assert sorted(hits) == sorted(past) and set(hits.values()) == {1}, \
        {i: n for i, n in hits.items() if n > 1}  # was: the first 10 asked 2 or 3 times
    assert sum(r["requests"]["ico"] for r in reports) == len(past)
    pages = -(-len(past) // 20)
    assert [r["requests"]["icos"] for r in reports] == [pages] * 3  # each its own list, once
    assert sb.stats.requests["icos"] == 3 * pages
