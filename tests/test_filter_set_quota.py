"""The daily limit met by the filter-set request says what any load's limit says.

A filter given by name (platform, category, type, country) costs one request for the
filter set before any list (as ``load_filters`` does). A refusal there (the service's
error 485, or the ``daily_quota`` setting) is the same ``QuotaExceeded`` as one met by a
list or a profile: who refused, what was sent today, what now (a probe, offline=True),
and no claim about when the service's allowance resets (the spec says nothing of it).
"""

from __future__ import annotations

import logging
import re

import pytest
from ledger_day import noon

import icoframes
from icoframes import QuotaExceeded, sandbox
from icoframes.cli import EXIT_QUOTA, main
from icoframes.config import SETTINGS

# what a load's stop by the service's 485 says, whichever request met it
SERVICE_REFUSED = ("the service refused this key: its daily request limit (error 485) was "
                   "reached at 12:00 UTC, after 2 requests sent today with this key from this "
                   "cache dir")
PROBE = "the next call sends one request first (a probe, costing one request)"
AT_THE_FILTER_SET = "request for the filter set"
OFFLINE = ("Nothing was fetched; offline=True answers only from a copy an earlier load left "
           "in this cache dir (without one it raises NotCached).")


@pytest.fixture
def one_request(tmp_path):
    """A sandbox allowing one request a day, spent on a list: the next request is refused."""
    with sandbox.serve(n_icos=30, seed=3, quota=1) as sb, noon():
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            icoframes.load_list(status="upcoming", progress=False)
            yield sb
        finally:
            icoframes.reset_configuration()


@pytest.mark.parametrize("call", [
    lambda: icoframes.load_icos(platform="Ethereum", progress=False),
    lambda: icoframes.load_list(category="Finance", progress=False),
    lambda: icoframes.load_filters(),
], ids=["a filter by name", "load_list by name", "load_filters"])
def test_a_485_on_the_filter_set_says_what_a_loads_485_says(one_request, call):
    with pytest.raises(QuotaExceeded) as info:
        call()
    said = str(info.value)
    assert said.startswith(SERVICE_REFUSED), said
    assert AT_THE_FILTER_SET in said and "before any list was paged" in said
    assert PROBE in said and "offline=True" in said
    assert "resets daily" not in said and "/api/v1/filters/" not in said
    assert info.value.code == 485 and info.value.remaining is None
    assert one_request.stats.requests.total() == 2  # the list, then the refused filter set
    # nothing was fetched: no "rest" to fetch later, and offline=True has no filter set to
    # answer from unless an earlier load left one (7c2753c: "answers from what the cache holds")
    assert "the same loader again later." in said and "only the rest" not in said
    assert OFFLINE in said
    with pytest.raises(icoframes.NotCached, match="load it once online first"):
        icoframes.load_filters(offline=True)


def test_the_same_refusal_of_a_list_says_the_same_first_sentence(one_request):
    with pytest.raises(QuotaExceeded) as info:
        icoframes.load_icos(status="past", progress=False)
    assert str(info.value).startswith(SERVICE_REFUSED)
    assert AT_THE_FILTER_SET not in str(info.value)


def test_the_daily_quota_setting_on_the_filter_set_says_when_the_count_starts_again(tmp_path):
    with sandbox.serve(n_icos=30, seed=3) as sb, noon():
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=1)
        try:
            icoframes.load_list(status="upcoming", progress=False)
            with pytest.raises(QuotaExceeded) as info:
                icoframes.load_icos(platform="Ethereum", progress=False)
        finally:
            icoframes.reset_configuration()
        assert sb.stats.requests.total() == 1  # a hard cap: the filter set never sent
    said = str(info.value)
    assert said.startswith("the daily_quota setting (1 request) is reached: 1 request sent "
                           "today (2026-03-02, UTC) with this key from this cache dir. "), said
    assert AT_THE_FILTER_SET in said
    assert ("The count starts again at 2026-03-03 00:00 UTC: call the same loader again "
            "then, or raise daily_quota.") in said and OFFLINE in said
    assert info.value.code is None


def test_the_command_says_the_refusal_and_nothing_written_as_two_sentences(
        one_request, tmp_path, monkeypatch, caplog):
    icoframes.reset_configuration()  # the command reads the environment, as cron gives it
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    for name, value in {**one_request.settings(), "cache_dir": tmp_path / "cache"}.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "out"
    assert main(["export", "--out", str(out), "--platform", "Ethereum"]) == EXIT_QUOTA
    [line] = [r.getMessage() for r in caplog.records if "Nothing was written" in r.getMessage()]
    assert line.startswith(SERVICE_REFUSED) and AT_THE_FILTER_SET in line
    # one sentence ends where the next begins: "...again later. Nothing was written"
    # in the command's words: it has no loader to call
    # (the quota_reset hint, when quota_reset is not set, comes between the two)
    assert re.search(r"run the same command again later\.(?: [^.]*set quota_reset\.)?"
                     r" Nothing was written: ", line), line
    assert "resets daily" not in line and ".. " not in line
    assert not out.exists() or not any(out.iterdir())
