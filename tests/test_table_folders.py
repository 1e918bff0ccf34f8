"""A folder of tables as its readers and writers meet it: what is at a table file's name, what
is in the way of the folder, and the folder an export's swap syncs.

Real files, symbolic links and FIFOs on the test's own folder; the export over loopback.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox, staging
from icoframes.cli import main
from icoframes.errors import InvalidParameter
from icoframes.tables import Tables

NAMES = ("icos.parquet, team.parquet, advisors.parquet, social.parquet, distribution.parquet, "
         "bonuses.parquet, roadmap.parquet, markets.parquet, restricted_areas.parquet, "
         "accepting.parquet")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=8) as server:
        yield server


@pytest.fixture
def written(tmp_path) -> Path:
    """A folder of tables, with problems, and a copy of its problems file elsewhere."""
    folder = tmp_path / "tables"
    tables = icoframes.tidy([{"id": 1, "name": "A", "finance": {"raised": "lots"}}])
    assert len(tables.problems) == 1
    tables.to_parquet(folder)
    (tmp_path / "elsewhere.parquet").write_bytes((folder / "problems.parquet").read_bytes())
    return folder


def _readers(folder: Path) -> dict[str, object]:
    """What Tables.read_parquet and read_export (the folder with a manifest) say of it."""
    said: dict[str, object] = {}
    for name, read in [("read_parquet", Tables.read_parquet), ("read_export",
                                                                icoframes.read_export)]:
        try:
            said[name] = len(read(folder).problems)
        except (OSError, ValueError) as exc:
            said[name] = f"{type(exc).__name__}: {exc}"
    return said


# --------------------------------------------- 1. problems.parquet: a link to nothing is damage


@pytest.mark.parametrize(("target", "what"), [
    ("gone", "a symbolic link: never followed"),  # to nothing: was "no problems"
    ("problems.parquet", "a symbolic link: never followed"),  # one that loops: the same
    ("../elsewhere.parquet", "a symbolic link: never followed"),  # to a real file (as before)
    (None, "a FIFO, not a regular file"),  # (as before)
])
def test_a_problems_file_that_is_no_regular_file_is_damage_named(written, target, what):
    (written / "manifest.json").write_text("{}")
    path = written / "problems.parquet"
    path.unlink()
    if target is None:
        os.mkfifo(path)
    else:
        path.symlink_to(target)
    damaged = f"ExportMismatch: {path} is damaged ({what})"
    assert _readers(written) == {"read_parquet": damaged, "read_export": damaged}
    assert path.is_symlink() == (target is not None)  # left as it was


def test_a_folder_without_a_problems_file_still_reads_as_no_problems(written):
    (written / "manifest.json").write_text("{}")
    assert _readers(written) == {"read_parquet": 1, "read_export": 1}
    (written / "problems.parquet").unlink()  # written before problems were
    assert _readers(written) == {"read_parquet": 0, "read_export": 0}


# ------------------------------------------------------- 4. a folder holding no table file


@pytest.mark.parametrize(("held", "said"), [
    ([], "it is empty"), (["notes.txt", "problems.parquet"], "none is there")])
def test_read_parquet_of_a_folder_without_tables_says_what_a_folder_of_tables_holds(
        tmp_path, held, said):
    # was pyarrow's "[Errno 2] No such file or directory: '.../icos.parquet'"
    for name in held:
        (tmp_path / name).write_bytes(b"")
    with pytest.raises(FileNotFoundError) as caught:
        Tables.read_parquet(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path} holds no tables (no export): {said}; a folder written by "
        f"Tables.to_parquet or export_tables holds one file per table ({NAMES})")
    assert sorted(p.name for p in tmp_path.iterdir()) == held


def test_a_folder_lacking_one_table_still_names_that_file(written):
    (written / "team.parquet").unlink()
    with pytest.raises(FileNotFoundError, match=r"team\.parquet"):
        Tables.read_parquet(written)


# -------------------------- 3. a link to nothing in the way of the folder: named, not "File exists"


@pytest.mark.parametrize(("where", "error", "why"), [
    ("dangling", errno.EEXIST, "it is a symbolic link to '{root}/nowhere', which names nothing"),
    ("dangling/x/y", errno.EEXIST, "{root}/dangling on its way is a symbolic link to "
                                   "'{root}/nowhere', which names nothing"),
    ("loop/x", errno.ELOOP, "{root}/loop on its way is a symbolic link that loops (it leads "
                            "back to itself)"),
])
def test_to_parquet_names_the_link_to_nothing_in_its_way(tmp_path, where, error, why):
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(OSError) as caught:  # the OS's error, its type and errno, as before
        Tables.empty().to_parquet(tmp_path / where)
    assert str(caught.value) == (f"[Errno {error}] no folder can be made at {tmp_path / where}: "
                                 + why.format(root=tmp_path))
    assert caught.value.errno == error
    assert type(caught.value) is (FileExistsError if error == errno.EEXIST else OSError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "loop"]
    assert not (tmp_path / "nowhere").exists()


def test_to_parquet_under_a_file_names_it(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(NotADirectoryError) as caught:  # the OS's error type, as before
        Tables.empty().to_parquet(tmp_path / "notes.txt" / "x")
    assert str(caught.value) == (f"[Errno {errno.ENOTDIR}] no folder can be made at "
                                 f"{tmp_path / 'notes.txt' / 'x'}: {tmp_path / 'notes.txt'} "
                                 "on its way is a file")
    assert caught.value.errno == errno.ENOTDIR


@pytest.mark.parametrize(("where", "why"), [
    ("dangling/x", "{root}/dangling on its way is a symbolic link to '{root}/nowhere', which "
                   "names nothing"),
    ("dangling", "it is a symbolic link to '{root}/nowhere', which names nothing"),
    ("loop", "it is a symbolic link that loops (it leads back to itself)"),
])
def test_an_out_with_a_link_to_nothing_on_its_way_says_so_before_any_request(
        cfg, tmp_path, caplog, where, why):
    # was ConfigError "the export folder ... cannot be written (File exists)" for one on its way
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to("loop")
    out = tmp_path / where
    with pytest.raises(InvalidParameter) as caught:
        icoframes.export_tables(out, status="past", progress=False)
    said = f"out={out} names no folder: {why.format(root=tmp_path)}. Nothing was sent or written"
    assert str(caught.value).startswith(said)
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(out), "--status", "past"]) == 2
    assert said.removeprefix("out=") in caplog.text
    assert cfg.stats.requests.total() == 0
    assert not (tmp_path / "nowhere").exists() and not (tmp_path / "loop").exists()


# ------------------------------------------------------- 2. the folder a swap fsyncs


def test_the_swap_syncs_a_folder_only_and_never_opens_anything_else_there(tmp_path, fsynced):
    # os.open(folder, O_RDONLY) opened whatever was there: a FIFO's open waited for a writer
    # forever (a writer end is held open here, so the test never hangs: it was opened and
    # fsynced), a file or a device was opened and fsynced
    fifo, file, folder = tmp_path / "fifo", tmp_path / "file", tmp_path / "folder"
    os.mkfifo(fifo)
    file.write_text("x")
    folder.mkdir()
    (tmp_path / "to-fifo").symlink_to(fifo)
    (tmp_path / "to-folder").symlink_to(folder)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        for path in (fifo, tmp_path / "to-fifo", file, Path(os.devnull)):
            staging._fsync_folder(path)
            assert fsynced == [], path
    finally:
        os.close(writer)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and file.read_text() == "x"
    staging._fsync_folder(folder)
    staging._fsync_folder(tmp_path / "to-folder")  # an out that is a link: its renames went there
    staging._fsync_folder(tmp_path / "nothing")
    assert fsynced == [str(folder), str(folder)]

