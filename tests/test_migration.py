"""A cache written by icoframes 0.1 (journals, Parquet parts, list files, JSON ledgers).

``tests/data/cache-0.1`` was written by icoframes 0.1 (commit c308183): a past
load of a 40-ICO sandbox, an ongoing list, the filter set, then a newer copy of
one profile and a failure of another left in a journal that was never folded.
The ``expected_*`` files are what 0.1 answered offline from that cache.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
from test_housekeeping import _read_only

import icoframes
from icoframes.errors import CacheWarning, NotCached, StaleWarning
from icoframes.schema import FILTERS, ICOS, LIST
from icoframes.textdtype import text_values

FIXTURE = Path(__file__).parent / "data" / "cache-0.1"
SERVICE = "sandbox-3-40-f05ed6a6"


@pytest.fixture
def old_cache(tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(FIXTURE / "cache", cache, symlinks=True)
    cache.chmod(0o700)
    icoframes.configure(base_url="http://127.0.0.1:9", service_name=SERVICE, public_key="pk",
                        private_key="sk", cache_dir=cache)
    yield cache
    icoframes.reset_configuration()


def _answered_by_0_1(name: str, loaded: pd.DataFrame) -> pd.DataFrame:
    """What 0.1 answered, its text columns in the loaded frame's text dtype.

    The fixtures were written under pandas 3, where Parquet text reads back as ``str``;
    pandas 2.2 and 2.3 read it as ``object`` with None, icoframes gives its text dtype.
    """
    expected = pd.read_parquet(FIXTURE / name)
    text = {c.name for table in (ICOS, LIST, FILTERS) for c in table.columns
            if c.kind == "text" and c.name in expected.columns}
    return expected.assign(**{c: text_values(expected[c]) for c in text})


# the journal's failure came after 1130's copy: its row is that copy, said to be out of date
KEPT = "1 row.s. are kept from an earlier fetch: fetching 1 of them again failed .e.g. id 1130: "


def test_a_cache_of_the_old_layout_is_converted_once_and_answers_as_before(old_cache):
    with pytest.warns(StaleWarning, match=KEPT), \
            pytest.warns(CacheWarning, match="converted from icoframes 0.1's layout: 35 profile"):
        past = icoframes.load_icos(status="past", offline=True)
    assert past.attrs["icoframes"]["not_refreshed"] == [1130]
    # fetched_status is newer than 0.1: the status each copy was stored under, here past
    assert past["fetched_status"].tolist() == past["status"].tolist()
    pd.testing.assert_frame_equal(past.drop(columns="fetched_status"),
                                  _answered_by_0_1("expected_past.parquet", past),
                                  check_like=False)
    assert "Renamed in a journal" in set(past["name"])  # the unfolded journal's copy is in use
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # converted once: no more news
        listing = icoframes.load_list(status="ongoing", offline=True)
        filters = icoframes.load_filters(offline=True)
        info = icoframes.cache_info()
    pd.testing.assert_frame_equal(
        listing, _answered_by_0_1("expected_ongoing_list.parquet", listing))
    pd.testing.assert_frame_equal(filters, _answered_by_0_1("expected_filters.parquet", filters))
    assert info.profiles == 33 and info.states["not_fetched"] == 2 and info.list_queries == 2
    left = {p.name for p in (old_cache / SERVICE).iterdir()} - {"cache.sqlite3-wal",
                                                                "cache.sqlite3-shm"}
    assert left == {".last_used", ".lock", "cache.sqlite3", "tables"}  # the old files went
    # the old ledger's count is kept (its key and service are the sandbox's, not these)
    assert icoframes.cache_info(all=True).ledgers == 1
    assert not list((old_cache / "quota").glob("*.json"))


def test_an_old_cache_that_cannot_be_written_is_ignored_with_a_way_to_convert_it(old_cache):
    with _read_only(old_cache), pytest.warns(
            CacheWarning, match=r"could not be converted.*not used. Convert it where it can be "
                                r"written with: python -c \"import icoframes; "
                                r"icoframes\.cache_info\(\)\"$"), \
            pytest.raises(NotCached):
        icoframes.load_icos(status="past", offline=True)
    with pytest.warns(StaleWarning, match=KEPT), \
            pytest.warns(CacheWarning, match="converted"):  # writable again: converted
        assert len(icoframes.load_icos(status="past", offline=True)) == 33
