"""Converting icoframes 0.1's request ledgers touches only the files 0.1 wrote.

The conversion (run by ``cache_info`` and by every load) unlinked every ``quota/*.json`` and
``*.lock``: a user's ``notes.json`` and a 0.1 ledger cut short by a crash, whose count was
then lost. Now a file is converted and removed only when its name and its content are 0.1's;
one of 0.1's names that does not read is kept aside, said; anything else stays.
"""

from __future__ import annotations

import sqlite3
import warnings

from ledger_day import NOON

import icoframes
from icoframes.errors import CacheWarning

OLD = "0123456789abcdef"  # a 0.1 ledger's name: 16 hex digits of the key's hash
TORN = "fedcba9876543210"


def test_only_0_1_ledgers_are_converted_and_the_rest_stays(tmp_path, clean_settings,
                                                            one_ledger_day):
    quota = tmp_path / "cache" / "quota"
    quota.mkdir(mode=0o700, parents=True)
    (tmp_path / "cache").chmod(0o700)
    day = NOON.date().isoformat()
    mine = {"notes.json": '{"my": "notes"}', "notes.lock": "keep me",
            "torn.json": '{"day": "' + day + '", "used": 49'}  # no name of 0.1's: a user's
    for name, text in mine.items():
        (quota / name).write_text(text)
    (quota / f"{OLD}.json").write_text(f'{{"day": "{day}", "used": 4990, "exhausted": false}}')
    (quota / f"{OLD}.lock").write_text("")
    (quota / f"{TORN}.json").write_text(f'{{"day": "{day}", "used": 49')
    icoframes.configure(base_url="http://127.0.0.1:9", public_key="pk", private_key="sk")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        icoframes.cache_info(cache_dir=tmp_path / "cache")
    for name, text in mine.items():
        assert (quota / name).read_text() == text, name
    assert not (quota / f"{OLD}.json").exists() and not (quota / f"{OLD}.lock").exists()
    with sqlite3.connect(quota / "ledger.sqlite3") as db:
        assert db.execute("SELECT key, day, sent FROM ledgers").fetchall() == [
            (OLD, day, 4990)]
    # the torn ledger: kept aside with its text (its count unknown), and said
    assert (quota / f"{TORN}.json.unread").read_text() == f'{{"day": "{day}", "used": 49'
    said = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert any(f"{TORN}.json" in text and "unread" in text for text in said), said
    # converted once: a second look changes nothing
    icoframes.cache_info(cache_dir=tmp_path / "cache")
    assert sorted(p.name for p in quota.iterdir() if not p.name.startswith("ledger.")) == [
        f"{TORN}.json.unread", "notes.json", "notes.lock", "torn.json"]
