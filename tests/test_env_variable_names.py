"""An ``ICOFRAMES_*`` environment variable that names no setting is refused, never ignored.

A cron job sets everything through variables; ``ICOFRAMES_DAILYQUOTA=10`` (meaning
``ICOFRAMES_DAILY_QUOTA``) was read by nothing, so the export spent 65 requests against a cap
of 10 and exited 0; ``ICOFRAMES_CACHEDIR`` silently used the default cache dir. Now settings
are not read while one is set: ``ConfigError`` naming it and the variable it most likely means
(as ``configure(quota=...)`` gets "did you mean 'daily_quota'?"), exit 2, before any request
and before anything is written. Every ``ICOFRAMES_*`` name the project itself reads or sets
(package, sandbox, command line, tests, benchmarks, docs, Makefile, CI) is declared once, in
:data:`icoframes.config.ENV_VARIABLES`, so none of them is refused.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from pathlib import Path

import nbformat
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_USAGE, main
from icoframes.config import ENV_VARIABLES, SETTINGS
from icoframes.errors import ConfigError

ROOT = Path(icoframes.__file__).resolve().parents[1]
VALUE = "Zq8vTopSecretValue"  # a value is never shown: the variable may hold a key

pytestmark = pytest.mark.usefixtures("clean_settings")

# misspellings a user may type, and the variable each means
MISSPELT = [("ICOFRAMES_DAILYQUOTA", "ICOFRAMES_DAILY_QUOTA"),
            ("ICOFRAMES_CACHEDIR", "ICOFRAMES_CACHE_DIR"),
            ("ICOFRAMES_QUOTARESET", "ICOFRAMES_QUOTA_RESET"),
            ("ICOFRAMES_MAXWORKERS", "ICOFRAMES_MAX_WORKERS"),
            ("ICOFRAMES_TIME_OUT", "ICOFRAMES_TIMEOUT"),
            ("ICOFRAMES_QUOTA", "ICOFRAMES_DAILY_QUOTA"),  # a word, as configure(quota=)
            ("ICOFRAMES_PRIVATEKEY", "ICOFRAMES_PRIVATE_KEY"),
            ("icoframes_daily_quota", "ICOFRAMES_DAILY_QUOTA")]  # read by nothing either


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=3) as server:
        yield server


def _through_variables(monkeypatch, sb, cache: Path) -> None:
    """icoframes configured as a cron job is: by variables only."""
    for name, value in sb.settings().items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(cache))


@pytest.mark.parametrize(("name", "meant"), MISSPELT)
def test_the_export_refuses_a_misspelt_variable_before_any_request(sb, tmp_path, monkeypatch,
                                                                   caplog, name, meant):
    _through_variables(monkeypatch, sb, tmp_path / "cache")
    monkeypatch.setenv(name, VALUE)
    sb.stats.reset()
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "out"
    assert main(["export", "--out", str(out)]) == EXIT_USAGE  # (was 0: 65 requests, no cap)
    assert sum(sb.stats.requests.values()) == 0
    assert not out.exists()  # nothing written either
    said = caplog.text
    assert f"unknown environment variable {name} (did you mean {meant}?)" in said, said
    assert f"`unset {name}`" in said and VALUE not in said


@pytest.mark.filterwarnings("ignore::icoframes.IcoframesWarning")  # the cap: expected
def test_once_spelt_right_the_cap_applies(sb, tmp_path, monkeypatch):
    _through_variables(monkeypatch, sb, tmp_path / "cache")
    monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "10")
    sb.stats.reset()
    assert main(["export", "--out", str(tmp_path / "out"), "--allow-incomplete"]) == 0
    assert sum(sb.stats.requests.values()) == 10  # the cap the user meant


def test_a_notebook_gets_the_fix_and_its_configuration_unchanged(sb, tmp_path, monkeypatch):
    monkeypatch.setenv("ICOFRAMES_CACHEDIR", "/srv/cache")
    with pytest.raises(ConfigError) as info:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    said = str(info.value)
    assert "ICOFRAMES_CACHEDIR (did you mean ICOFRAMES_CACHE_DIR?)" in said
    assert "del os.environ['ICOFRAMES_CACHEDIR']" in said and "/srv/cache" not in said
    monkeypatch.delenv("ICOFRAMES_CACHEDIR")
    assert icoframes.get_settings().base_url is None  # the refused configure changed nothing
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    monkeypatch.setenv("ICOFRAMES_MAXWORKERS", "2")  # set later, in the same kernel
    sb.stats.reset()
    with pytest.raises(ConfigError, match=r"did you mean ICOFRAMES_MAX_WORKERS\?"):
        icoframes.load_icos(status="past", progress=False)
    assert sum(sb.stats.requests.values()) == 0


def test_every_unknown_variable_is_named_and_one_unlike_any_lists_them(monkeypatch):
    monkeypatch.setenv("ICOFRAMES_ZZZ", VALUE)
    monkeypatch.setenv("ICOFRAMES_CACHEDIR", VALUE)
    with pytest.raises(ConfigError) as info:
        icoframes.get_settings()
    said = str(info.value)
    assert said.startswith("unknown environment variables ICOFRAMES_CACHEDIR (did you mean "
                           "ICOFRAMES_CACHE_DIR?), ICOFRAMES_ZZZ: "), said
    assert f"icoframes reads {', '.join(ENV_VARIABLES)}." in said and VALUE not in said


def test_every_declared_variable_is_read_and_none_refused(tmp_path, monkeypatch):
    values = {"base_url": "http://127.0.0.1:9", "public_key": "p", "private_key": "s",
              "cache_dir": str(tmp_path), "service_name": "svc", "max_workers": "3",
              "timeout": "7", "daily_quota": "11", "quota_reset": "06:00",
              "max_response_bytes": "2048"}
    assert sorted(values) == sorted(s.name for s in SETTINGS)
    for setting in SETTINGS:
        monkeypatch.setenv(setting.env, values[setting.name])
    assert set(ENV_VARIABLES) >= {s.env for s in SETTINGS}
    for name in set(ENV_VARIABLES) - {s.env for s in SETTINGS}:
        monkeypatch.setenv(name, "1")
    settings = icoframes.get_settings()
    assert (settings.max_workers, settings.daily_quota, settings.service_name) == (3, 11, "svc")


def _mentioned() -> dict[str, list[str]]:
    """Every ICOFRAMES_* name written in the project's files -> the files it is in."""
    skip = {".git", ".venv", "_build", "node_modules", "__pycache__", "generated"}
    found: dict[str, list[str]] = {}
    for path in ROOT.rglob("*"):
        if (not path.is_file() or skip & set(path.relative_to(ROOT).parts)
                or path.suffix in {".parquet", ".png", ".pyc", ".gz", ".db"}):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for name in set(re.findall(r"ICOFRAMES_[A-Za-z0-9_]*[A-Za-z0-9]", text)):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_variable_the_project_reads_or_sets_is_declared_once():
    """Package, sandbox, CLI, tests, benchmarks, docs, Makefile, CI: each ICOFRAMES_* name
    they hold is declared (settings, else config.OTHER_VARIABLES), or is one of the
    misspellings the tests and the changelog show refused."""
    refused = {name for name, _ in MISSPELT} | {"ICOFRAMES_ZZZ"}
    mentioned = _mentioned()
    assert len(ENV_VARIABLES) == len(set(ENV_VARIABLES))
    undeclared = {name: where for name, where in mentioned.items()
                  if name not in ENV_VARIABLES and name not in refused}
    assert not undeclared
    assert {"ICOFRAMES_BASE_URL", "ICOFRAMES_SERVICE_NAME", "ICOFRAMES_DAILY_QUOTA"} <= set(
        mentioned)  # the scan sees the sandbox's and the tests' names



