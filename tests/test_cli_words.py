"""What ``icoframes`` says in its help and its errors is about the command, not about Python."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest

from icoframes import sandbox
from icoframes.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


def _cli(args, capsys, caplog) -> tuple[int, str]:
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(args)
    return code, capsys.readouterr().err + caplog.text


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {"icoframes": parser, **sub.choices}


def test_the_cache_command_is_described_by_its_actions(capsys):
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    cache_line = listed[listed.index("    cache "):].split("\n\n")[0]
    assert "info" in cache_line and "clear" in cache_line and "show" not in cache_line
    assert main(["cache", "--help"]) == 0
    said = capsys.readouterr().out
    assert all(word in said for word in ("info prints", "JSON", "size", "requests")), said


def test_every_option_of_every_command_says_what_it_is():
    bare = [f"{name} {action.option_strings[-1]}" for name, command in _commands().items()
            for action in command._actions
            if action.option_strings and not action.help]
    assert bare == []
    # a default the option does not say is shown by the help
    for name, option in [("demo", "--n-icos"), ("demo", "--seed"), ("demo", "--out"),
                         ("sandbox", "--n-icos"), ("sandbox", "--seed"), ("sandbox", "--port")]:
        (action,) = [a for a in _commands()[name]._actions if option in a.option_strings]
        assert "default" in action.help, (name, option)
