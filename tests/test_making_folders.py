"""A folder of the cache dir is made under a temporary name (``.making-*``), then renamed.

- A folder whose name is near the longest a name may be (a base_url with a long path, as
  behind a reverse proxy's prefix) failed on its temporary name, 17 characters longer
  (``File name too long``): the temporary name shows only the start of the folder's.

Everything runs against real files in a temporary cache dir.
"""

from __future__ import annotations

import pytest

from icoframes.store.folders import checked_folders

pytestmark = pytest.mark.usefixtures("clean_settings")

#: a service folder's name for a base_url with a path of 230 characters (NAME_MAX is 255)
LONG_NAME = "127.0.0.1_35075_" + "p" * 230


def test_a_folder_named_near_the_longest_a_name_may_be_is_made(tmp_path):
    root = tmp_path / "cache"
    database = root / LONG_NAME / "cache.sqlite3"
    assert checked_folders(root, database, write=True)
    assert database.is_file()
    assert [p.name for p in root.iterdir()] == [LONG_NAME]  # no MAKING folder left

