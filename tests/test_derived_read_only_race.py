"""A read-only cache dir whose tables another user's process rewrites meanwhile.

A reader of a read-only cache dir cannot take the tables folder's lock (it cannot make the
lock file), so it lists the folder while a writer elsewhere (a writable path to the same
files) may be renaming a new table in: the writer's temporary file is listed, then gone.
``derived._plain_files`` looked at each listed entry and raised ``FileNotFoundError`` out of
the load; an entry gone meanwhile is no entry. The writer's rename is made by a profiler just
as the reader looks at that entry (no clock, no mock); the sandbox serves over loopback.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pandas as pd
from test_housekeeping import _read_only
from test_mutation_store_db_read_only import _writable_view

import icoframes
from icoframes import sandbox


@contextlib.contextmanager
def _renamed_as_looked_at(listed: Path, source: Path, target: Path) -> Iterator[list[bool]]:
    """``source`` renamed to ``target`` just as this thread calls ``lstat`` on ``listed``."""
    renamed: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if (event == "call" and frame.f_code.co_name == "lstat" and not renamed
                and frame.f_locals.get("self") == listed):
            renamed.append(True)
            os.replace(source, target)

    sys.setprofile(profile)
    try:
        yield renamed
    finally:
        sys.setprofile(None)


def test_a_table_renamed_in_as_a_read_only_reader_lists_the_folder_is_read(tmp_path):
    cache, view = tmp_path / "cache", tmp_path / "view"
    view.mkdir()
    with sandbox.serve(n_icos=30, seed=5) as sb:
        icoframes.configure(**sb.settings(), cache_dir=cache)
        try:
            cold = icoframes.load_icos(status="past", progress=False)
            spent = sb.stats.requests.total()
            (tables,) = cache.glob("*/tables")
            with _writable_view(cache, view), _read_only(cache):
                # the writer's new copy of the table (the same rows), on its way in
                theirs = view / tables.relative_to(cache)
                temp = theirs / ".icos.parquet.0123456789abcdef.tmp"
                shutil.copyfile(theirs / "icos.parquet", temp)
                with _renamed_as_looked_at(tables / temp.name, temp,
                                           theirs / "icos.parquet") as renamed:
                    warm = icoframes.load_icos(status="past", progress=False, offline=True)
                assert renamed == [True]
                assert not temp.exists()
        finally:
            icoframes.reset_configuration()
        assert sb.stats.requests.total() == spent
    pd.testing.assert_frame_equal(warm, cold)
