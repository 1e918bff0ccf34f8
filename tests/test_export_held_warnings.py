"""An export holds the load's warnings until the kept rows leave them (manifest.told_as_kept),
holding only icoframes' own (through errors.warn), in its own context: never the process's
warnings.filters, which two exports in two threads would leave replaced (review M2); a held
warning never replaces the error that ends the block (M1), and is told once per location
under the "default" action, as any icoframes warning (L1)."""

from __future__ import annotations

import os
import subprocess
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
        warnings.simplefilter("always")
        with pytest.raises(QuotaExceeded) as raised, told_as_kept(False):
            warn("held while the load ran", IcoframesWarning)
            warnings.simplefilter("error")  # an error by the time it is told
            raise QuotaExceeded("the daily limit")
    assert raised.value.__context__ is None


def test_a_warning_the_filters_make_an_error_is_raised_where_it_is_issued(
        tmp_path, one_ledger_day):
    """Under warnings.simplefilter("error") an export's warning was held like any other and
    raised only as the load's block ended: the QuotaWarning said before the profiles are
    fetched came after they were (the day's quota spent, the result dropped), its traceback
    in held.tell. It is raised where it is issued, as load_tables raises it: no profile
    request, nothing written, the traceback at its cause. (One list: its first page plans
    more profiles than the quota leaves, and the warning comes before any is asked.)"""
    from icoframes import sandbox

    with sandbox.serve(n_icos=15, seed=7) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=3)
        try:
            with warnings.catch_warnings(), pytest.raises(icoframes.QuotaWarning) as raised:
                warnings.simplefilter("error")
                icoframes.export_tables(tmp_path / "out", status="past", progress=False)
        finally:
            icoframes.reset_configuration()
        assert "ico" not in sb.stats.requests and sb.stats.requests["icos"] > 0
    assert "this load needs more profile requests than the about" in str(raised.value)
    assert raised.traceback[-1].name == "warn" and "told_as_kept" not in str(raised.traceback)
    assert not (tmp_path / "out").exists()  # nothing written, no folder left


def test_a_filter_making_one_warning_an_error_leaves_the_others_held():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.filterwarnings("error", "made an error", IcoframesWarning)
        with told_as_kept(False):
            warn("held", IcoframesWarning)
            with pytest.raises(IcoframesWarning, match="made an error"):
                warn("made an error", IcoframesWarning)
            assert seen == []
        assert [str(w.message) for w in seen] == ["held"]


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


def test_an_export_run_from_python_c_tells_its_held_warnings(tmp_path):
    """`python -c` (and the plain REPL) run in a __main__ whose loader is the built-in
    importer: warnings.warn_explicit given its globals asks it for the source and raised
    ImportError, so an export whose load warned (a daily quota of 2) died with a traceback,
    exit 1. It ends as an incomplete export (exit 5), the quota's warning in its log."""
    from icoframes import sandbox
    from icoframes.cli import EXIT_INCOMPLETE

    with sandbox.serve(n_icos=15, seed=7) as sb:
        settings = sb.settings()
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")},
               "ICOFRAMES_BASE_URL": settings["base_url"],
               "ICOFRAMES_PUBLIC_KEY": settings["public_key"],
               "ICOFRAMES_PRIVATE_KEY": settings["private_key"],
               "ICOFRAMES_CACHE_DIR": str(tmp_path / "cache"), "ICOFRAMES_DAILY_QUOTA": "2"}
        run = subprocess.run(
            [sys.executable, "-c", "import sys; from icoframes.cli import main; "
             f"sys.exit(main(['export', '--out', {str(tmp_path / 'out')!r}]))"],
            env=env, capture_output=True, text=True, timeout=HANG_GUARD, check=False)
    assert "Traceback" not in run.stderr
    assert run.returncode == EXIT_INCOMPLETE
    assert "(QuotaWarning)" in run.stderr  # told, as the log of a cron run shows it
