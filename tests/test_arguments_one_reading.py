"""Arguments that had two readings, or an error of Python's, refused before any request
(review AE, L1 and L3-L6): a status given twice in ``profile_max_age``, a duration given to a
flag, a list or ``problem_summary`` given to ``read_snapshots(table=)``, a missing folder or a
snapshot tree given to ``Tables.read_parquet``, a dangling link or ``~`` given as ``out``, a
base URL with a space."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter, UnknownName
from icoframes.tables import Tables


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=3) as server:
        yield server


@pytest.fixture(scope="module")
def tree(sb, tmp_path_factory):
    """A snapshot tree of one day, exported from the sandbox."""
    out = tmp_path_factory.mktemp("tree") / "out"
    icoframes.configure(**sb.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
    try:
        icoframes.export_tables(out, status="past", snapshot=True, progress=False)
    finally:
        icoframes.reset_configuration()
    return out


@pytest.mark.parametrize("ages", [{"past": 3, "Past": 4}, {"past": 3, " past ": 3}])
def test_a_status_given_twice_to_profile_max_age_is_refused(cfg, ages):
    # the last one silently won: {'past': 3, 'Past': 4} was 4 seconds
    first, second = ages
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", profile_max_age=ages, progress=False)
    assert str(caught.value) == (f"profile_max_age: the status 'past' is given twice "
                                 f"({first!r} and {second!r}); give each status once")
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("keyword", ["refresh", "offline", "airdrop_program"])
@pytest.mark.parametrize("value", [np.timedelta64(1, "ns"), np.timedelta64(0, "D")])
def test_a_duration_given_to_a_flag_gets_no_bool_suggested(cfg, keyword, value):
    # np.timedelta64(1, 'ns') is a numbers.Integral to numpy: it got "did you mean True?"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", progress=False, **{keyword: value})
    assert repr(value) in str(caught.value)
    assert "did you mean" not in str(caught.value)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("load", ["load_list", "load_icos", "load_tables"])
@pytest.mark.parametrize("key", [pd.NA, ["id"], np.nan])
def test_a_sort_key_that_is_no_text_is_refused_without_a_status_too(cfg, load, key):
    # without a status the loader reads the sort for the combined rows first: pd.NA was a
    # TypeError (boolean value of NA is ambiguous), ['id'] unhashable
    with pytest.raises(InvalidParameter, match="must be one of name, id, start_datetime"):
        getattr(icoframes, load)(progress=False, sort_asc=key)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("table", "meant"), [(["icos"], "; did you mean 'icos'?"),
                                              (("team",), "; did you mean 'team'?"),
                                              (["icos", "team"], ""), (5, ""), (None, "")])
def test_read_snapshots_table_must_be_one_name(tree, table, meant):
    # ["icos"] raised TypeError "unhashable type: 'list'"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.read_snapshots(tree, table=table)
    assert str(caught.value) == f"table must be one table's name, got {table!r}{meant}"


def test_read_snapshots_says_why_problem_summary_is_no_table(tree):
    assert (next(tree.iterdir()) / "problem_summary.parquet").is_file()  # exports write it
    with pytest.raises(UnknownName) as caught:
        icoframes.read_snapshots(tree, table="problem_summary")
    assert str(caught.value).startswith(
        "'problem_summary' is counted from the problems table, not stacked: "
        "read_snapshots(path, 'problems')")
    assert len(icoframes.read_snapshots(tree, table="problems")) >= 0


def test_tables_read_parquet_of_a_snapshot_tree_points_to_read_snapshots(tree):
    # was pyarrow's FileNotFoundError "Failed to open local file '.../icos.parquet'"
    (day,) = (p.name for p in tree.iterdir() if p.name.startswith("snapshot_date="))
    with pytest.raises(InvalidParameter) as caught:
        Tables.read_parquet(tree)
    assert str(caught.value) == (
        f"{tree} is an export tree of 1 snapshots, not one folder of tables: "
        f"read_snapshots(path, table) stacks them, read_export(path / {day!r}) the latest")
    assert len(Tables.read_parquet(tree / day).icos) > 0


def test_tables_read_parquet_of_nothing_says_nothing_is_there(tmp_path):
    with pytest.raises(FileNotFoundError) as caught:
        Tables.read_parquet(tmp_path / "nope")
    assert str(caught.value) == f"{tmp_path / 'nope'}: nothing is there (no folder of tables)"


def test_an_out_that_is_a_dangling_link_says_so(cfg, tmp_path, caplog):
    # was ConfigError "cannot be written (File exists)"
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(InvalidParameter) as caught:
        icoframes.export_tables(link, status="past", progress=False)
    assert str(caught.value).startswith(
        f"out={link} names no folder: it is a symbolic link to '{tmp_path / 'nowhere'}', "
        "which names nothing. Nothing was sent or written")  # the readers' words
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(link), "--status", "past"]) == 2
    assert f"{link} names no folder: it is a symbolic link" in caplog.text
    assert cfg.stats.requests.total() == 0
    assert not (tmp_path / "nowhere").exists()


def test_out_expands_the_home_folder_as_cache_dir_does(cfg, tmp_path, monkeypatch):
    # out="~/x" was a folder named "~" in the current directory
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    result = icoframes.export_tables("~/x", status="past", progress=False)
    assert result.path == home / "x"
    assert (home / "x" / "icos.parquet").is_file()
    assert list(cwd.iterdir()) == []
    assert Tables.read_parquet("~/x").icos.equals(icoframes.read_export("~/x").icos)


def test_an_out_under_an_unknown_users_home_is_refused(cfg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidParameter) as caught:
        icoframes.export_tables("~icoframes-no-such-user/x", status="past", progress=False)
    assert str(caught.value) == ("out='~icoframes-no-such-user/x' begins with the home folder "
                                 "(~name) of a user this machine does not have")
    assert cfg.stats.requests.total() == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tail", ["/ x", "/a b", "/a\tb"])
def test_a_base_url_with_a_space_is_refused_before_any_request(sb, clean_settings, tmp_path,
                                                               monkeypatch, caplog, tail):
    # was 6 attempts at a URL no request can carry, then exit 1
    settings = sb.settings()
    monkeypatch.setenv("ICOFRAMES_BASE_URL", settings["base_url"] + tail)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", settings["public_key"])
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", settings["private_key"])
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", os.fspath(tmp_path / "cache"))
    sb.stats.reset()
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(tmp_path / "out"), "--status", "past"]) == 2
    assert "holds a space or a control character (a space in a path is %20)" in caplog.text
    assert sb.stats.requests.total() == 0
    assert not Path(tmp_path / "out").exists()
    with pytest.raises(InvalidParameter, match="holds a space or a control character"):
        icoframes.configure(base_url=settings["base_url"] + tail)


# --- L2: text given to an integer argument, one rule: ASCII digits are the integer --------


def test_a_budget_as_text_is_the_integer_as_max_workers_is(cfg):
    # budget=" 3 " was refused ("did you mean 3?") while max_workers=" 3 " was 3
    with pytest.warns(icoframes.errors.IncompleteWarning, match="budget ran out"):
        icos = icoframes.load_icos("past", budget=" 3 ", max_workers=" 3 ", progress=False)
    assert len(icos) == 3
    assert sum(cfg.stats.profile_hits.values()) == 3  # the budget, spent exactly
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", budget="3.0", progress=False)
    assert str(caught.value).endswith(", got '3.0'; did you mean 3?")


def test_integer_arguments_read_text_alike(tmp_path):
    import matplotlib

    from icoframes.plotting import plot_raised
    from icoframes.store.ledger import QuotaLedger

    matplotlib.use("Agg")
    with sandbox.serve(n_icos=" 7 ", seed="+3", quota=" 50 ") as server:  # was refused
        assert server.service_name.startswith("sandbox-3-7-")
    assert QuotaLedger(tmp_path, "pk", limit=" 3 ", service="http://127.0.0.1:9").limit == 3
    tables = icoframes.tidy([{"id": i, "raised": f"{i * 1000} USD"} for i in (1, 2, 3, 4)])
    assert tables.subset([" 3 "]).icos["id"].tolist() == tables.subset([3]).icos["id"].tolist()
    plot_raised(tables.icos, top=" 2 ", bins=" 4 ")


@pytest.mark.parametrize("plot", ["plot_raised", "plot_scores"])
def test_top_given_as_text_names_as_many_groups_as_the_number(plot):
    """``top="2"`` is 2 where it is used, with ``by=`` (it reached the grouping as text:
    TypeError from a slice)."""
    import matplotlib

    matplotlib.use("Agg")
    draw = getattr(icoframes, plot)
    from icoframes import schema

    icos = schema.empty_frame(schema.TABLES["icos"]).reindex(range(6)).assign(
        raised=[1e6, 2e6, 3e6, 4e6, 5e6, 6e6], ico_score=[1.0, 2.0, 3.0, 4.0, 4.5, 2.5],
        platform=["A", "A", "B", "B", "C", "D"])
    labels = {}
    for top in (2, " 2 ", "+2"):
        ax = draw(icos, by="platform", top=top)
        labels[top] = [label.split(" (")[0] for label in ax.get_legend_handles_labels()[1]
                       if " (n=" in label]
        matplotlib.pyplot.close(ax.figure)
    assert labels[" 2 "] == labels["+2"] == labels[2] == ["A", "B", "other"]


# --- text given to a number of seconds: the integers' rule (numerals.number_text) ------------


def test_ages_as_text_are_the_seconds_they_write_as_the_options_are(cfg, tmp_path):
    # max_age=" 3 " was refused ("did you mean 3?") while budget=" 3 ", timeout=" 3 " and
    # --max-age " 3 " were read
    from icoframes.fetch.policy import age_limit, profile_max_age

    assert age_limit(" 3 ") == age_limit(3) and age_limit("1.5e1") == age_limit(15)
    assert profile_max_age("+3")["past"] == profile_max_age({"past": " 3 "})["past"] == (
        age_limit(3))
    icoframes.load_icos("past", progress=False)
    first = cfg.stats.requests.total()
    assert first > 0
    icoframes.load_icos("past", max_age=" 3600 ", profile_max_age="3600", progress=False)
    assert cfg.stats.requests.total() == first  # fresh: nothing asked again
    icoframes.load_icos("past", max_age="0", profile_max_age=" 0 ", progress=False)
    assert cfg.stats.requests.total() == 2 * first  # stale at once: everything asked again
    assert icoframes.prune_cache(" 86400 ").removed == icoframes.prune_cache(86400).removed


def test_an_export_records_ages_given_as_text_as_their_seconds(cfg, tmp_path):
    # the manifest is JSON read by scripts: " 86400 " would have been written as that text
    import json

    import pandas as pd

    icoframes.export_tables(tmp_path / "out", status="past", max_age=" 86400 ",
                            profile_max_age={"past": "3600", "ongoing": np.int64(60),
                                             "upcoming": pd.Timedelta("2h")}, progress=False)
    written = json.loads((tmp_path / "out" / "manifest.json").read_text())["arguments"]
    assert written["max_age"] == 86400 and written["profile_max_age"] == {
        "past": 3600, "ongoing": 60, "upcoming": 7200}
    icoframes.export_tables(tmp_path / "again", status="past", max_age=None,
                            profile_max_age=np.float64(60), progress=False)
    written = json.loads((tmp_path / "again" / "manifest.json").read_text())["arguments"]
    assert written["max_age"] is None and written["profile_max_age"] == 60
    # the statuses as the load reads them (REVK L1: {'Past': 60, ' ongoing ': 5} was written)
    icoframes.export_tables(tmp_path / "cased", status="past",
                            profile_max_age={"Past": 60, " ongoing ": "5"}, progress=False)
    written = json.loads((tmp_path / "cased" / "manifest.json").read_text())["arguments"]
    assert written["profile_max_age"] == {"past": 60, "ongoing": 5}


@pytest.mark.parametrize(("value", "hint"), [
    ("\u0663", "; did you mean 3?"), ("1_000", "; did you mean 1000?"),
    ("\uff12.5", "; did you mean 2.5?"), ("3 secs", "; did you mean '3s'?"),
    ("1 month", " (a month has no fixed length); did you mean '30D'?"),
    ("-3", " (negative: an age is 0 or more)"),
    ("1e20", " (more seconds than a timedelta holds: below 8.64e+13)"),
    ("1e-7", " (a positive age shorter than a microsecond, which an age would hold as 0)"),
    ("nan", ""), ("", "")])
def test_other_text_given_as_an_age_is_refused_with_what_it_means_before_any_request(
        cfg, value, hint):
    forms = "a timedelta, a duration such as '7D' or '12h', seconds"
    for keyword, said in (("max_age", f"max_age must be {forms} or None, got"),
                          ("profile_max_age", f"profile_max_age must be {forms}, "
                                              "or a mapping of them by status; got")):
        with pytest.raises(InvalidParameter) as caught:
            icoframes.load_icos("past", progress=False, **{keyword: value})
        assert str(caught.value) == f"{said} {value!r}{hint}"
    assert cfg.stats.requests.total() == 0


def test_the_sandbox_latency_as_text_is_its_seconds():
    with sandbox.serve(n_icos=1, latency=" 0.25 ", fail_rate="0") as server:  # was refused
        assert server.latency == 0.25
        server.set_latency("0")  # was a TypeError ('<' between str and int)
        assert server.latency == 0.0
        with pytest.raises(InvalidParameter) as caught:
            server.set_latency("\u0663")
        assert str(caught.value) == "latency must be seconds >= 0, finite, got '\u0663'; " \
                                    "did you mean 3.0?"
        assert server.latency == 0.0
