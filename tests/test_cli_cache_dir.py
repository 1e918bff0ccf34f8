"""``icoframes cache info|clear --cache-dir DIR`` (REVC L2): the cache dir of the command
line, as ``export --cache-dir``; only ICOFRAMES_CACHE_DIR reached the cache command."""

from __future__ import annotations

import json

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_OK, EXIT_USAGE, main

pytestmark = pytest.mark.usefixtures("clean_settings")


@pytest.fixture
def two(tmp_path, monkeypatch):
    """A cache dir the command line names (one service folder, loaded) and the one the
    environment names (its own loaded folder too)."""
    named, configured = tmp_path / "named", tmp_path / "configured"
    with sandbox.serve(n_icos=20, seed=1) as sb:
        settings = sb.settings()
        for cache, status in ((named, "past"), (configured, "upcoming")):
            icoframes.configure(**settings, cache_dir=cache)
            try:
                icoframes.load_icos(status=status, progress=False)
            finally:
                icoframes.reset_configuration()
    for name in ("base_url", "public_key", "private_key", "service_name"):
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(settings[name]))
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(configured))
    folders = [next(p for p in c.iterdir() if p.is_dir() and p.name != "quota")
               for c in (named, configured)]
    return named, configured, folders


def test_cache_info_and_clear_take_the_cache_dir_of_the_command_line(two, capsys):
    named, _, (folder, other) = two
    assert main(["cache", "info", "--cache-dir", str(named)]) == EXIT_OK
    info = json.loads(capsys.readouterr().out)
    expected = icoframes.cache_info(cache_dir=named)
    assert info["path"] == str(folder) == str(expected.path)
    assert info["profiles"] == expected.profiles > 0
    assert info["list_queries"] == 1
    assert icoframes.cache_info().path == str(other)  # the environment's, when none is given
    assert main(["cache", "clear", "--cache-dir", str(named)]) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"removed {folder}" and out[1].startswith("cache cleared: 1 path removed")
    assert not folder.exists() and other.exists()  # the configured cache dir left as it was


@pytest.mark.parametrize(("argv", "said"), [
    (["--cache-dir", ""], "argument --cache-dir: "),
    (["--cache-dir", "a", "--cache-dir", "b"], "argument --cache-dir: given twice"),
])
def test_cache_dir_refused_as_exports_is(two, capsys, argv, said):
    for action in ("info", "clear"):
        assert main(["cache", action, *argv]) == EXIT_USAGE
        assert said in capsys.readouterr().err
    export = main(["export", "--out", "x", *argv])
    assert export == EXIT_USAGE and said in capsys.readouterr().err
    assert all(p.exists() for p in two[2])


def test_the_cache_commands_help_names_it(capsys):
    assert main(["cache", "--help"]) == EXIT_OK
    assert "--cache-dir DIR" in capsys.readouterr().out
