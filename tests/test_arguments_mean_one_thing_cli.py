"""Command-line arguments that meant nothing (more of test_arguments_mean_one_thing)."""

from __future__ import annotations

import contextlib

import pytest

from icoframes.cli import main


@pytest.mark.parametrize("n_icos", ["0", "-3", "many"])
def test_the_demo_needs_at_least_one_ico(tmp_path, n_icos, capsys):
    # with 0 it ran and ended "no ICO matched ... pass --allow-empty", which demo lacks
    assert main(["demo", "--n-icos", n_icos, "--out", str(tmp_path / "demo")]) == 2
    err = capsys.readouterr().err
    assert f"argument --n-icos: must be a whole number from 1 to 1000000, got {n_icos!r}" in err
    assert not (tmp_path / "demo").exists()


def test_a_service_message_cannot_forge_a_log_line(configure, tmp_path, capsys, caplog):
    # the service's own "message" went verbatim into the error, newlines and ANSI escapes
    # included: a cron log got a line the service wrote
    import logging

    from hostile import FILTERS, LIST, HostileServer, json_reply

    import icoframes

    forged = "bad key\n2026-01-01 00:00:00,000 ERROR icoframes.cli: FORGED \x1b[31mred\x1b[0m"
    reply = json_reply({"error": 480, "message": forged})
    with HostileServer({FILTERS: reply, LIST: reply}) as srv:
        configure(srv)
        with pytest.raises(icoframes.AuthError) as caught:
            icoframes.load_filters()
        caplog.set_level(logging.INFO, logger="icoframes")
        assert main(["export", "--out", str(tmp_path / "out"), "--status", "past"]) == 2
    message = str(caught.value)
    assert "\n" not in message and "\x1b" not in message
    assert message.endswith(r"(bad key\n2026-01-01 00:00:00,000 ERROR icoframes.cli: FORGED "
                            r"\x1b[31mred\x1b[0m)")
    logged = capsys.readouterr().err + caplog.text
    assert not any(line.startswith("2026-01-01") for line in logged.splitlines())
    assert "\x1b" not in logged


def test_a_service_message_that_repeats_the_error_is_not_shown_twice(tmp_path):
    import icoframes
    from icoframes import sandbox

    with sandbox.serve(n_icos=5, seed=1) as sb:
        icoframes.configure(**{**sb.settings(), "private_key": "wrong"},
                            cache_dir=tmp_path / "cache")
        try:
            with pytest.raises(icoframes.AuthError) as caught:
                icoframes.load_filters()
        finally:
            icoframes.reset_configuration()
    # it was "... is not valid (error 480) (public or private key is not valid)"
    assert str(caught.value) == ("/api/v1/filters/: the public or private key is not valid "
                                 "(error 480)")


@pytest.mark.parametrize(("typed", "meant"), [("refesh", "refresh"), ("locaton", "location"),
                                              ("max_ag", "max_age")])
def test_a_loader_names_a_typo_before_it_asks_for_keys(clean_settings, typed, meant):
    # without keys the typo was hidden behind "icoframes is missing base_url, ..."
    import icoframes

    for load in (icoframes.load_list, icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(icoframes.InvalidParameter, match=f"did you mean '{meant}'"):
            load(status="past", **{typed: 1})
    with pytest.raises(icoframes.InvalidParameter, match="page is not a loader parameter"):
        icoframes.load_list(page=2)


# -- an ids option's number, a typo of the required --out, options given twice -----------------


@pytest.fixture(scope="module")
def sb():
    from icoframes import sandbox

    with sandbox.serve(n_icos=20, seed=5) as server:
        yield server


@pytest.mark.parametrize(("platform", "refused"), [
    ("1.0", "platform='1.0': must be ids (positive integers); did you mean 1?"),
    ("1e3", "platform='1e3': must be ids (positive integers); did you mean 1000?"),
    (" 2.5 ", "platform=' 2.5 ': must be ids (positive integers)"),
    ("\u0663", "platform='\u0663': must be ids (positive integers); did you mean 3?"),
    ("1_000", "platform='1_000': must be ids (positive integers); did you mean 1000?"),
])
def test_a_platform_id_written_as_another_number_is_refused_as_load_icos_refuses_it(
        cfg, tmp_path, platform, refused, capsys, caplog):
    # "1.0" was looked up as a platform name: the filter set fetched, then "unknown platform
    # name '1.0'"; now the CLI and load_icos(platform="1.0") both refuse the text as a number
    # written otherwise than an id, before any request, with the id it most likely means
    import logging

    import icoframes

    out = tmp_path / "out"
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(out), "--platform", platform]) == 2
    err = capsys.readouterr().err + caplog.text
    assert f"invalid list parameter {refused}" in err
    for given in (platform, [platform], ["Ethereum", platform]):  # never looked up as a name
        with pytest.raises(icoframes.InvalidParameter) as info:
            icoframes.load_icos(platform=given, progress=False)
        assert str(info.value) == f"invalid list parameter {refused}"
    assert cfg.stats.requests.total() == 0 and not out.exists()


