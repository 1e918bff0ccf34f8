"""A load without a status that finds every list of its own cached, one of them being paged
again right then by another process sharing the cache dir, waits for that list (and takes
that process's moment) instead of using the older copy: two ``icoframes export --snapshot``
runs, the second started while the first re-pages a list, both write the whole day.

Real processes against the sandbox on 127.0.0.1. The overlap is made exact by holding one
list request at the server until the second run has said it waits (or ended).
"""

from __future__ import annotations

import json
import threading
from collections import Counter

from test_overlapping_exports import WAITS, _child, _earlier, _export, _finish, _load, _logged, sb
from waiting import HANG_GUARD, wait_until

from icoframes.fetch.moment import WAITED
from icoframes.fetch.sharedlists import LAPSED, RELEASED
from icoframes.sandbox import service
from icoframes.sandbox.service import Reply
from icoframes.store.cache import Cache

__all__ = ["sb"]  # (the fixture, shared with the other export tests)


def test_a_run_finding_every_list_cached_waits_for_the_list_its_peer_pages_again(
        sb, tmp_path, monkeypatch):
    """Ongoing and upcoming are cached (earlier today); then a past ICO starts (the service
    lists it as ongoing). Export A pages past, and so ongoing and upcoming again with it;
    its ongoing page 1 is held at the server once it kept past. Export B starts then: every
    list of its day is cached (past: A's, ongoing and upcoming: the earlier ones). B used
    them as they were, paying nothing and waiting for nothing: its day lacked the moved ICO
    (in A's past no more, in the earlier ongoing not yet). B now waits for A's ongoing."""
    with _earlier():  # older than the window: paged again with the past list
        code, log = _finish(_load(sb, tmp_path, "ongoing", "upcoming"))
    assert code == 0, log
    moved = sb.directory.ids("past")[0]
    sb.update_ico(moved, status="ongoing")
    asked: list[str] = []
    lock, release = threading.Lock(), threading.Event()
    real_query = sb.directory.query

    def query(wire):  # the server's look-up for one list request (any page)
        with lock:
            asked.append(status := wire.get("status"))
            first = status == "ongoing" and asked.count(status) == 1
        if first:  # A's ongoing page 1: held until B waits (or ends)
            assert release.wait(HANG_GUARD)
        return real_query(wire)

    monkeypatch.setattr(sb.directory, "query", query)
    cache = Cache(tmp_path / "cache", sb.settings()["service_name"])
    said: list[str] = []
    children = [_export(sb, tmp_path)]
    try:
        assert wait_until(lambda: cache.read_list({"status": "past"}) is not None)  # A kept it
        children.append(_export(sb, tmp_path))
        reader = _logged(children[1], said, lambda line: WAITS in line, release)
        assert release.wait(HANG_GUARD)
    finally:
        release.set()
    code_a, log_a = _finish(children[0])
    code_b = children[1].wait(HANG_GUARD)
    reader.join(HANG_GUARD)
    log_b = "".join(said)
    assert (code_a, code_b) == (0, 0), (log_a, log_b)
    assert Counter(asked) == {"past": 3, "ongoing": 1, "upcoming": 1}, (asked, log_b)
    assert f"{WAITS}: this load waits for it" in log_b
    assert f"icos: {len(sb.directory.ids())}" in log_b, log_b  # B's day: the moved ICO too
    assert "holds a list newer" not in log_a + log_b


