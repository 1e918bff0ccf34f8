"""A lone surrogate the service sends (``"\\ud800"``, which JSON allows) is reported, and kept.

Over real loopback HTTP (tests/hostile.py): each text holding one is a row of ``problems``
(reason ``surrogate``), as ``tidy()`` of the same profile gives, kept with U+FFFD in the
tables; the cache keeps the raw as sent (escaped: UTF-8 cannot hold it), so tables rebuilt
from it, without a request, report it again; no write breaks (SQLite, Parquet, an export).
The gate replaced every one by U+FFFD while decoding, so none was ever reported, and the
stored raw had lost it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from hostile import FILTERS, LIST, PROFILE, HostileServer, raw_reply

import icoframes
from icoframes.errors import IncompleteWarning

PAGE = (b'{"total_icos": 1, "total_pages": 1, "current_page": 1, "error": null, "data": '
        b'[{"id": 7, "main": {"name": "One\\ud800", "ico_score": "3"}}]}')
PROFILE_BODY = (b'{"error": null, "data": {"id": 7, "main": {"name": "Seven", "description": '
                b'"bad \\udc00 text"}, "links": {}, "finance": {}, "dates": {}, "additional": '
                b'{}, "roadmap": [], "team": [{"name": "A\\ud800"}], "advisors": ""}}')
FILTER_SET = (b'{"error": null, "platform": [{"id": 1, "name": "Eth\\ud800"}], "category": [],'
              b' "type": [], "location": []}')


def _surrogate_rows(problems):
    rows = problems[problems["reason"] == "surrogate"]
    return sorted(rows[["table", "column"]].itertuples(index=False, name=None))


def test_a_lone_surrogate_over_http_is_a_problem_row_and_the_cache_keeps_it(tmp_path):
    with HostileServer({LIST: raw_reply(PAGE), PROFILE: raw_reply(PROFILE_BODY),
                        FILTERS: raw_reply(FILTER_SET)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            tables = icoframes.load_tables(status="past", progress=False)
            filters = icoframes.load_filters()
            sent = srv.hits[PROFILE]
            (folder,) = (tmp_path / "cache").glob("*/tables")
            shutil.rmtree(folder)  # rebuilt from the stored raw
            rebuilt = icoframes.load_tables(status="past", progress=False, offline=True)
            exported = icoframes.export_tables(tmp_path / "out", status="past", progress=False)
        finally:
            icoframes.reset_configuration()
        assert srv.hits[PROFILE] == sent
    assert tables.icos.loc[0, "description"] == "bad \ufffd text"
    assert tables.team.loc[0, "name"] == "A\ufffd"
    # (was []: the gate had scrubbed them before the parser could see one)
    expected = [("icos", "description"), ("list", "name"), ("team", "name")]
    assert _surrogate_rows(tables.problems) == expected
    assert _surrogate_rows(rebuilt.problems) == expected
    assert filters["name"].tolist() == ["Eth\ufffd"]
    # the raw as sent, escaped so that UTF-8 holds it (was "bad \ufffd text")
    (db,) = (tmp_path / "cache").glob("*/cache.sqlite3")
    with sqlite3.connect(db) as conn:
        (raw,) = conn.execute("SELECT raw FROM profiles WHERE id = 7").fetchone()
    assert "bad \\udc00 text" in raw and "A\\ud800" in raw and "\ufffd" not in raw
    assert (exported.path / "manifest.json").exists()
    assert _surrogate_rows(icoframes.read_export(exported.path).problems) == expected


def test_a_refusal_quoting_a_lone_surrogate_is_written_escaped(tmp_path):
    # the gate quotes the id it refused; kept raw, the export's manifest could not be written
    bad = b'{"error": null, "data": {"id": "1\\ud800", "main": {"name": "x"}}}'
    good = b'{"error": null, "data": {"id": 2, "main": {"name": "y"}}}'
    listing = (b'{"total_icos": 2, "total_pages": 1, "current_page": 1, "error": null, "data": '
               b'[{"id": 1, "main": {"name": "a"}}, {"id": 2, "main": {"name": "b"}}]}')

    def profile(h):
        raw_reply(bad if h.request_json()["id"] == 1 else good)(h)

    with HostileServer({LIST: raw_reply(listing), PROFILE: profile}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            with pytest.warns(IncompleteWarning):
                result = icoframes.export_tables(tmp_path / "out", status="past",
                                                 progress=False)
        finally:
            icoframes.reset_configuration()
    manifest = json.loads((result.path / "manifest.json").read_text(encoding="utf-8"))
    (missing,) = manifest["missing"]
    assert "data.id is '1\\ud800', not the 1 requested" in missing["reason"]


def test_a_filter_name_with_a_lone_surrogate_is_asked_for_by_that_name(tmp_path):
    # the filter set shows it with U+FFFD, and a name asked for is matched as it is shown
    with HostileServer({LIST: raw_reply(PAGE), PROFILE: raw_reply(PROFILE_BODY),
                        FILTERS: raw_reply(FILTER_SET)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            for name in ("Eth\ud800", "eth\udc00", "Eth\ufffd"):
                assert icoframes.load_icos(platform=name, progress=False)["id"].tolist() == [7]
        finally:
            icoframes.reset_configuration()


TICKERS_BODY = (b'{"error": null, "data": {"id": 7, "main": {"name": "Seven"}, "finance": '
                b'{"ticker": "OOM\\ud800", "accepting": ["ETH\\ud800", "BTC"]}}}')


def test_a_lone_surrogate_in_a_ticker_or_an_accepted_currency_is_a_problem_row(tmp_path):
    # (tickers had their look-alike letters made plain first, which replaced it silently)
    with HostileServer({LIST: raw_reply(PAGE), PROFILE: raw_reply(TICKERS_BODY)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            tables = icoframes.load_tables(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    tidied = icoframes.tidy([json.loads(TICKERS_BODY)["data"]])
    for got in (tables, tidied):
        assert got.icos.loc[0, "ticker"] == "OOM\ufffd"
        assert got.icos.loc[0, "accepting"] == ["ETH\ufffd", "BTC"]
    assert ("icos", "accepting") in _surrogate_rows(tables.problems)
    assert ("icos", "ticker") in _surrogate_rows(tables.problems)
    assert _surrogate_rows(tidied.problems) == [("icos", "accepting"), ("icos", "ticker")]


PLAIN_BODY = (b'{"error": null, "data": {"id": 7, "main": {"name": "Seven"}, "finance": '
              b'{"ticker": "B\\u200bTC\\ud800", "accepting": ["\\uff25\\uff34\\uff28\\ud800", '
              b'"\\u0415\\u0422\\u041d\\ud800X", "\\u202eDAI\\udc00", '
              b'"\\u0420\\u0443\\u0431\\ud800"]}}}')


def test_the_text_around_a_lone_surrogate_in_a_ticker_is_made_plain_all_the_same(tmp_path):
    # (it was left as sent: 'B\u200bTC\ufffd', full-width and Cyrillic letters, an RTL mark)
    with HostileServer({LIST: raw_reply(PAGE), PROFILE: raw_reply(PLAIN_BODY)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            tables = icoframes.load_tables(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    tidied = icoframes.tidy([json.loads(PLAIN_BODY)["data"]])
    for got in (tables, tidied):
        assert got.icos.loc[0, "ticker"] == "BTC\ufffd"
        assert got.icos.loc[0, "accepting"] == ["ETH\ufffd", "ETH\ufffdX", "DAI\ufffd",
                                                "\u0420\u0443\u0431\ufffd"]  # (no twins)
        rows = got.problems[(got.problems["reason"] == "surrogate")
                            & (got.problems["table"] == "icos")]
        assert sorted(rows["column"]) == ["accepting"] * 4 + ["ticker"]
        # each row's value is the text as sent, the surrogate shown as U+FFFD as in every
        # other surrogate row (it read 'BTC\ufffd', 'ETH\ufffd': the text made plain)
        sent = [["ticker", "B\u200bTC\ufffd"], ["accepting", "\uff25\uff34\uff28\ufffd"],
                ["accepting", "\u0415\u0422\u041d\ufffdX"], ["accepting", "\u202eDAI\ufffd"],
                ["accepting", "\u0420\u0443\u0431\ufffd"]]
        # tidy lists them as the profile gave them; a load lists an ICO's by table, then
        # column (ties as the profile gave them)
        assert rows[["column", "value"]].values.tolist() == (
            sent if got is tidied else sorted(sent, key=lambda row: row[0]))
