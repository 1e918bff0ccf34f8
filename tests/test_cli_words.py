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


def test_a_mistyped_option_shows_its_value_unless_it_may_be_a_key(tmp_path, capsys, caplog):
    # errors.md: only a text of 8 or more characters with a letter may be a key; "past" and
    # "30" were hidden too
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--stauts", "past"], capsys,
                     caplog)
    assert code == 2
    assert "unrecognized arguments: --stauts past; did you mean '--status'?" in err
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--stauts", "pastpast"], capsys,
                     caplog)
    assert code == 2 and "pastpast" not in err.split("error:")[-1]
    assert ("unrecognized arguments: --stauts (and 1 value not shown: a value may be a key); "
            "did you mean '--status'?") in err


def test_a_quota_stop_under_the_command_gives_the_command_s_advice(sb, tmp_path, capsys,
                                                                    caplog, one_ledger_day):
    # the list's pages and one profile: a cap the pages alone use up says so instead
    pages = -(-len(sb.directory.ids("past")) // sandbox.PAGE_SIZE)
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=pages + 1)
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


def _as_cron(sb, monkeypatch, home: Path, **settings: str) -> dict[str, str]:
    """The environment of a cron job running the command: cron's PATH, no venv on it, the
    service's settings as variables (the command's too, set here); ``settings`` more of them."""
    variables = {f"ICOFRAMES_{name.upper()}": value for name, value in
                 {**sb.settings(), **settings}.items() if value is not None}
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(home))  # the default cache dir is under it
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **variables}


def _printed_line(err: str) -> str:
    """The shell line a refusal names to print the filter set (in backquotes)."""
    said = re.search(r"`([^`]* -c [^`]*)`", err)
    assert said, err
    return said[1]


def test_an_unknown_platform_under_the_command_names_a_line_that_prints_the_filter_set(
        sb, tmp_path, capsys, caplog, monkeypatch, clean_settings):
    cron = _as_cron(sb, monkeypatch, tmp_path / "home", cache_dir=str(tmp_path / "cache"))
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--platform", "999"], capsys,
                     caplog)
    assert code == 2, err
    # run as cron would: a venv's Python is on no PATH of cron's, and the system's python3
    # has no icoframes (or, in a clone, none of its dependencies)
    printed = subprocess.run(["/bin/sh", "-c", _printed_line(err)], capture_output=True,
                             text=True, env=cron, cwd=tmp_path, timeout=HANG_GUARD)
    assert printed.returncode == 0, printed.stderr
    said = re.search(r"unknown platform id 999: the platform rows of the filter set list "
                     r"ids 1 to \d+, (\d+) in all; `[^`]+` prints the filter set$", err.strip())
    assert said, err
    assert printed.stdout.count(" platform ") == int(said[1])


def test_the_line_that_prints_the_filter_set_reads_the_command_s_cache_dir(
        sb, tmp_path, capsys, caplog, monkeypatch, clean_settings):
    """The line prints the filter set the command has just cached, from its --cache-dir: no
    request more (each counts against the daily quota), and no default cache dir made."""
    home = tmp_path / "home"
    cron = _as_cron(sb, monkeypatch, home)
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--cache-dir",
                      str(tmp_path / "given cache"), "--platform", "999"], capsys, caplog)
    assert code == 2, err
    sb.stats.reset()
    venv = str(Path(sys.executable).parent)  # the Python the command runs in, first on PATH
    printed = subprocess.run(["/bin/sh", "-c", _printed_line(err)], capture_output=True,
                             text=True, env={**cron, "PATH": f"{venv}:/usr/bin:/bin"},
                             cwd=tmp_path, timeout=HANG_GUARD)
    assert printed.returncode == 0, printed.stderr
    assert " platform " in printed.stdout
    assert sb.stats.requests["filters"] == 0
    assert not home.exists()


