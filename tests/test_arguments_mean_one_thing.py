"""Arguments that meant something else than they say are refused before any request.

Each case here was accepted before: an empty path was the current directory, a
truthy string a True, an empty name a request for the filter set. Every call
runs from an empty working directory, which must stay empty.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    """An empty working directory for the test (it must stay empty)."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _cli(args, capsys, caplog) -> tuple[int, str]:
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(args)
    return code, capsys.readouterr().err + caplog.text


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused_not_the_current_directory(cfg, cwd, out, capsys, caplog):
    with pytest.raises(InvalidParameter, match=r"out='\s*' is an empty path") as caught:
        icoframes.export_tables(out, status="past", progress=False)
    assert "current directory" in str(caught.value)
    code, err = _cli(["export", "--out", out, "--status", "past"], capsys, caplog)
    assert code == 2, err
    assert "--out: an empty path" in err and "wrote" not in err
    assert cfg.stats.requests.total() == 0
    assert list(cwd.iterdir()) == []


def test_an_out_that_is_no_path_is_refused_as_an_argument(cfg, cwd):
    for out in (None, 5):
        with pytest.raises(InvalidParameter, match="out must be a folder path"):
            icoframes.export_tables(out, status="past", progress=False)  # type: ignore[arg-type]
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_cache_dir_is_refused_not_the_current_directory(cfg, cwd, tmp_path, empty,
                                                                  capsys, caplog):
    with pytest.raises(InvalidParameter, match=r"invalid cache_dir='\s*': is an empty path"):
        icoframes.configure(cache_dir=empty)
    assert icoframes.get_settings().cache_dir == tmp_path / "cache"  # unchanged
    with pytest.raises(InvalidParameter, match="is an empty path"):
        icoframes.export_tables(tmp_path / "out", status="past", cache_dir=empty,
                                progress=False)
    code, err = _cli(["export", "--out", str(tmp_path / "out"), "--cache-dir", empty],
                     capsys, caplog)
    assert code == 2 and "--cache-dir: an empty path" in err, err
    assert cfg.stats.requests.total() == 0
    assert list(cwd.iterdir()) == [] and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("name", "value"), [("snapshot", "no"), ("snapshot", 1),
                                             ("allow_empty", "no"), ("allow_empty", None),
                                             ("allow_empty", 0)])
def test_export_flags_take_true_or_false_only(cfg, tmp_path, name, value):
    with pytest.raises(InvalidParameter, match=f"{name} must be True or False, got {value!r}"):
        icoframes.export_tables(tmp_path / "out", status="past", progress=False,
                                **{name: value})
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("refresh", ["yes", "no", 2, 1, 0, 1.0])
def test_refresh_is_true_false_or_all_never_a_truthy_value(cfg, tmp_path, refresh):
    for load in (icoframes.load_list, icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(InvalidParameter, match=r"refresh must be False, True or 'all'"):
            load(status="past", refresh=refresh, progress=False)
    with pytest.raises(InvalidParameter, match=r"refresh must be False, True or 'all'"):
        icoframes.export_tables(tmp_path / "out", status="past", refresh=refresh,
                                progress=False)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("refresh", "hint"), [
    ("yes", "; did you mean True?"), (1, "; did you mean True?"),
    (0.0, "; did you mean False?"), ("maybe", ""), (None, "")])
def test_load_filters_refresh_is_said_as_what_it_takes_true_or_false(cfg, refresh, hint):
    # its own rule only: the loaders' "False, True or 'all'" offered what it refuses
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_filters(refresh=refresh)
    assert str(exc.value).startswith(f"refresh must be True or False, got {refresh!r}")
    assert "'all'" not in str(exc.value) and str(exc.value).endswith(hint or repr(refresh))
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("refresh", ["all", " All"])
def test_load_filters_refresh_all_is_refused_it_has_no_profiles(cfg, refresh):
    with pytest.raises(InvalidParameter, match=f"refresh must be True or False, got {refresh!r}: "
                       "'all' re-fetches the profiles of load_icos and load_tables, and the "
                       "filter set has none; True asks for it again"):
        icoframes.load_filters(refresh=refresh)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("key", "value"), [("platform", ""), ("platform", "  "),
                                            ("category", [1, ""]), ("type", [" "])])
