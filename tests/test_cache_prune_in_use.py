"""A prune never removes a service folder a live load uses, however old its files look.

A real load runs in another process against a loopback server (tests/hostile.py) that holds
one request (a list page, or the filter set) until the test lets it go: the load is then in
its crawl, its folder made, waiting on the network. The test dates every file of the folder
in 2020 (``os.utime``: no clock read, no sleep) and prunes what was unused for a day: the
folder and its lists stay (used now). Once the load has ended, the same prune removes it.
Before, a prune judged only the files' age, so a load that waited on the network for longer
than ``older_than`` lost the folder it was filling. The derived tables a load assembles
after its crawl are held too (a prune run from inside the assembly leaves them).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hostile import FILTERS, LIST, HostileServer, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.fetch import load as load_module

pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="no flock: a folder's age alone counts")

# a real load in its own process: says its folder first (made by nothing yet), then loads
_CHILD = """
import sys
import icoframes
from icoframes.fetch.load import Load
print(Load(progress=False).cache.dir, flush=True)
kind = sys.argv[1]
if kind == "filters":
    icoframes.load_filters()
    icoframes.load_filters(refresh=True)
else:
    if kind == "warm":
        icoframes.load_list(status="past", progress=False)
    icoframes.load_list(status="past", refresh=kind == "warm", progress=False)
"""
_FILTER_SET = {"error": None, "platform": [{"id": 1, "name": "Ethereum"}], "category": [],
               "type": [], "location": []}
_OLD = (dt.datetime(2020, 1, 1, tzinfo=dt.UTC) - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        ).total_seconds()


class Held:
    """A behaviour answering as ``answer`` does, but its ``nth`` request only once the test
    lets it go (:attr:`go`); :attr:`arrived` is set when that request came."""

    def __init__(self, answer, nth: int) -> None:
        self.answer, self.nth, self.seen = answer, nth, 0
        self.arrived, self.go = threading.Event(), threading.Event()

    def __call__(self, h) -> None:
        self.seen += 1  # (the load sends this path's requests one after the other)
        if self.seen == self.nth:
            self.arrived.set()
            self.go.wait(HANG_GUARD)
        self.answer(h)


def _age(folder: Path) -> None:
    """Date every file under ``folder`` (and itself) in 2020: unused for years, by its files."""
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, (_OLD, _OLD), follow_symlinks=False)


def _prune(root: Path) -> icoframes.CacheReport:
    return icoframes.prune_cache(dt.timedelta(days=1), cache_dir=root)


@pytest.mark.parametrize("kind", ["cold", "warm", "filters"])
def test_a_prune_leaves_the_folder_of_a_load_waiting_on_the_network_alone(tmp_path, kind):
    root = tmp_path / "cache"
    held = Held(json_reply(_FILTER_SET), 2) if kind == "filters" else Held(
        paged_list(5), 1 if kind == "cold" else 2)
    with HostileServer({LIST: held if kind != "filters" else paged_list(5),
                        FILTERS: held if kind == "filters" else json_reply(_FILTER_SET)}) as srv:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
        env |= {f"ICOFRAMES_{k.upper()}": str(v) for k, v in srv.settings().items()}
        env |= {"ICOFRAMES_CACHE_DIR": str(root), "ICOFRAMES_TIMEOUT": str(HANG_GUARD)}
        child = subprocess.Popen([sys.executable, "-c", _CHILD, kind], env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert child.stdout is not None
            said = child.stdout.readline().strip()
            assert said, child.communicate(timeout=HANG_GUARD)[1]  # (never Path(''): the cwd)
            folder = Path(said)
            assert folder.parent == root
            assert held.arrived.wait(HANG_GUARD), child.communicate(timeout=HANG_GUARD)[1]
            assert (folder / "cache.sqlite3").is_file()  # the load's, made; it waits now
            _age(folder)
            report = _prune(root)
            assert report.removed == [] and report.skipped == []  # in use: used now
            assert (folder / "cache.sqlite3").is_file()
        finally:
            held.go.set()
            _, err = child.communicate(timeout=HANG_GUARD)
        assert child.returncode == 0, err
    assert srv.hits[LIST] == {"cold": 1, "warm": 2, "filters": 0}[kind]  # nothing paged twice
    _age(folder)
    report = _prune(root)  # no load now
    assert report.removed == [str(folder)] and report.skipped == []
    assert not folder.exists()


def test_a_prune_leaves_the_tables_a_load_assembles_after_its_crawl(tmp_path, monkeypatch):
    root, reports = tmp_path / "cache", []
    assemble = load_module.assemble

    def assembled_while_pruned(derived, *args, **kwargs):
        _age(derived.cache.dir)  # the crawl has ended: its tables are read now
        reports.append(_prune(root))
        return assemble(derived, *args, **kwargs)

    monkeypatch.setattr(load_module, "assemble", assembled_while_pruned)
    with sandbox.serve(n_icos=5, seed=1) as sb:
        icoframes.configure(**sb.settings(), cache_dir=root)
        try:
            icos = icoframes.load_icos(progress=False)
        finally:
            icoframes.reset_configuration()
            assert [(r.removed, r.skipped) for r in reports] == [([], [])]  # (said first)
    assert len(icos) == 5
