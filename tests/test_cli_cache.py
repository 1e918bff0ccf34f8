"""``icoframes cache clear`` says what it removed, and what it left alone with why (exit 5)."""

from __future__ import annotations

import os
import shutil

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE, main

pytestmark = pytest.mark.usefixtures("clean_settings")


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A cache dir holding one sandbox service's folder; the environment names them."""
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=1) as sb:
        settings = sb.settings()
        icoframes.configure(**settings, cache_dir=cache)
        try:
            icoframes.load_icos(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    for name in ("base_url", "public_key", "private_key", "service_name"):
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(settings[name]))
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(cache))
    (folder,) = [p for p in cache.iterdir() if p.is_dir() and p.name != "quota"]
    return folder


def _size(folder) -> int:
    return sum(os.lstat(os.path.join(d, f)).st_size
               for d, _, files in os.walk(folder) for f in files)


def test_cache_clear_names_what_it_removed_and_the_bytes_freed(cached, capsys):
    size = _size(cached)
    assert size > 0
    assert main(["cache", "clear"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"removed {cached}",
                                f"cache cleared: 1 path removed, {size:,} bytes freed"]
    assert err == "" and not cached.exists()
    assert main(["cache", "clear"]) == EXIT_OK  # again: nothing is there
    assert capsys.readouterr() == ("cache cleared: nothing was cached\n", "")


def test_cache_clear_leaving_a_linked_folder_alone_says_so_and_exits_5(
        cached, tmp_path, capsys, caplog):
    real = tmp_path / "bigger-disk"
    shutil.move(cached, real)
    cached.symlink_to(real, target_is_directory=True)  # the service folder on another disk
    assert main(["cache", "clear"]) == EXIT_INCOMPLETE
    out, err = capsys.readouterr()
    assert out == "cache not cleared: 0 paths removed, 0 bytes freed, 1 path left alone\n"
    # it said "a symlink: never followed out of the cache dir; left alone" (twice "left alone")
    assert err == f"left alone {cached}: a symbolic link: never followed out of the cache dir\n"
    assert cached.is_symlink() and (real / "cache.sqlite3").exists()
    # a cache folder refused is a setting to fix, as the exit codes say: 2 (it was 1)
    assert main(["cache", "info"]) == EXIT_USAGE
    assert f"{cached} is a symbolic link: a cache folder is never followed elsewhere" in \
        caplog.text
    assert cached.is_symlink() and (real / "cache.sqlite3").exists()


def test_cache_clear_leaves_a_file_of_the_user_in_the_service_folder_and_says_so(
        cached, tmp_path, capsys):
    # the docs said it left alone "a file that is not the cache's": it removed it
    notes = cached / "notes-of-mine.txt"
    notes.write_text("my notes")
    cache_files = sorted(p.name for p in cached.iterdir() if p != notes)
    assert "cache.sqlite3" in cache_files and "tables" in cache_files
    size = _size(cached) - len("my notes")
    assert main(["cache", "clear"]) == EXIT_INCOMPLETE
    out, err = capsys.readouterr()
    removed = [f"removed {cached / name}" for name in cache_files if name != ".lock"]
    assert out.splitlines() == [*removed, f"cache not cleared: {len(removed)} paths removed, "
                                f"{size:,} bytes freed, 1 path left alone"]
    assert err == (f"left alone {notes}: not the cache's (a name the cache never writes): "
                   "move it elsewhere\n")
    assert [p.name for p in cached.iterdir()] == [notes.name]
    assert notes.read_text() == "my notes"
    notes.rename(tmp_path / notes.name)  # moved away: the next clear removes the folder
    assert main(["cache", "clear"]) == EXIT_OK
    assert capsys.readouterr() == (f"removed {cached}\ncache cleared: 1 path removed, 0 bytes "
                                   "freed\n", "")
    assert not cached.exists()


def test_cache_clear_leaves_a_users_files_in_the_tables_folder_and_says_so(cached, capsys):
    # tables/my-notes.txt and tables/myproj/data.csv went with the cache's tables, the clear
    # saying only "removed .../tables" (review REVE L2)
    tables = cached / "tables"
    ours = sorted(p.name for p in tables.iterdir())
    assert "icos.parquet" in ours and "_state.json" in ours
    (tables / "my-notes.txt").write_text("my notes")
    (tables / "myproj").mkdir()
    (tables / "myproj" / "data.csv").write_text("a,b\n")
    assert main(["cache", "clear"]) == EXIT_INCOMPLETE
    out, err = capsys.readouterr()
    assert [line for line in out.splitlines() if "tables" in line] == [
        f"removed {tables / name}" for name in ours]
    assert out.splitlines()[-1].endswith("bytes freed, 2 paths left alone")
    assert err == "".join(f"left alone {tables / name}: not the cache's (a name the cache "
                          "never writes): move it elsewhere\n"
                          for name in ("my-notes.txt", "myproj"))
    assert [p.name for p in cached.iterdir()] == ["tables"]
    assert (tables / "my-notes.txt").read_text() == "my notes"
    assert (tables / "myproj" / "data.csv").read_text() == "a,b\n"