def test_a_refused_name_under_the_command_is_said_in_plain_sentences(
        sb, tmp_path, capsys, caplog, monkeypatch, clean_settings):
    _as_cron(sb, monkeypatch, tmp_path / "home", cache_dir=str(tmp_path / "cache"))
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--platform", "Etherium"],
                     capsys, caplog)
    assert code == 2, err
    assert re.search(r"unknown platform name 'Etherium'; the known ones are the platform rows "
                     r"of the filter set, which `[^`]+` prints; did you mean 'Ethereum'\?$",
                     err.strip()), err
    code, err = _cli(["export", "--out", str(tmp_path / "o"), "--location", "Atlantis"],
                     capsys, caplog)
    assert code == 2, err
    assert re.search(r"unknown location 'Atlantis'; the known ones are the location rows of "
                     r"the filter set, which `[^`]+` prints$", err.strip()), err


def _messages(path: Path) -> list[str]:
    """The string literals of a module less its docstrings (an example is no message)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                          | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)}
    docs |= {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
             for part in node.values}  # an f-string's pieces: the f-string is the message
    said = []
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            said.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            said.append("".join(part.value if isinstance(part, ast.Constant) else "{}"
                                for part in node.values))
    return said


def test_every_message_the_command_rewords_keeps_its_brackets_one_deep():
    """A reworded message reads as a sentence: no brackets inside brackets, and no shell line
    in brackets; and every pointer to load_filters() (an offline-only one too) names the line,
    outside the brackets."""
    touched = [text for path in (ROOT / "icoframes").rglob("*.py") if path.name != "clitext.py"
               for text in _messages(path) if "icoframes.load_filters()" in text
               or any(re.search(pattern, text) for pattern, _ in CLI_ADVICE)]
    assert sum("icoframes.load_filters()" in text for text in touched) >= 4
    for text in touched:
        worded = for_the_command(text)
        plain = re.sub(r"`[^`]*`", "<line>", worded)  # a line's own brackets are Python's
        depth = deepest = 0
        for char in plain:  # a literal may be part of a sentence: a bracket closed before it
            depth = max(0, depth + {"(": 1, ")": -1}.get(char, 0))
            deepest = max(deepest, depth)
        assert deepest <= 1, worded
        assert not re.search(r"\([^()]*<line>[^()]*\)", plain), worded
        if "icoframes.load_filters()" in text:
            assert "<line>" in plain and "load_filters" not in plain, worded


def test_a_cache_the_command_cannot_write_is_not_answered_with_offline():
    """The command has no offline mode: the store's advice for a read-only cache, and every
    pointer to load_filters() where a filter is refused, in the command's words."""
    said = [text for name in ("store/db.py", "queries.py")
            for text in _messages(ROOT / "icoframes" / name)
            if "offline=True" in text or "load_filters()" in text]
    assert len(said) >= 5
    for text in said:
        worded = for_the_command(text)
        assert "offline=True" not in worded and "cache_dir" not in worded.replace(
            "--cache-dir", ""), worded
        assert worded.count("load_filters()") == text.count("load_filters()")  # in the line
        assert "icoframes.load_filters()" not in worded.replace(
            "print(icoframes.load_filters().to_string())", ""), worded


def test_the_line_that_prints_the_filter_set_leaves_a_password_in_base_url_out(
        tmp_path, clean_settings):
    # the address is given in the line so that it reads the command's service; one holding a
    # password is left to the variable the command read it from
    icoframes.configure(base_url="http://user:pw-in-url@127.0.0.1:9", cache_dir=tmp_path)
    said = for_the_command("unknown location 'Atlantis' (see the location rows of "
                           "icoframes.load_filters())")
    assert "pw-in-url" not in said and "ICOFRAMES_BASE_URL" not in said, said
    assert f"ICOFRAMES_CACHE_DIR={tmp_path}" in said, said
    icoframes.configure(base_url="http://127.0.0.1:9")
    assert "ICOFRAMES_BASE_URL=http://127.0.0.1:9 " in for_the_command(
        "unknown location 'Atlantis' (see the location rows of icoframes.load_filters())")
