"""Rules of arguments declared once (no behaviour change): the empty path, in every place
that refuses one; the sandbox's whole numbers, for its function and its command's options."""

from __future__ import annotations

import argparse
import pathlib

import pytest

import icoframes
from icoframes import ages, numerals
from icoframes.api.params import validate_list_params
from icoframes.cli import build_parser, main
from icoframes.errors import InvalidParameter, check_flags
from icoframes.numerals import did_you_mean_flag
from icoframes.paths import EMPTY_PATH, folder_path, is_empty_path
from icoframes.queries import check_load_arguments
from icoframes.sandbox import command, server

PACKAGE = pathlib.Path(icoframes.__file__).resolve().parent


def test_the_empty_path_is_said_in_one_place_and_refused_alike_everywhere(tmp_path, capsys):
    sources = {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
               for p in PACKAGE.rglob("*.py")}
    saying = [name for name, text in sources.items() if "the current directory; say" in text]
    assert saying == ["paths.py"]
    assert EMPTY_PATH == "an empty path (that would be the current directory; say '.')"
    assert [is_empty_path(v) for v in ("", "  ", "\t", ".", "a", None, pathlib.Path(""))] == [
        True, True, True, False, False, False, False]
    with pytest.raises(InvalidParameter) as info:
        folder_path(" ", "out")
    assert str(info.value) == f"out=' ' is {EMPTY_PATH}"
    try:
        with pytest.raises(InvalidParameter) as info:
            icoframes.configure(cache_dir="")
        assert str(info.value) == f"invalid cache_dir='': is {EMPTY_PATH}"
        assert icoframes.configure(cache_dir="~/x").cache_dir == pathlib.Path("~/x").expanduser()
    finally:
        icoframes.reset_configuration()
    assert main(["export", "--out", " ", "--status", "past"]) == 2
    assert f"argument --out: {EMPTY_PATH}" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "text", "message"), [
    (command._PORT, "65536", "must be a port from 0 to 65535, got '65536'"),
    (command._PORT, "-1", "must be a port from 0 to 65535, got '-1'"),
    (numerals.COUNT, "-1", "must be a whole number from 0 to 9223372036854775807, got '-1'"),
    (numerals.COUNT, "2.5", "must be a whole number from 0 to 9223372036854775807, got '2.5'"),
    (command.QUOTA, "-1",
     "must be a whole number from 1 to 9223372036854775807 or 'none' (no limit), got '-1'"),
    (command.QUOTA, "9223372036854775808", "must be a whole number from 1 to "
     "9223372036854775807 or 'none' (no limit), got '9223372036854775808'"),
    (command.AT_LEAST_ONE, "0", "must be a whole number from 1 to 9223372036854775807, got '0'"),
])
def test_the_sandbox_commands_whole_numbers_keep_their_words(option, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        option(text)
    assert str(info.value) == message


def test_the_options_and_the_function_share_one_range_rule():
    assert (command._PORT("0"), command._PORT("65535"), numerals.COUNT("0"),
            command.AT_LEAST_ONE("1")) == (0, 65535, 0, 1)
    assert server.PORTS == (0, 65535)
    assert [numerals.bounds(0, 65535), numerals.bounds(1), numerals.bounds(None)] == [
        " from 0 to 65535", " >= 1", ""]
    assert [numerals.within(v, 0, 2) for v in (-1, 0, 2, 3)] == [False, True, True, False]
    assert numerals.within(-10**9, None) and numerals.within(10**9, 1)
    with pytest.raises(InvalidParameter, match=r"^port must be a whole number from 0 to 65535, "
                                               r"got 65536$"):
        icoframes.sandbox.serve(port=65536)
    with pytest.raises(InvalidParameter, match=r"^grow_every must be a whole number from 1 to "
                                               r"9223372036854775807 or None, got 0$"):
        icoframes.sandbox.serve(grow_every=0)


def test_a_flag_given_otherwise_is_refused_by_one_rule_declared_once():
    # queries._flag_hint and params._yes repeated check_flags' "did you mean False?" (and
    # check_load_arguments its "must be True or False"): one rule now, in numerals and errors
    sources = {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
               for p in PACKAGE.rglob("*.py")}
    assert [name for name, text in sources.items() if "did you mean {meant}?" in text
            or '"; did you mean True?"' in text] == ["numerals.py"]
    assert [name for name, text in sources.items() if "must be {allowed}, got" in text
            or "must be True or False, got" in text] == ["errors.py"]
    assert (did_you_mean_flag(" No"), did_you_mean_flag(1.0), did_you_mean_flag(2)) == (
        "; did you mean False?", "; did you mean True?", "")
    for call, message in [
            (lambda: check_flags(rates="no"), "rates must be True or False, got 'no'; did you "
                                              "mean False?"),
            (lambda: check_flags(progress="yes", none_means="by the terminal"),
             "progress must be True or False (or None: by the terminal), got 'yes'; did you "
             "mean True?"),
            (lambda: check_load_arguments(refresh="off"), "refresh must be False, True or "
                                                          "'all', got 'off'; did you mean False?"),
            (lambda: validate_list_params({"ico_kyc_passed": "true"}),
             "invalid list parameter ico_kyc_passed='true': takes True (or "
             "'yes') only; did you mean True?")]:
        with pytest.raises(InvalidParameter) as info:
            call()
        assert str(info.value) == message
    check_flags(progress=None, none_means="by the terminal")


def _option_types(parser: argparse.ArgumentParser) -> dict[str, object]:
    types = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                types.update({f"{name} {k}": v for k, v in _option_types(sub).items()})
        for option in action.option_strings:
            types[option] = action.type
    return types


def test_one_number_reader_serves_the_command_line_and_the_sandbox_command():
    # the readers lived in sandbox/command.py, and the export's --budget read any integer
    # (-1 went on, to be refused by the loader as an ERROR log line) while the sandbox's
    # --quota, a count too, was refused by the parser naming its option
    types = _option_types(build_parser())
    assert types["export --budget"] is numerals.COUNT
    assert types["sandbox --quota"] is numerals.QUOTA  # as many as a daily_quota allows
    # an age is read as the library reads one (icoframes.ages), its bare number in seconds
    assert types["export --max-age"] is types["export --profile-max-age"] is ages.seconds_option
    assert types["sandbox --latency"] is numerals.SECONDS
    assert types["sandbox --grow-every"] is numerals.AT_LEAST_ONE
    assert types["demo --n-icos"] is command.DEMO_ICOS and types["sandbox --n-icos"] is \
        command.N_ICOS  # bounded by sandbox.server.MAX_ICOS
    assert types["demo --seed"] is types["sandbox --seed"] is numerals.ANY_INTEGER
    # a filter's number and --max-workers: read with the limits their parameter or setting
    # declares (tests/test_number_option_bounds.py)
    assert types["export --ico-score"].__qualname__ == numerals.ANY_INTEGER.__qualname__
    assert (server.bounds, command.whole) == (numerals.bounds, numerals.whole)


def test_a_negative_budget_is_refused_by_the_parser_as_a_negative_quota_is(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "--status", "past", "--budget", "-1"]) == 2
    assert ("icoframes export: error: argument --budget: must be a whole number from 0 to "
            "9223372036854775807, got '-1'" in capsys.readouterr().err)
    assert main(["export", "--out", str(tmp_path), "--status", "past", "--budget", "٣"]) == 2
    assert ("argument --budget: must be a whole number from 0 to 9223372036854775807, got "
            "'٣'; did you mean 3?" in capsys.readouterr().err)