def test_an_empty_name_is_refused_before_the_filter_set_is_asked(cfg, key, value):
    with pytest.raises(InvalidParameter, match=f"{key}=.*: must be ids or names, not an empty"):
        icoframes.load_list(status="past", progress=False, **{key: value})
    assert cfg.stats.requests.total() == 0  # not even the filter set


@pytest.mark.parametrize(("option", "value"), [("--max-age", "inf"), ("--max-age", "nan"),
                                               ("--max-age", "-5"),
                                               ("--profile-max-age", "inf"),
                                               ("--profile-max-age", "-1")])
def test_an_age_that_is_no_finite_count_of_seconds_exits_2_not_1(cfg, tmp_path, option, value,
                                                                 capsys, caplog):
    out = str(tmp_path / "out")
    code, err = _cli(["export", "--out", out, option, value], capsys, caplog)
    assert code == 2, err
    assert f"argument {option}: must be a duration such as 12h or 30D, or a finite number of " \
        f"seconds >= 0 that a timedelta holds (below 8.64e+13), got {value!r}" in err
    assert "Traceback" not in err
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("typed", "meant"), [("--locaton", "--location"),
                                              ("--snapshots", "--snapshot"),
                                              ("--allow-incompelte", "--allow-incomplete"),
                                              ("--max_age", "--max-age")])
def test_a_misspelled_option_gets_a_did_you_mean(cfg, tmp_path, typed, meant, capsys, caplog):
    code, err = _cli(["export", "--out", str(tmp_path / "out"), typed, "1"], capsys, caplog)
    assert code == 2
    assert f"unrecognized arguments: {typed} 1; did you mean {meant!r}?" in err
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()


def test_an_unrecognized_word_that_is_no_option_is_named_without_a_guess(cfg, capsys, caplog):
    code, err = _cli(["cache", "info", "everything"], capsys, caplog)
    assert code == 2 and "unrecognized arguments: everything\n" in err


def _list_recording(bodies: list) -> object:
    """The list endpoint: records each request's parameters, answers error 482 (no match)."""
    from hostile import json_reply

    def behaviour(h) -> None:
        bodies.append(h.request_json())
        json_reply({"error": 482, "data": [], "total_icos": 0, "total_pages": 0,
                    "current_page": 1})(h)
    return behaviour


def test_a_name_the_filter_set_gives_two_ids_asks_for_both(configure):
    # a directory listing one platform twice (an old and a new entry): its name means both
    from hostile import FILTERS, LIST, HostileServer, json_reply

    filters = {"error": None, "platform": [{"id": 1, "name": "Ethereum"},
                                           {"id": 2, "name": "Waves"},
                                           {"id": 18, "name": "ethereum "}],
               "category": [], "type": [], "location": [{"name": "UK"}]}
    bodies: list = []
    with HostileServer({FILTERS: json_reply(filters), LIST: _list_recording(bodies)}) as srv:
        configure(srv)
        with pytest.warns(icoframes.NoMatchWarning):
            icoframes.load_list(status="past", platform="Ethereum", progress=False)
        with pytest.warns(icoframes.NoMatchWarning):
            icoframes.load_list(status="past", platform=["Waves", "ETHEREUM", 1],
                                progress=False)
    assert [sorted(b.get("platform")) for b in bodies] == [[1, 18], [1, 2, 18]]


@pytest.mark.parametrize(("typed", "meant"), [("ico", "icos"), ("ICOS", "icos"),
                                              ("problem", "problems"), ("advisor", "advisors")])