@pytest.mark.parametrize("name", ["ICOFRAMES_CACHE_DIR", "ICOFRAMES_DAILY_QUOTA",
                                  "ICOFRAMES_QUOTA_RESET"])
def test_a_variable_set_empty_is_refused_not_taken_for_unset(sb, tmp_path, monkeypatch, caplog,
                                                             name):
    """``export ICOFRAMES_CACHE_DIR=$CACHE`` with CACHE unset ran on the default cache dir
    (another cache, another ledger), ``ICOFRAMES_DAILY_QUOTA=`` on 5000, exit 0."""
    _through_variables(monkeypatch, sb, tmp_path / "cache")
    monkeypatch.setenv(name, "")
    sb.stats.reset()
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "out"
    assert main(["export", "--out", str(out), "--status", "past"]) == EXIT_USAGE  # (was 0)
    assert sum(sb.stats.requests.values()) == 0 and not out.exists()
    assert f"{name} is set but empty: refused, not taken for unset" in caplog.text
    assert f"`unset {name}`" in caplog.text
    with pytest.raises(ConfigError, match=f"{name} is set but empty"):
        icoframes.get_settings()
    monkeypatch.delenv(name)  # unset: the default, as always
    assert icoframes.get_settings().daily_quota == 5000


def test_a_variable_set_empty_is_no_refusal_where_an_argument_gives_the_setting(sb,
                                                                              monkeypatch):
    """Empty, the variable decides nothing when configure() or the call gives its setting:
    refused only where the default would apply unsaid."""
    monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "")
    assert icoframes.get_settings(daily_quota=7).daily_quota == 7
    assert icoframes.configure(**sb.settings(), daily_quota=100).daily_quota == 100
    assert icoframes.get_settings().daily_quota == 100
    with pytest.raises(ConfigError, match="ICOFRAMES_DAILY_QUOTA is set but empty: refused, "
                       r"not taken for unset \(daily_quota would be 5000, without a word\)"):
        icoframes.configure(daily_quota=None)  # dropped: the empty variable would decide
    assert icoframes.get_settings(daily_quota=3).daily_quota == 3  # the refusal changed nothing
    assert icoframes.get_settings().daily_quota == 100
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", "")  # no default: unset, as the message says
    icoframes.reset_configuration()
    with pytest.raises(ConfigError, match=r"\(public_key would be unset, without a word\)"):
        icoframes.get_settings(daily_quota=3)


