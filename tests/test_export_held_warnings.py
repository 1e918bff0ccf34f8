"""An export holds the load's warnings until the kept rows leave them (manifest.told_as_kept),
holding only icoframes' own (through errors.warn), in its own context: never the process's
warnings.filters, which two exports in two threads would leave replaced (review M2); a held
warning never replaces the error that ends the block (M1), and is told once per location
under the "default" action, as any icoframes warning (L1)."""

from __future__ import annotations

import sys
import threading
import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.config import SETTINGS
from icoframes.errors import IcoframesWarning, QuotaExceeded, warn
from icoframes.manifest import told_as_kept


def _profile(h) -> None:
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {
        "id": asked, "main": {"name": f"ICO {asked}", "ico_score": "3.0"},
        "finance": {"raised": "1000"}}})(h)


def test_two_exports_in_two_threads_leave_the_warnings_filters_as_they_were(
        tmp_path, monkeypatch, recwarn):
    both_in = threading.Barrier(2, timeout=HANG_GUARD)  # both exports' loads are running
    first_done = threading.Event()
    page = paged_list(3)

    def listing(h) -> None:  # "past" (the first export) ends first, then "ongoing"
        status = h.request_json().get("status")
        if h.request_json().get("page", 1) == 1:
            both_in.wait()
        if status != "past":
            assert first_done.wait(HANG_GUARD)
        page(h)

    before = list(warnings.filters)
    with HostileServer({LIST: listing, PROFILE: _profile}) as srv:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        results: dict[str, object] = {}

        def export(status: str) -> None:
            try:
                results[status] = icoframes.export_tables(tmp_path / status, status=status,
                                                          progress=False)
            except BaseException as exc:  # said by the test's thread
                results[status] = exc
            finally:
                if status == "past":
                    first_done.set()

        threads = [threading.Thread(target=export, args=(s,)) for s in ("past", "ongoing")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(HANG_GUARD)
        icoframes.reset_configuration()
    assert not any(thread.is_alive() for thread in threads)
    assert all(getattr(r, "complete", None) is True for r in results.values()), results
    assert warnings.filters == before
    recwarn.clear()  # recwarn shows what the process's warnings.showwarning would
    warnings.warn("a later warning of the process", UserWarning, stacklevel=1)
    assert [str(w.message) for w in recwarn] == ["a later warning of the process"]


def test_a_held_warning_never_replaces_the_error_that_ends_the_block():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(QuotaExceeded) as raised, told_as_kept(False):
            warn("held while the load ran", IcoframesWarning)
            raise QuotaExceeded("the daily limit")
    assert raised.value.__context__ is None


def test_a_held_warning_of_one_line_is_told_once_under_the_default_action():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        with told_as_kept(False):
            for _ in range(2):
                warn("held twice from one line", IcoframesWarning)
        assert [str(w.message) for w in seen] == ["held twice from one line"]
        assert seen[0].filename == __file__ and seen[0].lineno == sys._getframe().f_lineno - 2


def test_only_icoframes_warnings_are_held():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with told_as_kept(False):
            warn("held", IcoframesWarning)
            warnings.warn("another library's", UserWarning, stacklevel=1)
            assert [str(w.message) for w in seen] == ["another library's"]
        assert [str(w.message) for w in seen] == ["another library's", "held"]
