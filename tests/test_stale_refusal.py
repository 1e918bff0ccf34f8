"""A 485 on record, then a day the service does not answer (REV-L F1, L5, L1).

The service refused this key (error 485) on 2026-11-01; three days later it is down: every
request gets an HTML 503 page, an HTML page answered 200, or no answer at all. The export's
probe (its first request, sent alone after a refusal) learns nothing, and the stop is the
outage: exit 1 (a cron monitor's "the service is down"), as the same outage without the old
485, never exit 3 ("the daily limit, wait for tomorrow"), and its words give the refusal's
date, never "today", with or without ``quota_reset`` (after a known reset the refusal is
probed as without one: a reset time set wrong costs one request, not a wave). Days are
moved with time-machine; requests are counted by the servers (the sandbox's, a hostile one
on 127.0.0.1).
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest
import time_machine
from hostile import LIST, HostileServer, html_reply, json_reply

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_ERROR, EXIT_INCOMPLETE, EXIT_OK, main
from icoframes.config import SETTINGS
from icoframes.fetch.stops import quota_error
from icoframes.store.ledger import PROBES_UNANSWERED, LedgerState, QuotaLedger

DAY1 = dt.datetime(2026, 11, 1, 3, 15, tzinfo=dt.UTC)
DAY4 = DAY1 + dt.timedelta(days=3)

INCOMPLETE = pytest.mark.filterwarnings("default::icoframes.IncompleteWarning")
STALE = pytest.mark.filterwarnings("default::icoframes.StaleWarning")
SHORT = pytest.mark.filterwarnings("default::icoframes.QuotaWarning")


@pytest.fixture(autouse=True)
def _unconfigured():
    yield
    icoframes.reset_configuration()


def _as_cron(settings: dict, tmp_path, monkeypatch, **more: str) -> None:
    """icoframes configured only through ICOFRAMES_* variables, as cron's run is."""
    icoframes.reset_configuration()
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    for name, value in {**settings, "cache_dir": str(tmp_path / "cache"), **more}.items():
        if value is not None:
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)


def _export(when: dt.datetime, out) -> int:
    with time_machine.travel(when, tick=True):
        return main(["export", "--out", str(out), "--snapshot"])


def _closed(h) -> None:
    h.close_connection = True  # the request read, then the connection closed: no answer


OUTAGES = {"html-503": html_reply(503, "Service Unavailable"),
           "html-200": html_reply(200, "Down for maintenance"), "no-answer": _closed}


@INCOMPLETE
@STALE
@SHORT
@pytest.mark.parametrize("outage", OUTAGES.values(), ids=OUTAGES.keys())
@pytest.mark.parametrize("reset", [None, "00:00", "06:00"], ids=["no-reset", "reset-0", "reset-6"])
@pytest.mark.parametrize("refused", [True, False], ids=["485-before", "no-485"])
def test_an_outage_days_after_a_485_is_an_outage(
        tmp_path, monkeypatch, caplog, quick_retries, outage, reset, refused):
    """main: exit 3, "the daily request limit (error 485) was reached at 2026-11-01 03:15
    UTC ... 0 remain to fetch" (with quota_reset: "at 03:15 UTC, after 11 requests sent
    today"); the same outage without the 485 exited 1."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=30, seed=3, quota=10 if refused else None) as server:
        settings = dict(server.settings())
        _as_cron(settings, tmp_path, monkeypatch, quota_reset=reset)
        assert _export(DAY1, out) == (EXIT_INCOMPLETE if refused else EXIT_OK)
        day1_sent = sum(server.stats.requests.values())
    with HostileServer({}, default=outage) as down:
        _as_cron({**settings, "base_url": down.base_url}, tmp_path, monkeypatch,
                 quota_reset=reset)
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="icoframes.cli"):
            assert _export(DAY4, out) == EXIT_ERROR
        down.stop()  # every handler ended: hits counts every request it took
        sent = sum(down.hits.values())
    message = caplog.records[-1].getMessage()
    assert "today" not in message and "remain to fetch" not in message
    assert not (out / "snapshot_date=2026-11-04").exists()  # nothing written
    with time_machine.travel(DAY4, tick=False):
        quota = icoframes.cache_info().quota
    counted = DAY4 - dt.timedelta(hours=6 if reset == "06:00" else 0)  # the day counted
    assert (quota.sent, quota.day) == (sent, counted.date().isoformat())
    if refused:
        # the probe, alone, again after each failure: PROBES_UNANSWERED requests, then the stop
        assert sent == PROBES_UNANSWERED
        assert message.startswith(
            f"{down.base_url.removeprefix('http://')} is not answering: the service refused "
            "this key with error 485 (its daily request limit) at 2026-11-01 03:15 UTC, and "
            "this call's probe (its first request since, sent alone) timed out, or it and the "
            "next two sent alone each broke off or came back without the service's JSON")
        assert message.endswith(
            "That refusal stays on record (whether the allowance is back is not known): the "
            "next call sends one request first (a probe, costing one request) and goes on if it "
            "is accepted; call again later to fetch only the rest.")
        # still on record, as it was: the next call probes again
        assert DAY1 <= quota.refused_at < DAY1 + dt.timedelta(minutes=1)
        assert 0 < quota.refused_after <= day1_sent
    else:  # no 485: the outage alone, no probe
        assert "error 485" not in message and "probe" not in message
        assert (quota.refused_at, quota.refused_after) == (None, None)


RESET = dt.time(6, 0)
REFUSED = dt.datetime(2026, 11, 1, 7, 0, tzinfo=dt.UTC)  # after that day's reset


def _refused_ledger(tmp_path) -> QuotaLedger:
    ledger = QuotaLedger(tmp_path, "key", 50, service="http://127.0.0.1:1", reset=RESET)
    with time_machine.travel(REFUSED, tick=False):
        ledger.take("ico")
        ledger.settle(485)
    return QuotaLedger(tmp_path, "key", 50, service="http://127.0.0.1:1", reset=RESET)


def test_after_a_known_reset_an_old_refusal_is_probed_by_one_request_alone(tmp_path):
    """Before the reset nothing is sent; after it the refusal is still on record and the
    first request goes alone as the probe (a reset time set wrong costs that one request):
    three without an answer end the call's requests, the refusal kept."""
    ledger = _refused_ledger(tmp_path)
    with time_machine.travel(REFUSED + dt.timedelta(hours=22), tick=False):  # 05:00: before
        with pytest.raises(icoframes.QuotaExceeded, match="no request is sent before "
                                                          "2026-11-02 06:00 UTC"):
            ledger.take("list")
        assert ledger.state().refused_at == REFUSED
    with time_machine.travel(REFUSED + dt.timedelta(hours=23, minutes=30), tick=False):  # 06:30
        for _ in range(PROBES_UNANSWERED):  # each the probe, alone, after the last's failure
            ledger.take("ico")
            ledger.settle("no_answer")
        assert ledger.probe_unanswered
        with pytest.raises(icoframes.QuotaExceeded):
            ledger.take("ico")
        state = ledger.state()
        assert (state.sent, state.refused_at) == (PROBES_UNANSWERED, REFUSED)


