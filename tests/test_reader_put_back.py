"""A reader that listed a day a killed export left set aside reads it where the next export
put it back meanwhile.

SIGKILL between a snapshot swap's two renames leaves the day in the killed export's staging
folder (``previous-snapshot_date=...``); the readers read it from there. When the next export
put it back (and swapped its own day in) between the listing and the read, the reader raised
FileNotFoundError "no export folder at .../previous-snapshot_date=...": the folder it had
listed was gone, and its lock was looked for on that folder, not on the tree.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from test_swap_signals import _export

from icoframes import sandbox, snapshots, staging
from icoframes.cli import EXIT_OK
from icoframes.errors import IcoframesWarning


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


@pytest.mark.parametrize("reader", ["read_snapshots", "snapshot_info"])
def test_a_day_put_back_after_the_listing_is_read_where_it_is_now(
        sb, tmp_path, monkeypatch, reader):
    out = tmp_path / "tree"
    assert _export(sb, tmp_path, "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    killed = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                     sig=signal.SIGKILL,
                     after=f"{out}/{staging.STAGING_PREFIX}*/previous-{day.name}")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (left,) = out.iterdir()
    aside = left / f"previous-{day.name}"
    assert aside.is_dir() and not day.exists()
    real, listed = snapshots.snapshot_dirs, []

    def then_an_export(folder: Path, names: Any = None) -> Any:
        found = real(folder, names)
        listed.append(dict(found))
        # the next export: puts the day back, swaps its own in, removes the staging folder
        again = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed")
        assert again.returncode == EXIT_OK, again.stderr
        return found

    monkeypatch.setattr(snapshots, "snapshot_dirs", then_an_export)
    with pytest.warns(IcoframesWarning, match=f"{day} is not there"):
        result = getattr(snapshots, reader)(out)
    assert [list(found.values()) for found in listed] == [[aside]]
    assert [p.name for p in out.iterdir()] == [day.name]
    manifest = json.loads((day / "manifest.json").read_text())
    infos = (result.attrs["icoframes"]["snapshots"] if reader == "read_snapshots"
             else result.to_dict("records"))
    assert [(i["path"], i["exported_at"], i["complete"]) for i in infos] == [
        (str(day), manifest["exported_at"], True)]
    if reader == "read_snapshots":
        assert len(result) == manifest["rows"]["icos"] and result["id"].dtype == "int64"
