"""The command line's age options read an age as the library does (icoframes.ages), and
keep their bare number's unit: ``export --max-age``/``--profile-max-age`` seconds, ``cache
prune --older-than`` days. ``--max-age 12h`` was refused ("did you mean 43200"), and
``--older-than 30D``, ``-1`` or ``1e400`` got argparse's bare "invalid number of days value".
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from icoframes import sandbox
from icoframes.cli import EXIT_USAGE, build_parser, main

pytestmark = pytest.mark.usefixtures("clean_settings")

DAYS_RULE = ("argument --older-than: must be a duration such as 12h or 30D, or a finite "
             "number of days >= 0 that a timedelta holds (below 1e+09), got ")
SECONDS_RULE = ("argument --max-age: must be a duration such as 12h or 30D, or a finite "
                "number of seconds >= 0 that a timedelta holds (below 8.64e+13), got ")


@pytest.mark.parametrize(("given", "age"), [
    ("30D", dt.timedelta(days=30)), ("720h", dt.timedelta(days=30)),
    ("30", dt.timedelta(days=30)),  # a number without a unit stays days, as documented
    ("1.5", dt.timedelta(days=1.5)), ("0", dt.timedelta(0)), ("1 day 6h", dt.timedelta(hours=30)),
])
def test_older_than_takes_the_librarys_durations_and_days(given, age):
    args = build_parser().parse_args(["cache", "prune", "--older-than", given])
    assert args.older_than == age


@pytest.mark.parametrize(("given", "said"), [
    ("-1", "'-1'"), ("1e400", "'1e400'"), ("-1D", "'-1D'"),
    ("2 weeks", "'2 weeks'; did you mean '2W'?"),
    ("1 month", "'1 month' (a month has no fixed length); did you mean '30D'?"),
    ("\u0663\u0660", "'\u0663\u0660'; did you mean 30?"),
    ("sandbox-private", "a text of 15 characters (not shown: it may be a key)"),
])
def test_older_than_refusals_say_the_rule_and_what_was_meant(tmp_path, capsys, given, said):
    cache = tmp_path / "cache"
    cache.mkdir()
    code = main(["cache", "prune", f"--older-than={given}", "--cache-dir", str(cache)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.splitlines()[-1] == f"icoframes cache: error: {DAYS_RULE}{said}"
    assert "sandbox-private" not in err


def test_prune_with_a_duration_runs(tmp_path, capsys):
    cache = tmp_path / "cache"
    cache.mkdir()
    assert main(["cache", "prune", "--older-than", "30D", "--cache-dir", str(cache)]) == 0
    assert capsys.readouterr().out == "cache pruned: nothing was unused that long\n"


@pytest.mark.parametrize(("given", "age"), [
    ("12h", dt.timedelta(hours=12)), ("43200", dt.timedelta(hours=12)),  # a number: seconds
    ("30D", dt.timedelta(days=30)), (" 90 ", dt.timedelta(seconds=90)),
])
def test_export_ages_take_the_librarys_durations_and_seconds(given, age):
    args = build_parser().parse_args(["export", "--out", "x", "--max-age", given,
                                      "--profile-max-age", given])
    assert args.max_age == args.profile_max_age == age.total_seconds()


@pytest.mark.parametrize(("given", "said"), [
    ("-5", "'-5'"), ("1e400", "'1e400'"),
    ("6m", "'6m' (m: minutes or months?); did you mean '6min' or '180D'?"),
    ("past=30D", "'past=30D'; the option is one age for every status: did you mean '30D'?"),
    ("sandbox-private", "a text of 15 characters (not shown: it may be a key)"),
])
def test_export_age_refusals_say_the_rule_and_what_was_meant(capsys, given, said):
    assert main(["export", "--out", "x", "--max-age", given]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"icoframes export: error: {SECONDS_RULE}{said}"
    assert "sandbox-private" not in err


def test_an_export_with_an_age_in_hours_reads_it_as_the_library(tmp_path, monkeypatch):
    with sandbox.serve(n_icos=20, seed=3) as sb:
        for name, value in sb.settings().items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
        out = tmp_path / "out"
        assert main(["export", "--out", str(out), "--status", "past", "--max-age", "12h",
                     "--profile-max-age", "30D"]) == 0
    arguments = json.loads((out / "manifest.json").read_text())["arguments"]
    assert arguments["max_age"] == 43200.0 and arguments["profile_max_age"] == 2592000.0
