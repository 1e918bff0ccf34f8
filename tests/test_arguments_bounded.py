"""A refused argument is refused before any request, and said back short (review of 2026-11-27).

An argument given twice (by position and by name) was Python's bare TypeError; a refusal
quoted the value given whole (a 10 MB string, a number of 401 digits), or a key given by
mistake where a number goes; ``sandbox --quota`` took any number of digits. Requests are
counted at the sandbox, over loopback HTTP: a refusal costs none.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re

import keyed_sandbox
import numpy as np
import pandas as pd
import pytest
from keyed_sandbox import requests_served as _requests

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter

_KEY = keyed_sandbox.KEY
_HUGE = "x" * 10_000_000
#: The longest message a refusal of a huge value may be: its rule, and a short quote.
_SHORT = 400
LIMIT = 60  # icoframes.quoting.LIMIT: the most characters of a value quoted

sb, client = keyed_sandbox.sb, keyed_sandbox.client  # this module's sandbox, its client


@pytest.mark.parametrize(("call", "said"), [
    (lambda c: c.profile(1, ico_id=1), "ico_id is given twice to profile(): as argument 1"),
    (lambda c: c.list_page(1, page=2), "page is given twice to list_page(): as argument 1"),
])
def test_an_argument_given_twice_is_refused_before_any_request(cfg, client, call, said):
    with pytest.raises(InvalidParameter) as caught:
        call(client)
    assert str(caught.value).startswith(said)
    assert _requests(cfg) == 0 and client.total_attempts == 0


@pytest.mark.parametrize(("call", "said"), [
    (lambda: icoframes.load_icos("past", status="past", progress=False),
     "status is given twice to load_icos()"),
    (lambda: icoframes.load_tables("past", status="upcoming", progress=False),
     "status is given twice to load_tables()"),
])
def test_a_loader_given_an_argument_twice_refuses_it_before_any_request(cfg, call, said):
    # the loaders take **filters: their names are checked by the loaders' own rule, but a
    # status given twice was Python's "got multiple values for argument 'status'"
    with pytest.raises(InvalidParameter, match="^" + re.escape(said)):
        call()
    assert _requests(cfg) == 0


def test_an_export_given_its_folder_twice_writes_nothing(cfg, tmp_path):
    with pytest.raises(InvalidParameter, match="out is given twice to export_tables"):
        icoframes.export_tables(tmp_path / "a", out=tmp_path / "b", progress=False)
    assert _requests(cfg) == 0
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("value", ["abc", _HUGE, 10**400, float("nan"), True, -1],
                         ids=["abc", "10MB", "10**400", "nan", "True", "-1"])
def test_a_client_timeout_that_is_no_number_of_seconds_is_refused_short(sb, value):
    started = _requests(sb)
    with pytest.raises(InvalidParameter, match=r"^invalid timeout=") as caught:
        sb.client(timeout=value)
    message = str(caught.value)
    assert len(message) < _SHORT, message[:500]
    if value == "abc":
        assert message == "invalid timeout='abc': must be a number of seconds"
    assert _requests(sb) == started


def test_a_key_given_as_a_client_number_is_never_echoed(sb):
    for name in ("timeout", "pool_size", "max_response_bytes"):
        with pytest.raises(InvalidParameter) as caught:
            sb.client(**{name: _KEY})
        assert _KEY not in str(caught.value)
        assert "a text of 26 characters (not shown: it may be a key)" in str(caught.value)
    with pytest.raises(InvalidParameter) as caught:
        icoframes.configure(timeout=_KEY)
    assert _KEY not in str(caught.value)


@pytest.mark.parametrize(("size", "said"), [(10**100, "an integer of 101 digits"),
                                            (0, "invalid pool_size=0")])
def test_a_pool_size_out_of_range_is_refused(sb, size, said):
    # 10**100 connections: urllib3 fills its pool's queue with that many slots, forever
    with pytest.raises(InvalidParameter, match="must be between 1 and 1024") as caught:
        sb.client(pool_size=size)
    assert said in str(caught.value)


@pytest.mark.parametrize(("params", "said"), [
    ({"page": "abc"}, "invalid list parameter page='abc': must be an integer from 1 to "
                      "9223372036854775807"),
    ({"page": _HUGE}, "(10000000 characters): must be an integer from 1 to "),
    ({"status": _HUGE}, "(10000000 characters): must be one of ongoing, upcoming, past"),
    ({"platform": 10**5000}, "an integer of about 5,001 digits"),
    ({"accepted_currencies": ["ETH", _HUGE]}, "(10000000 characters) is not one"),
], ids=["page-abc", "page-10MB", "status-10MB", "platform-10**5000", "currency-10MB"])
def test_a_list_parameter_is_quoted_short_and_costs_no_request(cfg, client, params, said):
    with pytest.raises(InvalidParameter) as caught:
        client.list_page(**params)
    message = str(caught.value)
    assert said in message and len(message) < _SHORT, message[:500]
    assert _requests(cfg) == 0 and client.total_attempts == 0


def test_no_did_you_mean_is_looked_for_in_a_text_no_name_is_as_long_as():
    # difflib compared every character of a 10 MB status= with each status
    from icoframes.quoting import closest, did_you_mean
    assert closest("past" + "x" * 200, ["past"]) == [] and closest("pats", ["past"]) == ["past"]
    assert did_you_mean("past" + "x" * 200, ["past"]) == ""


@pytest.mark.parametrize(("ico_id", "said"), [
    (10**5000, "an integer of about 5,001 digits"), ("9" * 5000, "(5000 characters)"),
    (2**63, "must be a positive integer up to 9223372036854775807"), ("٣", "did you mean 3?")],
    ids=["10**5000", "5000-nines", "2**63", "arabic-3"])
def test_a_profile_id_is_refused_short_before_any_request(cfg, client, ico_id, said):
    with pytest.raises(InvalidParameter, match=r"^invalid argument ico_id=") as caught:
        client.profile(ico_id)
    assert said in str(caught.value) and len(str(caught.value)) < _SHORT
    assert _requests(cfg) == 0


@pytest.mark.parametrize("max_age", [10**400, -(10**400), _HUGE],
                         ids=["10**400", "-10**400", "10MB"])
def test_a_max_age_is_quoted_short(cfg, max_age):
    with pytest.raises(InvalidParameter, match=r"^max_age must be") as caught:
        icoframes.load_icos(status="past", max_age=max_age, progress=False)
    message = str(caught.value)
    assert len(message) < _SHORT and "0" * (LIMIT + 1) not in message, message[:500]
    assert _requests(cfg) == 0


def test_a_huge_whole_number_is_said_by_its_digits():
    from icoframes.quoting import quoted
    assert quoted(10**400) == "1" + "0" * 29 + "… (an integer of 401 digits)"
    assert quoted(-(10**400)).startswith("-1000") and quoted(10**5000).endswith("digits")
    assert quoted(dt.timedelta(days=1)) == "datetime.timedelta(days=1)"


def _cli(args, capsys, caplog) -> tuple[int, str]:
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(args)
    return code, capsys.readouterr().err + caplog.text


@pytest.mark.parametrize("quota", [str(10**100), str(2**63), "9" * 5000],
                         ids=["10**100", "2**63", "5000-nines"])
def test_a_sandbox_quota_past_int64_exits_2_before_serving(quota, capsys, caplog):
    code, err = _cli(["sandbox", "--port", "0", "--quota", quota], capsys, caplog)
    assert code == 2, err
    assert "argument --quota: must be a whole number from 1 to 9223372036854775807" in err
    assert "serving" not in err and len(err) < 2000


def test_a_sandbox_quota_past_int64_is_refused_in_python_too():
    with pytest.raises(InvalidParameter, match="quota must be a whole number from 1 to 9223"):
        sandbox.start(quota=10**100)


@pytest.mark.parametrize("seed", [10**100, 10**5000, -(2**63) - 1], ids=["10**100", "10**5000",
                                                                          "below-int64"])
def test_a_seed_past_int64_is_refused_by_start_and_by_the_command(seed, capsys, caplog):
    # 10**5000 was a bare ValueError (its service name has no text), 10**100 a sandbox whose
    # settings configure() refused (a service name of more than 100 characters)
    with pytest.raises(InvalidParameter, match="seed must be a whole number from "
                       "-9223372036854775808 to 9223372036854775807, got "):
        sandbox.start(n_icos=5, seed=seed)
    if abs(seed) < 10**1000:
        code, err = _cli(["sandbox", "--port", "0", "--seed", str(seed)], capsys, caplog)
        assert code == 2 and "argument --seed: must be an integer from -92" in err, err[:500]


def test_a_seed_at_the_int64_bounds_serves_and_configures(tmp_path):
    with sandbox.serve(n_icos=3, seed=-(2**63)) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        try:
            assert len(icoframes.load_list(status="past", progress=False)) <= 3
        finally:
            icoframes.reset_configuration()


@pytest.mark.parametrize("args", [
    ["export", "--out", "o", "--status", "x" * 100_000],
    ["export", "--out", "o", "--status", "past", "--status", "x" * 100_000],
    ["cache", "x" * 100_000],
    ["export", "--out", "o", "y" * 100_000],
], ids=["choice", "twice", "action", "unrecognized"])
def test_the_command_line_says_a_long_value_short(args, tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.chdir(tmp_path)
    code, err = _cli(args, capsys, caplog)
    assert code == 2 and len(err) < 3000, err[:500]
    assert ("characters)" in err or "not shown" in err) and not (tmp_path / "o").exists()


@pytest.mark.parametrize("plot", ["plot_raised", "plot_scores"])
@pytest.mark.parametrize("bins", [10**400, 10**12, 0], ids=["10**400", "10**12", "0"])
def test_a_number_of_bins_past_what_a_figure_shows_is_refused(plot, bins):
    # 10**400 was numpy's bare "Maximum allowed size exceeded"; 10**12 edges took 8 TB
    import matplotlib
    matplotlib.use("Agg")
    with pytest.raises(InvalidParameter, match="bins must be from 1 to 5,000 bins, got "):
        getattr(icoframes, plot)(icoframes.Tables.empty().icos, bins=bins)


def test_a_long_key_given_where_a_choice_goes_is_not_shown(capsys, caplog):
    # argparse quotes an invalid choice whole; one past the quote limit was cut to its first
    # 60 characters, a key's first 60 among them
    key = "sandbox-private-" + "7f3a9c1d5e" * 6
    code, err = _cli(["cache", key], capsys, caplog)
    assert code == 2 and "not shown: it may be a key" in err
    assert key[:12] not in err and key[-12:] not in err


@pytest.mark.parametrize("plot", ["plot_raised", "plot_scores"])
@pytest.mark.parametrize("given", [{"bins": np.timedelta64(10, "ns")}, {"top": np.timedelta64(5)}],
                         ids=["bins", "top"])
def test_a_numpy_duration_is_no_count_of_bins_nor_a_top(plot, given):
    # numpy registers timedelta64 as an integer: it was taken as 10 bins, or a top 5
    import matplotlib
    matplotlib.use("Agg")
    frame = icoframes.Tables.empty().icos
    with pytest.raises(InvalidParameter, match=f"^{next(iter(given))} must be "):
        getattr(icoframes, plot)(frame, **given)


@pytest.mark.parametrize("nat", [np.timedelta64("NaT"), np.timedelta64(5)], ids=["NaT", "no-unit"])
def test_a_numpy_duration_that_is_no_age_is_refused_and_quoted(cfg, nat):
    # a timedelta64 is an Integral to numbers: quoting it as a whole number (int(NaT)) raised
    # a bare TypeError in place of the refusal
    with pytest.raises(InvalidParameter, match="older_than must be a timedelta, a duration"):
        icoframes.prune_cache(nat)
    for name in ("max_age", "profile_max_age"):
        with pytest.raises(InvalidParameter, match=f"^{name} must be a timedelta"):
            icoframes.load_icos(status="past", progress=False, **{name: nat})
    assert _requests(cfg) == 0


def test_a_generator_of_ids_is_the_list_of_its_ids(cfg, tmp_path):
    # each check read the filter's values again: the second saw none ("must not be an empty
    # list"), and an export wrote the generator's repr as the query given
    listed = icoframes.load_icos(status="past", platform=[1, 2], progress=False)
    generated = icoframes.load_icos(status="past", platform=(i for i in (1, 2)),
                                    progress=False)
    assert sorted(generated["id"]) == sorted(listed["id"])
    icoframes.export_tables(tmp_path / "out", status="past", platform=iter([1, 2]),
                            progress=False, allow_empty=True)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["arguments"]["filters"] == {"platform": [1, 2]}


@pytest.mark.parametrize("read", ["read_export", "read_snapshots", "changes"])
def test_a_path_no_file_system_holds_is_refused_short(read, tmp_path):
    # stat() raised a bare OSError "File name too long" quoting all 5,000 characters
    for path in ("x" * 5000, tmp_path / ("y" * 300), "z/" * 3000):
        with pytest.raises(InvalidParameter, match="is no path a file system holds") as caught:
            getattr(icoframes, read)(path)
        assert len(str(caught.value)) < _SHORT


def test_a_cache_dir_no_file_system_holds_is_refused_by_configure(clean_settings):
    # taken, the first load failed with a bare OSError "File name too long"
    with pytest.raises(InvalidParameter, match=r"invalid cache_dir=.* is no path a file system"):
        icoframes.configure(cache_dir="x" * 5000)


def test_changes_refuses_its_arguments_before_reading_the_tree(tmp_path):
    # gaps=5 was checked only after the tree was read (a missing tree said so instead), and
    # a frame that is no snapshots was a plain ValueError
    with pytest.raises(InvalidParameter, match="gaps must be 'mark' or 'skip', got 5"):
        icoframes.changes(tmp_path / "no-tree", gaps=5)
    for frame in (pd.DataFrame(), pd.DataFrame({"snapshot_date": [], "id": []})):
        with pytest.raises(InvalidParameter, match="changes needs"):
            icoframes.changes(frame)


@pytest.mark.parametrize("timeout", [1e10, 1e308, 86_400.5])
def test_a_timeout_over_a_day_is_refused_before_any_request(sb, timeout, clean_settings):
    # accepted, it made every request a bare OverflowError of the watchdog's timer (and a
    # thread's traceback on stderr)
    started = _requests(sb)
    with pytest.raises(InvalidParameter, match="must be positive and at most 86,400"):
        sb.client(timeout=timeout)
    with pytest.raises(InvalidParameter, match="must be positive and at most 86,400"):
        icoframes.configure(timeout=timeout)
    assert _requests(sb) == started


def test_a_timeout_of_a_day_sends(sb):
    with sb.client(timeout=86_400) as client:
        assert client.filters()


def test_a_table_the_bundle_lacks_is_named_short_with_its_closest():
    # a bare KeyError of the name given, whole (1,000,002 characters), with no suggestion
    tables = icoframes.Tables.empty()
    with pytest.raises(KeyError, match="did you mean 'icos'") as caught:
        tables["icoss"]
    assert isinstance(caught.value, InvalidParameter)
    with pytest.raises(InvalidParameter) as caught:
        tables["x" * 1_000_000]
    assert len(str(caught.value)) < _SHORT
    assert tables.get("icoss") is None and "icoss" not in tables


def test_an_amount_column_to_convert_is_named_short():
    tables = icoframes.Tables.empty()
    with pytest.raises(InvalidParameter, match="no amount column") as caught:
        icoframes.to_usd(tables.icos, pd.DataFrame(), columns="x" * 1_000_000)
    assert len(str(caught.value)) < _SHORT
