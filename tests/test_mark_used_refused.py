"""``mark_used`` writes nothing in a folder a load refuses, and touches only the file it opened.

A load marks its service folder used (``.last_used``) before it reads it; a folder another
user owns, or one others may write to, is then refused: it must not have been written to
first. The mark's time is set on the file opened (``O_NOFOLLOW``), not by its name: a link
another process swaps in meanwhile is not followed. The swap is made by a profiler just as
``os.open`` returns (no clock, no mock).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hostile import LIST, HostileServer, paged_list

import icoframes
from icoframes.cachedir.housekeeping import USED_MARK, mark_used
from icoframes.config import get_settings
from icoframes.store.cache import Cache
from icoframes.store.folders import CacheFolderRefused, InUse

OLD = 1_000_000_000  # 2001: an mtime no touch gives


def test_a_folder_others_may_write_to_is_refused_unmarked(tmp_path):
    with HostileServer({LIST: paged_list(3)}) as srv:
        icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                            cache_dir=tmp_path / "cache")
        try:
            settings = get_settings()
            folder = Cache(settings.cache_dir, settings.service_id or "").dir
            folder.mkdir(parents=True)
            folder.chmod(0o777)  # (as another user's 0777 folder in a shared cache dir)
            with pytest.raises(CacheFolderRefused, match="others may write to it"):
                icoframes.load_list(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    assert os.listdir(folder) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can make another user's folder it may write into")
def test_another_users_folder_is_not_marked(tmp_path):
    folder = tmp_path / "svc"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)  # nobody's
    mark_used(folder)
    assert os.listdir(folder) == []


def test_a_link_swapped_in_once_the_mark_is_opened_is_not_followed(tmp_path):
    folder = tmp_path / "svc"
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_bytes(b"x")
    os.utime(victim, (OLD, OLD))
    mark = folder / USED_MARK
    swapped: list[bool] = []

    def profile(frame, event, arg) -> None:
        if event == "c_return" and arg is os.open and not swapped:
            swapped.append(True)
            mark.rename(folder / "was-the-mark")
            mark.symlink_to(victim)

    sys.setprofile(profile)
    try:
        mark_used(folder)
    finally:
        sys.setprofile(None)
    assert swapped == [True]
    assert victim.stat().st_mtime == OLD  # its time never set through the link


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can run as another user (whom file modes then bind)")
def test_a_mark_its_user_may_not_write_is_left_as_it_is(tmp_path):
    # a cache its owner made read-only (chmod -R a-w): neither mark_used nor a load's hold
    # touches its mark, though the owner may (utime on a descriptor opened read-only)
    import pwd

    from test_safety import _other_uid

    user = pwd.getpwuid(_other_uid())
    cache = tmp_path / "cache"
    folder = cache / "svc"
    folder.mkdir(parents=True, mode=0o700)
    cache.chmod(0o700)
    mark = folder / USED_MARK
    mark.touch()
    os.utime(mark, (OLD, OLD))
    mark.chmod(0o400)
    folder.chmod(0o500)
    for path in (cache, folder, mark):
        os.chown(path, user.pw_uid, user.pw_gid)
    pid = os.fork()
    if pid == 0:  # the user, in its cache dir (tmp_path is root's alone)
        code = 1
        try:
            os.chdir(cache)
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            mark_used("svc")
            hold = InUse(Path("."), Path("svc"))
            hold.hold()
            code = 2 if hold._fds == [] else 0  # held all the same (flock needs no write)
            hold.release()
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert mark.stat().st_mtime == OLD


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can run as another user (whom file modes then bind)")
def test_a_read_only_mark_in_a_folder_still_written_is_touched(tmp_path):
    # only the mark made read-only (chmod 400 .last_used): its folder is written, so a use
    # must show, or a prune takes the folder just used for unused
    import pwd

    from test_safety import _other_uid

    user = pwd.getpwuid(_other_uid())
    folder = tmp_path / "cache" / "svc"
    folder.mkdir(parents=True, mode=0o700)
    mark = folder / USED_MARK
    mark.touch()
    os.utime(mark, (OLD, OLD))
    mark.chmod(0o400)
    for path in (folder.parent, folder, mark):
        os.chown(path, user.pw_uid, user.pw_gid)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(folder.parent)
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            mark_used("svc")
            code = 0
        finally:
            os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert mark.stat().st_mtime != OLD
