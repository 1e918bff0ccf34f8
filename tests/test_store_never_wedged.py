"""What is on disk never wedges a load (issue 18 part 4), for the store's own bookkeeping: the
parameters a cached list is found by, the change counter, a disk with no room for SQLite's
log index, and a cache dir path another user planted as a link.

Each case damages the cache with ``sqlite3`` (or fills a small tmpfs, or plants a link owned
by another uid), then loads over loopback from the sandbox, which counts the requests.
"""

from __future__ import annotations

import os
import pwd
import sqlite3
import warnings
from pathlib import Path

import pytest
from test_read_only_cache_wants import _read_only_view
from test_safety import _fill, _small_disk

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.store.connections import close_idle
from icoframes.store.folders import CacheFolderRefused, check_cache_dir

NARROWER = {"status": "past", "category": "Finance"}  # answered from the cached past list


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=3) as server:
        yield server


def _database(cache: Path) -> Path:
    [db] = cache.rglob("cache.sqlite3")
    return db


def _load(sb, **kwargs) -> tuple[list[int], list[str], dict[str, int]]:
    """The ids a load returns, the CacheWarnings it gave, the requests it sent by kind."""
    before = dict(sb.stats.requests)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ids = icoframes.load_icos(progress=False, **kwargs)["id"].tolist()
    return (ids, [str(w.message) for w in said if issubclass(w.category, CacheWarning)],
            {kind: sb.stats.requests.get(kind, 0) - before.get(kind, 0)
             for kind in ("icos", "ico")})


# a dead writer's or a bad disk's leavings: not JSON, empty, JSON but no object, not UTF-8
PARAMS = {"cut": "'['", "not json": "'not json'", "empty": "''", "a number": "'5'",
          "not UTF-8": "CAST(x'7bc3' AS TEXT)", "a blob": "x'00ff'"}


@pytest.mark.parametrize("damage", PARAMS)
def test_a_list_whose_parameters_do_not_read_is_removed_and_loads_go_on(cfg, tmp_path, damage):
    icoframes.load_icos(status="ongoing", progress=False)  # the list damaged below
    icoframes.load_filters()
    icoframes.load_icos(status="past", progress=False)  # the superset that answers NARROWER
    expected, _, sent = _load(cfg, **NARROWER)
    assert expected and sent == {"icos": 0, "ico": 0}
    db = _database(tmp_path / "cache")
    with sqlite3.connect(db) as conn:
        assert conn.execute(f"UPDATE lists SET params = {PARAMS[damage]} WHERE params LIKE "
                            "'%ongoing%'").rowcount == 1
    got, said, sent = _load(cfg, **NARROWER)
    assert got == expected and sent == {"icos": 0, "ico": 0}  # from the cached superset
    assert len(said) == 1 and "parameters" in said[0] and "it is removed" in said[0], said
    with sqlite3.connect(db) as conn:
        left = conn.execute("SELECT count(*) FROM lists WHERE key != 'filters'").fetchone()
    assert left == (1,)  # the past list
    assert _load(cfg, **NARROWER)[1:] == ([], {"icos": 0, "ico": 0})
    _, said, sent = _load(cfg, status="ongoing")  # the removed list: paged again, once
    assert sent["icos"] > 0 and said == []


def test_a_read_only_cache_leaves_a_list_whose_parameters_do_not_read_out(cfg, tmp_path):
    icoframes.load_filters()
    icoframes.load_icos(status="ongoing", progress=False)
    icoframes.load_icos(status="past", progress=False)
    expected = icoframes.load_icos(**NARROWER, progress=False)["id"].tolist()
    db = _database(tmp_path / "cache")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE lists SET params = '[' WHERE params LIKE '%ongoing%'")
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # (readable without the log)
    with _read_only_view(tmp_path / "cache") as view:
        icoframes.configure(**cfg.settings(), cache_dir=view)
        got, said, sent = _load(cfg, **NARROWER, offline=True)
    assert got == expected and sent == {"icos": 0, "ico": 0}
    assert said and all("it is left out" in message for message in said), said
    with sqlite3.connect(db) as conn:  # nothing removed: it could not be
        assert conn.execute("SELECT count(*) FROM lists WHERE params = '['").fetchone() == (1,)


