"""Every cache command says things the same way, and refuses the same cache dirs.

- ``icoframes cache info`` showed the warning about a 0.1 ledger it could not read as
  Python's raw warning line (``<frozen runpy>:88: CacheWarning: ...``); the command's other
  warnings are log lines (``WARNING icoframes: ... (CacheWarning)``), in its own words.
- ``cache clear`` and ``cache prune`` (and ``clear_cache``, ``prune_cache``,
  ``cache_info(all=True)``) worked in a cache dir that ``cache info`` and every load refuse
  as one others may write to: whoever can write there can replace its lock files. They
  refuse it now, with the same message and remedy (exit 2).
- A prune while a load had made its service folder but not yet written to it skipped the
  folder as "not a cache folder" (exit 5): a folder is now made under a temporary name with
  its database file in it and then renamed, so it never shows empty. Here a real load in
  another process is held at the moment it opens its new database (its ``sqlite3.connect``
  waits for a line on stdin: nothing it reads or writes is faked), and a real
  ``icoframes cache prune`` runs then.

Everything runs against real files, real processes and the sandbox on loopback.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from test_cli_cache import cached  # noqa: F401  (the fixture)
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning, ConfigError

pytestmark = pytest.mark.usefixtures("clean_settings")

#: how a folder being made is named until it holds its database (store.folders.MAKING)
MAKING = ".making-"
TORN = "fedcba9876543210"  # a 0.1 ledger's name (16 hex digits), its JSON cut short
#: 2000-01-01 UTC: older than any age a prune is given here
LONG_AGO = 946684800


def _command(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "icoframes", *args], capture_output=True,
                          text=True, env=env, timeout=HANG_GUARD)


def _environment(**settings: object) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    return env | {f"ICOFRAMES_{k.upper()}": str(v) for k, v in settings.items()}


# -- 1. a warning of a cache command is a log line ------------------------------------------


def _torn_ledger(root: Path) -> Path:
    (root / "quota").mkdir(mode=0o700, parents=True)
    root.chmod(0o700)
    torn = root / "quota" / f"{TORN}.json"
    torn.write_text('{"day": "2026-11-28", "used": 49')
    return torn


def test_cache_info_says_a_torn_ledger_in_a_log_line_as_every_warning_of_the_command(
        tmp_path):
    root = tmp_path / "cache"
    torn = _torn_ledger(root)
    env = _environment(base_url="http://127.0.0.1:9", public_key="pk", private_key="sk")
    done = _command("cache", "info", "--cache-dir", str(root), env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines  # one line, not Python's "file:line: Category: ..."
    assert " WARNING icoframes: icoframes request ledger " in lines[0]
    assert lines[0].endswith("(CacheWarning)")
    assert "CacheWarning:" not in done.stderr and "runpy" not in done.stderr
    # in the command's words: it has a variable, not the keyword daily_quota
    assert "lower ICOFRAMES_DAILY_QUOTA for today" in lines[0]
    assert str(torn) in lines[0] and (root / "quota" / f"{TORN}.json.unread").exists()


def test_the_python_api_still_warns_with_its_class_at_the_callers_line(tmp_path):
    root = tmp_path / "cache"
    _torn_ledger(root)
    icoframes.configure(base_url="http://127.0.0.1:9", public_key="pk", private_key="sk")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        icoframes.cache_info(cache_dir=root)
    (said,) = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert said.filename == __file__  # this line, not one inside the package
    assert "lower daily_quota for today" in str(said.message)


# -- 3. a cache dir others may write to: refused by every cache command alike ---------------


def test_every_cache_command_refuses_a_cache_dir_others_may_write_to(cached, tmp_path):  # noqa: F811
    root = cached.parent
    root.chmod(0o2775)  # group-writable, as `chmod g+w` after a `chmod g+s`
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    refused = (f"the cache dir {root} is refused: others may write to it (mode 2775): they "
               f"could plant data you would load; `chmod go-w {root}` if it is yours alone. "
               "Set ICOFRAMES_CACHE_DIR or ")
    for args in (["info"], ["clear"], ["prune", "--older-than", "0"]):
        done = _command("cache", *args)
        assert (done.returncode, done.stdout) == (2, ""), (args, done.stderr)
        assert f"ERROR icoframes.cli: {refused}--cache-dir to a folder of your own." in \
            done.stderr, (args, done.stderr)
    calls = {"cache_info()": lambda: icoframes.cache_info(),
             "cache_info(all=True)": lambda: icoframes.cache_info(all=True),
             "clear_cache()": lambda: icoframes.clear_cache(),
             "clear_cache(all=True)": lambda: icoframes.clear_cache(all=True),
             "prune_cache(0)": lambda: icoframes.prune_cache(0)}
    for name, call in calls.items():
        with pytest.raises(CacheError) as caught:
            call()
        assert isinstance(caught.value, ConfigError), name  # a setting to fix, as a load's
        assert str(caught.value).startswith(refused + "icoframes.configure("), name
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # nothing removed
    root.chmod(0o700)  # the remedy it names
    done = _command("cache", "clear")
    assert done.returncode == 0 and done.stdout.splitlines()[0] == f"removed {cached}"


def test_a_sweep_leaves_a_service_folder_others_may_write_to_alone_and_says_why(
        cached, capsys):  # noqa: F811
    cached.chmod(0o770)
    why = (f"the cache folder {cached} is refused: others may write to it (mode 770): they "
           f"could plant data you would load; `chmod go-w {cached}` if it is yours alone")
    with pytest.raises(CacheError, match="mode 770"):
        icoframes.clear_cache()  # the configured service's: refused as cache_info() is
    with pytest.raises(CacheError, match="mode 770"):
        icoframes.cache_info()
    report = icoframes.clear_cache(all=True)  # every folder: this one left alone, said
    assert report.removed == [] and report.skipped == [{"path": str(cached), "reason": why}]
    done = _command("cache", "prune", "--older-than", "0")
    assert done.returncode == 5, done.stderr
    assert f"left alone {cached}: {why}" in done.stderr
    assert (cached / "cache.sqlite3").exists()


# -- 2. a service folder being made by a load is never "not a cache folder" ----------------

_HELD_LOAD = """
import sqlite3, sys
import icoframes
real, held = sqlite3.connect, []

