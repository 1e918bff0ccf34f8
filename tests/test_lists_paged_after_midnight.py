"""Lists an export begun before 00:00 UTC pages after it: dated the run's day, ordered by page 1.

An export's lists are dated by their page 1, at latest the last ms of the UTC day the run
began (23:59:59.999), so the next night's run pages them again. Lists a run begun before
midnight pages after it all carry that stamp; which of two such lists listed an ICO later
is still what their pages say. Real sandbox over loopback; the clock stands still
(time-machine, not ticking) and moves only when the sandbox takes a chosen request.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
import sys
from contextlib import closing

import pandas as pd
import pytest
import time_machine
from test_days import _as_cron
from test_lists_dated_by_first_page import _Clock, _list_pages
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.parse.lists import list_frame
from icoframes.store.cache import DB_NAME, Cache

NIGHT_1 = dt.datetime(2026, 11, 1, 23, 59, 59, 900000, tzinfo=dt.UTC)
MIDNIGHT = dt.datetime(2026, 11, 2, 0, 0, 0, 100000, tzinfo=dt.UTC)
DAY_1_END = dt.datetime(2026, 11, 1, 23, 59, 59, 999000, tzinfo=dt.UTC)
AFTER_MIDNIGHT = dt.datetime(2026, 11, 2, 0, 5, tzinfo=dt.UTC)


@pytest.fixture
def sb(tmp_path, monkeypatch, quick_retries):
    """A sandbox of 100 ICOs of every status, reached as cron's runs reach it."""
    with sandbox.serve(n_icos=100, seed=12) as server:
        _as_cron(server, tmp_path, monkeypatch)
        yield server
    icoframes.reset_configuration()


def test_a_sale_that_ended_after_midnight_during_an_export_is_past_in_later_loads(
        sb, tmp_path, monkeypatch):
    """An all-status export of one category (one worker) begins at 23:59:59.9 Nov 1; its
    filter set is answered after 00:00, so it asks ongoing page 1 at 00:00:00.1, then
    upcoming page 1 at 00:05, as ongoing sale X has ended (listed past from then on), then
    the past list. Each list is dated 23:59:59.999 Nov 1 (the run's day). The export
    writes X past; a load_icos() of the category from the cache at 00:30 (0 list pages)
    says past too. The lists tied at 23:59:59.999 and a tie kept the first list's row:
    X ongoing, without a request or a word."""
    x = sb.directory.query({"status": "ongoing", "category": 1})[0].id
    clock = _Clock(sb, monkeypatch, "filters")
    record, seen = sb.stats.record_request, []

    def ends(asked: str) -> None:
        record(asked)
        seen.append(asked)
        if seen.count("icos") == 2:  # upcoming page 1 (ongoing page 1 listed X at 00:00:00.1)
            clock.traveller.move_to(AFTER_MIDNIGHT)
            sb.update_ico(x, status="past")

    monkeypatch.setattr(sb.stats, "record_request", ends)  # (over the clock's hook)
    out = tmp_path / "out"
    clock.run(NIGHT_1, lambda: icoframes.export_tables(
        out, category="Platform", max_workers=1, progress=False), nth=1, then=MIDNIGHT)
    assert clock.seen == 1 and seen.count("icos") >= 3
    assert pd.read_parquet(out / "icos.parquet").set_index("id").at[x, "status"] == "past"
    sb.stats.reset()
    with time_machine.travel(AFTER_MIDNIGHT + dt.timedelta(minutes=25), tick=False):
        loaded = icoframes.load_icos(category="Platform", progress=False).set_index("id")
    assert _list_pages(sb) == 0
    assert [q.fetched_at for q in icoframes.report(loaded).queries] == [DAY_1_END] * 3
    assert loaded.at[x, "status"] == "past"


def test_a_cache_made_before_paged_at_reads_its_lists_as_before_and_takes_the_column(tmp_path):
    """A cache whose ``lists`` has no ``paged_at`` (made before it) reads its lists as before
    (dated by ``fetched_at``, no ``paged_at``); keeping a list adds the column, and a list
    kept with its page-1 time reads it back."""
    cache = Cache(tmp_path, "svc")
    items = [{"id": 1, "main": {"name": "ICO 1"}}]
    frame = list_frame(items, status="past")
    cache.write_list({"status": "past"}, items, frame, total_icos=1, fetched_at=DAY_1_END)
    with closing(sqlite3.connect(tmp_path / "svc" / DB_NAME)) as conn:
        conn.execute("ALTER TABLE lists DROP COLUMN paged_at")  # as a cache made before it
    old = Cache(tmp_path, "svc")
    stored = old.read_list({"status": "past"})
    assert stored is not None and stored.fetched_at == DAY_1_END
    assert "paged_at" not in stored.meta and len(stored.frame) == 1
    old.write_list({"status": "ongoing"}, items, frame, total_icos=1, fetched_at=DAY_1_END,
                   paged_at=AFTER_MIDNIGHT)
    assert old.read_list({"status": "ongoing"}).meta["paged_at"] == AFTER_MIDNIGHT
    assert "paged_at" not in old.read_list({"status": "past"}).meta
    # added after sorted_otherwise here: the lists are read by column name, not by place
    assert _columns(tmp_path)[-2:] == ["sorted_otherwise", "paged_at"]
    assert old.mark_sorted_otherwise({"status": "ongoing"}, DAY_1_END) is True
    meta = old.read_list({"status": "ongoing"}).meta
    assert meta["sorted_otherwise"] is True and meta["paged_at"] == AFTER_MIDNIGHT


