"""A table file of an export that is no regular file (a FIFO, a symbolic link) is damage,
named, never opened.

Opening a FIFO for reading waits for a writer that never comes: an incomplete export of
that day (a cron job: a fresh cache, a budget) hung in the check that names the day's
damaged tables, and every run after it; :func:`icoframes.read_snapshots` hung too. Each
case runs in a child process, waited for with a bound: a hang fails the test (the child
is killed), never the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_GUARD

from icoframes import sandbox, staging
from icoframes.cli import EXIT_OK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[1]

_EXPORT = "import sys\nfrom icoframes.cli import main\nsys.exit(main(sys.argv[1:]))"

# each reader of a snapshot tree, and of one day, on the tree argv[1] and its day argv[2]:
# what it raised (or "read"), as JSON
_READERS = """
import json, sys
import icoframes
from icoframes.snapshots import snapshot_info
from icoframes.tables import Tables
tree, day, said = sys.argv[1], sys.argv[2], {}
for name, read in [("read_snapshots", lambda: icoframes.read_snapshots(tree)),
                   ("changes", lambda: icoframes.changes(tree)),
                   ("read_export", lambda: icoframes.read_export(day)),
                   ("read_parquet", lambda: Tables.read_parquet(day)),
                   ("snapshot_info", lambda: snapshot_info(tree))]:
    try:
        read()
        said[name] = "read"
    except Exception as exc:
        said[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(said))
"""


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


def _child(code: str, *args: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    """``code`` run with ``args`` in a child; TimeoutExpired (the child killed) when it has
    not ended after HANG_GUARD s: it hangs."""
    env = {k: v for k, v in (env or os.environ).items()}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD)


def _export(sb: sandbox.Sandbox, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update({f"ICOFRAMES_{k.upper()}": v for k, v in sb.settings().items()},
               ICOFRAMES_CACHE_DIR=str(cache))
    return _child(_EXPORT, "export", "--status", "past", *args, env=env)


def _plant(path: Path, kind: str, target: Path) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(target)


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_an_incomplete_export_names_a_fifo_table_of_the_day_and_writes_nothing(
        sb, tmp_path, snapshot):
    out = tmp_path / "out"
    args = ["--out", str(out), *(["--snapshot"] if snapshot else [])]
    first = _export(sb, tmp_path / "cache", *args)
    assert first.returncode == EXIT_OK, first.stderr
    day = next(out.iterdir()) if snapshot else out
    _plant(day / "team.parquet", "fifo", day)
    held = sorted(p.name for p in out.iterdir())
    for cache in ("fresh", "again"):  # lacks the day's rows: would keep them; never hangs
        again = _export(sb, tmp_path / cache, *args, "--budget", "2")
        assert again.returncode == EXIT_USAGE, again.stderr
        assert f"{day} is damaged (team.parquet (a FIFO) cannot be read: " in again.stderr
        assert "team.parquet is damaged (a FIFO, not a regular file)" in again.stderr
        assert "Nothing was written (what was fetched is cached)" in again.stderr
        assert sorted(p.name for p in out.iterdir()) == held  # no staging folder left
        assert not (day / "team.parquet").is_file() and (day / "team.parquet").exists()
    complete = _export(sb, tmp_path / "cache", *args)  # a complete export replaces it
    assert complete.returncode == EXIT_OK, complete.stderr
    assert (day / "team.parquet").is_file()
    assert not any(p.name.startswith(staging.STAGING_PREFIX) for p in out.iterdir())


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_readers_name_a_table_that_is_a_fifo_or_a_link_and_never_open_it(sb, tmp_path, kind):
    out = tmp_path / "tree"
    assert _export(sb, tmp_path / "cache", "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    elsewhere = tmp_path / "elsewhere.parquet"  # a real table: a link to it is not followed
    elsewhere.write_bytes((day / "icos.parquet").read_bytes())
    _plant(day / "icos.parquet", kind, elsewhere)
    said = json.loads(_child(_READERS, str(out), str(day)).stdout)
    what = "a FIFO, not a regular file" if kind == "fifo" else "a symbolic link: never followed"
    damaged = f"ExportMismatch: {day / 'icos.parquet'} is damaged ({what})"
    assert said == {"read_snapshots": damaged, "changes": damaged, "read_export": damaged,
                    "read_parquet": damaged, "snapshot_info": "read"}
    assert (day / "icos.parquet").is_symlink() == (kind == "link")