def connect(database, *args, **kwargs):
    if "/cache.sqlite3?nofollow=1" in str(database) and not held:  # the service's, new
        held.append(True)
        print("opening", flush=True)
        sys.stdin.readline()  # until the parent has pruned
    return real(database, *args, **kwargs)

sqlite3.connect = connect
print(len(icoframes.load_icos(status="past", progress=False)))
"""


def test_a_prune_while_a_load_makes_its_service_folder_leaves_it_be(tmp_path):
    root = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=4) as sb:
        env = _environment(**sb.settings(), cache_dir=root)
        load = subprocess.Popen([sys.executable, "-c", _HELD_LOAD], env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            assert load.stdout is not None and load.stdin is not None
            assert load.stdout.readline() == "opening\n", load.communicate()[1]
            # quota/ is made beside it, in a thread: under its temporary name maybe
            (folder,) = [p for p in root.iterdir()
                         if p.name != "quota" and not p.name.startswith(f"{MAKING}quota-")]
            pruned = _command("cache", "prune", "--older-than", "1", env=env)
            load.stdin.write("go\n")
            load.stdin.flush()
            out, err = load.communicate(timeout=HANG_GUARD)
        finally:
            load.kill()
            load.communicate()
    # the folder was the load's: kept (used now), not "left alone: not a cache folder"
    assert (pruned.returncode, pruned.stderr) == (0, ""), pruned.stderr
    assert pruned.stdout == "cache pruned: nothing was unused that long\n"
    assert load.returncode == 0, err
    assert int(out) > 0
    assert (folder / "cache.sqlite3").is_file()
    assert not [p for p in root.iterdir() if p.name.startswith(MAKING)]  # none left behind


def test_a_folder_a_cut_load_was_making_is_pruned_once_old_and_never_called_not_ours(
        tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    old, young = root / f"{MAKING}sandbox-1-20-0123abcd-x1", root / f"{MAKING}127.0.0.1_9-x2"
    for made in (old, young):
        made.mkdir(mode=0o700)
        (made / "cache.sqlite3").write_bytes(b"")
    os.utime(old, (LONG_AGO, LONG_AGO))
    assert icoframes.cache_info(cache_dir=root, all=True).other == []
    report = icoframes.prune_cache(0, cache_dir=root)
    assert report.skipped == []  # (it was "not a cache folder", exit 5)
    assert report.removed == [str(old)]
    assert young.is_dir() and not old.exists()  # a load may be making it now
    assert stat.S_ISDIR(young.lstat().st_mode)
    from icoframes.store.folders import MAKING as made_so

    assert made_so == MAKING