def test_describe_of_a_misspelled_table_says_which_was_meant(typed, meant):
    with pytest.raises(KeyError, match=f"no table {typed!r}; did you mean {meant!r}"):
        icoframes.describe(typed)


@pytest.mark.parametrize("table", [None, 5, ["icos"]])
def test_describe_of_something_that_is_no_table_is_an_invalid_parameter(table):
    with pytest.raises(InvalidParameter, match="describe takes a table name"):
        icoframes.describe(table)  # type: ignore[arg-type]


_SECONDS = "a finite number of seconds >= 0 that a timedelta holds (below 8.64e+13)"


@pytest.mark.parametrize(("option", "value", "rule"), [
    ("--port", "70000", "a port from 0 to 65535"), ("--port", "-1", "a port from 0 to 65535"),
    ("--n-icos", "-5", "a whole number from 0 to 1000000"),
    ("--quota", "-1", "a whole number from 1 to 9223372036854775807 or 'none' (no limit)"),
    ("--grow-every", "0", "a whole number from 1 to 9223372036854775807"),
    ("--latency", "-1", _SECONDS), ("--latency", "inf", _SECONDS),
    ("--fail-rate", "2", "a share from 0 to 1"), ("--fail-rate", "nan", "a share from 0 to 1")])
def test_a_sandbox_option_out_of_range_exits_2_naming_it(option, value, rule, capsys, caplog):
    # refused by the parser: no server is started (a traceback and exit 1 before)
    code, err = _cli(["sandbox", option, value], capsys, caplog)
    assert code == 2, err
    assert f"argument {option}: must be {rule}, got {value!r}" in err
    assert "Traceback" not in err and "serving" not in err


@pytest.mark.parametrize("value", [Decimal("2.5"), Fraction(5, 2), 2.0, np.float64(3.0),
                                   np.True_, True, "2.5"])
@pytest.mark.parametrize("name", ["max_workers", "daily_quota", "max_response_bytes"])
def test_a_whole_number_setting_takes_whole_numbers_only(clean_settings, name, value):
    # Decimal("2.5") and Fraction(5, 2) were cut to 2, np.True_ was 1, 2.0 was 2
    with pytest.raises(InvalidParameter, match=f"invalid {name}=.*: must be an integer"):
        icoframes.configure(**{name: value})


def test_whole_numbers_of_numpy_and_the_environment_still_count(clean_settings, monkeypatch):
    assert icoframes.configure(max_workers=np.int64(3)).max_workers == 3
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", " 5 ")
    icoframes.reset_configuration()
    assert icoframes.get_settings().max_workers == 5


@pytest.mark.parametrize("value", [True, np.True_])
def test_a_timeout_is_no_bool(clean_settings, value):
    with pytest.raises(InvalidParameter, match=r"timeout=.*: must be a number of seconds"):
        icoframes.configure(timeout=value)  # np.True_ was 1 second


def test_a_misspelled_group_column_of_a_plot_says_which_was_meant(cfg):
    pytest.importorskip("matplotlib")
    icos = icoframes.load_icos(status="past", progress=False)
    for plot in (icoframes.plot_raised, icoframes.plot_scores):
        with pytest.raises(InvalidParameter, match=r"by='Platform' is not a column of icos; "
                                                   r"did you mean 'platform'\?"):
            plot(icos, by="Platform")
        with pytest.raises(InvalidParameter, match=r"by='categry' is not a column of icos; "
                                                   r"did you mean 'category'\?"):
            plot(icos, by="categry")


@pytest.mark.parametrize(("gaps", "hint"), [("skp", "; did you mean 'skip'?"),
                                            ("Mark", "; did you mean 'mark'?"), (None, "")])
def test_changes_gaps_is_mark_or_skip_with_a_did_you_mean(gaps, hint):
    import pandas as pd

    snaps = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-01"], format="%Y-%m-%d"),
                          "id": [1], "status": ["past"]})
    with pytest.raises(InvalidParameter) as caught:
        icoframes.changes(snaps, gaps=gaps)
    assert str(caught.value) == f"gaps must be 'mark' or 'skip', got {gaps!r}{hint}"


