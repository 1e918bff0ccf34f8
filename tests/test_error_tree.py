"""The tree of exceptions and warnings the docs draw is the one the code raises.

docs/guide/errors.md renders the docstring of ``icoframes.errors`` as *the* hierarchy, and
says every exception is an ``IcoframesError`` exported from ``icoframes``. The tree lacked
six classes (``CacheError``, ``DiskFull``, ``ClockBehind``, ``UnknownName``,
``IncompleteWarning``, ``StaleWarning``), drew ``MissingProfileWarning`` under the wrong
parent, ``BadResponse`` and ``Redirected`` escaped the loaders unexported, and the readers
raised plain ``FileNotFoundError``/``ValueError``, ``compute_features`` a plain
``TypeError``. The rules: every class drawn is the first base of the classes drawn under it,
each other base (``OSError``, ``ValueError``...) named on its line; every exception class of
``icoframes.errors`` is drawn, exported from ``icoframes`` and documented; every other
exception class of the package either derives from a drawn one (caught as it) or is named
here as one that never leaves the package.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import icoframes
from icoframes import errors

PACKAGE = Path(icoframes.__file__).resolve().parent
API_RST = PACKAGE.parent / "docs" / "reference" / "api.rst"

#: Exception classes of the package outside the two families, and why no caller meets them.
INTERNAL = {
    "icoframes.api.gate.Rejected": "the gate's reason: the client raises BadResponse",
    "icoframes.api.gate.TooLarge": "a Rejected",
    "icoframes.api.gate.TooSlow": "a Rejected",
    "icoframes.api.retry.Transient": "a failed attempt: retried, then ServiceUnavailable",
    "icoframes.api.switch.Cancelled": "a request cut by a stop: the stop is raised",
    "icoframes.api.transport.HeadCut": "a head broken off: a Transient",
    "icoframes.fetch.stops.BudgetSpent": "the call's budget ran out: said in the report",
    "icoframes.paths.ShellVariable": "a setting's check words it as ConfigError",
}

_LINE = re.compile(r"^(?P<lead>[ │]*)(?:[├└]── )?(?P<name>[A-Z]\w+)")


def _drawn() -> dict[str, tuple[str | None, str]]:
    """Each class the docstring of ``icoframes.errors`` draws: its drawn parent and line."""
    drawn: dict[str, tuple[str | None, str]] = {}
    for block in re.findall(r"::\n\n((?:    .*\n|\n)+)", errors.__doc__ or ""):
        stack: list[str] = []
        for line in block.splitlines():
            text = line[4:]
            match = _LINE.match(text)
            if not match or ("──" not in text and stack):  # a line's continuation
                continue
            depth = len(match["lead"]) // 4 + ("──" in text)
            del stack[depth:]
            drawn[match["name"]] = (stack[-1] if stack else None, text)
            stack.append(match["name"])
    return drawn


def _classes() -> list[type]:
    """Every exception or warning class a module of the package defines."""
    found = []
    for info in pkgutil.walk_packages([str(PACKAGE)], "icoframes."):
        if info.name.endswith("__main__"):  # it runs the command line
            continue
        module = importlib.import_module(info.name)
        found += [obj for _, obj in inspect.getmembers(module, inspect.isclass)
                  if issubclass(obj, Exception) and obj.__module__ == info.name]
    return found


def test_the_parse_sees_both_trees():
    drawn = _drawn()
    assert drawn["IcoframesError"][0] is None and drawn["IcoframesWarning"][0] is None
    assert drawn["Redirected"][0] == "BadResponse" and drawn["AuthError"][0] == "APIError"
    assert drawn["MissingProfileWarning"][0] == "IncompleteWarning"
    assert len(drawn) >= 29


def test_each_class_drawn_is_under_its_first_base_with_the_others_named():
    for name, (parent, line) in _drawn().items():
        cls = getattr(errors, name)
        first, *others = cls.__bases__
        if parent is None:
            assert first in (Exception, UserWarning), name
        else:
            assert first is getattr(errors, parent), f"{name} is drawn under {parent}"
        for base in others:  # except OSError catches CacheError: the page says so
            assert base.__name__ in line, f"{name}'s line does not say it is a {base.__name__}"


def test_every_class_of_errors_is_drawn_exported_and_documented():
    classes = {n for n in errors.__all__
               if inspect.isclass(getattr(errors, n))
               and issubclass(getattr(errors, n), Exception)}
    assert classes == set(_drawn())
    documented = set(re.findall(r"^   (?:errors\.)?(\w+)$", API_RST.read_text("utf-8"), re.M))
    for name in classes:
        assert getattr(icoframes, name) is getattr(errors, name), name
        assert name in icoframes.__all__, name
        assert name in documented, f"{name} has no page in docs/reference/api.rst"


def test_every_exception_class_of_the_package_is_in_a_family_or_stays_inside():
    families = (errors.IcoframesError, errors.IcoframesWarning)
    outside = {f"{c.__module__}.{c.__qualname__}" for c in _classes()
               if not issubclass(c, families)}
    assert outside == set(INTERNAL)
    undrawn = {c for c in _classes() if issubclass(c, families)
               and c.__name__ not in _drawn()}
    for cls in undrawn:  # one module's own refusal: caught as its drawn base, never exported
        assert not hasattr(icoframes, cls.__name__), cls


def test_the_readers_raise_package_errors_that_are_the_builtins_too(tmp_path):
    missing = tmp_path / "nothing"
    for read in (icoframes.read_export, icoframes.read_snapshots,
                 icoframes.Tables.read_parquet):
        with pytest.raises(icoframes.ExportNotFound) as info:
            read(missing)
        assert isinstance(info.value, FileNotFoundError), read
        assert isinstance(info.value, icoframes.IcoframesError), read
    (tmp_path / "empty").mkdir()
    for call in (lambda: icoframes.changes(tmp_path / "empty", kinds="status"),
                 lambda: icoframes.read_snapshots(tmp_path / "empty")):
        with pytest.raises(icoframes.ExportMismatch, match="no snapshot_date") as info:
            call()
        assert isinstance(info.value, ValueError)
    with pytest.raises(icoframes.WrongType, match=r"must be icoframes\.Tables") as info:
        icoframes.compute_features(icoframes.tidy([{"id": 1}]).icos)
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, icoframes.InvalidParameter)


def test_a_snapshot_tree_given_to_read_export_is_a_mismatch(tmp_path):
    tables = icoframes.tidy([{"id": 1, "main": {"name": "One"}}])
    tables.to_parquet(tmp_path / "snapshot_date=2026-01-02")
    with pytest.raises(icoframes.ExportMismatch, match="holds 1 snapshots") as info:
        icoframes.read_export(tmp_path)
    assert isinstance(info.value, ValueError)
