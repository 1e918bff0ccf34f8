"""The `icoframes` command: options made from the declarations, sandbox, demo, cache.

Commands run in-process through :func:`icoframes.cli.main`; a subprocess is used
only where the real entry points or a signal are what is tested.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from pressed_twice import press_ctrl_c_again
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.api.client import Client
from icoframes.api.params import PARAMS, STATUSES
from icoframes.cli import EXIT_CODES, build_parser, main
from icoframes.config import SETTINGS
from icoframes.schema import TABLE_NAMES

SCRIPT = Path(sys.executable).parent / "icoframes"
ROOT = Path(icoframes.__file__).resolve().parents[1]  # the tree under test, not an installed copy


pytestmark = pytest.mark.usefixtures("clean_settings")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]), **extra)
    return env


def test_console_script_and_module_both_work():
    # the one test of the real entry points: everything else calls main() in-process
    for command in ([str(SCRIPT), "--version"], [sys.executable, "-m", "icoframes", "--version"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD,
                                env=_env())
        assert result.returncode == 0, result.stderr
        assert result.stdout == f"icoframes {icoframes.__version__}\n"


def test_version_and_help(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"icoframes {icoframes.__version__}\n"
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for sub in ("export", "sandbox", "demo", "cache", "--version"):
        assert sub in out
    for setting in SETTINGS:  # the epilog names every environment variable
        assert setting.env in out.replace("\n", " ")


def test_export_filter_options_are_made_from_the_params_declaration(capsys):
    assert main(["export", "--help"]) == 0
    out = capsys.readouterr().out
    epilog = " ".join(out[out.index("exit codes:"):].split())
    for code, meaning in EXIT_CODES.items():  # every code the command can exit with
        assert f"{code} {' '.join(meaning.split())}" in epilog
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 4, 5, 130, 143]
    assert "--allow-empty" in out and "--allow-incomplete" in out
    # the README's table has a row for every code, and no other
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ", readme, flags=re.MULTILINE)
    assert sorted(map(int, rows)) == sorted(EXIT_CODES)
    for param in PARAMS:
        flag = "--" + param.name.replace("_", "-")
        assert (f"{flag} " in out or f"{flag}\n" in out) is param.filter, flag
    assert f"--status {{{','.join(STATUSES)}}}" in out
    export = build_parser()._subparsers._group_actions[0].choices["export"]
    status = next(a for a in export._actions if a.dest == "status")
    assert tuple(status.choices) == STATUSES


def test_filter_options_become_loader_filters():
    from icoframes.cli import _filters_from

    args = build_parser().parse_args(
        ["export", "--out", "x", "--status", "Past", "--platform", "3", "--platform", "Ethereum",
         "--bounty-program", "--ico-score", "7", "--exclude-areas", "USA"])
    assert _filters_from(args) == {"status": "past", "platform": [3, "Ethereum"],
                                   "bounty_program": True, "ico_score": 7,
                                   "exclude_areas": ["USA"]}


def test_bad_usage_exits_2_with_the_reason(capsys):
    assert main(["export", "--out", "x", "--status", "finished"]) == 2
    err = capsys.readouterr().err
    assert "argument --status: invalid choice: 'finished'" in err
    assert main(["export"]) == 2
    assert "the following arguments are required: --out" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


@contextlib.contextmanager
def _sandbox_command(n_icos: int) -> Iterator[tuple[subprocess.Popen, str]]:
    """``icoframes sandbox`` serving ``n_icos`` ICOs (keys K and S3cret, no quota), once it
    answers a list page of them: the process and the first line it wrote. Killed on the
    way out if it still runs."""
    proc = subprocess.Popen(
        [str(SCRIPT), "sandbox", "--port", "0", "--n-icos", str(n_icos), "--public-key", "K",
         "--private-key", "S3cret", "--quota", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        first = proc.stdout.readline()
        base_url = first.rsplit(" ", 1)[-1].strip()
        with Client(base_url=base_url, public_key="K", private_key="S3cret") as client:
            assert int(client.list_page()["total_icos"]) == n_icos  # serving: main waits now
        yield proc, first
    finally:
        proc.kill()
        proc.wait()


def test_sandbox_command_serves_until_interrupted():
    with _sandbox_command(50) as (proc, first):
        assert "serving 50 ICOs at http://127.0.0.1:" in first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 0
    assert "S3cret" not in first + out + err


def _signal_thread(pid: int, tid: int, sig: int) -> None:
    """Send ``sig`` to the thread ``tid`` of process ``pid`` (Linux: tgkill)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "tgkill") or libc.tgkill(pid, tid, sig) != 0:
        pytest.skip("cannot signal one thread of another process here")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc/<pid>/task")
