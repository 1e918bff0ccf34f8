"""Two ``icoframes export --snapshot`` runs of one day overlapping on one cache dir and one
``--out``, as two cron lines (or a cron line and a manual run) do: each list page is paid once
across the two processes, both write the day, and a run refused at its swap says who swapped
the day in.

Real processes against the sandbox on 127.0.0.1. The overlap is made exact by holding one
request at the server until the other process has reached its point (an event, never a sleep).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from ledger_day import noon, on_this_clock
from waiting import HANG_GUARD

from icoframes import sandbox
from icoframes.config import SETTINGS
from icoframes.fetch.moment import TOGETHER_WINDOW

WAITS = "is being paged by another process sharing the cache dir"
_MAIN = "import sys\nfrom icoframes.cli import main\nsys.exit(main(sys.argv[1:]))\n"


@pytest.fixture
def sb():
    # seed 1: 48 past ICOs (3 list pages), 7 ongoing and 5 upcoming (1 page each)
    with noon(), sandbox.serve(n_icos=60, seed=1) as server:
        yield server


def _export(sb, tmp_path: Path, *args: str, workers: int = 4) -> subprocess.Popen:
    """``icoframes export --out OUT --snapshot`` in a child, configured only by ICOFRAMES_*
    variables (one cache dir for every child), its request timeout out of the test's way
    (a request held at the server is answered when the test says), on this process's clock
    (:func:`ledger_day.noon`: the runs' day is one day, whenever the suite runs)."""
    return _child(sb, tmp_path, _MAIN, "export", "--out", str(tmp_path / "out"), "--snapshot",
                  *args, workers=workers)


def _child(sb, tmp_path: Path, script: str, *args: str, workers: int = 4) -> subprocess.Popen:
    """``python -c script args`` on this process's clock, with the sandbox's settings."""
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update({f"ICOFRAMES_{name.upper()}": str(value)
                for name, value in sb.settings().items() if value is not None})
    env.update(ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), ICOFRAMES_TIMEOUT="3600",
               ICOFRAMES_MAX_WORKERS=str(workers))
    return subprocess.Popen([sys.executable, "-c", on_this_clock(script), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _load(sb, tmp_path: Path, *statuses: str) -> subprocess.Popen:
    """``load_icos(status=...)`` of each of ``statuses`` in turn, in a child."""
    return _child(sb, tmp_path, "import icoframes\n" + "".join(
        f"icoframes.load_icos(status={status!r}, progress=False)\n" for status in statuses))


def _earlier() -> time_machine.travel:
    """This process's clock, and so its children's, moved back well past
    ``TOGETHER_WINDOW`` (ticking; the same day, within ``max_age``): lists cached under it
    are paged again with a list a load without a status pages, not taken as of its moment."""
    return time_machine.travel(dt.datetime.now(dt.UTC) - 30 * TOGETHER_WINDOW, tick=True)


def _day_ids(tmp_path: Path) -> set[int]:
    """The ICO ids of the day the exports wrote."""
    day = next((tmp_path / "out").glob("snapshot_date=*"))
    return set(pd.read_parquet(day / "icos.parquet", columns=["id"])["id"])


def _logged(child: subprocess.Popen, said: list[str], seen: Callable[[str], bool],
            event: threading.Event) -> threading.Thread:
    """A thread reading ``child``'s log into ``said`` as it comes: ``event`` set at the first
    line ``seen`` says, or when the child ends."""
    def read() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            said.append(line)
            if seen(line):
                event.set()
        event.set()
    thread = threading.Thread(target=read)
    thread.start()
    return thread


def _finish(child: subprocess.Popen) -> tuple[int, str]:
    """The child's exit code and log (stderr), once it ended."""
    _, err = child.communicate(timeout=HANG_GUARD)
    return child.returncode, err


def test_a_run_starting_while_another_pages_a_list_waits_and_pages_none_again(
        sb, tmp_path, monkeypatch):
    """Run A pages the three lists; ongoing and upcoming are kept (their profiles are being
    fetched) while its past page 1 is held at the server. Run B starts then: it finds
    ongoing and upcoming cached and past claimed by A. B used to page ongoing and upcoming
    again to page them "together" with past (the cached copy it found was not counted as
    kept), so the pair paid 2 list pages more, and A, whose lists were then older than the
    day's at its swap, exited 1 blaming "another export, with another cache dir". B now
    waits for A's past and pays no list page; both write the day."""
    ongoing, upcoming = sb.directory.ids("ongoing"), sb.directory.ids("upcoming")
    n_past = len(sb.directory.ids("past"))
    asked: list[str] = []  # the status of every list request the server answered
    lock, held, release, b_ready = (threading.Lock(), threading.Event(), threading.Event(),
                                    threading.Event())
    real_query = sb.directory.query

    def query(wire):  # the server's look-up for one list request (any page)
        status = wire.get("status")
        with lock:
            asked.append(status)
            count = asked.count(status)
        if status == "past" and count == 1:  # A's past page 1: held until B waits (or pages)
            held.set()
            assert release.wait(HANG_GUARD)
        elif status != "past" and count > 1:  # a one-page list asked again: B pages it
            b_ready.set()
        return real_query(wire)

    monkeypatch.setattr(sb.directory, "query", query)
    said: list[str] = []
    children: list[subprocess.Popen] = []

    def read_b() -> None:  # B's log as it comes: it says when it waits for A's list
        b = children[1]
        assert b.stderr is not None
        for line in b.stderr:
            said.append(line)
            if WAITS in line:
                b_ready.set()
        b_ready.set()  # B ended (its log is read whole below)

    reader, overlapped = threading.Thread(target=read_b), False
    try:
        children.append(_export(sb, tmp_path))
        assert held.wait(HANG_GUARD)
        # a profile of each one-page list asked: A kept those lists (kept before their
        # profiles are asked) and released their claims
        assert sb.stats.wait_for(lambda s: any(s.profile_hits[i] for i in ongoing)
                                 and any(s.profile_hits[i] for i in upcoming),
                                 timeout=HANG_GUARD)
        children.append(_export(sb, tmp_path))
        reader.start()
        overlapped = b_ready.wait(HANG_GUARD)
    finally:
        release.set()
        for child in children if not overlapped else []:  # a failed set-up: none left behind
            child.kill()
            child.communicate()
    assert overlapped
    a, b = children
    code_a, log_a = _finish(a)
    b.wait(timeout=HANG_GUARD)
    reader.join(HANG_GUARD)
    log_b = "".join(said)
    pages = Counter(asked)
    assert pages == {"past": 3, "ongoing": 1, "upcoming": 1}, (pages, log_a, log_b)
    assert (code_a, b.returncode) == (0, 0), (log_a, log_b)
    assert "holds a list newer" not in log_a + log_b
    assert f"{WAITS}: this load waits for it" in log_b
    day = next((tmp_path / "out").glob("snapshot_date=*"))
    assert (day / "manifest.json").is_file()
    assert f"icos: {n_past + len(ongoing) + len(upcoming)}" in log_a + log_b


def test_a_run_refused_because_a_run_on_its_cache_dir_paged_again_says_so(sb, tmp_path,
                                                                         monkeypatch):
    """The day exported once, run A (``--refresh all``) pages the lists and is fetching the
    profiles again, one of them held at the server, when run B (``--refresh changed``, on
    the same cache dir) pages the lists again and writes the day. A's lists are then older
    than the day's: A writes nothing and exits 1 (ExportBusy), as documented. Its message
    said "another export, with another cache dir" though there is none; it now says that an
    export sharing this cache dir paged the list again."""
    code, log = _finish(_export(sb, tmp_path))  # the day's first run
    assert code == 0, log
    held, release = threading.Event(), threading.Event()
    real_record = sb.stats.record_profile

    def record_profile(ico_id: int) -> None:  # A's first profile fetched again is held
        real_record(ico_id)
        if not held.is_set():
            held.set()
            assert release.wait(HANG_GUARD)

    monkeypatch.setattr(sb.stats, "record_profile", record_profile)
    # one worker: pages go first, so A asks its first profile once its three lists are kept
    a = _export(sb, tmp_path, "--refresh", "all", workers=1)
    try:
        assert held.wait(HANG_GUARD)
        assert sb.stats.requests["icos"] == 2 * 5  # the first run's pages, then A's
        code_b, log_b = _finish(_export(sb, tmp_path, "--refresh", "changed"))
        assert code_b == 0, log_b
        assert sb.stats.requests["icos"] == 3 * 5  # B paged the three lists again
    finally:
        release.set()
    code_a, log_a = _finish(a)
    assert code_a == 1, log_a
    assert "holds a list newer than this export's" in log_a
    assert ("another export sharing this cache dir paged that list again after this one's "
            "list and exported this day meanwhile") in log_a
    assert "another cache dir" not in log_a


def test_a_run_waiting_for_a_list_a_status_load_pages_pages_its_older_lists_with_it(
        sb, tmp_path, monkeypatch):
    """Past and upcoming are cached; then an ongoing ICO ends (the service lists it as past).
    A ``load_icos(status="ongoing")`` pages ongoing (its page 1 held at the server) when an
    export starts on the same cache dir: the export waits for ongoing, which no longer lists
    that ICO. Taking the cached past and upcoming as they were (paged before the move) would
    list it nowhere: the day written "complete" without it. Those lists are older than the
    moment the other process claimed ongoing, so the export pages them with it (each page
    once across the processes), and the ICO is in the day, as past."""
    with _earlier():  # older than the window: paged again with the list paged later
        code, log = _finish(_load(sb, tmp_path, "past", "upcoming"))
    assert code == 0, log
    moved = sb.directory.ids("ongoing")[0]
    sb.update_ico(moved, status="past")
    asked: list[str] = []
    lock, held, release = threading.Lock(), threading.Event(), threading.Event()
    real_query = sb.directory.query

    def query(wire):  # the server's look-up for one list request (any page)
        status = wire.get("status")
        with lock:
            asked.append(status)
            count = asked.count(status)
        if status == "ongoing" and count == 1:  # the status load's page 1: held
            held.set()
            assert release.wait(HANG_GUARD)
        elif status != "ongoing":  # the export pages the others (its own moment)
            release.set()
        return real_query(wire)

    monkeypatch.setattr(sb.directory, "query", query)
    said: list[str] = []
    children: list[subprocess.Popen] = []
    try:
        children.append(_load(sb, tmp_path, "ongoing"))
        assert held.wait(HANG_GUARD)
        children.append(_export(sb, tmp_path))
        reader = _logged(children[1], said, lambda line: WAITS in line, release)
        assert release.wait(HANG_GUARD)  # the export waits for ongoing (or pages a list)
    finally:
        release.set()
    code_load, log_load = _finish(children[0])
    codes = [code_load, children[1].wait(HANG_GUARD)]  # (its log: read by the reader)
    reader.join(HANG_GUARD)
    log_export = "".join(said)
    assert codes == [0, 0], (log_load, log_export)
    assert Counter(asked) == {"ongoing": 1, "past": 3, "upcoming": 1}, (asked, log_export)
    assert f"{WAITS}: this load waits for it" in log_export
    assert moved in _day_ids(tmp_path)
    assert _day_ids(tmp_path) == set(sb.directory.ids())
    assert f"icos: {len(sb.directory.ids())}" in log_export


def test_a_run_waiting_for_a_list_waits_for_the_lists_its_peer_pages_again(
        sb, tmp_path, monkeypatch):
    """Ongoing and upcoming are cached; then the service lists a new upcoming ICO. Export B
    pages past, so it pages ongoing and upcoming again with it (one moment); their page 1
    held at the server, export A starts on the same cache dir and waits for past. A used to
    take the cached ongoing and upcoming as they were: its day lacked the new ICO, and when
    B swapped its day in first, A's lists were older than the day's and A exited 1. A now
    waits for the lists B pages again too: each page is paid once and both write the day,
    with the new ICO."""
    with _earlier():  # older than the window: paged again with the list paged later
        code, log = _finish(_load(sb, tmp_path, "ongoing", "upcoming"))
    assert code == 0, log
    new = sb.directory.add_ico("upcoming")
    asked: list[str] = []
    lock, held, release = threading.Lock(), threading.Event(), threading.Event()
    real_query = sb.directory.query

    def query(wire):  # every list request of B held until A waits
        with lock:
            asked.append(wire.get("status"))
            if len(asked) == 3:
                held.set()
        assert release.wait(HANG_GUARD)
        return real_query(wire)

    monkeypatch.setattr(sb.directory, "query", query)
    said: list[str] = []
    children: list[subprocess.Popen] = []
    try:
        children.append(_export(sb, tmp_path))
        assert held.wait(HANG_GUARD)  # B asked page 1 of each of its three lists
        children.append(_export(sb, tmp_path))
        reader = _logged(children[1], said, lambda line: WAITS in line, release)
        assert release.wait(HANG_GUARD)
    finally:
        release.set()
    code_b, log_b = _finish(children[0])
    code_a = children[1].wait(HANG_GUARD)  # (its log: read by the reader)
    reader.join(HANG_GUARD)
    log_a = "".join(said)
    assert (code_a, code_b) == (0, 0), (log_a, log_b)
    assert Counter(asked) == {"past": 3, "ongoing": 1, "upcoming": 1}, (asked, log_a, log_b)
    assert "holds a list newer" not in log_a + log_b
    assert f"icos: {len(sb.directory.ids())}" in log_a, log_a
    assert f"icos: {len(sb.directory.ids())}" in log_b, log_b
    assert new in _day_ids(tmp_path)
