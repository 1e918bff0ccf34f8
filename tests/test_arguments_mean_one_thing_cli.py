"""Command-line arguments that meant nothing (more of test_arguments_mean_one_thing)."""

from __future__ import annotations

import pytest

from icoframes.cli import main


@pytest.mark.parametrize("n_icos", ["0", "-3", "many"])
def test_the_demo_needs_at_least_one_ico(tmp_path, n_icos, capsys):
    # with 0 it ran and ended "no ICO matched ... pass --allow-empty", which demo lacks
    assert main(["demo", "--n-icos", n_icos, "--out", str(tmp_path / "demo")]) == 2
    err = capsys.readouterr().err
    assert f"argument --n-icos: must be a whole number >= 1, got {n_icos!r}" in err
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
