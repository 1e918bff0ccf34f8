"""Leftovers of the number readers: a "did you mean" says a number the text wrote (never the
309 digits of a float's 1e308, never 0 for 1e-400), the sandbox's ICO count is bounded (10**40
was taken, and generating never ended), serve(latency="\uff11") says what it means ("1"
is 1 second since), and a yes-flag of pd.NA is refused as any other value (it was a bare
TypeError)."""

from __future__ import annotations

import logging

import pandas as pd
import pytest
import test_days

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_USAGE, main
from icoframes.errors import InvalidParameter
from icoframes.numerals import COUNT, meant_number
from icoframes.sandbox.server import MAX_ICOS

#: The range of a count (``budget``, ``--budget``): an int64's, as a quota's.
_COUNT = " from 0 to 9223372036854775807"

sb = test_days.sb  # a sandbox reached as cron's runs reach it


@pytest.mark.parametrize(("value", "said"), [
    ("1e308", f"must be a whole number{_COUNT}, got '1e308'"),  # was "; did you mean 1000...
    ("1e-400", f"must be a whole number{_COUNT}, got '1e-400'"),  # was "; did you mean 0?"
    ("-0.0", f"must be a whole number{_COUNT}, got '-0.0'; did you mean 0?"),
    ("1e3", f"must be a whole number{_COUNT}, got '1e3'; did you mean 1000?"),
])
def test_a_budget_hint_says_a_number_the_text_wrote(sb, tmp_path, capsys, caplog, value, said):
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(["export", "--out", str(tmp_path / "out"), f"--budget={value}"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.rstrip().endswith(f"argument --budget: {said}")
    assert sb.stats.requests.total() == 0


def test_the_hint_rule_for_floats():
    assert meant_number("1e-400") is None and meant_number("0e-400") == 0
    assert meant_number(1e308) is None and meant_number(2.0**53) is None
    assert meant_number(2.0**53 - 1) == 2**53 - 1 and meant_number(10**40) == 10**40
    with pytest.raises(Exception, match=r"got '1e308'$"):
        COUNT("1e308")


@pytest.mark.parametrize(("argv", "said"), [
    (["sandbox", "--n-icos", "1" + "0" * 40], "argument --n-icos: must be a whole number from 0 "
                                              f"to {MAX_ICOS}, got '1{'0' * 40}'"),
    (["sandbox", "--n-icos", str(MAX_ICOS + 1)], "argument --n-icos: must be a whole number "
                                                 f"from 0 to {MAX_ICOS}"),
    (["demo", "--n-icos", "1" + "0" * 40], f"argument --n-icos: must be a whole number from 1 "
                                           f"to {MAX_ICOS}"),
    (["demo", "--n-icos", "0"], "argument --n-icos: must be a whole number from 1 to"),
])
def test_the_sandbox_ico_count_is_bounded_by_the_parser(capsys, argv, said):
    assert main(argv) == EXIT_USAGE
    assert said in capsys.readouterr().err


def test_serve_refuses_a_count_of_icos_past_its_bound_and_says_a_latency_hint():
    with pytest.raises(InvalidParameter, match=f"n_icos must be a whole number from 0 to "
                                               f"{MAX_ICOS}, got 10{'0' * 39}$"):
        sandbox.serve(n_icos=10**40)
    with pytest.raises(InvalidParameter) as refused:
        sandbox.serve(latency="\uff11")  # was refused with no did-you-mean ("1" is 1 s)
    assert str(refused.value) == ("latency must be seconds >= 0, finite, got '\uff11'; did you "
                                  "mean 1.0?")


@pytest.mark.parametrize("flag", [pd.NA, float("nan")])
def test_a_yes_flag_of_na_is_refused_before_any_request(sb, flag):
    icoframes.configure(**sb.settings())
    try:
        with pytest.raises(InvalidParameter, match=r"airdrop_program=.*: takes True"):
            icoframes.load_list(status="past", airdrop_program=flag, progress=False)
    finally:
        icoframes.reset_configuration()
    assert sb.stats.requests.total() == 0
