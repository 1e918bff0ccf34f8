"""Each argument read by one rule, said once, bounded, and meaning one thing (2026-11-27).

What the last session noticed and left: a refusal of ``profile("٣")`` said ``ico_id`` twice;
an object whose ``__index__`` raised escaped ``configure(max_workers=)`` as that error, while
``configure`` took an object no other integer argument took (``readers.integer`` kept an
integer test of its own); ``budget``, ``grow_every``, ``max_response_bytes`` and ``page``
had no upper bound; ``--max-age 1e-400`` (and 1e-7 s, a nanosecond) was an age of 0;
``sandbox --quota 0`` was no limit where ``start(quota=0)`` refused every request; a FIFO
given to ``Tables.read_parquet`` was the OS's bare NotADirectoryError, a file given as an
export's ``out`` a ConfigError saying "cannot be written (File exists)"; ``AsDict``, used
by other modules, was missing from ``reporting.__all__``. Requests are counted at the
sandbox, over loopback HTTP: a refusal costs none.
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import fractions
import logging
import numbers
import os
from pathlib import Path

import keyed_sandbox
import numpy as np
import pandas as pd
import pytest
from keyed_sandbox import requests_served

import icoframes
from icoframes import reporting, sandbox
from icoframes.ages import as_age
from icoframes.api.params import read_ico_id
from icoframes.cli import main
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.numerals import INT64_MAX
from icoframes.queries import check_load_arguments
from icoframes.sandbox import command

sb, client = keyed_sandbox.sb, keyed_sandbox.client  # this module's sandbox, its client

PACKAGE = Path(icoframes.__file__).parent


def _cli(args, capsys, caplog) -> tuple[int, str]:
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(args)
    return code, capsys.readouterr().err + caplog.text


def _refused_option(args, capsys) -> str:
    """What ``icoframes sandbox`` (its parser: the one of both its entry points) says as it
    exits 2 refusing ``args``; a parser that took them fails here, serving nothing."""
    with pytest.raises(SystemExit) as caught:
        command.add_arguments(command.Parser(prog="icoframes sandbox")).parse_args(args)
    assert caught.value.code == 2
    return capsys.readouterr().err


# --- 1. the name said once --------------------------------------------------------------------

def test_a_refused_ico_id_says_its_name_once(cfg, client):
    with pytest.raises(InvalidParameter) as caught:
        client.profile("٣")
    assert str(caught.value) == ("invalid argument ico_id='٣': must be a positive integer; "
                                 "did you mean 3?")
    with pytest.raises(InvalidParameter, match=r"^invalid argument ico_id=0: must be a "
                                               r"positive integer$"):
        read_ico_id(0)
    assert requests_served(cfg) == 0


@pytest.mark.parametrize(("params", "name"), [
    ({"platform": 0}, "platform"), ({"ico_score": 11}, "ico_score"), ({"page": "x"}, "page"),
    ({"sort_asc": "ID"}, "sort_asc"), ({"status": "done"}, "status"),
    ({"location": ""}, "location"), ({"accepted_currencies": "E"}, "accepted_currencies"),
])
def test_a_refused_list_parameter_says_its_name_once(cfg, client, params, name):
    with pytest.raises(InvalidParameter) as caught:
        client.list_page(**params)
    assert str(caught.value).startswith(f"invalid list parameter {name}=")
    assert str(caught.value).count(name) == 1, str(caught.value)
    assert requests_served(cfg) == 0


# --- 2 and 8. one reading of an integer, whatever its __index__ does ---------------------------

class _IndexFails:
    """An integer-like whose ``__index__`` raises: a wrapper of an id that broke."""

    def __index__(self) -> int:
        raise RuntimeError("index failed")


class _IntegralIndexFails(_IndexFails):
    """The same, registered as an integer (as numpy registers its own types)."""


numbers.Integral.register(_IntegralIndexFails)


class _IndexOnly:
    """An ``__index__`` of 5, but no integer to ``numbers``: no argument's integer."""

    def __index__(self) -> int:
        return 5


_INTEGER_ARGUMENTS = {
    "max_workers": lambda cfg, c, v: icoframes.configure(max_workers=v),
    "daily_quota": lambda cfg, c, v: icoframes.configure(daily_quota=v),
    "max_response_bytes": lambda cfg, c, v: icoframes.configure(max_response_bytes=v),
    "pool_size": lambda cfg, c, v: cfg.client(pool_size=v),
    "Client(max_response_bytes)": lambda cfg, c, v: cfg.client(max_response_bytes=v),
    "ico_id": lambda cfg, c, v: c.profile(v),
    "page": lambda cfg, c, v: c.list_page(page=v),
    "ico_score": lambda cfg, c, v: c.list_page(ico_score=v),
    "platform": lambda cfg, c, v: c.list_page(platform=v),
    "budget": lambda cfg, c, v: icoframes.load_icos(status="past", budget=v, progress=False),
    "n_icos": lambda cfg, c, v: sandbox.start(n_icos=v),
    "seed": lambda cfg, c, v: sandbox.start(n_icos=1, seed=v),
    "port": lambda cfg, c, v: sandbox.start(n_icos=1, port=v),
    "quota": lambda cfg, c, v: sandbox.start(n_icos=1, quota=v),
    "grow_every": lambda cfg, c, v: sandbox.start(n_icos=1, grow_every=v),
}


