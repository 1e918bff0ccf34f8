"""A shell variable in a path argument (``"$HOME/x"``) is refused with the path it names,
never made as a folder literally named ``$HOME`` in the current one; ``~`` is expanded.

Python does not expand ``$NAME`` in an argument (pandas, ``open`` and pathlib neither); a
shell expands ``--out $HOME/x`` before icoframes sees it, so a command given ``'$HOME/x'``
(quoted) is refused alike. The export runs against the sandbox over loopback.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.history import changes, read_snapshots, snapshot_info
from icoframes.tables import Tables

SAID = ("writes {names}, {what} icoframes does not expand (a shell does): taken as written, "
        "it would name a folder of that name")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=8) as server:
        yield server


@pytest.fixture
def places(places, monkeypatch):
    """conftest's empty home ($HOME) and current folders; $ICO_DAY and $ICO_API_KEY set,
    $ICO_UNSET not."""
    monkeypatch.setenv("ICO_DAY", "monday")
    monkeypatch.setenv("ICO_API_KEY", "k-secret-value")
    monkeypatch.delenv("ICO_UNSET", raising=False)
    return places


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
    _home, cwd = places
    # "$HOME/cache" may be a key (8 characters, no blank): not shown, nor the path it names
    said = SAID.format(names="$HOME", what="a shell variable")
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


def test_a_cache_dir_not_shown_says_a_folder_made_before_exists_not_where(places, monkeypatch):
    # configure(cache_dir="$HOME/cache") made ./$HOME/cache before such paths were refused
    _home, cwd = places
    (cwd / "$HOME" / "cache").mkdir(parents=True)
    said = (SAID.format(names="$HOME", what="a shell variable") + " (a folder of that name "
            "exists, made by icoframes before it refused such paths: move it to the path meant)")
    try:
        with pytest.raises(InvalidParameter) as caught:
            icoframes.configure(cache_dir="$HOME/cache")
        assert str(caught.value) == ("invalid cache_dir=a text of 11 characters (not shown: it "
                                     f"may be a key): {said}")
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "$HOME/cache")
        with pytest.raises(ConfigError) as error:
            icoframes.get_settings()
        assert str(error.value).endswith(f"(not shown: it may be a key): {said}")
        with pytest.raises(InvalidParameter) as caught:  # shown: the folder, and where it goes
            icoframes.configure(cache_dir="$HOME")
        assert str(caught.value) == (
            "invalid cache_dir='$HOME': " + SAID.format(names="$HOME", what="a shell variable")
            + " (a folder named '$HOME' exists in the current folder, made by icoframes before "
            f"it refused such paths: move what it holds to '{_home}'); did you mean "
            f"'{_home}'?")
    finally:
        icoframes.reset_configuration()
    assert [p.name for p in cwd.iterdir()] == ["$HOME"]


@pytest.mark.parametrize("given", ["price$usd", "a$/b", "$1/x", "x/$", "~/$HOME.d"])
def test_a_dollar_that_is_no_whole_variable_name_is_a_name_as_written(places, given):
    home, cwd = places
    Tables.empty().to_parquet(given)
    folder = (home / given.removeprefix("~/")) if given.startswith("~") else cwd / given
    assert (folder / "icos.parquet").is_file()
    assert len(Tables.read_parquet(given).icos) == 0


# --- a folder literally named $HOME, made before the refusal -------------------------------------

@pytest.fixture
def made_before(cfg, places, tmp_path):
    """An export and a snapshot tree of the sandbox where an earlier icoframes put them for
    ``export_tables('$HOME/x')`` and ``--out '$HOME/ico' --snapshot``: in ``./$HOME``."""
    _home, cwd = places
    made = tmp_path / "made"
    icoframes.export_tables(made / "x", status="past", progress=False)
    icoframes.export_tables(made / "ico", status="past", snapshot=True, progress=False)
    rows = len(icoframes.read_export(made / "x").icos)
    assert rows > 0
    (made / "x").rename(made / "$HOME")  # the folder the old export_tables made...
    (made / "$HOME").rename(cwd / "$HOME")
    (cwd / "$HOME").rename(cwd / "x")
    (cwd / "$HOME").mkdir()
    (cwd / "x").rename(cwd / "$HOME" / "x")  # ...and what it wrote there
    (made / "ico").rename(cwd / "$HOME" / "ico")
    return cwd, rows


def test_a_folder_literally_named_home_reads_back_by_any_spelling(made_before):
    # they were all refused "writes $HOME ... did you mean '<home>/x'?" (a regression)
    cwd, rows = made_before
    for spelling in ("$HOME/x", "./$HOME/x", str(cwd / "$HOME" / "x"), Path("$HOME") / "x"):
        assert len(Tables.read_parquet(spelling).icos) == rows
        assert len(icoframes.read_export(spelling).icos) == rows
    for spelling in ("$HOME/ico", "./$HOME/ico", Path("$HOME", "ico")):
        assert len(read_snapshots(spelling)) == rows
        assert len(snapshot_info(spelling)) == 1
        assert changes(spelling).empty
    with pytest.raises(InvalidParameter, match=r"^path='\$HOME/y' writes \$HOME"):
        icoframes.read_export("$HOME/y")  # nothing there: what was meant is still said


def test_a_writer_names_the_folder_literally_named_home_it_finds(made_before, caplog):
    cwd, _rows = made_before
    home = os.environ["HOME"]
    for given, there, what, meant in [("$HOME/x", "$HOME/x", "it", f"{home}/x"),
                                      ("$HOME/y", "$HOME", "what it holds", home)]:
        said = (f"out={given!r} " + SAID.format(names="$HOME", what="a shell variable")
                + f" (a folder named {there!r} exists in the current folder, made by icoframes "
                f"before it refused such paths: move {what} to {meant!r}); did you mean "
                f"'{home}/{given[-1]}'?")
        with pytest.raises(InvalidParameter) as caught:
            icoframes.export_tables(given, status="past", progress=False)
        assert str(caught.value) == said
        with pytest.raises(InvalidParameter) as caught:
            Tables.empty().to_parquet(given)
        assert str(caught.value) == said.replace("out=", "directory=", 1)
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["export", "--out", "$HOME/x", "--status", "past"]) == 2
    assert "(a folder named '$HOME/x' exists in the current folder" in caplog.text
    assert sorted(p.name for p in (cwd / "$HOME").iterdir()) == ["ico", "x"]  # nothing new


@pytest.mark.parametrize(("value", "names"), [
    ("k3y/$Zq8vTopSecretPart/x", "a shell variable, which"),  # no such variable: the value's
    ("${HOME}/Zq8vTopSecretPart", "$HOME, a shell variable"),  # the environment's name only
    ("$ICO_DAY/${ICO_API_KEY}/x", "a shell variable, which")])
def test_a_cache_dir_not_shown_is_refused_without_any_part_of_it(places, monkeypatch, value,
                                                                 names):
    # the value is withheld (it may be a key), yet the reason said "writes $Zq8vTopSecretPart"
    # or "did you mean '<home>/Zq8vTopSecretPart'?"
    said = (f"(not shown: it may be a key): writes {names} icoframes does not expand (a shell "
            "does): taken as written, it would name a folder of that name")
    try:
        with pytest.raises(InvalidParameter) as caught:
            icoframes.configure(cache_dir=value)
        assert str(caught.value) == f"invalid cache_dir=a text of {len(value)} characters {said}"
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", value)
        with pytest.raises(ConfigError) as error:
            icoframes.get_settings()
        assert str(error.value) == (f"invalid ICOFRAMES_CACHE_DIR=a text of {len(value)} "
                                    f"characters {said}")
    finally:
        icoframes.reset_configuration()


def test_a_reader_refuses_a_literal_home_folder_when_the_folder_meant_is_there_too(made_before):
    # both ./$HOME/x (an old export_tables('$HOME/x')) and <home>/x (the folder meant): the
    # readers read the old literal folder's rows silently (a regression of b041b35)
    cwd, rows = made_before
    home = os.environ["HOME"]
    shutil.copytree(cwd / "$HOME" / "x", Path(home) / "x")
    shutil.copytree(cwd / "$HOME" / "ico", Path(home) / "ico")
    for given, name, call in [("$HOME/x", "path", icoframes.read_export),
                              (Path("$HOME", "x"), "directory", Tables.read_parquet),
                              ("$HOME/ico", "path", read_snapshots),
                              (Path("$HOME", "ico"), "path", snapshot_info)]:
        there = str(given)
        said = (f"{name}={str(given)!r} " + SAID.format(names="$HOME", what="a shell variable")
                + f" (a folder named {there!r} exists in the current folder, made by "
                f"icoframes before it refused such paths: move what it holds to "
                f"'{home}/{there[6:]}'); did you mean '{home}/{there[6:]}'?")
        with pytest.raises(InvalidParameter) as caught:
            call(given)
        assert str(caught.value) == said
    with pytest.raises(InvalidParameter, match=r"^path='\./\$HOME/x' writes \$HOME.*"
                       r"\(a folder named '\$HOME/x' exists"):
        icoframes.read_export("./$HOME/x")  # pathlib's "$HOME/x": the same two folders
    # the folder meant, by its own path, and the literal one by a path naming no other
    # folder ("<cwd>/$HOME/x" names "<cwd>/<home>/x", nothing there), read as before
    assert len(icoframes.read_export(Path(home) / "x").icos) == rows
    assert len(icoframes.read_export(str(cwd / "$HOME" / "x")).icos) == rows
    assert len(read_snapshots(str(cwd / "$HOME" / "ico"))) == rows
    shutil.rmtree(Path(home) / "x")  # the folder meant gone: the literal one reads again
    assert len(icoframes.read_export("$HOME/x").icos) == rows