def test_a_485_from_before_the_counted_day_is_worded_with_its_date():
    """With quota_reset the message said the limit "was reached at 03:15 UTC, after 11
    requests sent today" of a refusal three resets old (the day's rule was the UTC date's,
    and only without quota_reset)."""
    state = LedgerState("2026-11-04", 0, 5000, refused_at=DAY1 + dt.timedelta(hours=4),
                        refused_after=11, reset=RESET,
                        day_ends=dt.datetime(2026, 11, 5, 6, tzinfo=dt.UTC))
    settings = icoframes.config.get_settings(base_url="http://127.0.0.1:9")
    message = str(quota_error(icoframes.QuotaExceeded("refused"), settings, state,
                              fetched=0, left=3, unlisted=False))
    assert "reached at 2026-11-01 07:15 UTC, after 11 requests sent that day" in message
    assert "today" not in message


def test_a_485_before_any_list_answered_says_what_remains_is_unknown(tmp_path, quick_retries):
    """L5: the first list page refused: "This call fetched 0 profiles; 0 remain to fetch (and
    a list was not complete, so possibly more)", and .remaining 0: nothing was listed."""
    with HostileServer({LIST: json_reply({"error": 485})}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        with pytest.raises(icoframes.QuotaExceeded) as caught:
            icoframes.load_icos(status="past", progress=False)
    assert dict(srv.hits) == {LIST: 1}
    assert caught.value.remaining is None
    assert ("This call fetched 0 profiles; how many remain to fetch is unknown: no list "
            "answered a page before the limit.") in str(caught.value)
    assert "remain to fetch (" not in str(caught.value)


def test_cache_info_json_has_the_quota_remaining(tmp_path, monkeypatch, capsys):
    """L1: `icoframes cache info` printed quota without `remaining` (a property, which
    dataclasses.asdict leaves out), though the docs list it."""
    with sandbox.serve(n_icos=12, seed=1, quota=None) as server:
        _as_cron(dict(server.settings()), tmp_path, monkeypatch, daily_quota="40")
        assert _export(DAY1, tmp_path / "out") == EXIT_OK
        sent = sum(server.stats.requests.values())
    capsys.readouterr()
    with time_machine.travel(DAY1, tick=False):
        assert main(["cache", "info"]) == EXIT_OK
    quota = json.loads(capsys.readouterr().out)["quota"]
    assert 0 < sent < 40
    assert (quota["sent"], quota["limit"], quota["remaining"]) == (sent, 40, 40 - sent)
