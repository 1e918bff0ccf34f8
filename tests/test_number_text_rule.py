"""A number written as text in a response is read one way: :func:`icoframes.numerals.number_core`.

The gate checks an id, a count or a ``Content-Length`` and the parser converts it; both read
the text through ``number_core`` and convert only the ASCII text it returns, so a text the
gate passes is the number the parser reads. Whitespace around the digits is what
``str.strip()`` removes, U+001C-U+001F included (``int()`` and ``float()`` refuse those: a
profile id ``"\\x1c2"`` passed the gate, then the parser's ``float()`` raised a bare
ValueError on every load of that cache, offline too). Anything else around or inside the
digits is no number: the item's problem (a list item without a readable id, a profile the
gate refuses), reported, never an exception of Python's.

Each case goes through a hostile server on 127.0.0.1 (tests/hostile.py); the fuzzes try every
character of Unicode's categories Zs, Cc and Cf (and U+001C-U+001F, U+0085, U+00A0, U+2028,
U+2029) before, after, around and inside the digits.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import sqlite3
import sys
import unicodedata
import warnings
from typing import Any

import pytest
from hostile import FILTERS, LIST, PROFILE, HostileServer, json_reply, list_item, paged_list

import icoframes
from icoframes.api import gate
from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import BadResponse, IcoframesError
from icoframes.fetch import ordering
from icoframes.numerals import DIGITS, number_core, number_text
from icoframes.parse import rules
from icoframes.parse.lists import filters_frame, list_frame, page_counts

SEPARATORS = ["\x1c", "\x1d", "\x1e", "\x1f"]
#: Every character of the categories a hostile server may hide next to digits.
ODD = sorted({chr(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Zs", "Cc", "Cf")}
             | {*SEPARATORS, "\x85", "\xa0", "\u2028", "\u2029"})
POSITIONS = {"before": "{c}{n}", "after": "{n}{c}", "around": "{c}{n}{c}",
             "inside": "{head}{c}{tail}"}


def _written(number: int, char: str, where: str) -> str:
    text = str(number)
    return POSITIONS[where].format(c=char, n=text, head=text[:1], tail=text[1:])


def _load(**kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return icoframes.load_icos(**{"status": "past", "progress": False, **kwargs})


def _echo(written: dict[int, str]) -> Any:
    """Profiles echo their id as ``written`` says (the others as numbers)."""
    def behaviour(h: Any) -> None:
        i = int(h.request_json()["id"])
        json_reply({"error": None, "data": {"id": written.get(i, i),
                                            "main": {"name": f"P{i}"}}})(h)
    return behaviour


# -- the rule itself: the check passes only what the conversion reads -------------------------


def test_every_odd_character_is_read_one_way_by_the_gate_and_the_parser():
    for char in ODD:
        for where in POSITIONS:
            text = _written(12, char, where)
            data, _ = gate.verdict(gate.check_profile, {"data": {"id": text, "main": {"n": 1}}},
                                   12)
            page = {"data": [], "total_icos": text, "total_pages": 1, "current_page": text}
            _, refused = gate.verdict(gate.check_list_page, page, 12)
            read = rules.parse_id(text), rules.parse_count(text), number_text(text)
            core = number_core(text, DIGITS)
            assert (data is not None) == (refused is None) == (core == "12"), (char, where)
            if data is not None:  # what the gate passed, the parser reads as the same number
                assert read == (12, 12, 12) and page_counts(page) == (12, 1), (char, where)


def test_a_separator_next_to_digits_reads_as_the_number_and_inside_them_as_none():
    assert [number_core(f"{c}42{c}") for c in SEPARATORS] == ["42"] * 4
    assert [rules.parse_id(f"4{c}2") for c in SEPARATORS] == [None] * 4
    assert number_text("\x1c1.5e1\x1f") == 15.0 and number_text("\x1c1_5") is None


# -- H1: ids and counts of responses --------------------------------------------------------


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("char", SEPARATORS, ids=[f"U+{ord(c):04X}" for c in SEPARATORS])
def test_a_profile_id_written_with_a_separator_is_its_id_on_every_load(configure, char, where):
    with HostileServer({LIST: paged_list(3), PROFILE: _echo({2: _written(2, char, where)})}) \
            as srv:
        configure(srv, max_workers=1)
        loads = [sorted(_load(**kw)["id"]) for kw in
                 ({}, {"offline": True}, {"refresh": True}, {"status": "ongoing"})]
    assert loads == [[1, 2, 3]] * 4
    assert srv.hits[PROFILE] == 6  # 3, then 3 again for refresh=True; each answered once


@pytest.mark.parametrize("field", ["id", "total_icos", "total_pages"])
def test_a_list_page_with_a_separator_in_an_id_or_a_count_is_read(configure, field):
    def page(h: Any) -> None:
        body: dict[str, Any] = {"error": None, "total_icos": 3, "total_pages": 1,
                                "current_page": 1, "data": [list_item(i) for i in (1, 2, 3)]}
        if field == "id":
            body["data"][1]["id"] = "\x1c2"
        else:
            body[field] = f"\x1c{body[field]}\x1f"
        json_reply(body)(h)

    with HostileServer({LIST: page, PROFILE: _echo({})}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            listed = icoframes.load_list(status="past", progress=False)
        assert sorted(listed["id"]) == [1, 2, 3]
        assert sorted(_load()["id"]) == [1, 2, 3]
    assert srv.hits[LIST] == 1


def test_a_filter_id_with_a_separator_is_its_id(configure):
    filters = json_reply({"error": None, "platform": [{"id": "\x1c1", "name": "Ethereum"},
                                                      {"id": "2\x1e", "name": "Waves"}],
                          "category": [], "type": [], "location": [{"name": "USA"}]})
    with HostileServer({FILTERS: filters, LIST: paged_list(3), PROFILE: _echo({})}) as srv:
        configure(srv, max_workers=1)
        frame = icoframes.load_filters()
        assert frame.loc[frame["filter"] == "platform", "id"].tolist() == [1, 2]
        assert len(_load(platform="Waves")) == 3
    assert srv.hits[FILTERS] == 1


def test_a_stored_profile_with_a_separator_in_its_id_is_read_by_every_load(configure,
                                                                          tmp_path):
    """A cache an earlier version wrote with such a copy (its gate passed it, its parser
    raised on it): every load reads it, the derived tables rebuilt from it included."""
    with HostileServer({LIST: paged_list(3), PROFILE: _echo({})}) as srv:
        configure(srv, max_workers=1)
        assert sorted(_load()["id"]) == [1, 2, 3]
        [db] = (tmp_path / "cache").rglob("cache.sqlite3")
        with sqlite3.connect(db) as conn:
            changed = conn.execute("UPDATE profiles SET raw = json_set(raw, '$.id', "
                                   "char(28) || '2' || char(31)) WHERE id = 2").rowcount
        conn.close()
        shutil.rmtree(db.parent / "tables")  # rebuilt from the stored copies
        assert changed == 1
        loads = [sorted(_load(**kw)["id"]) for kw in ({"offline": True}, {}, {"refresh": True})]
    assert loads == [[1, 2, 3]] * 3


def test_ids_with_odd_characters_through_one_load_are_rows_or_reported_never_raised(configure):
    """Every odd character before, after or inside an id of a list item, its profile echoing
    the id so written: a row when the gate and the parser read it, else the item's problem."""
    written = {100 + k: _written(100 + k, char, where)
               for k, (char, where) in enumerate((c, w) for c in ODD
                                                 for w in ("before", "after", "inside"))}

    def page(h: Any) -> None:
        number = h.request_json().get("page", 1)
        ids = sorted(written)[(number - 1) * 20:number * 20]
        json_reply({"error": None, "total_icos": len(written), "current_page": number,
                    "total_pages": -(-len(written) // 20),
                    "data": [{**list_item(i), "id": written[i]} for i in ids]})(h)

    with HostileServer({LIST: page, PROFILE: _echo(written)}) as srv:
        configure(srv, max_workers=4)
        frame = _load()
    rows = {i for i, text in written.items() if number_core(text, DIGITS) == str(i)}
    assert set(frame["id"]) == rows and len(rows) >= 2 * 29  # str.isspace(): 29, each side
    assert srv.hits[LIST] == -(-len(written) // 20)


# -- H2: Content-Length ---------------------------------------------------------------------


BODY = b'{"error":null,"data":{"id":%d,"main":{"name":"P%d"}}}'


def _announcing(length: Any) -> Any:
    """Profile ``i`` with the Content-Length ``length(i, body)`` (bytes, as sent), then a
    close: a length the client cannot read leaves the body to the close."""
    def behaviour(h: Any) -> None:
        i = int(h.request_json()["id"])
        body = BODY % (i, i)
        h.close_connection = True
        h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                      + length(i, body) + b"\r\nConnection: close\r\n\r\n" + body)
    return behaviour


@pytest.mark.parametrize("char", SEPARATORS, ids=[f"U+{ord(c):04X}" for c in SEPARATORS])
def test_a_content_length_with_a_separator_announces_its_length(configure, char):
    sent = _announcing(lambda i, body: f"{char}{len(body)}".encode("latin-1"))
    with HostileServer({LIST: paged_list(3), PROFILE: sent}) as srv, \
            Client(**srv.settings()) as client:
        assert client.profile(2) == {"id": 2, "main": {"name": "P2"}}
        configure(srv, max_workers=2)
        assert sorted(_load()["id"]) == [1, 2, 3]
    assert srv.hits[PROFILE] == 4


@pytest.mark.parametrize("before", ["", "\x1c"])
def test_a_content_length_of_more_digits_than_int_reads_is_too_large(before):
    sent = _announcing(lambda i, body: before.encode() + b"9" * 5000)
    policy = RetryPolicy(max_attempts=2, backoff=0.001, max_backoff=0.002)
    with HostileServer({PROFILE: sent}) as srv, \
            Client(**srv.settings(), retry=policy) as client, \
            pytest.raises(BadResponse, match="announces a 5000-digit number of bytes"):
        client.profile(1)
    assert srv.hits[PROFILE] == 2  # the answer's own size: asked once more, no more


def test_content_lengths_with_odd_characters_are_read_or_refused_never_raised():
    """Each odd character before, after, around or inside the length (as Latin-1 when it is
    one byte, else its UTF-8 bytes, which a header reads as Latin-1): the body, or the
    package's own error for a head broken by a line break in it; never one of Python's."""
    cases = [(char, where) for char in ODD for where in POSITIONS]
    # a broken head leaves its connection open to the client: the next request on it fails
    # in transit (a ConnectionError), retried as such on a new one
    policy = RetryPolicy(max_attempts=3, backoff=0.001, max_backoff=0.002)

    def length(i: int, body: bytes) -> bytes:
        char, where = cases[i - 1]
        text = POSITIONS[where].format(c=char, n=len(body), head=str(len(body))[:1],
                                       tail=str(len(body))[1:])
        return text.encode("latin-1" if ord(char) < 256 else "utf-8")

    refused: dict[tuple[str, str], str] = {}
    with HostileServer({PROFILE: _announcing(length)}) as srv, \
            Client(**srv.settings(), retry=policy) as client:
        for i, case in enumerate(cases, start=1):
            try:
                got: Any = client.profile(i)
            except IcoframesError as exc:  # anything else fails the test
                got = exc
            if got != json.loads(BODY % (i, i))["data"]:
                refused[case] = f"{type(got).__name__}: {got}"
    # a line break in the head ends its line there: a broken head, the package's BadResponse
    assert {char for char, _ in refused} <= {"\n", "\r"}, refused
    assert len(refused) <= 2 * len(POSITIONS), refused


# -- M3: a name's run of digits of any length ----------------------------------------------


def _int_key(text: str) -> list[Any]:
    """The digit-aware key as int() reads a run (fine below 4,300 digits): the reference."""
    parts = re.split(r"(\d+)", ordering._accent_folded(text))
    return [int(part) if i % 2 else part for i, part in enumerate(parts)]


def test_the_digit_aware_key_orders_and_equates_names_as_their_values_do():
    pieces = ["a", "B", " ", "-", "0", "00", "7", "07", "10", "9", "٣", "０", "١٢", "²", "é"]
    names = sorted({"".join(p) for p in itertools.product(pieces, repeat=3)})
    ordered = sorted(names, key=_int_key)
    assert sorted(names, key=ordering._numeric) == ordered
    neighbours = list(itertools.pairwise(ordered))  # the ties, as the reference has them
    assert [ordering._numeric(x) == ordering._numeric(y) for x, y in neighbours] == \
        [_int_key(x) == _int_key(y) for x, y in neighbours]


def test_a_name_with_a_long_digit_run_sorts_from_the_cache(configure):
    names = {1: "Alpha 2", 2: "Beta " + "7" * 4400, 3: "Beta " + "8" + "0" * 4400, 4: "Gamma"}

    def page(h: Any) -> None:
        json_reply({"error": None, "total_icos": 4, "total_pages": 1, "current_page": 1,
                    "data": [list_item(i, n) for i, n in names.items()]})(h)

    def profile(h: Any) -> None:
        i = int(h.request_json()["id"])
        json_reply({"error": None, "data": {"id": i, "main": {"name": names[i]}}})(h)

    with HostileServer({LIST: page, PROFILE: profile}) as srv:
        configure(srv, max_workers=1)
        assert sorted(_load()["id"]) == [1, 2, 3, 4]
        ascending = _load(sort_asc="name")
        descending = _load(sort_desc="name")
    assert list(ascending["id"]) == [1, 2, 3, 4] and list(descending["id"]) == [4, 3, 2, 1]
    assert srv.hits[LIST] == 1  # both sorted from the cached list
    assert ascending.attrs["icoframes"]["queries"][0].get("answered_from") is not None


def test_list_frame_and_filters_frame_read_odd_ids_as_the_rule_says():
    items = [{"id": f"\x1d{i}"} for i in (1, 2)] + [{"id": "3\x1c3"}]
    assert list_frame(items, status="past")["id"].tolist() == [1, 2]
    frame = filters_frame({"platform": [{"id": "\x1f7", "name": "X"}]})
    assert frame["id"].tolist() == [7]