@pytest.mark.parametrize("damage", ["DELETE FROM meta WHERE key = 'version'", "DELETE FROM meta",
                                    "DROP TABLE meta"])
def test_a_change_counter_gone_is_repaired_not_counted_again_from_0(cfg, tmp_path, damage):
    ids = sorted(icoframes.load_icos(status="past", progress=False)["id"].tolist())
    db = _database(tmp_path / "cache")
    with sqlite3.connect(db) as conn:
        conn.execute(damage)
        top = conn.execute("SELECT max(version) FROM profiles").fetchone()[0]
    close_idle(tmp_path / "cache", wait=True)  # opened again, as by the next process
    got, said, sent = _load(cfg, status="past", refresh="all")
    assert sorted(got) == ids and sent["ico"] == len(ids)  # every stored copy is planned
    assert len(said) == 1 and "the change counter" in said[0], said
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    assert meta["version"] > top and isinstance(meta["removed"], int)


def test_a_new_cache_counts_from_0_and_says_nothing(cfg, tmp_path):
    _, said, _ = _load(cfg, status="past")
    with sqlite3.connect(_database(tmp_path / "cache")) as conn:
        versions = conn.execute("SELECT min(version), max(version), count(*) FROM profiles "
                                "WHERE state = 'fetched'").fetchone()
    assert said == [] and versions[0] == 1 and versions[1] >= versions[2]


def test_a_warm_cache_on_a_full_disk_serves_and_a_write_says_the_disk_is_full(sb, tmp_path):
    with _small_disk(tmp_path / "disk", "8m") as disk:
        icoframes.configure(**sb.settings(), cache_dir=disk / "cache")
        sb.reset_quota()
        try:
            ids = icoframes.load_icos(status="past", progress=False)["id"].tolist()
            icoframes.load_icos(status="past", progress=False)  # the tables up to date
            close_idle(disk / "cache", wait=True)  # the log and its index removed on closing
            assert not list((disk / "cache").rglob("*-shm"))
            filler = _fill(disk, 0)
            got, said, sent = _load(sb, status="past", offline=True)
            assert got == ids and sent == {"icos": 0, "ico": 0} and said == []
            assert _load(sb, status="past")[::2] == (ids, {"icos": 0, "ico": 0})  # warm
            with pytest.raises(CacheError) as caught:  # this one must keep what it fetches
                icoframes.load_icos(status="ongoing", progress=False)
            assert "is full" in str(caught.value)
            filler.unlink()
            assert _load(sb, status="ongoing")[2]["icos"] > 0  # usable once space returns
        finally:
            icoframes.reset_configuration()
            close_idle(disk / "cache", wait=True)


