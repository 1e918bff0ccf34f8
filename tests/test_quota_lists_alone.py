"""A daily limit the list pages alone use up says so, instead of "run again for the rest".

Lists come before profiles when the allowance could run short, and an export pages its
lists again each day: at a ``daily_quota`` of no more than the list's pages no profile is
ever fetched, so the stop says that the limit does not cover the lists (raise it, or
narrow the query), on the day the lists are paged and on a re-run the same day alike. A
loader's next call may take its lists from the cache and spend its requests on profiles:
its stop says to call again while they are cached.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest
import time_machine
from test_days import INCOMPLETE, QUOTA

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, main
from icoframes.config import SETTINGS

DAY = dt.datetime(2026, 12, 1, 3, 15, tzinfo=dt.UTC)
RESUMES = "to fetch only the rest"


@pytest.fixture
def settings_restored():
    yield
    icoframes.reset_configuration()


def _export(monkeypatch, caplog, settings: dict, *args: str) -> tuple[int, str]:
    icoframes.reset_configuration()  # settings through ICOFRAMES_* only, as cron gives them
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    return main(["export", *args]), caplog.text


@INCOMPLETE
@QUOTA
@pytest.mark.parametrize("over", [-1, 0, 3])  # the cap less than, as many as, more than pages
def test_a_cap_the_list_pages_use_up_says_it_does_not_cover_them(
        tmp_path, monkeypatch, caplog, settings_restored, over):
    with sandbox.serve(n_icos=120, seed=5, quota=None) as sb:
        past = len(sb.directory.ids("past"))
        pages = -(-past // 20)
        cap = pages + over
        settings = {**sb.settings(), "cache_dir": tmp_path / "cache", "daily_quota": cap}
        out = tmp_path / "out"
        args = ("--out", str(out), "--status", "past", "--snapshot")
        for day, hour in ((0, 3), (0, 15), (1, 3)):  # the day's run, a re-run, the next day
            sent = sb.stats.requests.total()
            with time_machine.travel(DAY + dt.timedelta(days=day, hours=hour - 3)):
                code, log = _export(monkeypatch, caplog, settings, *args)
            assert code == EXIT_INCOMPLETE, log
            assert sb.stats.requests.total() - sent == (0 if hour == 15 else cap)
            folder = out / f"snapshot_date={(DAY + dt.timedelta(days=day)):%Y-%m-%d}"
            manifest = json.loads((folder / "manifest.json").read_text())
            said = manifest["stopped"]["message"]  # (in Python's words; the log, the command's)
            if over > 0:  # profiles go: the next days fetch the rest
                assert RESUMES in said and RESUMES in log and "lists alone" not in log
                continue
            assert manifest["rows"]["icos"] == 0
            assert RESUMES not in said and RESUMES not in log, log
            lists = (f"The lists alone take {pages} pages, "
                     f"{'as many as' if over == 0 else 'more than'} the {cap} requests "
                     "the daily_quota setting allows a day")
            assert lists in said and lists in log
            assert "raise daily_quota or narrow the query" in said
            assert "raise ICOFRAMES_DAILY_QUOTA or narrow the query" in log


@QUOTA
def test_a_loader_whose_lists_are_cached_next_day_is_told_to_call_again(
        tmp_path, settings_restored):
    # a loader's next call may take its lists from the cache (younger than max_age): its
    # requests then go to profiles, so "no request is left for a profile" would be untrue
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        pages = -(-len(sb.directory.ids("past")) // 20)
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=pages)
        late = DAY.replace(hour=23)
        with time_machine.travel(late), pytest.raises(icoframes.QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        said = str(info.value)
        assert f"The lists alone take {pages} pages, as many as the {pages} requests" in said
        assert "no request is left" not in said
        assert ("call the same loader again while they are cached (younger than max_age, "
                f"without refresh) {RESUMES}") in said
        sent = sb.stats.requests.total()
        with time_machine.travel(late + dt.timedelta(hours=9)), \
                pytest.raises(icoframes.QuotaExceeded, match=f"fetched {pages} profiles"):
            icoframes.load_icos(status="past", progress=False)  # its lists 9 hours old
        assert sb.stats.requests.total() - sent == pages
