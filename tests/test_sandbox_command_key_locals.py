"""``icoframes sandbox --private-key KEY`` (and ``python -m icoframes.sandbox``): when the
parser refuses another argument of that command line, or the command fails (a key refused,
the port in use), no frame of the exit's traceback holds the key in clear (argparse's held
the command line, the namespace the key: what a traceback with locals prints), and no
message shows it, nor a key given as ``--private-key-file``'s path by mistake.

The command line is read from ``sys.argv`` as the installed command reads it; the port in
use is a real listening socket of 127.0.0.1.
"""

from __future__ import annotations

import socket
import sys
import traceback

import pytest

from icoframes import cli
from icoframes.errors import ConfigError
from icoframes.sandbox import command

KEY = "kEy-0f-the-Command-8830"


def _held(exc: BaseException) -> list[str]:
    """The frames (the test's own left out) with a local whose repr shows the key, and those
    of every error chained to ``exc``."""
    held, todo, seen = [], [exc], set()
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)][1:]
        held += [f.f_code.co_name for f in frames if KEY in repr(f.f_locals)]
        todo += [error.__cause__, error.__context__]
    return held


@pytest.fixture
def busy_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


REFUSED_BY_THE_PARSER = [
    ["--private-key", KEY, "--port", "abc"], ["--private-key", KEY, "--n-icos", "-3"],
    ["--private-key", KEY, "--quota", "0"], ["--private-key", KEY, "--private-key", KEY],
    ["--private-key", KEY, "--private-key-file", "x"], ["--port", "x", f"--private-key={KEY}"]]


@pytest.mark.parametrize("argv", REFUSED_BY_THE_PARSER)
def test_no_frame_of_the_parsers_exit_holds_the_key(monkeypatch, capsys, argv):
    for prog, parser, line in (
            ("icoframes", cli.build_parser(), ["sandbox", *argv]),
            ("python -m icoframes.sandbox", command.add_arguments(command.Parser(prog="x")), argv)):
        monkeypatch.setattr(sys, "argv", [prog, *line])
        with pytest.raises(SystemExit) as exited:
            parser.parse_args()
        assert exited.value.code == 2
        assert _held(exited.value) == []
        assert KEY not in capsys.readouterr().err


def test_the_namespace_holds_the_key_as_a_secret(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", "--private-key", KEY])
    args = cli.build_parser().parse_args()
    assert KEY not in repr(args) and args.private_key.reveal() == KEY


@pytest.mark.parametrize("given", [["--private-key", KEY + "\x01"], ["--private-key", KEY]])
def test_no_frame_of_a_failed_command_holds_the_key(monkeypatch, caplog, busy_port, given):
    monkeypatch.delenv("ICOFRAMES_PRIVATE_KEY", raising=False)
    monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", *given, "--port", str(busy_port)])
    args = cli.build_parser().parse_args()
    with pytest.raises(ConfigError) as failed:  # a key refused, or the port in use
        command.run(args)
    assert KEY not in str(failed.value)
    assert _held(failed.value) == []
    assert cli.main(["sandbox", *given, "--port", str(busy_port)]) == 2
    assert "icoframes sandbox: " in caplog.text and KEY not in caplog.text


def test_a_key_given_as_the_key_files_path_is_not_shown(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for argv, said in (
            (["--private-key-file", KEY], "a text of 23 characters (not shown: it may be a key)"),
            (["--private-key-fil", KEY], "a text of 23 characters (not shown: it may be a key)"),
            (["--private-key-file", str(tmp_path / "none.key")], str(tmp_path / "none.key"))):
        monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", *argv])
        with pytest.raises(ConfigError) as failed:
            command.keys(cli.build_parser().parse_args())
        assert str(failed.value) == ("icoframes sandbox: cannot read --private-key-file: No such "
                                     f"file or directory: {said}")
