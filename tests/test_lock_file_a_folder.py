"""A folder where a service folder's ``.lock`` file belongs (a backup restore, a hand tidy-up)
is a CacheError naming it, in loads, exports and cache commands, and is never removed (it may
hold someone's files): it was a raw IsADirectoryError (a traceback from the export)."""

from __future__ import annotations

import logging

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_ERROR, EXIT_INCOMPLETE, main
from icoframes.errors import CacheError

pytestmark = pytest.mark.usefixtures("clean_settings")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A sandbox, the environment naming it and a cache dir filled by one load, whose service
    folder's ``.lock`` is then a folder holding a file; the lock's path."""
    with sandbox.serve(n_icos=20, seed=1) as sb:
        for name, value in sb.settings().items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
        icoframes.reset_configuration()
        icoframes.load_icos(status="past", progress=False)
        (folder,) = [p for p in (tmp_path / "cache").iterdir()
                     if p.is_dir() and p.name != "quota"]
        lock = folder / ".lock"
        lock.unlink()
        lock.mkdir()
        (lock / "notes.txt").write_text("mine")
        yield lock
        icoframes.reset_configuration()


def _said(lock) -> str:
    return f"the lock file {lock} is a folder: move it out of the way (or remove it), then run"


def test_a_load_raises_a_cache_error_naming_the_folder(planted):
    with pytest.raises(CacheError, match="is a folder") as caught:
        icoframes.load_tables(status="past", progress=False)
    assert _said(planted) in str(caught.value)
    assert (planted / "notes.txt").read_text() == "mine"


def test_the_export_says_it_in_one_line_without_a_traceback(planted, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(tmp_path / "out"), "--status", "past"]) == EXIT_ERROR
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in errors] == [_said(planted) + " again"]
    assert all(r.exc_info is None for r in errors)


@pytest.mark.parametrize("command", [["cache", "clear"], ["cache", "prune", "--older-than", "0"]])
def test_cache_commands_leave_the_folder_alone_saying_why(planted, command, capsys):
    assert main(command) == EXIT_INCOMPLETE
    err = capsys.readouterr().err
    assert f"left alone {planted.parent}: {_said(planted)} again" in err.splitlines()
    assert (planted / "notes.txt").read_text() == "mine"