def test_the_sandbox_command_stops_on_a_sigint_another_thread_gets():
    # A signal for the process may go to any of its threads (and one landing just as the
    # main thread blocks is seen late): Python runs the handler in the main thread when it
    # next runs, which a sleep of an hour put off by an hour
    with _sandbox_command(20) as (proc, _):
        started = {}  # thread id: when it started (ticks since boot; ids may wrap around)
        for tid in os.listdir(f"/proc/{proc.pid}/task"):
            if int(tid) != proc.pid:
                with contextlib.suppress(OSError):  # a connection's thread ended meanwhile
                    stat = Path(f"/proc/{proc.pid}/task/{tid}/stat").read_text()
                    started[int(tid)] = int(stat.rsplit(")", 1)[1].split()[19])
        assert started, "the sandbox runs its server in a thread"
        # the first one started: its accepting thread, which lives as long as the sandbox (a
        # connection's thread may be ending, and a signal pending for an ended thread is lost)
        _signal_thread(proc.pid, min(started, key=started.__getitem__), signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_GUARD)  # a hang guard, not a measure
    assert proc.returncode == 0 and "sandbox stopped" in err, err


# the second signal, a Ctrl-C once the export says it is finishing, cuts what is in flight:
# its exit code (130); what the first one was is said
@pytest.mark.parametrize(("sig", "said"), [(signal.SIGTERM, "terminated (SIGTERM): finishing"),
                                           (signal.SIGINT, "interrupted (SIGINT): finishing")])
def test_a_signal_stops_an_export_stuck_on_the_service_promptly(tmp_path, sig, said):
    with sandbox.serve(n_icos=60, seed=4) as sb:
        settings = {f"ICOFRAMES_{k.upper()}": v for k, v in sb.settings().items()}
        sb.pause()  # every request is held until resume(): the load is stuck on the service
        try:
            # a request timeout far beyond the hang guard: only the signal can end the export
            proc = subprocess.Popen(
                [sys.executable, "-m", "icoframes", "export", "--out", str(tmp_path / "out")],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=_env(**settings, ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"),
                         ICOFRAMES_TIMEOUT="3600"))
            assert sb.stats.wait_for(lambda s: s.in_flight > 0, timeout=HANG_GUARD)
            proc.send_signal(sig)
            head = press_ctrl_c_again(proc)
            _, err = proc.communicate(timeout=HANG_GUARD)  # a hang guard, not a measure
            err = head + err
            # the export ended while the service still held its requests: the signals did it
            still_held = sb.stats.in_flight
        finally:
            sb.resume()
    assert proc.returncode == 130, err
    assert still_held > 0
    assert said in err and "everything fetched so far is cached" in err
    assert not (tmp_path / "out" / "icos.parquet").exists()


# one day whenever it runs: the demo's second export, crossing midnight UTC, re-paged the
# day's lists (a plain export uses lists cached that UTC day only): "9 requests", not 0
@time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC), tick=True)
def test_demo_writes_tables_manifest_and_plots(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--n-icos", "150"]) == 0
    assert "export again from the cache: 0 requests" in capsys.readouterr().out
    for name in TABLE_NAMES:
        assert (out / f"{name}.parquet").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"]["icos"] == 150
    assert len(pd.read_parquet(out / "icos.parquet")) == 150
    for png in ("scores", "raised", "timeline"):
        data = (out / f"{png}.png").read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000


def test_cache_info_and_clear_commands(tmp_path, monkeypatch, capsys):
    for name, value in (("BASE_URL", "http://127.0.0.1:9"), ("PUBLIC_KEY", "p"),
                        ("PRIVATE_KEY", "s"), ("CACHE_DIR", str(tmp_path))):
        monkeypatch.setenv(f"ICOFRAMES_{name}", value)
    assert main(["cache", "info"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["path"].startswith(str(tmp_path)) and parsed["profiles"] == 0
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == "cache cleared: nothing was cached\n"


def test_the_cost_line_says_one_request_as_one():
    """The log's cost line counts as every message does (quoting.counted): "1 request", not
    "1 requests"; thousands grouped."""
    from icoframes.cli import _spent
    from icoframes.reporting import LoadReport

    def spent(requests: dict[str, int]) -> str:
        return _spent(LoadReport.from_dict({"queries": [{"params": {"status": "past"},
                                                          "complete": True, "rows": 3}],
                                            "complete": True, "missing": [],
                                            "requests": requests}))

    assert spent({"icos": 1, "ico": 0}) == "1 request spent (icos 1)"
    assert spent({"icos": 12, "ico": 4988}) == "5,000 requests spent (icos 12, ico 4988)"