def test_refresh_none_with_snapshot_means_what_it_says(cfg, tmp_path, capsys, caplog,
                                                       one_ledger_day):
    # "--refresh none" with --snapshot was silently made "changed", then refused (a snapshot
    # re-paged its lists on every run). A snapshot now takes the lists paged earlier the same
    # UTC day as they are, which is what "none" says: it is the snapshot's default, and a
    # second run of the day pays no list page; "changed" and "all" page the lists now
    out = tmp_path / "out"
    args = ["export", "--out", str(out), "--status", "past", "--snapshot"]
    code, err = _cli([*args, "--refresh", "none"], capsys, caplog)
    assert code == 0, err
    pages = cfg.stats.requests["icos"]
    assert pages > 0
    for refresh in (["--refresh", "none"], []):
        code, err = _cli([*args, *refresh], capsys, caplog)
        assert code == 0, err
    assert cfg.stats.requests["icos"] == pages
    for refresh in (["--refresh", "changed"], ["--refresh", "all"]):
        code, err = _cli([*args, *refresh], capsys, caplog)
        assert code == 0, err
    assert cfg.stats.requests["icos"] == 3 * pages
    code, err = _cli(["export", "--out", str(tmp_path / "plain"), "--status", "past",
                      "--refresh", "none"], capsys, caplog)
    assert code == 0, err


def test_a_snapshot_that_ends_after_midnight_is_named_by_the_day_its_lists_were_paged(
        configure, tmp_path):
    # an export begun at 23:59:59 UTC whose last profile arrives after midnight: its lists
    # are the service's of that day, and the folder said the next day (so two runs of one
    # cron line could share a name, one replacing the other, and a day go missing)
    import datetime as dt

    import time_machine
    from hostile import FILTERS, LIST, PROFILE, HostileServer, json_reply, paged_list

    begun = dt.datetime(2026, 3, 1, 23, 59, 59, tzinfo=dt.UTC)
    with time_machine.travel(begun, tick=False) as traveller:
        def profile(h) -> None:
            asked = h.request_json().get("id")
            if asked == 3:  # the last profile: the clock passes midnight while it is fetched
                traveller.move_to(begun + dt.timedelta(seconds=2))
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"}}})(h)

        filters = {"error": None, "platform": [], "category": [], "type": [], "location": []}
        with HostileServer({FILTERS: json_reply(filters), LIST: paged_list(3),
                            PROFILE: profile}) as srv:
            configure(srv, max_workers=1)
            result = icoframes.export_tables(tmp_path / "out", status="past", snapshot=True,
                                             progress=False)
    assert result.exported_at == begun + dt.timedelta(seconds=2)  # when it was written
    assert result.path == tmp_path / "out" / "snapshot_date=2026-03-01"
    assert [p.name for p in (tmp_path / "out").glob("snapshot_date=*")] == [
        "snapshot_date=2026-03-01"]
    assert result.manifest["queries"][0]["fetched_at"].startswith("2026-03-01T23:59:59")
    assert icoframes.history.snapshot_info(tmp_path / "out")["snapshot_date"].tolist() == [
        dt.datetime(2026, 3, 1)]


@pytest.mark.parametrize("value", ["no", "False", 1, 0, None])
def test_cache_housekeeping_flags_take_true_or_false_only(cfg, tmp_path, value):
    # clear_cache(all="no", ledgers="no") removed every service's cache and today's
    # request count, the one the daily_quota cap needs
    icoframes.load_list(status="past", progress=False)
    before = _tree(tmp_path / "cache")
    sent = icoframes.cache_info().requests_today
    calls = [lambda: icoframes.clear_cache(all=value), lambda: icoframes.clear_cache(ledgers=value),
             lambda: icoframes.cache_info(all=value),
             lambda: icoframes.prune_cache(0, ledgers=value)]
    for call in calls:
        # (ledgers takes "only" too: "True, False or 'only'")
        with pytest.raises(InvalidParameter, match=r"(all|ledgers) must be True(,| or) False"):
            call()
    assert _tree(tmp_path / "cache") == before
    assert icoframes.cache_info().requests_today == sent > 0