@pytest.mark.parametrize("value", [_IndexFails(), _IntegralIndexFails(), _IndexOnly()],
                         ids=["index-fails", "integral-index-fails", "index-only"])
@pytest.mark.parametrize("argument", list(_INTEGER_ARGUMENTS))
def test_every_integer_argument_refuses_what_the_others_refuse(cfg, client, argument, value):
    # a RuntimeError of __index__ escaped configure, Client and every list parameter; an
    # object with a working __index__ was max_workers 5 and no budget
    with pytest.raises(InvalidParameter, match=argument.split("(")[-1].rstrip(")")):
        _INTEGER_ARGUMENTS[argument](cfg, client, value)
    assert requests_served(cfg) == 0


@pytest.mark.parametrize("given", [{"top": _IntegralIndexFails()}, {"bins": _IndexFails()},
                                   {"bins": _IntegralIndexFails()}],
                         ids=["top", "bins-index", "bins-integral"])
def test_a_plots_counts_refuse_an_integer_whose_index_fails(given):
    import matplotlib
    matplotlib.use("Agg")
    with pytest.raises(InvalidParameter, match=f"^{next(iter(given))} must be "):
        icoframes.plot_raised(icoframes.Tables.empty().icos, **given)


@pytest.mark.parametrize("given", [decimal.Decimal("2.5"), np.timedelta64(2, "ns"),
                                   _IntegralIndexFails()], ids=["Decimal-2.5", "2ns", "index"])
def test_a_subset_reads_its_ids_as_every_integer_argument_is_read(given):
    # Decimal("2.5") and a timedelta64 of 2 ns kept ICO 2 (numpy's astype cut them)
    tables = icoframes.tidy([{"id": 1, "main": {"name": "A"}}, {"id": 2, "main": {"name": "B"}}])
    with pytest.raises(InvalidParameter, match=r"^subset: id .* is no whole number$"):
        tables.subset([1, given])
    assert tables.subset([" 2 ", np.int64(1)])["icos"]["id"].tolist() == [1, 2]


# --- 3. every count bounded by an int64 -------------------------------------------------------

def test_a_budget_past_int64_is_refused_and_int64_taken(cfg, tmp_path, capsys, caplog):
    with pytest.raises(InvalidParameter, match=r"^budget must be a whole number from 0 to "
                                               r"9223372036854775807, got 9223372036854775808$"):
        icoframes.load_icos(status="past", budget=INT64_MAX + 1, progress=False)
    assert check_load_arguments(budget=np.int64(INT64_MAX)) == INT64_MAX
    code, err = _cli(["export", "--out", str(tmp_path / "out"), "--budget", str(10**30)],
                     capsys, caplog)
    assert code == 2 and "argument --budget: must be a whole number from 0 to " in err
    assert requests_served(cfg) == 0 and not (tmp_path / "out").exists()


def test_a_grow_every_past_int64_is_refused_by_start_and_by_the_command(capsys, caplog):
    with pytest.raises(InvalidParameter, match=r"^grow_every must be a whole number from 1 to "
                                               r"9223372036854775807 or None, got 1000"):
        sandbox.start(n_icos=1, grow_every=10**30)
    assert "argument --grow-every: must be a whole number from 1 to " in _refused_option(
        ["--grow-every", str(2**63)], capsys)
    with sandbox.serve(n_icos=1, grow_every=INT64_MAX) as served:  # the bound itself serves
        assert len(served.directory) == 1


def test_a_response_cap_and_a_page_past_int64_are_refused(cfg, client):
    for call in (lambda: icoframes.configure(max_response_bytes=2**63),
                 lambda: cfg.client(max_response_bytes=10**30)):
        with pytest.raises(InvalidParameter, match=r"max_response_bytes=.*: must be between "
                                                   r"1024 and 9223372036854775807$"):
            call()
    with pytest.raises(InvalidParameter, match=r"^invalid list parameter page=92233720368547758"
                                               r"08: must be an integer from 1 to 92233720368"
                                               r"54775807$"):
        client.list_page(page=2**63)
    assert requests_served(cfg) == 0


# --- 4. no positive age is held as 0 ----------------------------------------------------------

