"""What a process keeps open of the cache dirs it used and of its connections to the service.

Counted in ``/proc/self/fd`` over the sandbox and real files: the SQLite connections stay
bounded however many cache dirs a process touches (a test suite touches hundreds), a cleared or
reset cache dir's files are let go (a removed one's disk space with them), running out of
descriptors is said as what it is, and a load's keep-alive sockets close with its client, not
at some later garbage collection.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.store.db import Database

pytestmark = [pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc"),
              pytest.mark.usefixtures("clean_settings")]

#: Descriptors a cache database holds (the file, its log and log index, one SQLite defers
#: closing); the ledger is one too. Up to 8 databases stay open (store.connections).
_BOUND = 4 * 8 + 8


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=3, quota=None) as server:
        yield server


def _targets() -> list[str]:
    """Where this process's descriptors point."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            found.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue  # the listing's own descriptor, closed since
    return found


def _under(folder: Path) -> list[str]:
    """The descriptors open on files under ``folder`` (removed ones too: "(deleted)")."""
    return [t for t in _targets() if t.startswith(str(folder) + os.sep)]


def test_a_process_touching_200_cache_dirs_keeps_a_bounded_number_of_files_open(sb, tmp_path):
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "first")
    icoframes.load_filters()
    before = len(_targets())
    for i in range(200):
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / f"cache{i}")
        assert len(icoframes.load_filters())
    after = len(_targets())
    # (7 more per cache dir before: 1,400 here, past the 1,024 select() takes)
    assert after - before <= _BOUND, (before, after, _under(tmp_path)[:10])
    assert len(_under(tmp_path)) <= _BOUND


def test_a_cleared_cache_dir_and_its_ledger_are_not_held_open(sb, tmp_path):
    cache = tmp_path / "cache"
    icoframes.configure(**sb.settings(), cache_dir=cache)
    assert len(icoframes.load_icos(status="past", progress=False))
    assert _under(cache)  # (the test sees what it looks for)
    icoframes.clear_cache(ledgers=True)
    assert _under(cache) == []
    shutil.rmtree(cache)
    assert _under(cache) == []  # (nor on removed files: "<path> (deleted)")


def test_reset_configuration_lets_go_of_the_cache_dirs_files(sb, tmp_path):
    cache = tmp_path / "cache"
    icoframes.configure(**sb.settings(), cache_dir=cache)
    assert len(icoframes.load_icos(status="past", progress=False))
    icoframes.reset_configuration()
    shutil.rmtree(cache)  # what a test's tmp_path or a TemporaryDirectory does next
    assert _under(cache) == []


def test_a_connection_in_use_is_not_closed_by_others_opening(tmp_path):
    schema = "CREATE TABLE IF NOT EXISTS t(v);"
    used = Database.at(tmp_path / "f0" / "x.sqlite3", schema)
    with used.write() as conn:  # open while more than the bound of others open and close
        conn.execute("INSERT INTO t VALUES (1)")
        for i in range(1, 20):
            assert Database.at(tmp_path / f"f{i}" / "x.sqlite3", schema).rows(
                "SELECT count(*) FROM t", write=True) == [(0,)]
        conn.execute("INSERT INTO t VALUES (2)")
    assert used.rows("SELECT v FROM t ORDER BY v") == [(1,), (2,)]
    assert len(_under(tmp_path)) <= _BOUND


_OUT_OF_FILES = """
import json, os, resource, sys
import icoframes
from icoframes.store.db import Database
settings, root = json.loads(sys.argv[1]), sys.argv[2]
icoframes.configure(**settings, cache_dir=os.path.join(root, "warm"))
icoframes.load_filters()  # (the modules imported, the client's pools made)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
held = []
try:
    while True:  # every descriptor this process may have is taken
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
said = []
icoframes.configure(**settings, cache_dir=os.path.join(root, "cold"))
for attempt in (lambda: icoframes.load_icos(status="past", progress=False),
                lambda: Database.at(os.path.join(root, "db", "d.sqlite3"), "").rows(
                    "SELECT 1", write=True)):
    try:
        attempt()
        said.append("no error")
    except Exception as exc:
        said.append(f"{type(exc).__name__}: {exc}")
for fd in held:
    os.close(fd)
print(json.dumps(said))
"""


def test_running_out_of_file_descriptors_is_a_cache_error_that_says_what_to_do(sb, tmp_path):
    settings = {k: str(v) for k, v in sb.settings().items()}
    env = {**os.environ, "PYTHONPATH": str(Path(icoframes.__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_OUT_OF_FILES),
                           json.dumps(settings), str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.splitlines()[-1])
    assert len(said) == 2
    for text in said:  # (not "not writable", "use offline=True", nor a raw OSError)
        assert text.startswith("CacheError: "), said
        assert "this process has too many files open" in text, said
        assert "ulimit -n" in text, said


def _sockets_to(port: int) -> int:
    """This process's established TCP connections to ``port`` (the client's ends)."""
    inodes = {t[len("socket:["):-1] for t in _targets() if t.startswith("socket:[")}
    found = 0
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if (int(fields[2].rsplit(":", 1)[1], 16) == port and fields[3] == "01"
                        and fields[9] in inodes):
                    found += 1
    return found


def test_a_loads_sockets_close_with_its_client_without_a_garbage_collection(sb, tmp_path):
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    gc.collect()
    gc.disable()  # a kernel's big heap makes the full collection that freed them rare
    try:
        for _ in range(20):
            icoframes.clear_cache()
            assert len(icoframes.load_icos(status="past", progress=False))
            assert _sockets_to(sb.port) == 0
    finally:
        gc.enable()
