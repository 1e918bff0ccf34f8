"""A number written as text means one thing everywhere (icoframes.numerals): ASCII digits.

``int("٣")`` is 3, ``int("1_000")`` 1000, ``float("١٠")`` 10.0 and ``"²".isdigit()`` is
true: ``configure(max_workers="٣")`` was 3 workers, ``--budget ٣`` a budget of 3 and
``timeout="1_0"`` ten seconds. Each is refused now, before any request, with the
number it most likely means as a "did you mean".
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import ConfigError, InvalidParameter

#: The range of a count (``budget``, ``--budget``): an int64's, as a quota's.
_COUNT = " from 0 to 9223372036854775807"

PACKAGE = Path(icoframes.__file__).resolve().parent


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=5) as server:
        yield server


_AGE_RULE = ("a duration such as 12h or 30D, or a finite number of seconds >= 0 that a "
             "timedelta holds (below 8.64e+13)")


@pytest.mark.parametrize(("name", "value", "message"), [
    ("max_workers", "\u0663", "must be an integer; did you mean 3?"),  # Arabic-Indic 3
    ("max_workers", "\uff13", "must be an integer; did you mean 3?"),  # full-width 3
    ("max_workers", "3.0", "must be an integer; did you mean 3?"),
    ("max_workers", 3.0, "must be an integer; did you mean 3?"),
    ("max_workers", 2.5, "must be an integer"),
    ("max_workers", "+-3", "must be an integer"),  # was int()'s own ValueError text
    ("max_workers", True, "must be an integer"),
    ("daily_quota", "1_000", "must be an integer; did you mean 1000?"),
    ("max_response_bytes", "4 MiB", "must be an integer"),
    ("timeout", "\u0661\u0660", "must be a number of seconds; did you mean 10.0?"),
    ("timeout", "1_0", "must be a number of seconds; did you mean 10.0?"),
    ("timeout", "5s", "must be a number of seconds; did you mean 5?"),
    ("timeout", "nan", "must be a number of seconds"),
    ("quota_reset", "\u0660\u0666:\u0660\u0660",
     "must be a UTC time of day as 'HH:MM' (e.g. '06:00') or a datetime.time"),
])
def test_a_setting_written_in_other_digits_is_refused_with_the_number_it_means(
        clean_settings, name, value, message):
    with pytest.raises(InvalidParameter) as info:
        icoframes.configure(**{name: value})
    assert str(info.value) == f"invalid {name}={value!r}: {message}"
    assert getattr(icoframes.get_settings(), name) == getattr(icoframes.Settings(), name)


def test_a_setting_in_ascii_digits_keeps_its_meaning(clean_settings):
    settings = icoframes.configure(max_workers=" 3 ", daily_quota="+40", timeout=" 2.5 ",
                                   max_response_bytes="2048", quota_reset=" 06:30 ")
    assert (settings.max_workers, settings.daily_quota, settings.timeout) == (3, 40, 2.5)
    assert (settings.max_response_bytes, str(settings.quota_reset)) == (2048, "06:30:00")


def test_an_environment_variable_in_other_digits_is_a_config_error(clean_settings,
                                                                    monkeypatch):
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "\u0663")
    with pytest.raises(ConfigError) as info:
        icoframes.get_settings()
    assert str(info.value) == ("invalid ICOFRAMES_MAX_WORKERS='\u0663': must be an integer; "
                               "did you mean 3?")


def test_a_loaders_max_workers_in_other_digits_is_refused_before_any_request(cfg):
    for call in (lambda: icoframes.load_icos("past", max_workers="\u0663", progress=False),
                 lambda: icoframes.load_list("past", max_workers="\u0663", progress=False)):
        with pytest.raises(InvalidParameter) as info:
            call()
        assert str(info.value) == ("invalid max_workers='\u0663': must be an integer; "
                                   "did you mean 3?")
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--budget", "\u0663"], f"argument --budget: must be a whole number{_COUNT}, got "
                             "'\u0663'; did you mean 3?"),
    (["--max-workers", "1_0"], "argument --max-workers: must be an integer from 1 to 64, "
                               "got '1_0'; did you mean 10?"),
    (["--budget", "2.0"], f"argument --budget: must be a whole number{_COUNT}, got '2.0'; "
                          "did you mean 2?"),
    (["--max-age", "\u0661"], f"argument --max-age: must be {_AGE_RULE}, got '\u0661'; did you "
                              "mean 1?"),
    (["--max-age", "nan"], "argument --max-age: must be a duration such as 12h or 30D, "
                           "or a finite number of seconds >= 0 "
                           "that a timedelta holds (below 8.64e+13), got 'nan'"),
])
def test_a_command_line_number_in_other_digits_is_refused_by_the_parser(
        cfg, tmp_path, args, message, capsys):
    # argparse's type=int read "٣" as 3: --budget ٣ was a budget of 3 requests
    out = tmp_path / "out"
    assert main(["export", "--out", str(out), "--status", "past", *args]) == 2
    assert capsys.readouterr().err.rstrip().endswith(message)
    assert cfg.stats.requests.total() == 0 and not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--port", "\u0668\u0660\u0660\u0660"], "argument --port: must be a port from 0 to "
                                             "65535, got '\u0668\u0660\u0660\u0660'; "
                                             "did you mean 8000?"),
    (["--port", "\u0668\u0660\u0660\u0660\u0660"], "argument --port: must be a port from 0 "
                                                   "to 65535, got "
                                                   "'\u0668\u0660\u0660\u0660\u0660'"),
    (["--seed", "\u0667"], "argument --seed: must be an integer from -9223372036854775808 "
                           "to 9223372036854775807, got '\u0667'; did you mean 7?"),
    (["--fail-rate", "\u0660.\u0665"], "argument --fail-rate: must be a share from 0 to 1, "
                                       "got '\u0660.\u0665'; did you mean 0.5?"),
])
def test_a_sandbox_option_in_other_digits_is_refused_before_a_server_starts(args, message,
                                                                            capsys):
    # the parser alone: were the option read (int("٨٠٠٠") is 8000), main would serve forever
    from icoframes.sandbox.command import Parser, add_arguments

    with pytest.raises(SystemExit) as info:
        add_arguments(Parser(prog="icoframes sandbox")).parse_args(args)
    assert info.value.code == 2
    assert capsys.readouterr().err.rstrip().endswith(message)


def test_sandbox_start_names_the_whole_number_a_float_means():
    with pytest.raises(InvalidParameter) as info:
        sandbox.start(n_icos=5.0)
    assert str(info.value) == ("n_icos must be a whole number from 0 to 1000000, got 5.0; "
                               "did you mean 5?")
    with pytest.raises(InvalidParameter) as info:
        sandbox.start(port=70000.0)  # no port: nothing to suggest
    assert str(info.value) == "port must be a whole number from 0 to 65535, got 70000.0"


def _own_digit_rules(tree: ast.AST) -> list[int]:
    """Lines of ``str.isdigit``/``isdecimal``/``isnumeric`` and of argparse's ``type=int``
    or ``type=float`` (``int()``, which reads "٣") in a module's code."""
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute)
                   and node.attr in ("isdigit", "isdecimal", "isnumeric")}
                  | {node.value.lineno for node in ast.walk(tree)
                     if isinstance(node, ast.keyword) and node.arg == "type"
                     and isinstance(node.value, ast.Name) and node.value.id in ("int", "float")})


