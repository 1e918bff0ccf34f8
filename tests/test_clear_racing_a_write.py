"""A clear racing a load's first write clears the folder, not "Directory not empty" (exit 5).

A load writes its database without the folder's lock, so a file it makes after the clear
listed the folder was left there, and the clear reported the service folder itself left
alone with the OS's words, exit 5. Here the load's write lands at that very moment: when
the clear removes ``cache.sqlite3``, the cache's database is opened for writing again (the
package's own, as a load's first write does; the step is wrapped to choose the moment).
"""

from __future__ import annotations

import pytest
from test_cli_cache import cached  # noqa: F401  (the fixture)

from icoframes.cachedir import housekeeping
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, main
from icoframes.config import get_settings
from icoframes.store.cache import DB_NAME, Cache

pytestmark = pytest.mark.usefixtures("clean_settings")


def test_a_clear_racing_a_loads_write_removes_the_folder(cached, monkeypatch, capsys):  # noqa: F811
    real = housekeeping.CacheReport._remove
    written: list[str] = []

    def remove(self, path, size):
        real(self, path, size)
        if path.name == DB_NAME and not written:  # a load's first write, just after
            settings = get_settings()
            with Cache(settings.cache_dir, settings.service_id or "").write():
                pass
            written.append(path.name)

    monkeypatch.setattr(housekeeping.CacheReport, "_remove", remove)
    assert main(["cache", "clear"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert written and err == ""
    assert out.splitlines()[0] == f"removed {cached}" and not cached.exists()


def test_a_load_that_keeps_writing_leaves_the_folder_said_so(cached, monkeypatch, capsys):  # noqa: F811
    real = housekeeping.CacheReport._remove

    def remove(self, path, size):
        real(self, path, size)
        if path.name == DB_NAME:  # written again after each listing
            settings = get_settings()
            with Cache(settings.cache_dir, settings.service_id or "").write():
                pass

    monkeypatch.setattr(housekeeping.CacheReport, "_remove", remove)
    assert main(["cache", "clear"]) == EXIT_INCOMPLETE  # the folder is still there
    out, err = capsys.readouterr()
    assert err.strip() == (f"left alone {cached}: a load kept writing to it while it was "
                           "cleared, so the folder stays: clear again once the loads are done")
    assert "Directory not empty" not in out + err and cached.is_dir()