def test_the_notebook_starts_the_sandbox_when_icoframes_base_url_is_empty(tmp_path,
                                                                          monkeypatch, capsys):
    """explore.ipynb's first cell takes an empty ICOFRAMES_BASE_URL for unset: it starts the
    sandbox and configures it, which gives base_url, and loads from it."""
    monkeypatch.setenv("ICOFRAMES_BASE_URL", "")
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
    cells = nbformat.read(ROOT / "notebooks" / "explore.ipynb", as_version=4).cells
    first = next(c.source for c in cells if c.cell_type == "code")
    assert "sandbox.start()" in first
    here: dict = {}
    try:
        exec(first.replace("sandbox.start()", "sandbox.start(n_icos=40)"), here)
        assert "started the embedded sandbox" in capsys.readouterr().out
        assert len(icoframes.load_icos(status="past")) == len(here["sb"].directory.ids("past"))
    finally:
        if here.get("sb") is not None:
            here["sb"].stop()


@time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC), tick=True)  # one UTC day
def test_the_demo_runs_with_icoframes_base_url_empty(tmp_path, monkeypatch):
    """The demo configures its own sandbox (address, keys, name, cache): no variable decides."""
    monkeypatch.setenv("ICOFRAMES_BASE_URL", "")
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--n-icos", "30"]) == 0
    assert (out / "icos.parquet").is_file()