def _columns(tmp_path) -> list[str]:
    with closing(sqlite3.connect(tmp_path / "svc" / DB_NAME)) as conn:
        return [row[1] for row in conn.execute("PRAGMA table_info(lists)")]


_OTHER_PROCESS = """
import datetime as dt, sys
from pathlib import Path
from icoframes.parse.lists import list_frame
from icoframes.store.cache import Cache
items, at = [{"id": 2, "main": {"name": "ICO 2"}}], dt.datetime.fromisoformat(sys.argv[2])
cache, params = Cache(Path(sys.argv[1]), "svc"), {"status": "upcoming"}
cache.write_list(params, items, list_frame(items, status="upcoming"), total_icos=1,
                 fetched_at=at, paged_at=at)
print(cache.mark_sorted_otherwise(params, at))
"""


def test_a_connection_opened_before_another_process_adds_the_columns_reads_and_writes_them(
        tmp_path):
    """A cache made before the added columns of ``lists``; this process reads a list from it
    (its connection open), then another process keeps a list there, adding the columns,
    and marks it. This process, on the connection it had, reads that list with its page-1
    time and mark, still reads the older list as before, and keeps a list with its own."""
    cache = Cache(tmp_path, "svc")
    items = [{"id": 1, "main": {"name": "ICO 1"}}]
    frame = list_frame(items, status="past")
    cache.write_list({"status": "past"}, items, frame, total_icos=1, fetched_at=DAY_1_END)
    with closing(sqlite3.connect(tmp_path / "svc" / DB_NAME)) as conn:
        conn.execute("ALTER TABLE lists DROP COLUMN paged_at")  # as a cache made before them
        conn.execute("ALTER TABLE lists DROP COLUMN sorted_otherwise")
    mine = Cache(tmp_path, "svc")
    assert mine.read_list({"status": "past"}).meta == {
        "params": {"status": "past"}, "total_icos": 1, "failed_pages": {}, "complete": True,
        "problems": [], "items": 1}
    other = subprocess.run([sys.executable, "-c", _OTHER_PROCESS, str(tmp_path),
                            AFTER_MIDNIGHT.isoformat()], capture_output=True, text=True,
                           timeout=HANG_GUARD, check=True)
    assert other.stdout.split() == ["True"]
    assert _columns(tmp_path)[-2:] == ["paged_at", "sorted_otherwise"]
    theirs = mine.read_list({"status": "upcoming"})
    assert theirs.fetched_at == AFTER_MIDNIGHT and len(theirs.frame) == 1
    assert theirs.meta["paged_at"] == AFTER_MIDNIGHT and theirs.meta["sorted_otherwise"] is True
    before = mine.read_list({"status": "past"})
    assert before.fetched_at == DAY_1_END
    assert not set(before.meta) & {"paged_at", "sorted_otherwise"}
    mine.write_list({"status": "ongoing"}, items, frame, total_icos=1, fetched_at=DAY_1_END,
                    paged_at=MIDNIGHT)
    assert mine.read_list({"status": "ongoing"}).meta["paged_at"] == MIDNIGHT


@pytest.mark.filterwarnings("ignore::icoframes.errors.IncompleteWarning")
def test_a_partial_cached_list_standing_in_ranks_by_its_page_1_too(sb, tmp_path):
    """Lists an export begun at 23:59:59.9 Nov 1 kept, each dated 23:59:59.999: upcoming
    paged at 00:00:30 listed X, ongoing paged at 00:01 listed X too (its sale had begun) but
    came back partial, past paged at 00:02. An offline load at 00:30 answers ongoing with its
    partial list standing in; X was last listed ongoing, so X is ongoing. Dated by its capped
    ``fetched_at``, the partial list lost X to the upcoming list, paged after that stamp."""
    paged = {"upcoming": dt.datetime(2026, 11, 2, 0, 0, 30, tzinfo=dt.UTC),
             "ongoing": dt.datetime(2026, 11, 2, 0, 1, tzinfo=dt.UTC),
             "past": dt.datetime(2026, 11, 2, 0, 2, tzinfo=dt.UTC)}
    with time_machine.travel(dt.datetime(2026, 11, 1, 23, 0, tzinfo=dt.UTC), tick=False):
        icoframes.load_icos(progress=False)
    cache = Cache(tmp_path / "cache", next(
        p.name for p in (tmp_path / "cache").iterdir() if (p / DB_NAME).exists()))
    raw = {status: list(cache.read_list({"status": status}).raw) for status in paged}
    x = raw["ongoing"][0]
    raw["upcoming"].append(x)
    for status, items in raw.items():
        partial = status == "ongoing"
        cache.write_list({"status": status}, items, list_frame(items, status=status),
                         total_icos=len(items) + 5 * partial, complete=not partial,
                         fetched_at=DAY_1_END, paged_at=paged[status])
    sb.stats.reset()
    with time_machine.travel(dt.datetime(2026, 11, 2, 0, 30, tzinfo=dt.UTC), tick=False):
        loaded = icoframes.load_icos(offline=True, progress=False).set_index("id")
    assert sb.stats.requests.total() == 0
    assert loaded.at[x["id"], "status"] == "ongoing"
