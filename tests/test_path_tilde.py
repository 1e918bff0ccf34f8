"""A folder literally named ``~``, written ``./~`` as a shell names it, is that folder: only a
leading ``~`` of the path as given is the home folder (review REVK M4).

pathlib drops a leading ``./`` before ``expanduser()`` (``Path("./~/x")`` is ``~/x``), so
``read_snapshots("./~/y")`` read ``$HOME/y`` and ``icoframes export --out ./~/exp`` wrote
into ``$HOME/exp``. Each test has a home folder and a current one, both temporary; the
exports run against the sandbox over loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.config import get_settings
from icoframes.history import read_snapshots
from icoframes.tables import Tables


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=4) as server:
        yield server


def test_export_tables_to_a_literal_tilde_folder_writes_there(cfg, places):
    home, cwd = places
    result = icoframes.export_tables("./~/exp", status="past", progress=False)
    assert result.path == cwd / "~" / "exp"
    assert (cwd / "~" / "exp" / "icos.parquet").is_file()
    assert list(home.iterdir()) == []
    rows = len(icoframes.read_export("./~/exp").icos)
    assert rows == result.rows["icos"] > 0
    assert len(Tables.read_parquet(cwd / "~" / "exp").icos) == rows


def test_the_command_writes_out_and_keeps_its_cache_in_a_literal_tilde_folder(cfg, places):
    home, cwd = places
    assert main(["export", "--out", "./~/exp", "--cache-dir", "./~/cache",
                 "--status", "past"]) == 0
    assert (cwd / "~" / "exp" / "icos.parquet").is_file()
    assert sorted(p.name for p in (cwd / "~").iterdir()) == ["cache", "exp"]
    assert list(home.iterdir()) == []
    assert cfg.stats.requests.total() > 0


def test_configure_takes_a_cache_dir_in_a_literal_tilde_folder(cfg, places):
    home, cwd = places
    icoframes.configure(cache_dir="./~/cache")
    assert get_settings().cache_dir == cwd / "~" / "cache"
    icoframes.load_icos(status="past", progress=False)
    assert [p.name for p in (cwd / "~" / "cache").iterdir()] != []
    assert list(home.iterdir()) == []


def test_read_snapshots_of_a_literal_tilde_folder_reads_it_not_the_home_one(cfg, places):
    home, cwd = places
    icoframes.export_tables(home / "y", status="past", snapshot=True, progress=False)
    icoframes.export_tables(cwd / "~" / "y", status="ongoing", snapshot=True, progress=False)
    literal, at_home = read_snapshots("./~/y"), read_snapshots("~/y")
    assert set(literal["status"]) == {"ongoing"} and set(at_home["status"]) == {"past"}
    assert read_snapshots(str(cwd / "~" / "y"))["id"].tolist() == literal["id"].tolist()


def test_a_cache_dir_of_the_environment_in_a_literal_tilde_folder(places, monkeypatch):
    home, cwd = places
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "./~/c")
    icoframes.reset_configuration()
    try:
        assert get_settings().cache_dir == cwd / "~" / "c"
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "~/c")
        icoframes.reset_configuration()
        assert get_settings().cache_dir == home / "c"
    finally:
        icoframes.reset_configuration()


@pytest.mark.parametrize("given", ["./~/t", "./~", "~/../cwd/~/t"])
def test_tables_to_parquet_keeps_a_literal_tilde_folder(places, given):
    home, cwd = places
    path = Tables.empty().to_parquet(given)
    expected = cwd / "~" / "t" if given != "./~" else cwd / "~"
    assert (expected / "icos.parquet").is_file()
    assert Path(path).resolve() == expected.resolve()
    assert [p.name for p in home.iterdir()] == []


def test_the_demo_writes_all_of_a_home_folder_out_there(places):
    # demo --out '~/d' (quoted: no shell expanded it) made ./~/d for its plots while its
    # export expanded ~ and wrote the tables to $HOME/d
    home, cwd = places
    try:
        assert main(["demo", "--out", "~/d", "--n-icos", "30"]) == 0
    finally:
        icoframes.reset_configuration()
    assert list(cwd.iterdir()) == []
    assert {"icos.parquet", "manifest.json", "scores.png"} <= {
        p.name for p in (home / "d").iterdir()}