def test_a_cache_dir_that_is_another_users_link_is_refused(cfg, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    target = tmp_path / "victims"
    target.mkdir(mode=0o700)
    shared = tmp_path / "tmp"  # as /tmp: sticky, anyone may write to it
    shared.mkdir()
    shared.chmod(0o1777)
    planted = shared / "shared-cache"  # by uid 4242
    planted.symlink_to(target)
    os.lchown(planted, 4242, 4242)
    icoframes.configure(**cfg.settings(), cache_dir=planted)
    with pytest.raises(CacheFolderRefused) as caught:
        icoframes.load_icos(status="past", progress=False)
    assert "symbolic link of another user (uid 4242" in str(caught.value)
    assert list(target.iterdir()) == [] and cfg.stats.requests.get("ico", 0) == 0
    os.lchown(planted, os.getuid(), os.getgid())  # one's own link: followed, as before
    assert icoframes.load_icos(status="past", progress=False)["id"].tolist()
    assert any(target.iterdir())


def test_a_cache_dir_whose_way_leads_through_another_users_link_is_refused(cfg, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    target = tmp_path / "victims"
    target.mkdir(mode=0o700)
    shared = tmp_path / "tmp"  # as /tmp: sticky, anyone may write to it
    shared.mkdir()
    shared.chmod(0o1777)
    planted = shared / "project"  # by uid 4242, above the cache dir (which is made under it)
    planted.symlink_to(target)
    os.lchown(planted, 4242, 4242)
    mine = tmp_path / "mine"  # one's own link, leading through it
    mine.symlink_to(planted)
    for cache_dir in (planted / "cache", mine / "cache", mine / "made" / ".." / "cache"):
        icoframes.configure(**cfg.settings(), cache_dir=cache_dir)
        with pytest.raises(CacheFolderRefused) as caught:
            icoframes.load_icos(status="past", progress=False)
        assert (f"on its way, {planted} is a symbolic link of another user (uid 4242; you are "
                f"uid 0) in {shared}, a folder others may write to" in str(caught.value))
    assert list(target.iterdir()) == [] and cfg.stats.requests.get("ico", 0) == 0
    os.lchown(planted, os.getuid(), os.getgid())  # one's own links: followed, as before
    icoframes.configure(**cfg.settings(), cache_dir=mine / "cache")
    assert icoframes.load_icos(status="past", progress=False)["id"].tolist()
    assert [path.name for path in target.iterdir()] == ["cache"]


def _linked(link: Path, target: Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    target.mkdir(exist_ok=True)
    link.symlink_to(target)
    return link


def test_another_users_link_is_followed_where_no_one_else_may_change_it(cfg, tmp_path):
    # a link of uid 4242's in its own folder (root in a container, under the host user's
    # checkout), and one in a folder of root's (an admin's per-user link, chown -h): only the
    # link's owner or root could have put it there, and a link cannot be changed in place
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    own = _linked(tmp_path / "ws" / "data", tmp_path / "big")
    os.lchown(own, 4242, 4242)
    os.chown(own.parent, 4242, 4242)
    os.lchown(admins := _linked(tmp_path / "scratch" / "alice", tmp_path / "big"), 4242, 4242)
    for n, link in enumerate((own, admins)):
        icoframes.configure(**cfg.settings(), cache_dir=link / f"cache{n}")
        assert icoframes.load_icos(status="past", progress=False)["id"].tolist()
    assert sorted(path.name for path in (tmp_path / "big").iterdir()) == ["cache0", "cache1"]


def test_the_refusal_names_the_links_owner_where_it_leads_and_what_to_set(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    nobody = pwd.getpwnam("nobody")
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o770)  # group-writable, not sticky: as shared
    os.lchown(_linked(shared / "proj", tmp_path / "data"), nobody.pw_uid, nobody.pw_gid)
    with pytest.raises(CacheFolderRefused) as caught:
        check_cache_dir(shared / "proj" / "cache", create=True)
    assert (f"on its way, {shared / 'proj'} is a symbolic link of another user (nobody, uid "
            f"{nobody.pw_uid}; you are uid 0) in {shared}, a folder others may write to: "
            f"whoever put it there chose where it leads ({tmp_path / 'data'}). If you trust "
            f"the link, set cache_dir to {tmp_path / 'data' / 'cache'}; if not: "
            in str(caught.value))
    assert list((tmp_path / "data").iterdir()) == []


def test_a_link_planted_between_the_check_and_the_make_is_refused(tmp_path, monkeypatch):
    # the folder above the cache dir missing at the check: another user's link put there
    # before mkdir makes it (followed by mkdir) is found by the check after the make
    if os.geteuid() != 0:
        pytest.skip("needs root to give a link to another user")
    shared, victim = tmp_path / "tmp", tmp_path / "victim"
    shared.mkdir()
    shared.chmod(0o1777)
    victim.mkdir(mode=0o700)
    mkdir = Path.mkdir

    def planting_first(self, *args, **kwargs):
        if not (planted := shared / "project").is_symlink():
            planted.symlink_to(victim)
            os.lchown(planted, 4242, 4242)
        return mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", planting_first)
    with pytest.raises(CacheFolderRefused, match="is a symbolic link of another user"):
        check_cache_dir(shared / "project" / "cache", create=True)
    assert (shared / "project").is_symlink() and list(victim.iterdir()) == []


def test_a_link_replaced_by_a_folder_while_checked_is_refused_with_words(tmp_path, monkeypatch):
    mine = _linked(tmp_path / "mine", tmp_path / "real")
    readlink = os.readlink

    def swapping_first(path, *args, **kwargs):
        if mine.is_symlink():
            mine.unlink()
            mine.mkdir()
        return readlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", swapping_first)
    with pytest.raises(CacheFolderRefused) as caught:
        check_cache_dir(mine / "cache", create=True)
    assert f"{mine}, on the way to {mine / 'cache'}, changed while it was checked" in str(
        caught.value)
