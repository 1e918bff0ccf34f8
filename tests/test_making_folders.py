"""A folder of the cache dir is made under a temporary name (``.making-*``), then renamed.

- A folder whose name is near the longest a name may be (a base_url with a long path, as
  behind a reverse proxy's prefix) failed on its temporary name, 17 characters longer
  (``File name too long``): the temporary name shows only the start of the folder's.
- A user's file, link or FIFO named ``.making-*`` at the cache dir's top was hidden from
  ``cache_info(all=True).other`` and from what a prune says it left alone: only a folder
  is one being made. An old one named ``.making-draft.tmp`` or ``.making-notes.corrupt``
  was removed by a prune as a temporary or set-aside file: it stays, and is said left alone.
- A folder that could not be made (a read-only cache dir without ``quota/``) raised an
  error naming its temporary name (``.../.making-quota-leevyjl7``), a path the user never
  finds: it names the folder.
- A load stopped (Ctrl-Z) between making its temporary folder and renaming it, for longer
  than a leftover's grace, lost that folder to a prune and then failed with a raw
  ``FileNotFoundError``: it makes the folder again. Here a real load in another process is
  held at that rename (its ``os.rename`` waits for a line on stdin), its folder is dated
  long ago, and a real ``icoframes cache prune`` removes it. Only the service folder is held,
  never ``quota/`` (made beside it in a thread; a load survives losing it).

Everything runs against real files in a temporary cache dir, and the sandbox on loopback.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest
from test_cache_commands_alike import LONG_AGO, _command, _environment
from test_housekeeping import _read_only
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.store.folders import MAKING, checked_folders

pytestmark = pytest.mark.usefixtures("clean_settings")

#: a service folder's name for a base_url with a path of 230 characters (NAME_MAX is 255)
LONG_NAME = "127.0.0.1_35075_" + "p" * 230


def test_a_folder_named_near_the_longest_a_name_may_be_is_made(tmp_path):
    root = tmp_path / "cache"
    database = root / LONG_NAME / "cache.sqlite3"
    assert checked_folders(root, database, write=True)
    assert database.is_file()
    assert [p.name for p in root.iterdir()] == [LONG_NAME]  # no MAKING folder left


def test_a_users_file_or_link_named_as_a_folder_being_made_is_named_never_hidden(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    notes, link, fifo = (root / f"{MAKING}{name}" for name in ("notes.txt", "link", "fifo"))
    notes.write_text("mine")
    link.symlink_to(tmp_path)
    os.mkfifo(fifo)
    making = root / f"{MAKING}sandbox-1-20-0123abcd-x1"  # a load's, making it now: not named
    making.mkdir(mode=0o700)
    theirs = sorted(map(str, (notes, link, fifo)))
    assert sorted(icoframes.cache_info(cache_dir=root, all=True).other) == theirs
    report = icoframes.prune_cache(0, cache_dir=root)
    assert report.removed == []
    assert sorted(skip["path"] for skip in report.skipped) == theirs  # said, as every other entry
    assert notes.read_text() == "mine" and link.is_symlink() and making.is_dir()


def test_a_users_old_temporary_or_set_aside_file_named_as_a_folder_being_made_stays(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    draft, notes = root / f"{MAKING}draft.tmp", root / f"{MAKING}notes.corrupt"
    left = root / f"{MAKING}sandbox-1-20-0123abcd-x1"  # a load's, cut long ago: a leftover
    left.mkdir(mode=0o700)
    for path in (draft, notes):
        path.write_text("mine")
    for path in (draft, notes, left):
        os.utime(path, (LONG_AGO, LONG_AGO))
    report = icoframes.prune_cache("1h", cache_dir=root)
    assert report.removed == [str(left)]  # only the folder is a leftover
    assert sorted(skip["path"] for skip in report.skipped) == [str(draft), str(notes)]
    assert draft.read_text() == notes.read_text() == "mine"  # left alone


def test_a_folder_that_cannot_be_made_is_named_in_the_error_not_its_temporary_name(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    with _read_only(root), pytest.raises(OSError) as raised:
        checked_folders(root, root / "quota" / "ledger.sqlite3", write=True)
    assert raised.value.filename == str(root / "quota"), raised.value
    assert MAKING not in str(raised.value)
    assert raised.value.errno in (errno.EROFS, errno.EACCES)  # the OS's reason, kept
    assert list(root.iterdir()) == []


_HELD_AT_RENAME = """
import os, sys
import icoframes
real, held = os.rename, []

def rename(source, *args, **kwargs):
    name = os.path.basename(source)
    # quota/ is made in a thread beside the service folder, and a load survives losing it
    # (the ledger is opened again at the first booking): only the service folder is held
    if name.startswith(".making-") and not name.startswith(".making-quota-") and not held:
        held.append(True)
        print(source, flush=True)
        sys.stdin.readline()  # until the parent has pruned
    return real(source, *args, **kwargs)

os.rename = rename
print(len(icoframes.load_icos(status="past", progress=False)))
"""


def test_a_load_whose_folder_being_made_was_pruned_meanwhile_makes_it_again(tmp_path):
    root = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=5) as sb:
        env = _environment(**sb.settings(), cache_dir=root)
        load = subprocess.Popen([sys.executable, "-c", _HELD_AT_RENAME], env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            assert load.stdout is not None and load.stdin is not None
            making = load.stdout.readline().strip()
            assert os.path.basename(making).startswith(MAKING), load.communicate()[1]
            os.utime(making, (LONG_AGO, LONG_AGO))  # as if stopped for years
            pruned = _command("cache", "prune", "--older-than", "1", env=env)
            load.stdin.write("go\n")
            load.stdin.flush()
            out, err = load.communicate(timeout=HANG_GUARD)
        finally:
            load.kill()
            load.communicate()
    assert pruned.returncode == 0, pruned.stderr
    assert f"removed {making}" in pruned.stdout  # the load's folder went as a leftover
    assert load.returncode == 0, err
    assert int(out) > 0
    assert not [p for p in root.iterdir() if p.name.startswith(MAKING)]
