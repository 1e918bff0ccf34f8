"""A shell variable in a path argument (``"$HOME/x"``) is refused with the path it names,
never made as a folder literally named ``$HOME`` in the current one; ``~`` is expanded.

Python does not expand ``$NAME`` in an argument (pandas, ``open`` and pathlib neither); a
shell expands ``--out $HOME/x`` before icoframes sees it, so a command given ``'$HOME/x'``
(quoted) is refused alike. The export runs against the sandbox over loopback.
"""

from __future__ import annotations

import logging

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.tables import Tables

SAID = ("writes {names}, {what} icoframes does not expand (a shell does): taken as written, "
        "it would name a folder of that name")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=8) as server:
        yield server


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A home folder and a current one, both empty; $HOME and $ICO_DAY set, $ICO_UNSET not."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ICO_DAY", "monday")
    monkeypatch.setenv("ICO_API_KEY", "k-secret-value")
    monkeypatch.delenv("ICO_UNSET", raising=False)
    monkeypatch.chdir(cwd)
    return home, cwd


@pytest.mark.parametrize(("given", "names", "meant"), [
    ("$HOME/x", "$HOME", "{home}/x"),
    ("${HOME}/x", "$HOME", "{home}/x"),
    ("$HOME", "$HOME", "{home}"),
    ("$HOME/ico-${ICO_DAY}", "$HOME, $ICO_DAY", "{home}/ico-monday"),
    ("out/$ICO_DAY/x", "$ICO_DAY", "out/monday/x"),
])
def test_an_out_writing_a_set_shell_variable_is_refused_with_the_path_it_names(
        cfg, places, caplog, given, names, meant):
    # export_tables("$HOME/x") made ./$HOME/x in the current folder and exported there
    home, cwd = places
    what = "a shell variable" if "," not in names else "shell variables"
    said = (f"out={given!r} " + SAID.format(names=names, what=what)
            + f"; did you mean {meant.format(home=home)!r}?")
    with pytest.raises(InvalidParameter) as caught:
        icoframes.export_tables(given, status="past", progress=False)
    assert str(caught.value) == said
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", given, "--status", "past"]) == 2  # '$HOME/x', quoted
    assert said.removeprefix("out=") in caplog.text
    assert cfg.stats.requests.total() == 0
    assert list(cwd.iterdir()) == [] and list(home.iterdir()) == []


@pytest.mark.parametrize(("given", "said"), [
    ("$ICO_UNSET/x", SAID.format(names="$ICO_UNSET", what="a shell variable")
     + ", and $ICO_UNSET is not set here either"),
    ("$ICO_API_KEY/x", SAID.format(names="$ICO_API_KEY", what="a shell variable")),
])
def test_an_unset_or_secret_looking_variable_is_refused_without_a_value(places, given, said):
    _home, cwd = places
    for call in (lambda: Tables.empty().to_parquet(given),
                 lambda: Tables.read_parquet(given), lambda: icoframes.read_export(given)):
        with pytest.raises(InvalidParameter) as caught:
            call()
        assert str(caught.value).endswith(f"={given!r} {said}")
        assert "k-secret-value" not in str(caught.value)
    assert list(cwd.iterdir()) == []


def test_a_cache_dir_writing_a_shell_variable_is_refused_alike(places, monkeypatch):
    home, cwd = places
    said = (SAID.format(names="$HOME", what="a shell variable")
            + f"; did you mean '{home}/cache'?")
    try:
        with pytest.raises(InvalidParameter) as caught:
            icoframes.configure(cache_dir="$HOME/cache")
        assert str(caught.value).startswith("invalid cache_dir=")  # the value: maybe a key
        assert str(caught.value).endswith(f": {said}")
        icoframes.reset_configuration()
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "$HOME/cache")  # a unit file's Environment=
        with pytest.raises(ConfigError) as error:
            icoframes.get_settings()
        assert str(error.value).startswith("invalid ICOFRAMES_CACHE_DIR=")
        assert str(error.value).endswith(f": {said}")
    finally:
        icoframes.reset_configuration()
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize("given", ["price$usd", "a$/b", "$1/x", "x/$", "~/$HOME.d"])
def test_a_dollar_that_is_no_whole_variable_name_is_a_name_as_written(places, given):
    home, cwd = places
    Tables.empty().to_parquet(given)
    folder = (home / given.removeprefix("~/")) if given.startswith("~") else cwd / given
    assert (folder / "icos.parquet").is_file()
    assert len(Tables.read_parquet(given).icos) == 0
