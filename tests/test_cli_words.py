"""What ``icoframes`` says in its help and its errors is about the command, not about Python."""

from __future__ import annotations

import argparse
import ast
import logging
import os
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cli import build_parser, main
from icoframes.clitext import CLI_ADVICE, for_the_command

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
                         ("sandbox", "--n-icos"), ("sandbox", "--seed"), ("sandbox", "--port"),
                         ("sandbox", "--fail-rate"), ("sandbox", "--grow-every")]:
        (action,) = [a for a in _commands()[name]._actions if option in a.option_strings]
        assert "default" in action.help, (name, option)


def test_a_mistyped_option_says_why_its_value_is_not_shown(tmp_path, capsys, caplog):
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--stauts", "past"], capsys,
                     caplog)
    assert code == 2 and "past" not in err.split("error:")[-1]
    assert ("unrecognized arguments: --stauts (and 1 value not shown: a value may be a key); "
            "did you mean '--status'?") in err


def test_a_quota_stop_under_the_command_gives_the_command_s_advice(sb, tmp_path, capsys,
                                                                    caplog, one_ledger_day):
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=1)
    try:
        with warnings.catch_warnings():  # as a shell runs it: warnings are log lines
            warnings.simplefilter("always")
            code, err = _cli(["export", "--out", str(tmp_path / "o"), "--status", "past"],
                             capsys, caplog)
        assert code == 5, err
        assert "QuotaWarning" in err and "IncompleteWarning" in err  # logged, reworded too
        assert "offline=True" not in err and "loader" not in err and "attrs[" not in err
        assert "a run without --refresh does not ask for it again" in err  # true of that run
        assert "run the same command again" in err and "ICOFRAMES_DAILY_QUOTA" in err
        # only while the command runs: Python's advice stays Python's
        with pytest.raises(icoframes.QuotaExceeded, match="offline=True"):
            icoframes.load_icos(status="ongoing", progress=False)
    finally:
        icoframes.reset_configuration()
    assert not logging.getLogger("icoframes.cli").filters
    assert not logging.getLogger("icoframes").filters


def test_a_cache_dir_refused_under_the_command_names_cache_dir(sb, tmp_path, capsys, caplog):
    (tmp_path / "a-file").write_text("")
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "a-file")
    try:
        code, err = _cli(["export", "--out", str(tmp_path / "o")], capsys, caplog)
    finally:
        icoframes.reset_configuration()
    assert code == 2, err
    assert "Set ICOFRAMES_CACHE_DIR or --cache-dir to a folder of your own" in err
    assert "configure(" not in err


def test_missing_keys_under_the_command_point_to_the_sandbox_command(tmp_path, capsys, caplog,
                                                                      clean_settings):
    code, err = _cli(["export", "--out", str(tmp_path / "o")], capsys, caplog)
    assert code == 2
    assert "icoframes sandbox --port 8000" in err and "configure(" not in err


def test_the_demo_shows_no_other_library_s_info_lines(tmp_path):
    # a fresh matplotlib config dir: its first import builds the font cache and logs it at INFO
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
               MPLCONFIGDIR=str(tmp_path / "mpl"), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-m", "icoframes", "demo", "--n-icos", "5", "--out",
         str(tmp_path / "demo")], capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "mpl").glob("fontlist*.json"))  # the font cache was built
    assert "INFO matplotlib" not in done.stderr and "wrote" in done.stdout


def test_another_thread_s_line_keeps_python_s_words_while_the_command_runs(tmp_path, capsys,
                                                                           caplog, monkeypatch):
    """Only the command's own lines are reworded: a Python user's thread logging while the
    command logs (here: while its first line is being logged) keeps its advice."""
    for name in [k for k in os.environ if k.startswith("ICOFRAMES_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))

    def python_user() -> None:
        logging.getLogger("icoframes").warning("Python user: call the same loader again")

    def meanwhile(record: logging.LogRecord) -> bool:  # a filter that drops none
        if record.name == "icoframes.cli" and not started:
            started.append(threading.Thread(target=python_user))
            started[0].start()
            started[0].join()
        return True

    started: list[threading.Thread] = []
    cli_log = logging.getLogger("icoframes.cli")
    cli_log.addFilter(meanwhile)
    try:
        code, err = _cli(["export", "--out", str(tmp_path / "o")], capsys, caplog)
    finally:
        cli_log.removeFilter(meanwhile)
    assert code == 2 and started, err  # the missing keys, said in the command's words
    assert "icoframes sandbox --port 8000` in another shell" in err
    (theirs,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Python")]
    assert theirs == "Python user: call the same loader again"


def _literals(path: Path) -> list[str]:
    """The string literals of a module; an f-string's with each field as ``{}``."""
    said = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            said.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            said.append("".join(part.value if isinstance(part, ast.Constant) else "{}"
                                for part in node.values))
    return said


def test_every_rewording_of_the_command_matches_a_sentence_of_the_library():
    """A library sentence reworded would silently bring Python's advice back to the command:
    each pattern of the table must still match a string the package says."""
    literals = [text for path in (ROOT / "icoframes").rglob("*.py")
                if path.name != "clitext.py" for text in _literals(path)]
    unmatched = [pattern for pattern, _ in CLI_ADVICE
                 if not any(re.search(pattern, text) for text in literals)]
    assert not unmatched


def test_an_unknown_platform_under_the_command_names_a_line_that_prints_the_filter_set(
        sb, tmp_path, capsys, caplog, monkeypatch, clean_settings):
    settings = {**sb.settings(), "cache_dir": str(tmp_path / "cache")}
    for name, value in settings.items():
        if value is not None:
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--platform", "999"], capsys,
                     caplog)
    assert code == 2, err
    said = re.search(r"unknown platform id 999: the platform rows of the filter set "
                     r"\(`python3 -c '([^']+)'` prints it\) list ids", err)
    assert said, err
    # the line runs from a shell, on the settings the command read, and prints the platforms
    printed = subprocess.run([sys.executable, "-c", said[1]], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=HANG_GUARD)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.count(" platform ") == int(re.search(r"(\d+) in all", err)[1])
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--platform", "Etherium"],
                     capsys, caplog)
    assert code == 2 and "(see the platform rows of the filter set (`python3 -c" in err, err


def test_a_cache_the_command_cannot_write_is_not_answered_with_offline():
    """The command has no offline mode: the store's advice for a read-only cache, and every
    pointer to load_filters() where a filter is refused, in the command's words."""
    said = [text for name in ("store/db.py", "queries.py")
            for text in _literals(ROOT / "icoframes" / name)
            if "offline=True" in text or "load_filters()" in text]
    assert len(said) >= 5
    for text in said:
        worded = for_the_command(text)
        assert "offline=True" not in worded and "cache_dir" not in worded.replace(
            "--cache-dir", ""), worded
        assert worded.count("load_filters()") == text.count("load_filters()")  # in the line
        assert "icoframes.load_filters()" not in worded.replace(
            "print(icoframes.load_filters().to_string())", ""), worded
