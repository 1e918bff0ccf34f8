"""`icoframes sandbox` and `icoframes demo` refuse a setting to fix (a port in use, a key
file missing or empty, a key variable set empty, a demo --out naming a file) in one
line and exit 2, as `export` and their own bad arguments do; anything else is logged naming
the command that failed, not "export failed".

Run through the real entry points (console script and ``python -m icoframes.sandbox``):
the exit code and the whole of stderr are what is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.sandbox import command as command_line

SCRIPT = Path(sys.executable).parent / "icoframes"
ROOT = Path(icoframes.__file__).resolve().parents[1]  # the tree under test


def _run(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    clean.update(PYTHONPATH=os.pathsep.join([str(ROOT), clean.get("PYTHONPATH", "")]), **env)
    command = [sys.executable, "-m", "icoframes.sandbox", *argv[1:]] if argv[0] == "-m" \
        else [str(SCRIPT), *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD,
                          env=clean)


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "export failed" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("command", ["sandbox", "-m"])
def test_a_port_in_use_is_one_line_and_exit_2(command):
    with sandbox.start(n_icos=0) as busy:  # a real server holds the port
        port = busy.base_url.rsplit(":", 1)[1].strip("/")
        line = _one_line(_run(command, "--port", port, "--n-icos", "1"))
    assert line.endswith(f"icoframes sandbox: port {port} of 127.0.0.1 is in use: choose "
                         "another with --port, or --port 0 for a free one")


def test_a_port_in_use_is_refused_before_the_directory_is_made(monkeypatch, capsys):
    # a big directory takes seconds to make (300,000 ICOs: 10 s): the port is checked first
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the directory was made before the port was checked")

    with sandbox.start(n_icos=0) as busy:  # a real server holds the port
        port = busy.base_url.rsplit(":", 1)[1].strip("/")
        monkeypatch.setattr("icoframes.sandbox.server.generate_directory", never)
        code = command_line.main(["--port", port, "--n-icos", "300000"])
    assert code == 2
    assert capsys.readouterr().err.strip().endswith(f"port {port} of 127.0.0.1 is in use: "
                                                    "choose another with --port, or --port 0 "
                                                    "for a free one")


@pytest.mark.parametrize("under", [False, True])
def test_a_demo_out_naming_a_file_is_refused_as_exports_is(tmp_path, under):
    # it said "the demo folder ... cannot be made (File exists)" (or "Not a directory"), where
    # export --out names the file
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker / "demo" if under else blocker
    line = _one_line(_run("demo", "--out", str(out), "--n-icos", "1"))
    why = f"{blocker} on its way is a file" if under else "it is a file"
    assert f"out={out} names no folder: {why}" in line and "File exists" not in line
    assert line.endswith("give out (--out) a folder, made if missing")
    assert line.split(": ", 1)[1] == _one_line(_run("export", "--out", str(out))).split(": ", 1)[1]
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("command", ["sandbox", "-m"])
def test_the_sandbox_key_refusals_exit_2(tmp_path, command):
    empty = tmp_path / "empty.key"
    empty.write_text("\n")
    missing = tmp_path / "none.key"
    assert "icoframes sandbox: cannot read --private-key-file: " in _one_line(
        _run(command, "--private-key-file", str(missing)))
    assert _one_line(_run(command, "--private-key-file", str(empty))).endswith(
        f"icoframes sandbox: {empty} is empty")
    assert "icoframes sandbox: ICOFRAMES_PRIVATE_KEY is set but empty: refused" in _one_line(
        _run(command, ICOFRAMES_PRIVATE_KEY=""))
    assert "--port: " in _run(command, "--port", "99999").stderr  # as the parser's: exit 2


def test_anything_else_is_logged_naming_the_command_that_failed(tmp_path):
    out = tmp_path / "demo"
    (out / "scores.png").mkdir(parents=True)  # the plot cannot be saved there
    result = _run("demo", "--out", str(out), "--n-icos", "1")
    assert result.returncode == 1
    assert "ERROR icoframes.cli: demo failed\nTraceback" in result.stderr
    assert "IsADirectoryError" in result.stderr and "export failed" not in result.stderr
