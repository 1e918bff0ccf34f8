"""What an export checks of the day it replaces before it spends a request, and at its swap.

A day's entry that no swap may replace (a symbolic link, a file) is refused before any
request; a day whose lists are newer than this export's is never replaced by it (another
cache dir holding an older list of the same day).
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import ConfigError, ExportBusy, InvalidParameter
from icoframes.export import ExportResult

export_module = importlib.import_module("icoframes.export")

DAY = dt.datetime(2026, 11, 20, 6, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=1) as server:
        yield server


@pytest.mark.parametrize("kind", ["link", "file", "dangling"])
def test_a_day_that_is_a_link_or_a_file_is_refused_before_any_request(cfg, tmp_path, kind):
    with time_machine.travel(DAY, tick=True):
        other = icoframes.export_tables(tmp_path / "other", status="past", snapshot=True,
                                        progress=False).path
        out = tmp_path / "tree"
        out.mkdir()
        day = out / other.name
        if kind == "link":
            day.symlink_to(other, target_is_directory=True)
        elif kind == "dangling":
            day.symlink_to(tmp_path / "nowhere", target_is_directory=True)
        else:
            day.write_text("not a day")
        before = sorted(p.name for p in other.iterdir())
        icoframes.configure(cache_dir=tmp_path / "another cache")  # it would page and fetch
        cfg.stats.reset()
        with pytest.raises(ConfigError) as error:
            icoframes.export_tables(out, status="past", snapshot=True, progress=False)
    assert sum(cfg.stats.requests.values()) == 0
    assert f"{day} is not a folder (a symbolic link or a file)" in str(error.value)
    assert "Nothing was sent or written" in str(error.value)
    assert [p.name for p in out.iterdir()] == [day.name]  # no staging folder left
    assert day.is_symlink() == (kind != "file")
    assert sorted(p.name for p in other.iterdir()) == before
    assert json.loads((other / "manifest.json").read_text())["complete"] is True


def _exports(sb: sandbox.Sandbox, out: Path, tmp_path: Path, **kwargs: Any
             ) -> Callable[[str], tuple[ExportResult, dict[str, int]]]:
    """``run(cache)``: an export into ``out`` from the cache dir ``cache`` (a host of its
    own), and the requests it sent, per endpoint."""
    def run(cache: str) -> tuple[ExportResult, dict[str, int]]:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / cache)
        sb.stats.reset()
        result = icoframes.export_tables(out, status="past", progress=False, **kwargs)
        return result, dict(sb.stats.requests)
    return run


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_an_older_list_of_the_day_in_another_cache_never_replaces_the_days_newer_one(
        tmp_path, snapshot):
    """Host B exported in the morning; the service then listed 5 more ICOs and host A
    (another cache dir) exported the whole day; B again the same day took its morning list
    as the day's (paged that day: no request), complete, exit 0, and replaced A's day by
    its older, shorter one (lists_fetched back in time). B now pages the list again: the
    day's list is newer than its cached one."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=40, seed=1) as sb, time_machine.travel(DAY, tick=True):
        run = _exports(sb, out, tmp_path, snapshot=snapshot)
        try:
            morning, first = run("b")
            added = {sb.directory.add_ico("past") for _ in range(5)}
            later, _ = run("a")
            again, sent = run("b")
        finally:
            icoframes.reset_configuration()
    n = morning.rows["icos"]
    assert (later.rows["icos"], again.rows["icos"]) == (n + 5, n + 5)
    assert again.complete and again.path == later.path
    (query,) = again.manifest["queries"]
    assert query["from_cache"] is False  # paged again: A's list is the day's newest
    # the list's pages, and the 5 ICOs B had not fetched
    assert sent == {"icos": first["icos"], "ico": 5}, sent
    assert again.manifest["lists_fetched"]["oldest"] > later.manifest["lists_fetched"]["newest"]
    icos = icoframes.read_export(again.path).icos
    assert len(icos) == n + 5 and added <= set(icos["id"].tolist())
    assert icos["id"].dtype == "int64" and icos["id"].is_unique