def _tree(folder) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("arguments", [
    {"n_icos": True}, {"n_icos": 2.5}, {"n_icos": "10.0"}, {"quota": True}, {"quota": 2.5},
    {"latency": float("inf")}, {"latency": float("nan")}, {"fail_rate": True},
    {"grow_every": True}, {"seed": 1.5}, {"port": True}, {"port": 70000}])
def test_the_sandbox_refuses_numbers_that_mean_something_else(arguments):
    # n_icos=True served 1 ICO, quota=2.5 a quota, fail_rate=True failed every request,
    # port=True bound port 1, latency=nan served; each is now refused before binding
    [name] = arguments
    with pytest.raises(InvalidParameter, match=f"^{name} must be .*, got "):
        sandbox.serve(**arguments)


@pytest.mark.parametrize("empty", ["", "  "])
def test_tables_to_parquet_refuses_an_empty_path(cwd, empty):
    from icoframes.tables import Tables

    with pytest.raises(InvalidParameter, match=r"directory='\s*' is an empty path"):
        Tables.empty().to_parquet(empty)
    assert list(cwd.iterdir()) == []  # it wrote 11 files into the working directory


@pytest.mark.parametrize("twice", [["--status", "past", "--status", "ongoing"],
                                   ["--ico-score", "3", "--ico-score", "7"],
                                   ["--budget", "5", "--budget", "50"],
                                   ["--refresh", "all", "--refresh", "none"],
                                   ["--max-age", "60.0", "--max-age", "3600.0"]])
def test_an_export_option_given_twice_is_refused_not_the_last_taken(cfg, tmp_path, twice,
                                                                     capsys, caplog):
    out = tmp_path / "out"
    code, err = _cli(["export", "--out", str(out), *twice], capsys, caplog)
    assert code == 2, err
    assert (f"argument {twice[0]}: given twice ({twice[1]}, then {twice[3]}); "
            "give it once") in err
    assert cfg.stats.requests.total() == 0 and not out.exists()


def test_reading_an_export_at_an_empty_path_is_refused(cwd):
    # "" read the working directory as an export tree
    from icoframes import history

    for read, name in ((icoframes.read_export, "path"), (icoframes.read_snapshots, "path"),
                       (icoframes.changes, "snapshots"), (history.snapshot_info, "path")):
        with pytest.raises(InvalidParameter, match=f"^{name}='' is an empty path"):
            read("")


@pytest.mark.parametrize("suffix", ["?token=abc", "#top", "/?a=1"])
def test_a_base_url_with_a_query_or_fragment_is_refused_before_any_request(sb, tmp_path,
                                                                           monkeypatch, suffix):
    # it was taken, and each call spent a request on "POST /?token=abc/api/v1/icos/" (481)
    settings = {**sb.settings(), "base_url": sb.base_url + suffix}
    sb.stats.reset()
    try:
        with pytest.raises(InvalidParameter, match="has a query or a fragment"):
            icoframes.configure(**settings, cache_dir=tmp_path / "cache")
        monkeypatch.setenv("ICOFRAMES_BASE_URL", settings["base_url"])
        with pytest.raises(icoframes.ConfigError, match=r"ICOFRAMES_BASE_URL=.*has a query"):
            icoframes.get_settings()
    finally:
        icoframes.reset_configuration()
    assert sb.stats.requests.total() == 0


