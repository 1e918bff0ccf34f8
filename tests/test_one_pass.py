"""One pass per load (issue 18 part 2): each list page parsed once, counted over loopback.

The real functions run; a counting wrapper around each says how often a load called it.
"""

from __future__ import annotations

import math

import pytest

import icoframes
from icoframes import sandbox
from icoframes.fetch import paging
from icoframes.parse import lists


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=120, seed=11) as server:
        yield server


def counting(monkeypatch, module, name):
    """Wrap ``module.name`` so that every call is counted; returns the list of calls."""
    calls = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_each_list_page_is_parsed_once(cfg, monkeypatch):
    parsed = counting(monkeypatch, paging, "list_frame")
    merging = counting(monkeypatch, lists, "list_frame")  # (merge_parsed, in parse.lists)
    icos = icoframes.load_icos(status="past", progress=False)
    pages = cfg.stats.requests["icos"]
    assert pages == math.ceil(len(icos) / 20) > 1
    assert len(parsed) == pages  # one parse per page received, none when the list is merged
    assert merging == []
    # the merged list is the one a single parse of every page gives
    listing = icoframes.load_list(status="past", offline=True)
    assert listing["id"].tolist() == [r.id for r in cfg.directory.query({"status": "past"})]


def test_each_response_is_decoded_once(cfg, monkeypatch):
    from icoframes.api import gate
    from icoframes.store import derived

    decoded = counting(monkeypatch, gate, "loads_text")
    again = counting(monkeypatch, derived, "loads_text")
    tables = icoframes.load_tables(status="past", progress=False)
    received = cfg.stats.requests["icos"] + cfg.stats.requests["ico"]
    assert cfg.stats.requests["ico"] == len(tables.icos) > 20
    assert len(decoded) == received  # each page and profile, once, at the gate
    assert again == []  # the tables took the profiles as decoded, not from the stored text


@pytest.mark.parametrize("filters", [{}, {"category": ["Finance", 2], "location": "uk"}],
                         ids=["status only", "names looked up"])
def test_the_list_parameters_are_checked_once_per_load(cfg, monkeypatch, filters):
    from icoframes import queries
    from icoframes.api import client

    checked = counting(monkeypatch, queries, "validate_list_params")
    per_page = counting(monkeypatch, client, "validate_list_params")
    icoframes.load_icos(status="past", progress=False, **filters)
    assert cfg.stats.requests["icos"] >= 1
    assert len(checked) == 1 and per_page == []  # not again per page sent


def test_parsed_pages_merge_to_the_parse_of_the_merged_items():
    """Pages that repeat ids (a list shifting while paged), unreadable items and values:
    merging the pages parsed one by one gives the rows and problems of one parse."""
    import random

    import pandas as pd

    from icoframes.parse.lists import list_frame, merge_pages, merge_parsed
    from icoframes.parse.problems import Problems

    rng = random.Random(1)
    for _ in range(200):
        pages = [[rng.choice(["junk", {"id": f"x{rng.randint(0, 3)}"}]) if rng.random() < 0.2
                  else {"id": str(rng.randint(1, 8)),
                        "main": {"name": rng.choice(["A", None]),
                                 "ico_score": rng.choice([1, "high", 3.5])}}
                  for _ in range(rng.randint(0, 6))] for _ in range(rng.randint(1, 4))]
        merged = merge_pages({"data": items} for items in pages)
        whole = Problems()
        expected = list_frame(merged, status="past", problems=whole)
        parsed = []
        for items in pages:
            lost = Problems()
            parsed.append((items, list_frame(items, status="past", problems=lost),
                           lost.records()))
        frame, problems = merge_parsed(parsed, merged)
        pd.testing.assert_frame_equal(frame, expected.reset_index(drop=True))
        # a page repeating an id with other values reports the copy it drops (duplicate_id),
        # kept with that page's other problems of the id; the merged items repeat no id
        copies = [r for r in problems if r["reason"] == "duplicate_id"]
        assert all(r["ico_id"] in set(frame["id"]) for r in copies)
        assert sorted(map(str, [r for r in problems if r["reason"] != "duplicate_id"])) == (
            sorted(map(str, whole.records())))