def test_a_newer_list_with_fewer_icos_is_the_days(tmp_path):
    """The rule is the lists' age, not a row count: the service delisted 3 ICOs, and the
    export that saw it (a newer list) replaces the day by fewer rows; the other host's
    morning list, older, is then paged again, not put back."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=40, seed=1) as sb, time_machine.travel(DAY, tick=True):
        run = _exports(sb, out, tmp_path, snapshot=True)
        try:
            morning, first = run("b")
            gone = sb.directory.ids("past")[:3]
            for ico_id in gone:
                sb.directory.remove_ico(ico_id)
            later, _ = run("a")
            again, sent = run("b")
        finally:
            icoframes.reset_configuration()
    n = morning.rows["icos"]
    assert (later.rows["icos"], again.rows["icos"]) == (n - 3, n - 3)
    assert later.complete and again.complete
    assert again.manifest["queries"][0]["from_cache"] is False
    assert sent == {"icos": first["icos"]}, sent  # the list's pages only
    assert not set(gone) & set(icoframes.read_export(again.path).icos["id"].tolist())


def test_a_complete_export_never_swaps_in_over_a_day_with_newer_lists(tmp_path, monkeypatch):
    """B (its morning list cached, the day's until then) is past its load when A, another
    cache dir, swaps in the day with a newer list of 5 more ICOs: B, complete, swapped over
    it (only an incomplete export looked again). Under its swap lock B finds the day's list
    newer than its own: it writes nothing, and says so."""
    from swapping import Gate
    from waiting import HANG_GUARD, wait_until

    out, gate, results = tmp_path / "out", Gate(), {}
    real = export_module.not_refreshed  # called past the load and the day's look

    def stopped(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is late:
            gate.stop()
        return real(*args, **kwargs)

    def run() -> None:
        try:
            results["value"] = icoframes.export_tables(
                out, status="past", snapshot=True, progress=False, cache_dir=tmp_path / "b")
        except Exception as exc:  # the test thread reports it
            results["error"] = exc

    with sandbox.serve(n_icos=40, seed=1) as sb, time_machine.travel(DAY, tick=True):
        try:
            morning, _ = _exports(sb, out, tmp_path, snapshot=True)("b")
            sb.directory.add_ico("past")
            monkeypatch.setattr(export_module, "not_refreshed", stopped)
            late = threading.Thread(target=run)
            late.start()
            try:
                assert wait_until(lambda: gate.reached.is_set() or not late.is_alive())
                assert gate.reached.is_set(), results
                later, _ = _exports(sb, out, tmp_path, snapshot=True)("a")
            finally:
                gate.opened.set()
                late.join(HANG_GUARD)
        finally:
            icoframes.reset_configuration()
    error = results.get("error")
    assert isinstance(error, ExportBusy), results
    assert "holds a list newer than this export's: past fetched at" in str(error)
    assert "(another export, with another cache dir, exported this day meanwhile)" in str(error)
    assert "Nothing was written (what was fetched is cached)" in str(error)
    assert later.complete and later.rows["icos"] == morning.rows["icos"] + 1
    assert json.loads((later.path / "manifest.json").read_text()) == later.manifest
    assert [p.name for p in out.iterdir()] == [later.path.name]


@pytest.mark.parametrize("damage", ["garbage", "missing"])
def test_an_incomplete_export_says_which_table_of_the_day_is_damaged(tmp_path, damage):
    """A day whose manifest reads but one of whose tables does not: every incomplete export
    of that day (another cache dir, a budget) was refused with "another export swapped its
    files in while this one ran", though none ran, run after run. It now names the damage,
    writes nothing (it cannot keep the day's rows it lacks), and a complete export replaces
    the damaged day."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=60, seed=1) as sb, time_machine.travel(DAY, tick=True):
        try:
            first, _ = _exports(sb, out, tmp_path, snapshot=True)("a")
            table = first.path / "team.parquet"
            if damage == "garbage":
                table.write_bytes(b"garbage")
            else:
                table.unlink()
            held = sorted(p.name for p in first.path.iterdir())
            for cache in ("b", "c"):  # again: no wedge, the same answer
                with pytest.raises(InvalidParameter) as error:
                    _exports(sb, out, tmp_path, snapshot=True, budget=3)(cache)
                assert f"{first.path} is damaged (" in str(error.value)
                assert ("team.parquet cannot be read" if damage == "garbage"
                        else "missing team.parquet") in str(error.value)
                assert "Nothing was written (what was fetched is cached)" in str(error.value)
                assert sorted(p.name for p in first.path.iterdir()) == held
            repaired, _ = _exports(sb, out, tmp_path, snapshot=True)("d")
        finally:
            icoframes.reset_configuration()
    assert repaired.complete and repaired.rows == first.rows
    day = icoframes.read_export(repaired.path)
    assert len(day.team) == first.rows["team"] and len(day.icos) == first.rows["icos"]
    assert [p.name for p in out.iterdir()] == [first.path.name]
