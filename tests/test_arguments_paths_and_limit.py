"""The last arguments read by a rule of their own, refused in words of their own (2026-11-27).

Left last session: ``QuotaLedger(limit=)`` kept its own integer test (``np.int64(1)``
refused, ``2**63`` taken, then an OverflowError at the first request); ``read_export`` and
``read_snapshots`` of a file, a FIFO or a path under a file said "no export folder at ..."
(a FileNotFoundError, as if nothing were there) after looking for a swap to wait for;
``cache_dir`` refusals appended the OS's text ("not writable (Not a directory)") or were
Python's own (``~nosuchuser``: a bare RuntimeError; a NUL: a ValueError at each load).
Requests are counted at a server on 127.0.0.1.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest
from hostile import LIST, HostileServer, paged_list
from test_housekeeping import _read_only

import icoframes
from icoframes import history, sandbox
from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import CacheError, ConfigError, InvalidParameter, QuotaExceeded
from icoframes.fetch.stops import Booking
from icoframes.numerals import INT64_MAX
from icoframes.quoting import quoted
from icoframes.store.ledger import QuotaLedger

# --- QuotaLedger(limit=): numerals.as_integer, as every integer argument ----------------------


def test_a_ledger_limit_is_any_integer_and_caps_what_a_client_sends(tmp_path, one_ledger_day):
    with HostileServer({LIST: paged_list(3)}) as srv:
        ledger = QuotaLedger(tmp_path, "pk", limit=np.int64(1), service=srv.base_url)
        with Client(**srv.settings(), retry=RetryPolicy(max_attempts=1),
                    budget=Booking(ledger)) as c:
            assert [item["id"] for item in c.list_page(status="past")["data"]] == [1, 2, 3]
            with pytest.raises(QuotaExceeded, match=r"daily_quota setting \(1 request\)"):
                c.list_page(status="past")
        assert srv.hits[LIST] == 1  # the cap held before sending
    assert type(ledger.limit) is int and ledger.state().sent == 1


@pytest.mark.parametrize(("limit", "hint"), [
    (True, ""), (2.5, ""), (2.0, "; did you mean 2?"), ("\u0663", "; did you mean 3?"), (-1, ""),
    (INT64_MAX + 1, ""), (np.timedelta64(5), ""), (None, ""),
])
def test_a_ledger_limit_is_refused_naming_it_once(tmp_path, limit, hint):
    with pytest.raises(InvalidParameter) as caught:
        QuotaLedger(tmp_path, "pk", limit=limit, service="http://127.0.0.1:9")
    assert str(caught.value) == (f"limit must be a whole number from 0 to {INT64_MAX}, got "
                                 f"{quoted(limit)}{hint}")
    assert list(tmp_path.iterdir()) == []  # refused before the ledger's folder was made


# --- read_export, read_snapshots, snapshot_info, changes: a path that names no folder ---------


@pytest.fixture(scope="module")
def plain_export(tmp_path_factory):
    """A plain export of a small sandbox (over loopback), and a folder of odd entries."""
    root = tmp_path_factory.mktemp("exports")
    with sandbox.serve(n_icos=20, seed=8) as sb:
        icoframes.configure(**sb.settings(), cache_dir=root / "cache")
        try:
            icoframes.export_tables(root / "out", status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    os.mkfifo(root / "fifo")
    return root


READERS = {
    "read_export": lambda path: icoframes.read_export(path),
    "read_snapshots": lambda path: icoframes.read_snapshots(path),
    "snapshot_info": lambda path: history.snapshot_info(path),
    "changes": lambda path: icoframes.changes(path),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("entry", "why"), [
    ("out/manifest.json", "it is a file"),
    ("fifo", "it is a FIFO"),
    ("out/icos.parquet/day", "{root}/out/icos.parquet on its way is a file"),
])
def test_a_reader_of_exports_refuses_a_path_that_names_no_folder(plain_export, reader, entry,
                                                                  why):
    path = plain_export / entry
    before = sorted(plain_export.rglob("*"))
    with pytest.raises(InvalidParameter) as caught:
        READERS[reader](path)
    name = "snapshots" if reader == "changes" else "path"
    assert str(caught.value) == (f"{name}={path} names no export folder: "
                                 f"{why.format(root=plain_export)}. Give the folder "
                                 "export_tables wrote (its out)")
    assert sorted(plain_export.rglob("*")) == before  # no lock file made beside it


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_of_exports_says_a_missing_path_is_missing(plain_export, reader):
    path = plain_export / "nothing"
    with pytest.raises(FileNotFoundError) as caught:
        READERS[reader](path)
    assert str(caught.value) == f"no export folder at {path}: nothing is there"
    assert not path.exists()


@pytest.mark.parametrize("reader", [*READERS, "Tables.read_parquet"])
@pytest.mark.parametrize(("link", "target", "why"), [
    ("dangling", "gone", "it is a symbolic link to 'gone', which names nothing"),
    ("looping", "looping", "it is a symbolic link that loops (it leads back to itself)"),
    ("dangling/day", "gone", "{root}/dangling on its way is a symbolic link to 'gone', which "
                             "names nothing"),
])
def test_a_reader_of_exports_names_the_broken_link_it_was_given(tmp_path, reader, link, target,
                                                                 why):
    # "nothing is there" sent the user looking for a folder, not at the link
    made = tmp_path / link.split("/")[0]
    made.symlink_to(target)
    path = tmp_path / link
    with pytest.raises(FileNotFoundError) as caught:
        if reader == "Tables.read_parquet":
            icoframes.Tables.read_parquet(path)
        else:
            READERS[reader](path)
    said = why.format(root=tmp_path)
    if reader == "Tables.read_parquet":
        assert str(caught.value) == f"{path}: {said} (no folder of tables)"
    else:
        assert str(caught.value) == f"no export folder at {path}: {said}"
    assert os.readlink(made) == target and sorted(tmp_path.iterdir()) == [made]


def test_the_export_itself_is_still_read(plain_export):
    tables = icoframes.read_export(plain_export / "out")
    assert len(tables.icos) > 0
    assert tables.icos.attrs["icoframes"]["manifest"]["complete"] is True
    with pytest.raises(ValueError, match=r"holds no snapshot_date=YYYY-MM-DD folder \(it is a "
                                         r"plain export: read it with read_export\)"):
        icoframes.read_snapshots(plain_export / "out")


# --- cache_dir: what is wrong and what to do, in the package's words -------------------------

SET_IT = "Set ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to a folder of your own."


@pytest.mark.parametrize(("value", "why"), [
    (5, "must be a folder path (str or os.PathLike)"),
    (b"/tmp/cache", "must be a folder path (str or os.PathLike)"),
    ("~no-such-user-icoframes/cache",
     "begins with the home folder (~name) of a user this machine does not have"),
    ("cache\0dir", "holds a NUL character, which no path may hold"),
])
def test_a_cache_dir_that_is_no_path_is_refused_in_words_of_the_package(value, why,
                                                                         monkeypatch):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.configure(cache_dir=value)
    shown = quoted(value, keys=True)  # a text or bytes: its length (it may be a key)
    assert str(caught.value) == f"invalid cache_dir={shown}: {why}"
    if isinstance(value, str) and "\0" not in value:  # (no environment holds a NUL)
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", value)
        with pytest.raises(ConfigError) as caught:
            icoframes.get_settings()
        assert str(caught.value) == f"invalid ICOFRAMES_CACHE_DIR={shown}: {why}"


def _load_with(cache_dir: Path, error: type[Exception]) -> tuple[Exception, int]:
    """The refusal of a load with ``cache_dir``, and the requests the sandbox served."""
    with sandbox.serve(n_icos=10, seed=2) as sb:
        icoframes.configure(**sb.settings(), cache_dir=cache_dir)
        try:
            with pytest.raises(error) as caught:
                icoframes.load_list(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
        return caught.value, sb.stats.requests.total()


def test_a_cache_dir_that_is_a_file_or_under_one_says_so_and_what_to_do(tmp_path):
    (tmp_path / "file").write_text("")
    refused, served = _load_with(tmp_path / "file", CacheError)
    assert str(refused) == f"the cache dir {tmp_path / 'file'} is no folder: it is a file. {SET_IT}"
    assert served == 0
    refused, served = _load_with(tmp_path / "file" / "cache", ConfigError)
    assert str(refused) == (f"the cache dir {tmp_path / 'file' / 'cache'} is no folder: "
                            f"{tmp_path / 'file'} on its way is a file. {SET_IT}")
    assert served == 0 and "Not a directory" not in str(refused)
    assert (tmp_path / "file").read_text() == ""


def test_a_cache_dir_that_cannot_be_written_says_why_the_os_detail_its_cause(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    with _read_only(cache):
        refused, served = _load_with(cache, ConfigError)
    assert str(refused) == (f"the cache dir {cache} is not writable: its file system is "
                            f"read-only, so nothing a load fetches could be kept. {SET_IT}")
    assert served == 0
    assert isinstance(refused.__cause__, OSError) and refused.__cause__.errno == errno.EROFS
    assert list(cache.iterdir()) == []