def test_the_check_finds_an_own_digit_rule():
    assert _own_digit_rules(ast.parse("ok = text.isdigit()  # x.isdecimal()\n"
                                      "p.add_argument('--n', type=int)\n"
                                      "'str.isnumeric() in a docstring'")) == [1, 2]


def test_no_module_reads_digits_by_its_own_rule():
    # str.isdigit() is true for "²" and "٣"; argparse's type=int is int(), which reads "٣":
    # text that writes a number is read by icoframes.numerals, declared once. The parser
    # (parse/) reads the service's data, not arguments, by its own declared rules
    found = [f"{path.relative_to(PACKAGE)}:{line}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.parent.name != "parse"
             for line in _own_digit_rules(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


@pytest.mark.parametrize(("ids", "message"), [
    # numpy's astype(int64) read "٣" as 3: the id 3 was kept, or named "not in icos.id: [3]"
    (["\u0663"], "subset: id '\u0663' is no whole number; did you mean 3?"),
    ([1, "\u0662"], "subset: id '\u0662' is no whole number; did you mean 2?"),
    (["1.0"], "subset: id '1.0' is no whole number; did you mean 1?"),
    (["x"], "subset: id 'x' is no whole number"),
])
def test_a_subset_of_ids_in_other_digits_is_refused_with_the_id_it_means(ids, message):
    tables = icoframes.tidy([{"id": 1, "main": {"name": "A"}}, {"id": 2, "main": {"name": "B"}},
                             {"id": 3, "main": {"name": "C"}}])
    with pytest.raises(InvalidParameter) as info:
        tables.subset(ids)
    assert str(info.value) == message
    assert tables.subset([" 2 ", "+3"])["icos"]["id"].tolist() == [2, 3]  # ASCII: the ids


def test_more_digits_than_python_converts_are_refused_not_a_bare_value_error(cfg):
    # int() of over 4300 digits raises ValueError ("Exceeds the limit"): no bare
    # ValueError, and digits are no platform name to look up (the filter set's request)
    digits = "1" * 5000
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_icos(platform=digits, progress=False)
    assert str(info.value).endswith("(5000 characters): must be ids (positive integers)")
    with pytest.raises(InvalidParameter, match=r"must be an integer$"):
        icoframes.configure(max_workers=digits)
    assert cfg.stats.requests.total() == 0