def test_a_negative_platform_id_is_refused_as_the_integer_it_writes(cfg, tmp_path, capsys,
                                                                    caplog):
    import logging

    import icoframes

    out = tmp_path / "out"
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", str(out), "--platform", "-1"]) == 2
    err = capsys.readouterr().err + caplog.text
    # "-1" stays the integer the user wrote (as load_icos(platform=-1)); no id is close
    assert "invalid list parameter platform=-1: must be ids (positive integers)\n" in err
    with pytest.raises(icoframes.InvalidParameter) as info:
        icoframes.load_icos(platform="-1", progress=False)
    assert str(info.value) == ("invalid list parameter platform='-1': must be ids "
                               "(positive integers)")
    assert cfg.stats.requests.total() == 0 and not out.exists()


def test_a_platform_name_and_id_digits_keep_their_meaning():
    from icoframes.cli import _id_or_name

    # an integer in ASCII digits is that id; any other text goes on as written, and
    # load_icos says what it means (a number written otherwise is refused, a word is a name)
    assert [_id_or_name(v) for v in ("7", " 7 ", "Ethereum", "1.0", "-3", "ERC20", "nan")] == [
        7, 7, "Ethereum", "1.0", -3, "ERC20", "nan"]
    # only ASCII digits are a number: "²" and "٣" are str.isdigit() but no id ("²" crashed
    # int() with a ValueError); "+2" is the integer 2, "-1" the integer -1
    assert [_id_or_name(v) for v in ("\u00b2", "\u0663", "+2", "-1", "1\u00b2")] == [
        "\u00b2", "\u0663", 2, -1, "1\u00b2"]
    assert [type(_id_or_name(v)) for v in ("-1", "+2")] == [int, int]


def test_a_platform_of_superscript_digits_is_a_name_not_a_crash(cfg, tmp_path, capsys, caplog):
    import logging

    out = tmp_path / "out"
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(["export", "--out", str(out), "--platform", "\u00b2"])
    err = capsys.readouterr().err + caplog.text
    assert code == 2 and "Traceback" not in err and "ValueError" not in err
    assert "unknown platform name '\u00b2'" in err and not out.exists()


@pytest.mark.parametrize("typo", [["--ot", "x"], ["--ot=x"], ["--outt", "x"]])
def test_a_typo_of_the_required_out_gets_a_did_you_mean(tmp_path, typo, capsys):
    assert main(["export", *typo, "--status", "past"]) == 2
    err = capsys.readouterr().err
    assert (f"the following arguments are required: --out; {typo[0].split('=')[0]} is no "
            "option of this command: did you mean '--out'?") in err
    assert main(["export", "--status", "past"]) == 2  # nothing typed for it: as before
    assert capsys.readouterr().err.rstrip().endswith("the following arguments are required: --out")


@pytest.mark.parametrize(("command", "twice"), [
    ("demo", ["--n-icos", "5", "--n-icos", "6"]),
    ("demo", ["--seed", "1", "--seed", "2"]),
    ("demo", ["--out", "a", "--out", "b"]),
    ("sandbox", ["--port", "0", "--port", "1"]),
    ("sandbox", ["--quota", "5", "--quota", "none"]),
    ("sandbox", ["--n-icos", "5", "--n-icos", "6"]),
    ("sandbox", ["--seed", "1", "--seed", "2"]),
    ("sandbox", ["--latency", "0", "--latency", "1"]),
    ("sandbox", ["--fail-rate", "0", "--fail-rate", "0.5"]),
    ("sandbox", ["--grow-every", "2", "--grow-every", "3"]),
    ("sandbox", ["--public-key", "a", "--public-key", "b"]),
    ("sandbox", ["--private-key", "a", "--private-key", "b"]),
])
def test_a_demo_or_sandbox_option_given_twice_is_refused_not_the_last_taken(
        tmp_path, monkeypatch, command, twice, capsys):
    monkeypatch.chdir(tmp_path)  # the demo's --out a/b would be here: nothing is written
    # a bad value after the pair: taken silently, the pair would run (a demo, a server that
    # never stops) where this exits 2 at once, so the test fails rather than hangs
    guard = ["--seed", "x"] if twice[0] != "--seed" else ["--n-icos", "x"]
    twice = [*twice, *guard]
    assert main([command, *twice]) == 2
    err = capsys.readouterr().err
    assert f"argument {twice[0]}: given twice (" in err and "); give it once" in err
    assert list(tmp_path.iterdir()) == []
    from icoframes.sandbox.command import main as sandbox_main

    if command == "sandbox":  # python -m icoframes.sandbox: the same options
        with pytest.raises(SystemExit) as info:
            sandbox_main(twice)
        assert info.value.code == 2
        assert "given twice" in capsys.readouterr().err


def test_a_private_key_given_twice_is_refused_without_writing_either_key(capsys):
    """The refusal named both values ("given twice (s3cret-one, then s3cret-two)"): a
    private key written to stderr, where the sandbox's keys() promises it never shows."""
    from icoframes.sandbox.command import main as sandbox_main

    argv = ["--private-key", "s3cret-one", "--private-key", "s3cret-two", "--seed", "x"]
    for run in (lambda: main(["sandbox", *argv]), lambda: sandbox_main(argv)):
        with contextlib.suppress(SystemExit):
            assert run() == 2
        err = capsys.readouterr().err
        assert "argument --private-key: given twice (its values are not shown); give it once" \
            in err
        assert "s3cret" not in err
