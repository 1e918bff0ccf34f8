"""A whole body that is no JSON, answered HTTP 200 to one request, is that item's answer:
asked once more at most (``ANSWERS_REFUSED``), as another ICO's profile is; a body cut in
transit is still retried within the retry policy.

Until then an HTML page, binary bytes or text that is not UTF-8 answering one profile with
HTTP 200 cost the retry policy's six requests on every load, where a JSON answer the gate
refuses costs two. Whether more bytes could have made it JSON is the evidence: a body that
stops inside a JSON text (the sandbox's faults, a cut upstream) or breaks off mid-read (a
reset, fewer bytes than announced, a chunked body without its end) is a cut in transit,
worth the policy's retries; one that no more bytes could mend is the answer.
"""

from __future__ import annotations

import json
import socket
import struct

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list, raw_reply, trickle_body

import icoframes
from icoframes.api.client import Client, RetryPolicy
from icoframes.api.gate import cut_short
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import BadResponse, IncompleteWarning, ServiceUnavailable

POLICY = RetryPolicy(max_attempts=6, backoff=0.001, max_backoff=0.002)

ANSWERS = {  # none of them would be JSON however many bytes followed
    "html": (b"<html><body><h1>Welcome to the hotel wifi</h1></body></html>",
             "the body is not JSON (Expecting value"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "the body is not valid UTF-8 (byte 0)"),
    "latin-1": (b'{"error":null,"data":{"id":1,"main":{"name":"Z\xfcrich"}}}',
                "the body is not valid UTF-8 (byte 46)"),
    "trailing": (b'{"error":null,"data":{"id":1}}<!-- cached by proxy -->',
                 "the body is not JSON (Extra data"),
    "nan": (b'{"error":null,"data":{"id":1,"x":NaN}}', "the body is not JSON (NaN is not"),
    "empty": (b"", "the body is not JSON (Expecting value"),
}

CUT = {  # a JSON text stopping inside: more bytes could have made it whole
    "string": b'{"error":null,"data":{"id":1,"main":{"name":"Zur',
    "object": b'{"error":null,"data":{"id":1',
    "literal": b'{"error":nu',
    "number": b'{"error":null,"data":{"id":-',
    "utf-8": '{"error":null,"data":{"id":1,"main":{"name":"Zü'.encode()[:-1],
    "sandbox": b'{"error":null,"total_icos":"',
    # after an integer too long for int (over 4,300 digits), which the gate keeps as text
    "long-number": ('{"error":null,"data":{"id":1,"finance":{"raised":' + "9" * 5000
                    + ',"x":"ab').encode(),
}


