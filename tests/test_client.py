"""The client against the sandbox over real loopback HTTP."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import logging
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import numpy as np
import pytest
from waiting import HANG_GUARD

from icoframes import sandbox
from icoframes.api.client import ENDPOINTS, Client, RetryPolicy, sign
from icoframes.api.params import validate_list_params
from icoframes.errors import (
    APIError,
    AuthError,
    BadResponse,
    InvalidParameter,
    NotFound,
    QuotaExceeded,
    ServiceUnavailable,
    UnknownMethod,
)

# max_elapsed far beyond any run: a retry cut by the clock on a loaded machine would change
# the counts these tests assert (the attempts, not the time, are under test)
FAST_RETRY = RetryPolicy(max_attempts=8, backoff=0.005, max_backoff=0.05,
                         max_elapsed=HANG_GUARD)


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=120, seed=3) as server:
        yield server


@pytest.fixture
def client(sb):
    with sb.client(retry=FAST_RETRY) as c:
        yield c


def _total(counter) -> int:
    return sum(counter.values())


def test_signature_is_base64_hmac_sha256_of_the_exact_body():
    body = '{"location":["Côte d\'Ivoire"]}'.encode()
    expected = base64.b64encode(hmac.new(b"k\xc3\xa9y", body, hashlib.sha256).digest()).decode()
    assert sign(body, "kéy") == expected


def test_filters_list_and_profile(sb, client):
    filters = client.filters()
    assert {"platform", "category", "type", "location"} <= set(filters)
    page = client.list_page(status="past")
    assert len(page["data"]) == 20
    assert int(page["total_icos"]) == len(sb.directory.ids("past"))
    first = int(page["data"][0]["id"])
    assert client.profile(first) == sb.directory.profile(first)
    assert client.requests == {"filters": 1, "icos": 1, "ico": 1}


def test_non_ascii_values_are_signed_and_accepted():
    with sandbox.serve(n_icos=400, seed=3) as big, big.client() as c:
        countries = ["Côte d'Ivoire", "Curaçao"]
        page = c.list_page(location=countries)  # raw UTF-8 in the signed body
        expected = sorted(r.id for r in big.directory.records() if r.location in countries)
        assert expected  # the seed holds both accented countries
        assert sorted(int(i["id"]) for i in page["data"]) == expected


def test_wrong_private_key_is_auth_error_and_never_shown(sb, caplog):
    secret = "definitely-not-the-key-0xDEADBEEF"
    bad = Client(base_url=sb.base_url, public_key=sb.public_key, private_key=secret,
                 retry=FAST_RETRY)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthError) as info:
        bad.filters()
    assert info.value.code == 480
    assert bad.requests["filters"] == 1  # 480 is never retried
    for text in (str(info.value), repr(info.value), repr(bad), caplog.text):
        assert secret not in text


def test_unknown_endpoint_is_unknown_method_481(sb, client, monkeypatch):
    monkeypatch.setitem(ENDPOINTS, "filters", "/api/v1/nothing-here/")
    with pytest.raises(APIError) as info:
        client.filters()
    assert info.value.code == 481
    assert type(info.value) is UnknownMethod  # a ConfigError too: a wrong base_url
    assert client.requests["filters"] == 1  # never retried


def test_482_is_an_empty_page_for_lists_and_not_found_for_profiles(sb, client):
    page = client.list_page(status="past", ico_score=10)
    assert page["data"] == [] and page["total_icos"] == 0 and page["error"] == 482
    missing = max(sb.directory.ids()) + 1000
    with pytest.raises(NotFound) as info:
        client.profile(missing)
    assert info.value.code == 482 and str(missing) in str(info.value)


def test_server_side_483_and_484_map_to_invalid_parameter(client):
    # bypass local validation to see what the service itself answers: for a list, about the
    # query's parameters (every page's); for a profile (whose id the client checked), about
    # that request alone: its failure, not the load's (api/blame.py)
    with pytest.raises(InvalidParameter) as info:
        client._call("icos", {"status": "finished"})
    assert info.value.code == 483 and isinstance(info.value, ValueError)
    with pytest.raises(BadResponse) as refused:
        client._call("ico", {})
    assert refused.value.code == 484 and "a required parameter is missing" in str(refused.value)
    assert client.requests["icos"] == 1 and client.requests["ico"] == 1  # no retries


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"status": "finished"}, "ongoing, upcoming, past"),
        ({"ico_score": 11}, "from 1 to 10"),
        ({"ico_score": 2.5}, "ico_score"),
        ({"sort_asc": "raised"}, "name, id, start_datetime, end_datetime"),
        ({"sort_asc": "id", "sort_desc": "name"}, "not both"),
        ({"platfrom": [1]}, "platfrom"),
        ({"platform": ["x"]}, "platform"),
        ({"bounty_program": "no"}, "bounty_program"),
        ({"location": []}, "empty"),
    ],
)
def test_invalid_parameters_are_rejected_before_any_request(sb, client, params, fragment):
    before = _total(sb.stats.requests)
    with pytest.raises(InvalidParameter, match=fragment) as info:
        client.list_page(**params)
    assert info.value.code is None
    assert client.total_requests == 0
    assert _total(sb.stats.requests) == before


def test_profile_id_is_checked_locally(client):
    for bad in ("abc", 0, -3, True):
        with pytest.raises(InvalidParameter):
            client.profile(bad)
    assert client.total_requests == 0


def test_scalars_are_wrapped_and_yes_flags_accept_true(sb, client):
    assert validate_list_params({"platform": np.int64(1), "bounty_program": True,
                                 "location": "USA"}) == {
        "platform": [1], "bounty_program": "yes", "location": ["USA"]}
    page = client.list_page(status="past", bounty_program=True, platform=np.int64(1))
    expected = {r.id for r in sb.directory.records()
                if r.status == "past" and r.bounty and r.platform_id == 1}
    assert int(page["total_icos"]) == len(expected) > 0
    assert {int(i["id"]) for i in page["data"]} <= expected


def test_keys_are_stripped_and_unsendable_ones_fail_at_once(sb):
    import icoframes
    from icoframes.errors import InvalidParameter

    try:
        settings = icoframes.configure(public_key=sb.public_key + "\n")
        assert settings.public_key == sb.public_key
        with pytest.raises(InvalidParameter, match="control characters"):
            icoframes.configure(private_key="abc\x00def")
    finally:
        icoframes.reset_configuration()
    before = sb.stats.requests.total()
    # a client reads its keys as configure() does: refused before any request (it was sent,
    # "could not be sent", the public key quoted from requests' header check)
    with pytest.raises(InvalidParameter) as refused:
        Client(base_url=sb.base_url, public_key="bad\nkey", private_key="s", retry=FAST_RETRY)
    assert str(refused.value) == ("invalid public_key='bad\\nkey': must be a non-empty string "
                                  "without control characters")
    assert sb.stats.requests.total() == before


def test_quota_exceeded_is_not_retried(one_ledger_day):  # the sandbox counts per UTC day
    with sandbox.serve(n_icos=30, quota=2) as small, \
            small.client(retry=FAST_RETRY) as c:
        c.filters()
        c.filters()
        with pytest.raises(QuotaExceeded) as info:
            c.filters()
        assert info.value.code == 485
        assert c.requests["filters"] == 3


def test_crawl_with_15_percent_faults_completes_and_fetches_each_profile_once():
    with sandbox.serve(n_icos=150, seed=5, fail_rate=0.15) as faulty, \
            faulty.client(retry=FAST_RETRY) as c:
        ids: list[int] = []
        first = c.list_page(status="past")
        pages = first["total_pages"]
        ids += [int(i["id"]) for i in first["data"]]
        for n in range(2, pages + 1):
            ids += [int(i["id"]) for i in c.list_page(n, status="past")["data"]]
        assert sorted(ids) == sorted(faulty.directory.ids("past"))
        with ThreadPoolExecutor(8) as pool:
            profiles = list(pool.map(c.profile, ids))
        assert [int(p["id"]) for p in profiles] == ids
        assert faulty.stats.faults > 0
        assert all(faulty.stats.profile_hits[i] == 1 for i in ids)
        # every fault cost one extra attempt and nothing else; dropped connections
        # (no status line) are attempts that never got a response
        assert c.total_attempts == pages + len(ids) + faulty.stats.faults
        assert pages + len(ids) <= c.total_requests < c.total_attempts


def test_retries_are_bounded():
    policy = RetryPolicy(max_attempts=3, backoff=0.001, max_backoff=0.002,
                         max_elapsed=HANG_GUARD)
    with sandbox.serve(n_icos=10, fail_rate=1.0) as broken, \
            broken.client(retry=policy) as c:
        with pytest.raises(ServiceUnavailable, match="3 attempts"):
            c.filters()
        assert c.attempts["filters"] == 3 == broken.stats.requests["filters"]
        assert c.requests["filters"] <= 3  # dropped connections got no response
        assert c.sent["filters"] == 3  # ... but they were sent: the ledger books them


def test_a_request_that_never_left_is_an_attempt_but_not_sent():
    policy = RetryPolicy(max_attempts=2, backoff=0.001, max_backoff=0.002,
                         max_elapsed=HANG_GUARD)
    with socket.socket() as closed:  # a port bound and never listened on: refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        with Client(base_url=f"http://127.0.0.1:{port}", public_key="p", private_key="k",
                    retry=policy) as c, pytest.raises(ServiceUnavailable):
            c.filters()
    assert c.attempts["filters"] == 2
    assert c.sent == {"filters": 0, "icos": 0, "ico": 0} == c.requests


class _StubHandler(http.server.BaseHTTPRequestHandler):
    """Answers a scripted sequence: things the sandbox never sends (429 without a code)."""

    disable_nagle_algorithm = True  # as the sandbox: no 40 ms delayed-ACK stall a reply

    script: ClassVar[list[tuple[int, bytes]]] = []
    lock = threading.Lock()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with self.lock:
            status, body = self.script.pop(0) if self.script else (200, b'{"error":null}')
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_429_without_code_and_bad_json_are_retried_but_4xx_without_code_is_not():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StubHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        _StubHandler.script = [(429, b"slow down"), (200, b'{"platf'),
                               (200, b'{"error":null,"platform":[]}')]
        with Client(base_url=url, public_key="p", private_key="s", retry=FAST_RETRY) as c:
            assert c.filters() == {"error": None, "platform": []}
            assert c.requests["filters"] == 3
        _StubHandler.script = [(404, b"<html>not here</html>")]
        with Client(base_url=url, public_key="p", private_key="s", retry=FAST_RETRY) as c:
            with pytest.raises(APIError, match="HTTP 404"):
                c.filters()
            assert c.requests["filters"] == 1
        _StubHandler.script = [(503, json.dumps({"error": 485}).encode())]
        with Client(base_url=url, public_key="p", private_key="s", retry=FAST_RETRY) as c:
            with pytest.raises(QuotaExceeded):
                c.filters()
            assert c.requests["filters"] == 1
    finally:
        server.shutdown()
        server.server_close()


def test_shared_between_threads_counts_every_request(sb):
    ids = sb.directory.ids()[:64]
    with sb.client(retry=FAST_RETRY, pool_size=8) as c:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(c.profile, ids))
        assert [int(r["id"]) for r in results] == ids
        assert c.requests["ico"] == 64


def test_on_request_hook_sees_every_request(sb):
    seen: list[str] = []
    with sb.client(on_request=seen.append) as c:
        c.filters()
        c.list_page()
    assert seen == ["filters", "icos"]


def test_a_deadline_firing_as_its_request_ends_never_cuts_the_next_request_on_the_connection(
        monkeypatch):
    """A request read to the end hands its connection back to the pool; another request may
    take it at once. Its deadline must be over by then: the watchdog firing in that instant
    (simulated here: what no server can make happen on cue) cut the next request's socket."""
    import urllib3.response
    from hostile import PROFILE, HostileServer, json_reply

    from icoframes.api import transport

    b_sent, release_b, outcome = threading.Event(), threading.Event(), {}

    def profile(h):
        asked = h.request_json().get("id")
        if asked == 2:  # request B, on the connection request A just handed back
            b_sent.set()
            assert release_b.wait(HANG_GUARD)
        json_reply({"error": None, "data": {"id": asked, "main": {"name": "A"}}})(h)

    real_release = urllib3.response.HTTPResponse.release_conn

    def release_conn(self):
        real_release(self)
        if outcome:
            return
        outcome["b"] = None
        b = threading.Thread(target=lambda: outcome.update(b=_profile_or_error(c, 2)))
        b.start()
        assert b_sent.wait(HANG_GUARD)
        transport._local.deadline.expire()  # A's deadline fires now, B in flight on its socket
        release_b.set()
        b.join(HANG_GUARD)

    monkeypatch.setattr(urllib3.response.HTTPResponse, "release_conn", release_conn)
    with HostileServer({PROFILE: profile}) as srv, \
            Client(**srv.settings(), pool_size=1,
                   retry=RetryPolicy(max_attempts=1, max_elapsed=HANG_GUARD)) as c:
        assert c.profile(1)["id"] == 1
    assert outcome["b"] == {"id": 2, "main": {"name": "A"}}, outcome


def _profile_or_error(c: Client, ico_id: int) -> object:
    try:
        return c.profile(ico_id)
    except ServiceUnavailable as exc:
        return str(exc)
