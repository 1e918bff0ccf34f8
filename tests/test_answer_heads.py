"""The head of an answer, framed as RFC 9112 frames it (REVD's pre-existing LOWs).

* ``103 Early Hints`` (any interim 1xx but 101) is followed by the final answer: it is read
  (http.client took the 103 for the answer, its empty body for the item's ``BadResponse``);
* a head that breaks off before its blank line, the connection closed (in a header line,
  after one, in the status line), is a broken answer, retried as a reset is (http.client
  read it as a whole 200 with no body: the item's ``BadResponse`` after 2 attempts);
* an answer with two different ``Content-Length`` values (which body is the answer is
  unknown, RFC 9112 section 6.3) was sent: booked as sent and retried as a broken answer,
  its failure saying so (it was "the request could not be sent", booked as not sent).

Each through the client's own session (sent through urllib3's pool directly) and a
caller's ``requests.Session`` (sent by ``Session.send``).
"""

from __future__ import annotations

import pytest
import requests
from hostile import PROFILE, HostileServer

from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import BadResponse, ServiceUnavailable

THREE = RetryPolicy(max_attempts=3, backoff=0.001, max_backoff=0.002)
GOOD = b'{"error":null,"data":{"id":1,"main":{"name":"one"}}}'
OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(GOOD), GOOD)


def _raw(answer: bytes):
    """Write ``answer`` as it is, then close the connection."""
    def behaviour(h):
        h.wfile.write(answer)
        h.wfile.flush()
        h.close_connection = True
    return behaviour


@pytest.fixture(params=["own session", "caller's session"])
def session(request):
    if request.param == "own session":
        yield None
    else:
        with requests.Session() as caller:
            yield caller


def _ask(answer: bytes, session, policy=THREE):
    """Ask profile 1 of a server writing ``answer``: (the profile or the error, the client's
    attempts, sent, answered, the server's hits)."""
    with HostileServer({PROFILE: _raw(answer)}) as srv, \
            Client(**srv.settings(), retry=policy, session=session) as client:
        try:
            got: object = client.profile(1)
        except Exception as exc:  # (each test asserts its type)
            got = exc
        counts = client.attempts["ico"], client.sent["ico"], client.requests["ico"]
    return got, counts, srv.hits[PROFILE]


@pytest.mark.parametrize("interim", [
    b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n",
    b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </b.js>\r\n\r\n",
], ids=["one 103", "103 102 100 103"])
def test_an_early_hint_is_followed_by_the_answer_read(interim, session):
    got, counts, hits = _ask(interim + OK, session)
    assert got == {"id": 1, "main": {"name": "one"}}  # (was BadResponse: "HTTP 103 ...")
    assert counts == (1, 1, 1) and hits == 1


def test_endless_interim_answers_are_a_broken_answer(session):
    got, counts, hits = _ask(b"HTTP/1.1 103 Early Hints\r\n\r\n" * 9 + OK, session)
    assert type(got) is ServiceUnavailable
    assert str(got).endswith("last failure: more than 8 interim answers (1xx) in a row")
    assert counts == (3, 3, 0) and hits == 3


@pytest.mark.parametrize("head", [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Len",
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
    b"HTTP/1.1 200 OK\r\n",
    b"HTTP/1.1 200 O",
], ids=["in a header", "after a header", "after the status line", "in the status line"])
def test_a_head_cut_then_closed_is_a_broken_answer_retried(head, session):
    got, counts, hits = _ask(head, session)
    # (was BadResponse after 2 attempts: "HTTP 200: the body is not JSON", the item's)
    assert type(got) is ServiceUnavailable and not isinstance(got, BadResponse)
    assert str(got).startswith("/api/v1/ico/: gave up after 3 attempts in ")
    assert str(got).endswith(
        "; last failure: the answer broke off in its head (status line and headers)")
    assert counts == (3, 3, 0) and hits == 3  # sent (booked), each retried, none answered


def test_a_whole_head_then_a_close_is_still_an_answer(session):
    # the blank line came: a 200 without a body is the item's answer (no JSON), as before
    got, counts, hits = _ask(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n",
                             session)
    assert type(got) is BadResponse and "the body is not JSON" in str(got)
    assert counts == (2, 2, 2) and hits == 2


def test_two_different_content_lengths_are_a_broken_answer_sent(session):
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Content-Length: %d\r\n\r\n" % (len(GOOD), len(GOOD) + 5))
    got, counts, hits = _ask(head + GOOD, session)
    # (was APIError "the request could not be sent (InvalidHeader: ...)", booked not sent)
    assert type(got) is ServiceUnavailable
    assert str(got).endswith(
        "; last failure: the answer's framing is broken: Content-Length contained multiple "
        f"unmatching values ({len(GOOD)}, {len(GOOD) + 5})")
    assert counts == (3, 3, 0) and hits == 3  # sent: the quota spent, as the ledger books


def test_two_equal_content_lengths_are_one(session):
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Content-Length: %d\r\n\r\n" % (len(GOOD), len(GOOD)))
    got, counts, hits = _ask(head + GOOD, session)
    assert got == {"id": 1, "main": {"name": "one"}} and counts == (1, 1, 1) and hits == 1


def test_a_load_books_the_answers_with_two_lengths_as_sent(configure, quick_retries):
    """The request ledger (cache_info().requests_today) counts every request the server
    received: an answer with two different Content-Length values was booked as not sent."""
    import warnings

    from hostile import LIST, paged_list

    import icoframes

    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Content-Length: %d\r\n\r\n" % (len(GOOD), len(GOOD) + 5))
    with HostileServer({LIST: paged_list(2), PROFILE: _raw(head + GOOD)}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = icoframes.load_icos(status="past", progress=False)
        received = srv.hits[LIST] + srv.hits[PROFILE]
    assert srv.hits[PROFILE] == 12  # each of 2 profiles: the retry policy's 6 attempts
    assert icoframes.cache_info().requests_today == received == 13
    assert len(frame) == 0
    assert [(w.category, str(w.message)) for w in caught] == [(
        icoframes.IncompleteWarning, "incomplete result: 2 listed ICO(s) have no row: 2 failed; "
        "first: 1 (the answer's framing is broken: Content-Length contained multiple "
        f"unmatching values ({len(GOOD)}, {len(GOOD) + 5})), 2 (the answer's framing is broken: "
        "Content-Length contained multiple unmatching values "
        f"({len(GOOD)}, {len(GOOD) + 5})). Missing ids and their state are in "
        "attrs['icoframes']['missing']; calling again retries what failed.")]