def _one_bad(body):
    """Profiles echo the id asked; id 1 is answered ``body`` with HTTP 200."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        if asked == 1:
            raw_reply(body)(h)
        else:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


@pytest.mark.parametrize("case", ANSWERS, ids=list(ANSWERS))
def test_an_undecodable_answer_is_the_items_failure_asked_twice(configure, quick_retries,
                                                                 case):
    body, reason = ANSWERS[case]
    assert not cut_short(body)
    with HostileServer({LIST: paged_list(3), PROFILE: _one_bad(body)}) as srv:
        configure(srv, max_workers=1)
        # load 2 asks id 1 alone, once: its failure of load 1 again, which a second ask would
        # only repeat (REVB M2: twice, 2 + 2 * ANSWERS_REFUSED in all)
        for load, paid in ((1, 2 + ANSWERS_REFUSED), (2, 2 + ANSWERS_REFUSED + 1)):
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icos = icoframes.load_icos(status="past", progress=False)
            assert sorted(icos["id"]) == [2, 3]
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 1 and missing["state"] == "failed"
            assert missing["reason"].startswith(f"HTTP 200: {reason}"), missing["reason"]
            assert srv.hits[PROFILE] == paid, load  # (was 2 + 6, then 2 + 12 before that)


def test_an_undecodable_answer_fails_as_bad_response_after_two_asks():
    with HostileServer({PROFILE: raw_reply(ANSWERS["html"][0])}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(BadResponse, match="gave up after 2 attempts") as info:
            client.profile(1)  # (was: ServiceUnavailable after 6)
        assert "not JSON" in info.value.reason
        assert srv.hits[PROFILE] == ANSWERS_REFUSED
        # the service answered: the item's failure, not a failure of the service
        assert client.control.in_a_row == 0 and client.control.items_refused == 1


@pytest.mark.parametrize("case", CUT, ids=list(CUT))
def test_a_json_text_cut_short_keeps_the_retry_policy(case):
    body = CUT[case]
    assert cut_short(body)
    with HostileServer({PROFILE: raw_reply(body)}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(ServiceUnavailable, match="gave up after 6 attempts"):
            client.profile(1)
        assert srv.hits[PROFILE] == POLICY.max_attempts
        assert client.control.in_a_row == 6 and client.control.items_refused == 0


def test_a_cut_answer_then_the_whole_one_is_a_success():
    whole = {"error": None, "data": {"id": 1, "main": {"name": "one"}}}
    answers = iter([raw_reply(CUT["object"])] * 3 + [json_reply(whole)])
    with HostileServer({PROFILE: lambda h: next(answers)(h)}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        assert client.profile(1)["main"]["name"] == "one"  # the 4th ask: more than two
        assert srv.hits[PROFILE] == 4


def _reset_mid_body(h):
    """Announce 400 bytes, send 30 of a JSON text, then reset the connection (RST)."""
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "400")
    h.end_headers()
    h.wfile.write(b'{"error":null,"data":{"id":1,"')
    h.wfile.flush()
    h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.close_connection = True


def _short_of_its_length(h):
    """Announce 400 bytes, send an HTML page of fewer, then close (FIN)."""
    h.send_response(200)
    h.send_header("Content-Type", "text/html")
    h.send_header("Content-Length", "400")
    h.end_headers()
    h.wfile.write(b"<html><body>maintenance</body></html>")
    h.wfile.flush()
    h.close_connection = True


@pytest.mark.parametrize("cut", [_reset_mid_body, _short_of_its_length],
                         ids=["reset", "short"])
def test_a_body_broken_off_mid_read_keeps_the_retry_policy(cut):
    with HostileServer({PROFILE: cut}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(ServiceUnavailable, match="while reading the body"):
            client.profile(1)
        assert srv.hits[PROFILE] == POLICY.max_attempts


def test_cut_short():
    assert not cut_short(b"") and not cut_short(b"  \n") and not cut_short(b"{}")
    assert cut_short(b"[") and cut_short(b"[1, tr") and cut_short(b'{"a": 1e')
    assert not cut_short(b"[1, trx") and not cut_short(b'{"a": 1}}')
    assert not cut_short(b"\xff" + CUT["object"]) and cut_short(b"\xef\xbb\xbf[")


# -- a body its encoding cannot read (found beside: the same six requests) -----------------

ENCODED = {
    "corrupt-gzip": ({"Content-Encoding": "gzip"}, b"\x1f\x8b\x08\x00" + b"\xff" * 64,
                     "the gzip body is corrupt"),
    "corrupt-deflate": ({"Content-Encoding": "deflate"}, b"not deflate at all",
                        "the deflate body is corrupt"),
    "brotli": ({"Content-Encoding": "br"}, b"\x0b\x02\x80{}\x03", "unsupported Content-Encoding"),
}


@pytest.mark.parametrize("case", ENCODED, ids=list(ENCODED))
def test_a_body_its_encoding_cannot_read_is_the_items_answer(configure, quick_retries, case):
    headers, body, reason = ENCODED[case]

    def profiles(h):
        asked = int(h.request_json()["id"])
        if asked == 1:
            raw_reply(body, headers=headers)(h)
        else:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)

    with HostileServer({LIST: paged_list(3), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="1 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [2, 3]
        (missing,) = icos.attrs["icoframes"]["missing"]
        assert missing["reason"].startswith(f"HTTP 200: {reason}"), missing["reason"]
        assert srv.hits[PROFILE] == 2 + ANSWERS_REFUSED  # (was 2 + 6)


def test_a_body_too_slow_for_the_deadline_keeps_the_retry_policy():
    # a failure in transit (gate.TooSlow, or the watchdog's cut): the policy's six attempts
    body = json.dumps({"error": None, "data": {"id": 1, "main": {"name": "x" * 500}}}).encode()
    with HostileServer({PROFILE: trickle_body(body, 0.05)}) as srv, \
            Client(**srv.settings(), retry=POLICY, timeout=0.3) as client:
        with pytest.raises(ServiceUnavailable, match="gave up after 6 attempts"):
            client.profile(1)
        assert srv.hits[PROFILE] == POLICY.max_attempts


# -- the same cut, load after load ----------------------------------------------------------


def _one_cut(cuts):
    """Profiles echo the id asked; id 1 is answered the next of ``cuts`` (bytes) each time."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        if asked == 1:
            raw_reply(next(cuts))(h)
        else:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


def _forever(body):
    while True:
        yield body


def test_the_same_cut_to_a_profile_that_failed_before_is_its_answer(configure, quick_retries):
    # load 1: six attempts (a cut in transit is retried: nothing says otherwise yet); load 2:
    # it failed in load 1 and comes cut at the same byte again: the answer itself, asked twice
    # (was six: the retry policy's, on every load until its backoff)
    with HostileServer({LIST: paged_list(3), PROFILE: _one_cut(_forever(CUT["object"]))}) as srv:
        configure(srv, max_workers=1)
        for load, paid in ((1, 2 + POLICY.max_attempts),
                           (2, 2 + POLICY.max_attempts + ANSWERS_REFUSED)):  # (was 2 + 12)
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icos = icoframes.load_icos(status="past", progress=False)
            assert sorted(icos["id"]) == [2, 3]
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 1 and missing["state"] == "failed"
            assert "the body is not JSON" in missing["reason"], missing["reason"]
            assert srv.hits[PROFILE] == paid, load


def test_cuts_at_other_bytes_each_time_keep_the_retry_policy(configure, quick_retries):
    # cut at another byte on every attempt (as a cut in transit would be): retried as before
    whole = b'{"error":null,"data":{"id":1,"main":{"name":"' + b"x" * 40 + b'"}}}'
    cuts = (whole[:n] for n in range(len(whole) - 2, 0, -1))
    with HostileServer({LIST: paged_list(3), PROFILE: _one_cut(cuts)}) as srv:
        configure(srv, max_workers=1)
        for load, paid in ((1, 2 + POLICY.max_attempts), (2, 2 + 2 * POLICY.max_attempts)):
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icoframes.load_icos(status="past", progress=False)
            assert srv.hits[PROFILE] == paid, load


def test_the_same_cut_to_a_profile_never_failed_keeps_the_retry_policy():
    # the sandbox's own faults cut every body alike: without a failed load before, a cut
    # twice alike is still a cut in transit (client: no known-bad item)
    with HostileServer({PROFILE: raw_reply(CUT["sandbox"])}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(ServiceUnavailable, match="gave up after 6 attempts"):
            client.profile(1)
        assert srv.hits[PROFILE] == POLICY.max_attempts
