"""What an export checks of the day it replaces before it spends a request, and at its swap.

A day's entry that no swap may replace (a symbolic link, a file) is refused before any
request; a day whose lists are newer than this export's is never replaced by it (another
cache dir holding an older list of the same day).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import ConfigError

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