@pytest.mark.parametrize(("plot", "typed", "meant"), [
    ("plot_raised", "tpo", "top"), ("plot_raised", "bin", "bins"), ("plot_raised", "lgo", "log"),
    ("plot_scores", "bys", "by"), ("plot_timeline", "frq", "freq"),
    ("plot_timeline", "now_", "now"), ("plot_status_flow", "axes", "ax"),
    ("plot_raised_vs_cap", "axes", "ax")])
def test_a_misspelled_plot_keyword_is_refused_not_sent_to_matplotlib(cfg, plot, typed, meant):
    # it went to matplotlib as a style: "Rectangle.set() got an unexpected keyword argument"
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    with pytest.raises(InvalidParameter, match=rf"{typed} is not a keyword of {plot}\(\)"
                                               rf".*did you mean '{meant}'\?"):
        getattr(icoframes, plot)(None, **{typed: 1})
    assert plt.get_fignums() == before  # refused before drawing anything


def test_a_plot_style_keyword_still_goes_to_matplotlib(cfg):
    import matplotlib.pyplot as plt

    icos = icoframes.load_icos(status="past", progress=False)
    ax = icoframes.plot_raised(icos, color="red", alpha=0.5, top=3)
    assert ax.patches and all(p.get_alpha() == 0.5 for p in ax.patches)
    plt.close(ax.figure)


@pytest.mark.parametrize("option", ["-v", "--verbose"])
def test_a_top_level_option_after_the_command_says_where_it_goes(cfg, tmp_path, option,
                                                                 capsys, caplog):
    code, err = _cli(["export", "--out", str(tmp_path / "out"), option], capsys, caplog)
    assert code == 2
    assert (f"unrecognized arguments: {option}; {option} is an option of icoframes itself: "
            f"put it before the command (icoframes {option} export ...)") in err
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("typed", "meant"), [("problem", "problems"), ("ICOS", "icos")])
def test_read_snapshots_of_a_misspelled_table_suggests_it_problems_included(tmp_path, typed,
                                                                            meant):
    with pytest.raises(KeyError, match=f"did you mean {meant!r}") as caught:
        icoframes.read_snapshots(tmp_path, table=typed)
    assert "accepting, problems)" in str(caught.value)  # problems is a table it reads


@pytest.mark.parametrize("wide", ["no", 1, None])
def test_sandbox_rates_wide_is_true_or_false(wide):
    with pytest.raises(InvalidParameter, match="wide must be True or False"):
        sandbox.rates(wide=wide)  # "no" and 1 gave the wide form, None the long one


@pytest.mark.parametrize("value", [True, np.True_, "5", b"5"])
def test_format_usd_of_what_is_no_amount_is_empty(value):
    assert icoframes.format_usd(value) == ""  # True was "$1", "5" was "$5"
    assert icoframes.format_usd(5) == "$5" and icoframes.format_usd(np.float64(2.5e6)) == "$2.5M"


@pytest.mark.parametrize("typed", [["--privat-key", "priv-7f3a9c-never-shown"],
                                   ["--private-kye=priv-7f3a9c-never-shown"],
                                   ["priv-7f3a9c-never-shown"],
                                   ["--privat-key", "hunterkey"]])  # letters alone too
def test_an_unrecognized_argument_never_shows_a_value_that_may_be_a_key(cfg, tmp_path, typed,
                                                                         capsys, caplog):
    code, err = _cli(["export", "--out", str(tmp_path / "out"), *typed], capsys, caplog)
    assert code == 2 and typed[-1].split("=")[-1] not in err + caplog.text
    assert "(and 1 value not shown: a value may be a key)" in err
    assert cfg.stats.requests.total() == 0


def test_an_ambiguous_option_never_shows_its_value(capsys, caplog):
    code, err = _cli(["sandbox", "--private=priv-7f3a9c-never-shown"], capsys, caplog)
    assert code == 2 and "priv-7f3a9c" not in err + caplog.text
    assert "ambiguous option: --private=... could match" in err