def test_a_run_finding_its_lists_cached_together_waits_for_none_a_peer_pages_again(
        sb, tmp_path, monkeypatch):
    """Every list is cached by one load without a status (one moment, before the window).
    Process A re-pages past alone (``status='past', refresh=True``), its past page 2 held at
    the server; load B (no status) starts then. B's lists agree with each other: it uses
    them as cached, paying nothing and waiting for nothing. It used to wait for A's past
    (without end, for a live A on a long list) and page ongoing and upcoming again with it."""
    with _earlier():
        code, log = _finish(_child(sb, tmp_path, "import icoframes\n"
                                   "icoframes.load_icos(progress=False)\n"))
    assert code == 0, log
    asked: list[tuple[str, int]] = []
    lock, held, release = threading.Lock(), threading.Event(), threading.Event()
    real_list = service.Service._list

    def listed(self, params):  # the server's answer to one list request
        with lock:
            asked.append(page := (params.get("status"), int(params.get("page", 1))))
        if page == ("past", 2):  # A's: held until B waits (or ends)
            held.set()
            assert release.wait(HANG_GUARD)
        return real_list(self, params)

    monkeypatch.setattr(service.Service, "_list", listed)
    said: list[str] = []
    b_done = threading.Event()
    children = [_child(sb, tmp_path, "import icoframes\nicoframes.load_icos(status='past', "
                       "refresh=True, progress=False)\n")]
    try:
        assert held.wait(HANG_GUARD)
        children.append(_child(sb, tmp_path, _REPORTED))
        reader = _logged(children[1], said, lambda line: WAITS in line, b_done)
        assert b_done.wait(HANG_GUARD)
    finally:
        release.set()
    code_a, log_a = _finish(children[0])
    assert children[1].wait(HANG_GUARD) == 0, "".join(said)
    reader.join(HANG_GUARD)
    assert children[1].stdout is not None
    got, log_b = json.loads(children[1].stdout.read()), "".join(said)
    assert code_a == 0, log_a
    assert WAITS not in log_b
    assert got == {"requests": 0, "from_cache": [True, True, True]}, log_b
    assert Counter(asked) == {("past", 1): 1, ("past", 2): 1, ("past", 3): 1}, log_b


#: A load without a status, its waits logged: what it paid, and which lists the cache answered.
_REPORTED = ("import json, logging, icoframes\nlogging.basicConfig(level=logging.INFO)\n"
             "df = icoframes.load_icos(progress=False)\n"
             "paid = sum(icoframes.report(df).requests.values())\n"
             "print(json.dumps({'requests': paid, 'from_cache': "
             "[q['from_cache'] for q in df.attrs['icoframes']['queries']]}))\n")


def test_a_list_waited_for_whose_pager_died_says_this_load_paged_it(sb, tmp_path, monkeypatch):
    """Ongoing and upcoming are cached before the window, past since: two moments. Process A
    re-pages ongoing (its page 1 held at the server); load B (no status) finds every list
    cached and waits for A's ongoing (WAITED). A is killed: B pages ongoing itself. Its
    ``cache_declined`` said only that it was waited for; it now says B paged it too."""
    with _earlier():
        code, log = _finish(_load(sb, tmp_path, "ongoing", "upcoming"))
    assert code == 0, log
    code, log = _finish(_load(sb, tmp_path, "past"))
    assert code == 0, log
    held, release = threading.Event(), threading.Event()
    real_list = service.Service._list

    def listed(self, params):  # A's ongoing page 1: held until A is dead
        if params.get("status") == "ongoing" and not held.is_set():
            held.set()
            assert release.wait(HANG_GUARD)
        return real_list(self, params)

    monkeypatch.setattr(service.Service, "_list", listed)
    said: list[str] = []
    b_waits = threading.Event()
    a = _child(sb, tmp_path, "import icoframes\nicoframes.load_icos(status='ongoing', "
               "refresh=True, progress=False)\n")
    try:
        assert held.wait(HANG_GUARD)
        b = _child(sb, tmp_path, _DECLINED)
        reader = _logged(b, said, lambda line: WAITS in line, b_waits)
        assert b_waits.wait(HANG_GUARD)
    finally:
        a.kill()  # dead: its claim lapses at once
        a.communicate()
        release.set()
    assert b.wait(HANG_GUARD) == 0, "".join(said)
    reader.join(HANG_GUARD)
    assert b.stdout is not None
    declined = json.loads(b.stdout.read())
    assert declined["ongoing"] == [WAITED, LAPSED], "".join(said)



