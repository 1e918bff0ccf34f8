"""The way out of a count stored days ahead that keeps the cache: ``clear_cache(ledgers="only")``
and ``icoframes cache clear --ledgers-only`` forget this key's count for this service alone.

A cache may hold weeks of right-clock loads: deleting it to forget one count costs those
requests again. Forgetting needs the key (the count is kept per key): without one, both ways
(and ``ledgers=True``) refuse before anything is deleted, and a count not found is said.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest
import time_machine
from ledger_day import on_this_clock
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_OK, EXIT_USAGE
from icoframes.config import SETTINGS
from icoframes.errors import ConfigError, InvalidParameter, QuotaExceeded

AHEAD = dt.datetime(2026, 12, 10, 3, 15, tzinfo=dt.UTC)  # the clock 8 days ahead, once
RIGHT = dt.datetime(2026, 12, 2, 9, 15, tzinfo=dt.UTC)  # the clock right again
EARLIER = RIGHT - dt.timedelta(hours=8)  # a right-clock load, paid for


@pytest.fixture
def sb():
    with sandbox.serve(n_icos=40, seed=3, quota=None) as served:
        yield served
    icoframes.reset_configuration()


def _sent(sb) -> int:
    return sum(sb.stats.requests.values())


def _env(sb, cache: os.PathLike[str], **drop: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update({s.env: str(v) for s in SETTINGS if s.name not in drop
                and (v := {**sb.settings(), "cache_dir": cache}.get(s.name)) is not None})
    return env


_MAIN = "import sys\nfrom icoframes.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    with time_machine.travel(RIGHT, tick=True):
        child = subprocess.run([sys.executable, "-c", on_this_clock(_MAIN), *args],
                               env=env, capture_output=True, text=True, timeout=HANG_GUARD)
    return child.returncode, child.stdout, child.stderr


def _ahead_run(sb, cache) -> int:
    """A right-clock load of the past ICOs, then a run 8 days ahead reaching its cap: the
    rows the first load paid for."""
    icoframes.configure(**sb.settings(), cache_dir=cache, daily_quota=5000)
    with time_machine.travel(EARLIER, tick=True):
        rows = len(icoframes.load_icos(status="past", progress=False))
    icoframes.configure(daily_quota=5)
    with time_machine.travel(AHEAD, tick=True), pytest.raises(QuotaExceeded):
        icoframes.load_icos(status="upcoming", progress=False)
    return rows


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_ledgers_only_forgets_the_count_and_keeps_the_paid_for_cache(sb, tmp_path):
    rows = _ahead_run(sb, tmp_path / "cache")
    with time_machine.travel(RIGHT, tick=True):
        profiles = icoframes.cache_info().profiles
        with pytest.raises(QuotaExceeded) as stop:
            icoframes.load_icos(status="past", refresh=True, progress=False)
        said = str(stop.value)
        only = said.index("icoframes.clear_cache(ledgers='only')")  # named first
        assert only < said.index("icoframes.clear_cache(ledgers=True)"), said
        for words in ("icoframes cache clear --ledgers-only", "keeps the cache",
                      "may have been sent today", "its profiles are fetched again"):
            assert words in said, said
        report = icoframes.clear_cache(ledgers="only")
        assert [path.split("#")[0] for path in report.removed] == [
            str(tmp_path / "cache" / "quota" / "ledger.sqlite3")]  # the count alone
        assert (report.freed_bytes, report.notes) == (0, [])
        info = icoframes.cache_info()
        assert (info.profiles, info.quota.sent, info.quota.ahead_day) == (profiles, 0, None)
        before = _sent(sb)
        assert len(icoframes.load_icos(status="past", progress=False)) == rows
        assert _sent(sb) == before  # nothing fetched again
        again = icoframes.clear_cache(ledgers="only")  # no count now: said, nothing forgotten
        assert again.removed == [] and "nothing forgotten" in again.notes[0], again


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
@pytest.mark.parametrize("ledgers", [True, "only"])
def test_no_public_key_is_refused_before_anything_is_deleted(sb, tmp_path, ledgers):
    _ahead_run(sb, tmp_path / "cache")
    with time_machine.travel(RIGHT, tick=True):
        profiles = icoframes.cache_info().profiles
        icoframes.configure(public_key=None)
        with pytest.raises(ConfigError, match=r"public key.*nothing was deleted"):
            icoframes.clear_cache(ledgers=ledgers)
        icoframes.configure(public_key=sb.settings()["public_key"])
        info = icoframes.cache_info()
        assert (info.profiles, info.quota.sent) == (profiles, 5)


def test_ledgers_takes_true_false_or_only(tmp_path):
    icoframes.configure(base_url="http://127.0.0.1:9", cache_dir=tmp_path)
    try:
        for value, hint in (("onyl", "did you mean 'only'?"), ("yes", "did you mean True?")):
            with pytest.raises(InvalidParameter, match=f"True, False or 'only'.*{hint}"):
                icoframes.clear_cache(ledgers=value)
        with pytest.raises(InvalidParameter, match="without all=True"):
            icoframes.clear_cache(all=True, ledgers="only")
    finally:
        icoframes.reset_configuration()


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_the_command_forgets_the_count_alone_refuses_without_the_key_and_says_none_found(
        sb, tmp_path):
    cache = tmp_path / "cache"
    _ahead_run(sb, cache)
    folders = sorted(p.name for p in cache.iterdir())
    for flag in ("--ledgers-only", "--ledgers"):  # no key: refused, nothing deleted
        code, out, err = _run(_env(sb, cache, public_key=True), "cache", "clear", flag)
        assert code == EXIT_USAGE and "ICOFRAMES_PUBLIC_KEY); nothing was deleted" in err, err
        assert f"{flag} forgets this key's request count" in err, err
        assert sorted(p.name for p in cache.iterdir()) == folders
    code, out, err = _run(_env(sb, cache), "cache", "clear", "--ledgers-only")
    assert code == EXIT_OK and "request count forgotten; the cache is kept" in out, (out, err)
    assert "cache cleared" not in out and sorted(p.name for p in cache.iterdir()) == folders
    code, out, err = _run(_env(sb, cache), "cache", "clear", "--ledgers-only")
    assert code == EXIT_OK and "no request count of this key" in out, (out, err)
    assert "nothing forgotten" in out
    code, out, err = _run(_env(sb, cache), "cache", "clear", "--ledgers")  # the cache goes
    assert code == EXIT_OK and "no request count of this key" in out, (out, err)
    code, out, _ = _run(_env(sb, cache), "cache", "--help")
    flat = " ".join(out.split())
    assert "--ledgers-only" in flat and "profiles are fetched again" in flat, flat


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_clearing_every_service_with_ledgers_forgets_a_count_stored_days_ahead(sb, tmp_path):
    _ahead_run(sb, tmp_path / "cache")
    with time_machine.travel(RIGHT, tick=True):
        assert icoframes.cache_info().quota.ahead_day == AHEAD.date().isoformat()
        report = icoframes.clear_cache(all=True, ledgers=True)
        assert any("#" in path for path in report.removed), report.removed
        assert icoframes.cache_info().quota.sent == 0
