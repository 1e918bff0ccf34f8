"""The package's structure as users and maintainers meet it: imports, warnings, locks, rebuilds."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import textwrap

import pandas as pd
import pytest
from waiting import HANG_GUARD

import icoframes
import icoframes.parse.columns
import icoframes.parse.profiles
import icoframes.parse.rules
import icoframes.store.derived
from icoframes import sandbox
from icoframes.errors import (
    CacheWarning,
    IcoframesWarning,
    MissingProfileWarning,
    QuotaExceeded,
    QuotaWarning,
)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=HANG_GUARD)


def test_import_loads_neither_matplotlib_nor_the_sandbox_server():
    done = _run("""
        import sys, icoframes
        heavy = [m for m in ("matplotlib", "matplotlib.pyplot", "icoframes.sandbox",
                             "icoframes.sandbox.server", "http.server") if m in sys.modules]
        print(heavy)
        icoframes.sandbox, icoframes.plot_scores  # still there on first use
        print("icoframes.sandbox" in sys.modules, "icoframes.plotting" in sys.modules)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "True True"]


def test_tidy_is_a_function_and_its_module_can_be_patched(monkeypatch, tmp_path):
    assert icoframes.tidy is icoframes.parse.profiles.tidy
    calls = []
    real = icoframes.parse.profiles.tidy

    def spy(profiles, **kwargs):
        calls.append(len(profiles))
        return real(profiles, **kwargs)

    monkeypatch.setattr(icoframes.parse.profiles, "tidy", spy)
    with sandbox.serve(n_icos=30, seed=4) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path)
        try:
            icos = icoframes.load_icos(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    assert calls == [len(icos)]  # the cache's tables were built through the patched name


def test_every_warning_is_exported_and_derives_from_one_base():
    for name in ("IcoframesWarning", "QuotaWarning", "CacheWarning", "MissingProfileWarning"):
        assert name in icoframes.__all__
        assert issubclass(getattr(icoframes, name), IcoframesWarning)
    assert issubclass(IcoframesWarning, UserWarning)


def test_warnings_point_at_the_callers_line(tmp_path, one_ledger_day):
    with sandbox.serve(n_icos=40, seed=6) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path, daily_quota=3)
        try:
            with pytest.warns(QuotaWarning) as quota, pytest.raises(QuotaExceeded):
                icoframes.load_icos(status="past", progress=False)
            icoframes.configure(daily_quota=None)
            # an unreadable cached list
            for path in tmp_path.rglob("cache.sqlite3"):
                with contextlib.closing(sqlite3.connect(path)) as conn, conn:
                    conn.execute("UPDATE lists SET raw = 'not json', frame = x'00'")
            with pytest.warns(CacheWarning) as cache:
                icoframes.load_list(status="past", progress=False)
            listing = icoframes.load_list(status="upcoming", progress=False)
            sb.remove_ico(int(listing["id"].iloc[0]))
            with pytest.warns(MissingProfileWarning) as missing:
                icoframes.load_icos(status="upcoming", progress=False)
        finally:
            icoframes.reset_configuration()
    for record in (*quota, *cache, *missing):
        if issubclass(record.category, IcoframesWarning):
            assert record.filename == __file__, (record.category, record.filename)


def test_import_and_a_cold_load_work_without_fcntl():
    done = _run("""
        import sys, tempfile, warnings
        sys.modules["fcntl"] = None  # as on a platform without it: the import fails
        warnings.simplefilter("error")
        import icoframes
        from icoframes import sandbox
        with sandbox.serve(n_icos=40, seed=2) as sb, tempfile.TemporaryDirectory() as cache:
            icoframes.configure(**sb.settings(), cache_dir=cache)
            icos = icoframes.load_icos(status="past", progress=False)
            tables = icoframes.load_tables(status="past", progress=False)
            print(sorted(icos["id"]) == sorted(sb.directory.ids("past")), len(tables.team) > 0)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_a_changed_reading_rule_rebuilds_the_tables_without_a_request(tmp_path, monkeypatch):
    with sandbox.serve(n_icos=60, seed=8) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path)
        try:
            before = icoframes.load_icos(status="past", progress=False)
            spent = sb.stats.requests.total()
            # A new rule: every name reads as upper case. Changing a rule means a new
            # parser version (the source hash would also change with an edited file).
            real = icoframes.parse.columns.to_text

            def shouting(values):
                out, bad = real(values)
                return pd.array([v.upper() if isinstance(v, str) else v for v in out],
                                dtype=out.dtype), bad

            monkeypatch.setitem(icoframes.parse.columns.CONVERTERS, "text", shouting)
            monkeypatch.setattr(icoframes.parse.rules, "PARSER_VERSION",
                                icoframes.parse.rules.PARSER_VERSION + 1)
            after = icoframes.load_icos(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    assert sb.stats.requests.total() == spent  # rebuilt from the cached raw profiles
    assert (after["name"] == before["name"].str.upper()).all()
    assert not (after["name"] == before["name"]).all()


def test_the_fingerprint_covers_schema_version_and_source(monkeypatch):
    base = icoframes.store.derived.parser_fingerprint()
    monkeypatch.setattr(icoframes.parse.rules, "PARSER_VERSION", -1)
    assert icoframes.store.derived.parser_fingerprint() != base
    monkeypatch.undo()
    monkeypatch.setattr(icoframes.store.derived, "_parse_sources", lambda: "edited")
    assert icoframes.store.derived.parser_fingerprint() != base


def test_no_module_is_over_450_lines():
    from pathlib import Path

    root = Path(icoframes.__file__).resolve().parent
    long = {str(p.relative_to(root)): n for p in root.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, long



def test_no_constant_of_the_store_is_declared_in_two_of_its_modules():
    # each fact declared once: db.py and housekeeping.py both declared the epoch (_EPOCH);
    # housekeeping.py and legacy.py (cachedir/) are built on the store's facts: checked with it
    import ast
    from pathlib import Path

    seen: dict[str, list[str]] = {}
    root = Path(icoframes.__file__).resolve().parent
    for path in sorted([*(root / "store").glob("*.py"), *(root / "cachedir").glob("*.py")]):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            # a call without arguments (an empty OrderedDict, a Lock) is state, not a fact
            empty = isinstance(value, ast.Call) and not value.args and not value.keywords
            if value is not None and not isinstance(value, ast.List | ast.Constant) and not empty:
                seen.setdefault(ast.dump(value), []).append(path.name)
    assert not {code: names for code, names in seen.items() if len(names) > 1}
