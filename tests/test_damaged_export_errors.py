"""A damaged export raises ``ExportMismatch``: an ``IcoframesError`` and a ``ValueError``.

The readers' own checks (a table file that is a symbolic link or a FIFO, columns that
differ from the schema, a ``manifest.json`` that is not JSON) raised a plain ``ValueError``,
so ``except icoframes.IcoframesError`` around :func:`icoframes.read_export` missed a damaged
export, while the errors guide says every exception raised on purpose is one. A bundle
built from frames that are not the schema's is an ``InvalidParameter`` (a ``WrongType``
for no DataFrame), a ``ValueError`` still.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import icoframes
from icoframes.tables import Tables

TABLE = "team"


def _symlink(folder: Path) -> None:
    (folder / f"{TABLE}.parquet").rename(folder / "elsewhere.parquet")
    (folder / f"{TABLE}.parquet").symlink_to(folder / "elsewhere.parquet")


def _fifo(folder: Path) -> None:  # opened without waiting for a writer (O_NONBLOCK)
    (folder / f"{TABLE}.parquet").unlink()
    os.mkfifo(folder / f"{TABLE}.parquet")


def _columns(folder: Path) -> None:
    path = folder / f"{TABLE}.parquet"
    table = pq.read_table(path)
    pq.write_table(table.drop_columns([table.column_names[-1]]), path)


def _manifest(folder: Path) -> None:
    (folder / "manifest.json").write_text("{not json")


def _export(tmp_path: Path, damage) -> Path:
    folder = tmp_path / "export"
    Tables.empty().to_parquet(folder)
    (folder / "manifest.json").write_text("{}")
    damage(folder)
    return folder


DAMAGE = {"symlink": (_symlink, "symbolic link"), "fifo": (_fifo, "FIFO"),
          "columns": (_columns, "differ from the team schema"),
          "manifest": (_manifest, r"manifest\.json is damaged \(not JSON")}


READERS = {"read_export": icoframes.read_export, "read_parquet": Tables.read_parquet}


# read_parquet reads no manifest
@pytest.mark.parametrize(("reader", "case"), [(r, c) for r in READERS for c in DAMAGE
                                              if (r, c) != ("read_parquet", "manifest")])
def test_damage_is_an_icoframes_error(tmp_path, reader, case):
    damage, said = DAMAGE[case]
    folder = _export(tmp_path, damage)
    with pytest.raises(ValueError, match=said) as caught:  # an existing except still catches
        READERS[reader](folder)
    assert isinstance(caught.value, icoframes.IcoframesError)
    assert type(caught.value).__name__ == "ExportMismatch"


def test_undamaged_control(tmp_path):
    assert read_both(_export(tmp_path, lambda folder: None)) == (0, 0)


def read_both(folder: Path) -> tuple[int, int]:
    return len(icoframes.read_export(folder).icos), len(Tables.read_parquet(folder).icos)


def test_bundle_of_other_frames_is_an_invalid_parameter():
    empty = Tables.empty()
    frames = dict(empty)
    with pytest.raises(ValueError, match="columns") as caught:
        Tables(**{**frames, TABLE: frames[TABLE].iloc[:, :-1]})
    assert isinstance(caught.value, icoframes.InvalidParameter)
    with pytest.raises(ValueError, match="expected a DataFrame") as caught:
        Tables(**{**frames, TABLE: [1, 2]})
    assert isinstance(caught.value, icoframes.InvalidParameter)
    assert isinstance(caught.value, TypeError)  # a WrongType
