"""A daily limit the list pages alone use up says so, instead of "run again for the rest".

Lists come before profiles when the allowance could run short, and an export pages its
lists again each day: at a ``daily_quota`` of no more than the list's pages no profile is
ever fetched, so the stop says that the limit does not cover the lists (raise it, or
narrow the query), on the day the lists are paged and on a re-run the same day alike (with
``quota_reset``, a run after the reset the same UTC day has that day's lists and a new
count: said). A loader's next call may take its lists from the cache and spend its
requests on profiles: its stop says to call again while they are cached, unless they take
more pages than the cap (a list is kept only whole: no call completes them).
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
            # the re-run takes the day's list from the cache: its count is the copy's, said
            copy = (" (a list counted by the length its cached copy gave, paged 2026-12-01 "
                    "03:15 UTC: it may have changed since)") if hour == 15 else ""
            lists = (f"The lists alone take {pages} pages{copy}, "
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


@QUOTA
def test_a_lists_alone_count_taken_from_a_cached_list_says_so(tmp_path, settings_restored):
    # the second call of the day pages nothing: its lists' length is the cached copy's, which
    # the service no longer has (20 ICOs joined since): said as the copy's, with its time
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        pages = -(-len(sb.directory.ids("past")) // 20)
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=pages)
        with time_machine.travel(DAY), pytest.raises(icoframes.QuotaExceeded) as first:
            icoframes.load_icos(status="past", progress=False)
        for _ in range(20):
            sb.add_ico("past")
        sent = sb.stats.requests.total()
        with time_machine.travel(DAY + dt.timedelta(hours=2)), \
                pytest.raises(icoframes.QuotaExceeded) as again:
            icoframes.load_icos(status="past", progress=False)
        assert sb.stats.requests.total() == sent  # (nothing left today)
        now = -(-len(sb.directory.ids("past")) // 20)
    assert f"The lists alone take {pages} pages, as many as" in str(first.value)
    assert now == pages + 1
    assert (f"The lists alone take {pages} pages (a list counted by the length its cached "
            "copy gave, paged 2026-12-01 03:15 UTC: it may have changed since), as many as "
            f"the {pages} requests") in str(again.value), str(again.value)


@QUOTA
def test_a_loader_whose_lists_take_more_pages_than_the_cap_is_told_no_call_completes_them(
        tmp_path, settings_restored):
    # a list is kept only whole: a call stopped inside it pages it again from its first
    # page, so "call again while they are cached" can never come true
    with sandbox.serve(n_icos=70, seed=3, quota=None) as sb:
        pages = -(-len(sb.directory.ids("past")) // 20)
        cap = pages - 1
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=cap)
        for day in range(2):
            sent = sb.stats.requests.total()
            with time_machine.travel(DAY + dt.timedelta(days=day)), \
                    pytest.raises(icoframes.QuotaExceeded) as info:
                icoframes.load_icos(status="past", progress=False)
            assert sb.stats.requests.total() - sent == cap  # the same pages, each day
            said = str(info.value)
            starts = f"The count starts again at 2026-12-0{2 + day} 00:00 UTC. The lists alone"
            assert starts in said, said
            assert (f"take {pages} pages, more than the {cap} requests the daily_quota setting "
                    "allows a day: no call completes the lists at this cap; raise daily_quota "
                    "or narrow the query.") in said, said
            assert "while they are cached" not in said and RESUMES not in said


@QUOTA
def test_a_loaders_lists_alone_stop_says_when_the_count_starts_again(
        tmp_path, settings_restored):
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        pages = -(-len(sb.directory.ids("past")) // 20)
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=pages)
        with time_machine.travel(DAY), pytest.raises(icoframes.QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        assert ("The count starts again at 2026-12-02 00:00 UTC. The lists alone take "
                f"{pages} pages") in str(info.value)


def _export_stop(sb, out, when: dt.datetime) -> tuple[int, int, str]:
    """Requests sent, ICO rows exported and the stop's words of one export at ``when``."""
    sent = sb.stats.requests.total()
    with time_machine.travel(when):
        try:
            result = icoframes.export_tables(out, status="past", progress=False)
        except icoframes.QuotaExceeded as nothing_listed:  # (nothing to export: raised)
            return sb.stats.requests.total() - sent, 0, str(nothing_listed)
    return (sb.stats.requests.total() - sent, result.manifest["rows"]["icos"],
            (result.manifest.get("stopped") or {}).get("message", ""))


@INCOMPLETE
@QUOTA
def test_an_exports_lists_alone_stop_with_quota_reset_is_true_on_both_sides_of_the_reset(
        tmp_path, settings_restored):
    # with quota_reset=06:00 a run before 06:00 and one after it, the same UTC day, have two
    # counts and one day's lists: the second fetches profiles; a run after 06:00 has none
    # until the next UTC day, whose lists are paged again
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        pages = -(-len(sb.directory.ids("past")) // 20)
        at = dt.datetime(2026, 12, 2, tzinfo=dt.UTC)
        for first, out in ((5, tmp_path / "before"), (7, tmp_path / "after")):
            icoframes.configure(**sb.settings(), cache_dir=out / "cache", daily_quota=pages,
                                quota_reset=dt.time(6))
            sent, rows, said = _export_stop(sb, out / "out", at.replace(hour=first))
            assert (sent, rows) == (pages, 0), said
            if first == 5:
                assert ("an export pages them again each UTC day: a run from 2026-12-02 06:00 "
                        "UTC (quota_reset) until this UTC day ends uses today's lists") in said
                assert "no request is left for a profile" not in said, said
                sent, rows, said = _export_stop(sb, out / "out", at.replace(hour=7))
                assert (sent, rows) == (pages, pages), said  # profiles, as said
            else:
                assert "no request is left for a profile at this cap" in said, said
                for hour in (29, 31):  # the next UTC day, before and after 06:00
                    sent, rows, said = _export_stop(sb, out / "out", at + dt.timedelta(
                        hours=hour))
                    assert rows == 0 and sent == (0 if hour == 29 else pages), said
