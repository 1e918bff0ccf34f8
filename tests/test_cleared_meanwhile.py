"""A clear that removes the cache under a load is said as such, never as a setting to fix.

A clear run by another process (``icoframes cache clear``) can land between a load finding
its service folder and using it. The load said "the cache dir ... is not writable ... Set
ICOFRAMES_CACHE_DIR" (a ConfigError: the command's exit 2, settings to fix), or "the cache
database ... cannot be opened, not even to read" (a damaged file, one would think). Here a
real ``clear_cache()`` runs at that very point of a real load against the sandbox: the
moment is chosen by wrapping the step the clear must precede, the clear itself is not
emulated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, ConfigError
from icoframes.fetch import service
from icoframes.store import db
from icoframes.store.connections import close_idle


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=8) as server:
        yield server


def _clear_once_before(monkeypatch, owner, name, when=lambda *args: True):
    """``owner.name`` runs a real clear_cache() first, the first time it is called (with
    arguments ``when`` accepts)."""
    real = getattr(owner, name)
    cleared: list[object] = []

    def after_a_clear(*args, **kwargs):
        if not cleared and when(*args):
            cleared.append(icoframes.clear_cache())
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, after_a_clear)
    return cleared


def _says_a_clear(error: BaseException) -> None:
    text = str(error)
    assert "was removed while this call was using it" in text and "clear" in text, text
    assert "Set ICOFRAMES_CACHE_DIR" not in text and "not writable" not in text


def test_a_clear_between_finding_the_folder_and_probing_it_is_said(cfg, monkeypatch):
    icoframes.load_icos(status="past", progress=False)  # the service folder is there
    # the probe comes right after the cache dir's check: the clear lands in between
    cleared = _clear_once_before(monkeypatch, service, "check_cache_dir")
    with pytest.raises(CacheError) as caught:
        icoframes.load_tables(status="past", refresh=True, progress=False)
    assert cleared and cleared[0].removed  # the folder went
    assert not isinstance(caught.value, ConfigError)
    _says_a_clear(caught.value)
    # and calling again is all it takes
    assert len(icoframes.load_tables(status="past", progress=False).icos) > 0


def test_a_clear_between_finding_the_database_and_opening_it_is_said(cfg, monkeypatch):
    icoframes.load_icos(status="past", progress=False)
    # the offline load opens the database as another process would: anew
    close_idle(Path(icoframes.cache_info().path), wait=True)
    # a read opens the cache's database "rw" first (it found the file): the clear then
    cleared = _clear_once_before(monkeypatch, db.Database, "_open_writable", lambda _, uri: (
        "cache.sqlite3" in uri and uri.endswith("&mode=rw")))
    with pytest.raises(CacheError) as caught:
        icoframes.load_icos(status="past", offline=True, progress=False)
    assert cleared and cleared[0].removed
    _says_a_clear(caught.value)