def test_a_list_waited_for_whose_pager_gave_it_up_says_so(sb, tmp_path, monkeypatch):
    """As above, but A lives: its ongoing page 1 is refused (a 400, not retried) once B
    waits, and A gives its claim up without keeping the list. B pages ongoing itself; its
    ``cache_declined`` said A stopped or died and its claim lapsed, neither of which is true."""
    with _earlier():
        code, log = _finish(_load(sb, tmp_path, "ongoing", "upcoming"))
    assert code == 0, log
    code, log = _finish(_load(sb, tmp_path, "past"))
    assert code == 0, log
    held, release = threading.Event(), threading.Event()
    real_list = service.Service._list

    def listed(self, params):  # A's ongoing page 1: held until B waits, then refused
        if params.get("status") == "ongoing" and not held.is_set():
            held.set()
            assert release.wait(HANG_GUARD)
            return Reply(400, {"error": "refused by the test"})
        return real_list(self, params)

    monkeypatch.setattr(service.Service, "_list", listed)
    said: list[str] = []
    a = _child(sb, tmp_path, "import icoframes\nicoframes.load_icos(status='ongoing', "
               "refresh=True, progress=False)\n")
    try:
        assert held.wait(HANG_GUARD)
        b = _child(sb, tmp_path, _DECLINED)
        reader = _logged(b, said, lambda line: WAITS in line, release)
        assert release.wait(HANG_GUARD)
    finally:
        release.set()
    code_a, log_a = _finish(a)
    assert b.wait(HANG_GUARD) == 0, "".join(said)
    reader.join(HANG_GUARD)
    assert b.stdout is not None
    declined = json.loads(b.stdout.read())
    assert declined["ongoing"] == [WAITED, RELEASED], (code_a, log_a, "".join(said))

#: A load without a status, its waits logged: each list's cache_declined.
_DECLINED = ("import json, logging, icoframes\nlogging.basicConfig(level=logging.INFO)\n"
             "df = icoframes.load_icos(progress=False)\n"
             "print(json.dumps({q['params']['status']: q.get('cache_declined') "
             "for q in df.attrs['icoframes']['queries']}))\n")


def test_a_run_finding_its_peers_new_list_beside_one_it_pages_again_waits_for_that_one(
        sb, tmp_path, monkeypatch):
    """Every list is cached by one load without a status (just now: one moment); then a past
    ICO starts (the service lists it as ongoing). Process A (no status, ``refresh=True``)
    pages the three again; its ongoing page 1 is held at the server once it kept past. Load
    B (no status) starts then: its lists are within the window of each other, but past is
    A's new copy, kept since A claimed ongoing, which B's copy is older than. B used them as
    one moment, paying nothing: the moved ICO was in neither list. B now waits for A's
    ongoing."""
    code, log = _finish(_child(sb, tmp_path, "import icoframes\n"
                               "icoframes.load_icos(progress=False)\n"))
    assert code == 0, log
    cache = Cache(tmp_path / "cache", sb.settings()["service_name"])
    warm = cache.list_fetched_at({"status": "past"})
    assert warm is not None
    moved = sb.directory.ids("past")[0]
    sb.update_ico(moved, status="ongoing")
    lock, release = threading.Lock(), threading.Event()
    asked: list[str] = []
    real_list = service.Service._list

    def listed(self, params):  # the server's answer to one list request
        with lock:
            asked.append(status := params.get("status"))
            first = status == "ongoing" and asked.count(status) == 1
        if first:  # A's ongoing page 1: held until B waits (or ends)
            assert release.wait(HANG_GUARD)
        return real_list(self, params)

    monkeypatch.setattr(service.Service, "_list", listed)
    said: list[str] = []
    children = [_child(sb, tmp_path, "import icoframes\n"
                       "icoframes.load_icos(refresh=True, progress=False)\n")]
    try:  # A kept past again
        assert wait_until(lambda: cache.list_fetched_at({"status": "past"}) != warm)
        children.append(_child(sb, tmp_path, _ROWS, str(moved)))
        reader = _logged(children[1], said, lambda line: WAITS in line, release)
        assert release.wait(HANG_GUARD)
    finally:
        release.set()
    code_a, log_a = _finish(children[0])
    assert children[1].wait(HANG_GUARD) == 0, "".join(said)
    reader.join(HANG_GUARD)
    assert children[1].stdout is not None
    got, log_b = json.loads(children[1].stdout.read()), "".join(said)
    assert code_a == 0, log_a
    assert got == {"rows": len(sb.directory.ids()), "moved": 1}, log_b
    assert f"{WAITS}: this load waits for it" in log_b


#: A load without a status, its waits logged: its rows, and how many are the ICO in argv.
_ROWS = ("import json, logging, sys, icoframes\nlogging.basicConfig(level=logging.INFO)\n"
         "df = icoframes.load_icos(progress=False)\n"
         "moved = int((df['id'] == int(sys.argv[1])).sum())\n"
         "print(json.dumps({'rows': len(df), 'moved': moved}))\n")
