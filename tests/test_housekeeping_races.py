"""The cache dir measured while another process clears it (``clear_cache``, ``prune_cache``).

A service folder listed by :func:`icoframes.cachedir.housekeeping.scan` (or the configured one
``cache_info()`` measures, or the ledgers' folder) may be removed by another process before
it is measured. The removal is made by a profiler just as this thread starts
measuring that folder (no clock, no mock): ``cache_info()``, ``cache_info(all=True)`` and
``prune_cache`` go on without it instead of failing with ``FileNotFoundError``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import icoframes
from icoframes import sandbox
from icoframes.cachedir.housekeeping import describe, prune


@contextlib.contextmanager
def _removed_as_measured(folder: Path) -> Iterator[list[bool]]:
    """``folder`` is removed just as this thread calls ``entries.size`` on it."""
    removed: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if (event == "call" and frame.f_code.co_name == "size" and not removed
                and frame.f_locals.get("path") == folder):
            removed.append(True)
            shutil.rmtree(folder)

    sys.setprofile(profile)
    try:
        yield removed
    finally:
        sys.setprofile(None)


def _cache_dir(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "cache"
    for name in ("127.0.0.1_8000", "127.0.0.1_9000"):
        (root / name / "tables").mkdir(parents=True)
        (root / name / "tables" / "icos.parquet").write_bytes(b"1234")
    return root, root / "127.0.0.1_8000"


def test_a_folder_removed_as_the_cache_dir_is_described_is_left_out(tmp_path):
    root, gone = _cache_dir(tmp_path)
    with _removed_as_measured(gone) as removed:
        found = describe(root)
    assert removed == [True]
    assert [s.name for s in found.services] == ["127.0.0.1_9000"]
    assert found.size_bytes == 4


def test_a_folder_removed_as_prune_measures_it_is_left_out(tmp_path):
    root, gone = _cache_dir(tmp_path)
    with _removed_as_measured(gone) as removed:
        report = prune(root, dt.timedelta(days=30))
    assert removed == [True]
    assert report.removed == [] and report.skipped == []
    assert sorted(p.name for p in root.iterdir()) == ["127.0.0.1_9000"]


def test_a_service_folder_removed_as_cache_info_measures_it_is_0_bytes(tmp_path):
    """``cache_info()`` (``housekeeping.info``) measured the configured service's folder after
    checking that it is one: removed in between, it raised ``FileNotFoundError``."""
    with sandbox.serve(n_icos=20, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path)
        try:
            listing = icoframes.load_list(status="past", progress=False)
            (folder,) = (p for p in tmp_path.iterdir() if p.name != "quota")
            with _removed_as_measured(folder) as removed:
                found = icoframes.cache_info()
        finally:
            icoframes.reset_configuration()
    assert removed == [True] and not folder.exists()
    assert (found.path, found.size_bytes) == (str(folder), 0)
    assert found.list_queries == 1 and found.listed_without_profile == 0
    assert found.states["not_fetched"] == len(listing) and found.requests_today == 1


def test_the_ledgers_removed_as_the_cache_dir_is_described_are_left_out(tmp_path):
    with sandbox.serve(n_icos=20, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path)
        try:
            icoframes.load_list(status="past", progress=False)
            service = icoframes.cache_info()
            with _removed_as_measured(tmp_path / "quota") as removed:
                found = icoframes.cache_info(all=True)
        finally:
            icoframes.reset_configuration()
    assert removed == [True]
    assert (found.size_bytes, found.ledgers) == (service.size_bytes, 0)
    assert [str(s.path) for s in found.services] == [service.path]