@pytest.mark.parametrize("option", ["--max-age", "--profile-max-age"])
@pytest.mark.parametrize("text", ["1e-400", "1e-7"])
def test_a_positive_age_too_short_to_hold_exits_2_not_an_age_of_0(cfg, tmp_path, option, text,
                                                                  capsys, caplog):
    # --max-age 1e-400 was 0 seconds: every cached row stale, every profile fetched again
    code, err = _cli(["export", "--out", str(tmp_path / "out"), option, text], capsys, caplog)
    assert code == 2, err
    assert f"'{text}'" in err or f"got {float(text)!r}" in err, err
    assert requests_served(cfg) == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("age", [1e-7, fractions.Fraction(1, 10**400), np.timedelta64(1, "ns"),
                                 pd.Timedelta("999ns"), np.float64(4e-7)],
                         ids=["1e-7", "Fraction-1e-400", "1ns", "999ns", "np-4e-7"])
def test_a_positive_age_shorter_than_a_microsecond_is_refused(cfg, age):
    for name in ("max_age", "profile_max_age"):
        with pytest.raises(InvalidParameter, match=rf"^{name} must be .*shorter than a "
                                                   "microsecond"):
            icoframes.load_icos(status="past", progress=False, **{name: age})
    with pytest.raises(InvalidParameter, match=r"^older_than must be .*shorter than a micro"):
        icoframes.prune_cache(age)
    assert requests_served(cfg) == 0


def test_an_age_of_0_and_of_a_microsecond_keep_their_meaning():
    one = dt.timedelta(microseconds=1)
    assert [as_age(0), as_age(0.0), as_age(1e-6), as_age(np.timedelta64(1000, "ns")),
            as_age(pd.Timedelta("1us"))] == [dt.timedelta(0), dt.timedelta(0), one, one, one]


# --- 5. a sandbox's quota of 0: one meaning (refused) in Python and on the command line --------

def test_a_quota_of_0_is_refused_by_start_with_what_it_most_likely_meant():
    # start(quota=0) answered every request with 485, while --quota 0 was no limit
    with pytest.raises(InvalidParameter, match=r"^quota must be a whole number from 1 to "
                                               r"9223372036854775807 or None, got 0; did you "
                                               r"mean None \(no limit\)\?$"):
        sandbox.start(n_icos=1, quota=0)
    with sandbox.serve(n_icos=1, quota=None) as unlimited:
        assert "quota=None" in repr(unlimited)  # no limit


def test_a_quota_of_0_exits_2_on_the_command_line_and_none_is_no_limit(capsys):
    assert "argument --quota: must be a whole number from 1 to 9223372036854775807 or 'none' " \
           "(no limit), got '0'; did you mean 'none'?" in _refused_option(["--quota", "0"], capsys)
    parser = command.add_arguments(command.Parser())
    assert [parser.parse_args(["--quota", text]).quota for text in ("none", " None", "7")] == [
        None, None, 7]
    assert parser.parse_args([]).quota == 5000


# --- 6 and 7. a path that names no folder -----------------------------------------------------

@pytest.fixture
def not_folders(tmp_path):
    """A FIFO, a regular file, and a path under that file."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    file = tmp_path / "notes.txt"
    file.write_text("kept")
    return {"fifo": (fifo, "it is a FIFO"), "file": (file, "it is a file"),
            "under-a-file": (file / "tables", f"{file} on its way is a file")}


@pytest.mark.parametrize("kind", ["fifo", "file", "under-a-file"])
def test_tables_read_from_no_folder_is_refused_by_the_package(not_folders, kind):
    # a FIFO or a file was the OS's bare NotADirectoryError of icos.parquet inside it
    path, why = not_folders[kind]
    with pytest.raises(InvalidParameter) as caught:
        icoframes.Tables.read_parquet(path)
    assert str(caught.value) == f"{path} names no folder of tables written by to_parquet: {why}"
    with pytest.raises(FileNotFoundError):  # a folder without tables: as it was
        icoframes.Tables.read_parquet(path.parent if kind != "under-a-file" else path.parent.parent)


@pytest.mark.parametrize("kind", ["fifo", "file", "under-a-file"])
def test_an_export_to_no_folder_is_an_invalid_argument_before_any_request(
        cfg, not_folders, kind, capsys, caplog):
    # an out that is a file was a ConfigError "cannot be written (File exists)"
    out, why = not_folders[kind]
    with pytest.raises(InvalidParameter) as caught:
        icoframes.export_tables(out, status="past", progress=False)
    assert not isinstance(caught.value, ConfigError)
    assert str(caught.value) == (f"out={out} names no folder: {why}. Nothing was sent or "
                                 "written; give out (--out) a folder, made if missing")
    code, err = _cli(["export", "--out", str(out), "--status", "past"], capsys, caplog)
    assert code == 2 and f"out={out} names no folder: {why}" in err
    assert requests_served(cfg) == 0
    assert not_folders["file"][0].read_text() == "kept"


# --- 9. what other modules import from reporting, it exports -----------------------------------

def test_every_name_the_package_imports_from_reporting_is_in_its_all():
    imported = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level and node.module == "reporting":
                imported |= {alias.name for alias in node.names}
    assert "AsDict" in imported  # export's ExportResult, housekeeping's CacheReport
    assert imported <= set(reporting.__all__), imported - set(reporting.__all__)
