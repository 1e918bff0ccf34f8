"""``mark_used`` against a link placed at the last moment (`make mutate MODULE=cachedir`).

``mark_used`` removes a link or FIFO it finds at the mark, then opens the mark with
``O_NOFOLLOW``: a link another process places in between is not followed. The link is placed
by a profiler just as this thread calls ``os.open`` (no clock, no mock): the mutants that drop
``O_NOFOLLOW`` from the flags create the link's target outside the folder.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from icoframes.cachedir.housekeeping import USED_MARK, mark_used


@contextlib.contextmanager
def _linked_meanwhile(mark: Path, target: Path) -> Iterator[list[bool]]:
    """``mark`` becomes a link to ``target`` just as this thread calls ``os.open`` on it."""
    placed: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_call" and arg is os.open and not placed and not mark.is_symlink():
            placed.append(True)
            mark.unlink(missing_ok=True)
            mark.symlink_to(target)

    sys.setprofile(profile)
    try:
        yield placed
    finally:
        sys.setprofile(None)


def test_a_link_placed_at_the_mark_just_before_it_is_opened_is_not_followed(tmp_path):
    folder = tmp_path / "svc"
    folder.mkdir()
    victim = tmp_path / "outside" / "victim"
    victim.parent.mkdir()
    with _linked_meanwhile(folder / USED_MARK, victim) as placed:
        mark_used(folder)  # the open fails (ELOOP): a folder it cannot mark is left as it is
    assert placed == [True]
    assert (folder / USED_MARK).is_symlink() and not victim.exists()
    assert os.listdir(victim.parent) == []
