"""Every number option of ``icoframes export`` is checked by the parser, with the limits its
parameter or setting declares: out of range is a usage error naming the option (exit 2),
before any request and before ``--out`` is made, never a log line naming a setting.

Real sandbox over loopback, reached as cron's runs reach it (tests/test_days.py).
"""

from __future__ import annotations

import datetime as dt
import logging

import pytest
import test_days

from icoframes import numerals
from icoframes.api.params import PARAMS
from icoframes.cli import EXIT_USAGE, build_parser, main
from icoframes.config import MAX_WORKERS

sb = test_days.sb  # a sandbox reached as cron's runs reach it

_SECONDS = ("must be a duration such as 12h or 30D, or a finite number of seconds >= 0 that a "
            "timedelta holds (below 8.64e+13), got {!r}")


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--ico-score", "0", "must be an integer from 1 to 10, got '0'"),
    ("--ico-score", "11", "must be an integer from 1 to 10, got '11'"),
    ("--ico-score", "-1", "must be an integer from 1 to 10, got '-1'"),
    ("--ico-score", "1" + "0" * 40, "must be an integer from 1 to 10"),
    ("--ico-score", "\u0663\u0663", "must be an integer from 1 to 10, got '\u0663\u0663'"),
    ("--max-workers", "0", "must be an integer from 1 to 64, got '0'"),
    ("--max-workers", "-1", "must be an integer from 1 to 64, got '-1'"),
    ("--max-workers", "65", "must be an integer from 1 to 64, got '65'"),
    ("--max-age", "1e308", _SECONDS.format("1e308")),
    ("--max-age", "1" + "0" * 40, _SECONDS.format("1" + "0" * 40)),
    ("--profile-max-age", "1e308", _SECONDS.format("1e308")),
    ("--max-age", "86400000000000", _SECONDS.format("86400000000000")),
])
def test_a_number_option_out_of_its_range_is_refused_by_the_parser(
        sb, tmp_path, capsys, caplog, option, value, said):
    """--ico-score 0/11 (the help says 1-10), --max-workers 0/-1 (1-64) and an age no
    timedelta holds passed the parser and were refused later, as a log line naming the
    setting ('invalid list parameter ico_score=0', 'max_age must be a timedelta, ... or None,
    got 1e+308': it is seconds)."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "out"
    code = main(["export", "--out", str(out), "--status", "past", f"{option}={value}"])
    err = capsys.readouterr().err + caplog.text
    assert code == EXIT_USAGE, err
    assert f"argument {option}: {said}" in err
    assert "Traceback" not in err and "invalid" not in err
    assert sb.stats.requests.total() == 0 and not out.exists()


def test_the_edges_of_each_range_pass_the_parser():
    """The limits each option's parameter or setting declares, not ones written again."""
    longest = (dt.timedelta.max.days + 1) * 86_400
    assert longest == numerals.TOO_MANY_SECONDS
    parser = build_parser()
    score = next(p for p in PARAMS if p.name == "ico_score")
    for argv, name, read in [
        (["--ico-score", str(score.low)], "ico_score", score.low),
        (["--ico-score", str(score.high)], "ico_score", score.high),
        (["--max-workers", "1"], "max_workers", 1),
        (["--max-workers", str(MAX_WORKERS)], "max_workers", MAX_WORKERS),
        (["--max-age", str(longest - 1)], "max_age", longest - 1),
        (["--max-age", "0"], "max_age", 0),
    ]:
        args = parser.parse_args(["export", "--out", "x", *argv])
        assert getattr(args, name) == read, argv


def test_the_help_says_each_range():
    text = build_parser()._subparsers._group_actions[0].choices["export"].format_help()
    assert "(N >= 0)" in " ".join(text.split())  # --budget
    assert f"1-{MAX_WORKERS}" in text and "1-10" in text
