"""The suite's temp dir: what a test run leaves in it fails the run.

Every process that runs tests (pytest alone, or each pytest-xdist worker) points
``tempfile`` and ``$TMPDIR`` at a folder of its own under its pytest basetemp, so
``tempfile.mkdtemp()`` in a test, in the code under test and in a subprocess (which
inherits ``$TMPDIR``) lands there, never in the machine's /tmp. At the end of the
session (:func:`leftovers`) the folder must be empty: a test that makes a temp folder
removes it, or uses ``tmp_path``. Each worker checks only its own folder, so no worker
sees another's folders while that one is still running.

Docstring examples make folders with ``tempfile.mkdtemp()`` as a reader would (the
folder is theirs to keep): each doctest gets a fresh ``tmp_path_factory`` folder as its
temp dir instead, kept and pruned by pytest like any ``tmp_path``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem
from _pytest.tmpdir import TempPathFactory

#: the folder's name under each process' basetemp
FOLDER = "tmpdir"
#: the plugin's name in pytest's plugin manager
PLUGIN = "icoframes-suite-tmpdir"


def _factory(config: pytest.Config) -> TempPathFactory:
    """The session's ``tmp_path_factory`` (pytest's tmpdir plugin sets it at configure;
    pytest-xdist gives each worker its own basetemp)."""
    return config._tmp_path_factory  # type: ignore[attr-defined,no-any-return]


def _point_at(folder: str | None, env: str | None) -> None:
    """``tempfile`` at ``folder`` and ``$TMPDIR`` at ``env`` (unset when None)."""
    tempfile.tempdir = folder
    if env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = env


def runs_tests(config: pytest.Config) -> bool:
    """False in pytest-xdist's controller, which hands tests to workers and runs none."""
    return hasattr(config, "workerinput") or getattr(config.option, "dist", "no") == "no"


class SuiteTempDir:
    """The process' temp dir for the session (a pytest plugin: its hooks see doctests
    too, which a conftest's hooks under tests/ do not)."""

    def __init__(self, config: pytest.Config) -> None:
        self.factory = _factory(config)
        self.folder = self.factory.getbasetemp() / FOLDER
        self.folder.mkdir()
        self.made_by: dict[str, str] = {}
        self.running: tuple[str, set[str]] = ("", set())
        self.before = (tempfile.tempdir, os.environ.get("TMPDIR"))
        _point_at(str(self.folder), str(self.folder))

    def restore(self) -> None:
        """The temp dir the process had before."""
        _point_at(*self.before)

    def leftovers(self) -> list[str]:
        """What the session left in the folder, each with the test that made it."""
        running, before = self.running
        return [f"{name} (from {self._maker(name, running, before)})"
                for name in sorted(os.listdir(self.folder))]

    def _maker(self, name: str, running: str, before: set[str]) -> str:
        """The test that made ``name``: the session's end is checked while the process'
        last test is still running, so what appeared since it began is that test's."""
        if name in self.made_by:
            return self.made_by[name]
        return running if running and name not in before else "outside any test"

    def pytest_unconfigure(self) -> None:
        self.restore()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        # one process runs one test at a time: what appears meanwhile is that test's (the
        # failure names it; the session's end is reported on whichever test came last)
        before = set(os.listdir(self.folder))
        self.running = (item.nodeid, before)
        try:
            return (yield)
        finally:
            self.running = ("", set())
            for name in set(os.listdir(self.folder)) - before:
                self.made_by.setdefault(name, item.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        if not isinstance(item, DoctestItem):
            return (yield)
        own = str(self.factory.mktemp("doctest-tmpdir"))
        _point_at(own, own)
        try:
            return (yield)
        finally:
            _point_at(str(self.folder), str(self.folder))


def leftovers_message(folder: Path, names: list[str]) -> str:
    """The failure's text: what was left, and where."""
    shown = ", ".join(names[:20]) + (f" (+{len(names) - 20} more)" if len(names) > 20 else "")
    return (f"the tests left {len(names)} entr{'y' if len(names) == 1 else 'ies'} in the temp "
            f"dir {folder}: {shown}. A test removes what it makes there (or uses tmp_path).")
