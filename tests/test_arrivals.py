"""A load's arrivals (icoframes/fetch/arrivals.py): the outcomes of the requests that
ended together are kept in one transaction when the load says so, not before; the derived
tables take each decoded profile with the version it was kept as."""

from __future__ import annotations

import pandas as pd
import pytest

from icoframes.fetch.arrivals import Arrivals
from icoframes.fetch.policy import Want
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.derived import DerivedTables

URL = "http://127.0.0.1:9"


def _want(ico_id: int) -> Want:
    return Want(ico_id, "past", f"summary {ico_id}", "missing", 1.0)


def test_outcomes_are_kept_together_when_the_load_says_so(tmp_path):
    cache = Cache(tmp_path / "cache", URL)
    cache.record(ProfileRecord(9, "past", "s", '{"id": 9}'))  # another copy: version 1
    derived = DerivedTables(cache)
    arrivals = Arrivals(cache, derived)
    arrivals.add(_want(1), {"id": 1, "name": "é"})
    arrivals.add(_want(2), None, state="failed", reason="HTTP 500")
    arrivals.add(_want(3), None, state="gone")
    arrivals.add(_want(4), {"id": 4})
    assert len(arrivals) == 4 and cache.version() == 1  # nothing kept yet
    arrivals.keep()
    assert len(arrivals) == 0 and cache.version() == 4
    index = cache.profile_index()
    assert index.loc[[1, 2, 3, 4], "state"].tolist() == ["fetched", "failed", "gone", "fetched"]
    assert index.loc[1, "summary"] == "summary 1" and index.loc[2, "reason"] == "HTTP 500"
    with cache.snapshot() as snap:
        raw = {t["id"]: t["raw"] for b in snap.copies() for t in b.to_pylist()}
    assert raw[1] == '{"id":1,"name":"é"}' and raw[3] is None  # as decoded, compact UTF-8
    # the derived tables hold each decoded profile as the copy of its version
    assert derived._decoded == {1: (2, {"id": 1, "name": "é"}), 4: (4, {"id": 4})}
    arrivals.keep()  # nothing added since: no transaction
    assert cache.version() == 4


def test_failures_are_kept_with_the_time_the_load_began_copies_with_their_own(tmp_path):
    # a failing profile's backoff counts from the start of the load it failed in (REVO M1:
    # counted from the failure, a job run at a fixed hour found it due just after the run a
    # wait later, when it failed over the slack into its run)
    import datetime as dt

    import time_machine

    began = dt.datetime(2026, 11, 1, 3, 15, tzinfo=dt.UTC)
    cache = Cache(tmp_path / "cache", URL)
    cache.record(ProfileRecord(2, "past", "s", '{"id": 2}'))  # a copy a refresh fails to replace
    with time_machine.travel(began, tick=False):
        arrivals = Arrivals(cache, DerivedTables(cache))  # made as the load begins
    for ico_id in (1, 2, 3):
        arrivals.add(_want(ico_id), {"id": 1} if ico_id == 1 else None,
                     state="fetched" if ico_id == 1 else "failed", reason="HTTP 500")
    later = began + dt.timedelta(minutes=70)
    with time_machine.travel(later, tick=False):
        arrivals.keep()
        cache.record(ProfileRecord(4, "past", "s", None, state="failed", reason="x"))
    index = cache.profile_index()
    assert index.loc[[2, 3], "failed_at"].tolist() == [pd.Timestamp(began)] * 2
    assert index.loc[[2, 3], "attempts"].tolist() == [1, 1]
    assert index.loc[1, "fetched_at"] == pd.Timestamp(later)  # a copy: when it came
    assert index.loc[4, "failed_at"] == pd.Timestamp(later)  # no load's start given: now
    assert str(index["failed_at"].dtype) == "datetime64[ms, UTC]"


def test_a_failed_keep_loses_its_batch_and_the_next_starts_afresh(tmp_path):
    cache = Cache(tmp_path / "cache", URL)
    derived = DerivedTables(cache)
    arrivals = Arrivals(cache, derived)
    arrivals.add(_want(1), {"id": 1})
    arrivals.add(_want(2), None)  # "fetched" without a profile: refused, all rolled back
    with pytest.raises(ValueError, match="raw text"):
        arrivals.keep()
    assert len(arrivals) == 0 and not derived._decoded and cache.version() == 0
    arrivals.add(_want(3), {"id": 3})
    arrivals.keep()
    assert cache.profile_index().index.tolist() == [3] and derived._decoded == {3: (1, {"id": 3})}


def test_a_profile_is_encoded_on_the_worker_that_fetched_it_not_the_loads_thread(
        tmp_path, monkeypatch):
    # the load's thread keeps every arrival and hands out every next request: encoding
    # each profile there (0.1 ms) made the workers wait for it
    import threading

    import icoframes
    from icoframes import sandbox
    from icoframes.fetch import arrivals as module

    threads: list[str] = []
    text = module._text

    def encoding(profile):
        threads.append(threading.current_thread().name)
        return text(profile)

    monkeypatch.setattr(module, "_text", encoding)
    with sandbox.serve(n_icos=40, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            icos = icoframes.load_icos(status="past", progress=False)
            service = icoframes.config.get_settings().service_id
        finally:
            icoframes.reset_configuration()
        expected = len(sb.directory.ids("past"))
    assert len(icos) == expected and len(threads) == expected  # each encoded once
    assert all(name.startswith("icoframes") for name in threads), set(threads)
    cache = Cache(tmp_path / "cache", service or "")
    with cache.snapshot() as snap:  # kept as encoded there: compact UTF-8 JSON
        raw = [t["raw"] for b in snap.copies() for t in b.to_pylist()]
    assert len(raw) == expected and all(r.startswith('{"') and ", " not in r[:20] for r in raw)
