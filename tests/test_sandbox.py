"""The sandbox speaks the spec, over real loopback HTTP, to a client written from the spec alone."""

from __future__ import annotations

import argparse
import gc
import hashlib
import inspect
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import pytest
import requests
from hostile import refusing_port
from waiting import HANG_GUARD

from icoframes import sandbox
from icoframes.api.params import STATUSES
from icoframes.errors import InvalidParameter
from icoframes.sandbox import Record, generate_directory
from icoframes.sandbox import httpd as sandbox_httpd
from icoframes.sandbox import service as sandbox_service
from icoframes.sandbox.command import add_arguments
from icoframes.sandbox.command import keys as sandbox_keys

try:
    from spec_client import FILTERS, ICO, ICOS, SpecClient, sign
except ImportError:  # tests/ imported as a package
    from tests.spec_client import FILTERS, ICO, ICOS, SpecClient, sign


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=1000, seed=0, quota=None) as server:
        yield server


@pytest.fixture(scope="module")
def client(sb):
    c = SpecClient(sb.base_url, sb.public_key, sb.private_key)
    yield c
    c.close()


@pytest.fixture
def small():
    """A fresh small sandbox for tests that mutate or count."""
    with sandbox.serve(n_icos=60, seed=5, quota=None) as server:
        yield server


def _client_for(server: sandbox.Sandbox) -> SpecClient:
    return SpecClient(server.base_url, server.public_key, server.private_key)


def _ids(items: Iterable[dict[str, Any]]) -> list[int]:
    return [int(item["id"]) for item in items]


# --- paging and profiles ----------------------------------------------------------------------

def test_paging_every_past_ico_then_every_profile_matches_the_directory(sb, client):
    items, total = client.all_summaries(status="past")
    ids = _ids(items)
    assert len(ids) == len(set(ids)) == total
    assert sorted(ids) == sb.directory.ids("past")
    assert ids == sorted(ids, reverse=True)  # default order: newest (highest id) first
    assert total > 20 * 30
    for ico_id, item in zip(ids, items, strict=True):
        body = client.ico(ico_id)
        assert body["error"] is None
        assert body["data"] == sb.directory.profile(ico_id)
        assert body["data"]["main"]["name"] == item["main"]["name"]
        record = sb.directory.record(ico_id)
        assert item["finance"]["raised"] == ("" if record.raised is None else record.raised)
        assert item["main"]["ico_score"] == ("" if record.score is None else f"{record.score:.1f}")


def test_list_response_shape_and_page_sizes(sb, client):
    first = client.icos(status="past")
    pages = first["total_pages"]
    assert isinstance(first["total_icos"], str) and isinstance(pages, int)
    assert first["current_page"] == 1 and first["error"] is None
    assert len(first["data"]) == 20
    last = client.icos(status="past", page=str(pages))  # numeric string page is fine
    assert last["current_page"] == pages
    assert len(last["data"]) == int(first["total_icos"]) - 20 * (pages - 1)
    summary = first["data"][0]
    assert set(summary) == {"id", "main", "links", "finance"}
    assert set(summary["main"]) == {"name", "logo", "ico_score"}
    assert isinstance(summary["main"]["ico_score"], str)
    assert summary["links"]["url"].startswith("https://icodirectory.example/ico/")


def test_paths_work_without_trailing_slash_and_profile_ids_as_strings(sb, client):
    ico_id = sb.directory.ids()[3]
    assert client.call("/api/v1/ico", {"id": str(ico_id)})["data"] == sb.directory.profile(ico_id)
    assert client.call("/api/v1/icos", {"page": 2})["current_page"] == 2
    assert client.call("/api/v1/filters")["error"] is None


def test_chunked_bodies_and_head_requests_keep_the_connection_usable(sb, client):
    body = json.dumps({"status": "past", "page": 2}).encode()
    headers = {"Content-Type": "application/json", "X-Service-Public-Key": sb.public_key,
               "X-Service-Access-Key": sign(sb.private_key, body)}
    resp = client.session.post(sb.base_url + ICOS, data=iter([body[:7], body[7:]]),
                               headers=headers, timeout=HANG_GUARD)
    assert resp.request.headers.get("Transfer-Encoding") == "chunked"
    assert resp.json()["current_page"] == 2
    head = client.session.head(sb.base_url + ICOS, timeout=HANG_GUARD)
    assert head.status_code == 404 and head.content == b""
    assert client.filters()["error"] is None


def test_filters_endpoint_lists_every_value_the_records_use(sb, client):
    body = client.filters()
    assert body["error"] is None
    for kind in ("platform", "category", "type"):
        assert all(isinstance(v["id"], int) and isinstance(v["name"], str) for v in body[kind])
    assert all(set(v) == {"name"} for v in body["location"])
    platforms = {v["id"]: v["name"] for v in body["platform"]}
    assert platforms[1] == "Ethereum" and len(body["category"]) >= 20
    assert {"ICO", "IEO", "STO", "IDO", "Pre-ICO"} <= {v["name"] for v in body["type"]}
    locations = {v["name"] for v in body["location"]}
    records = sb.directory.records()
    assert {r.platform_id for r in records} <= set(platforms)
    assert {r.category_id for r in records} <= {v["id"] for v in body["category"]}
    assert {r.location for r in records} <= locations
    assert {r.platform for r in records} <= set(platforms.values())


# --- errors -----------------------------------------------------------------------------------

def _other_key_signature(body: bytes) -> str:
    return sign("not-the-private-key", body)


AUTH_FAILURES = {
    "missing public key": lambda body: {"X-Service-Public-Key": None},
    "missing access key": lambda body: {"X-Service-Access-Key": None},
    "wrong public key": lambda body: {"X-Service-Public-Key": "someone-else"},
    "wrong private key": lambda body: {"X-Service-Access-Key": _other_key_signature(body)},
    "signature over other bytes": lambda body: {
        "X-Service-Access-Key": sign("sandbox-private", body + b" ")},
}


@pytest.mark.parametrize("case", sorted(AUTH_FAILURES))
@pytest.mark.parametrize("path", [FILTERS, ICOS, ICO])
def test_480_for_missing_or_wrong_keys_and_it_is_not_counted(sb, client, case, path):
    body = b'{"id": 1030}' if path == ICO else b'{"status": "past"}'
    used = sb.stats.quota_used(sb.public_key)
    resp = client.send(path, body, headers=AUTH_FAILURES[case](body))
    assert resp.status_code == 403
    assert resp.json()["error"] == 480
    assert resp.json().get("data", []) == []
    assert ("data" in resp.json()) == (path == ICOS)
    assert sb.stats.quota_used(sb.public_key) == used


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/api/v1/nothing/"), ("POST", "/api/v2/icos/"), ("POST", "/"),
    ("GET", ICOS), ("GET", FILTERS), ("PUT", ICO),
])
def test_481_for_unknown_methods(client, method, path):
    resp = client.send(path, b"{}", method=method)
    assert resp.status_code == 404
    assert resp.json()["error"] == 481


@pytest.mark.parametrize(("path", "payload", "code"), [
    (ICOS, {"location": ["Atlantis"]}, 482),
    (ICOS, {"status": "past", "ico_score": 6}, 482),  # scores run from 0.2 to 5
    (ICOS, {"status": "past", "page": 999}, 482),
    (ICO, {"id": 1}, 482),
    (ICO, {"id": "999999"}, 482),
    (ICOS, {"status": "finished"}, 483),
    (ICOS, {"ico_score": 11}, 483),
    (ICOS, {"ico_score": 0}, 483),
    (ICOS, {"sort_asc": "name", "sort_desc": "id"}, 483),
    (ICOS, {"sort_asc": "raised"}, 483),
    (ICOS, {"platform": ["ethereum"]}, 483),
    (ICOS, {"page": 0}, 483),
    (ICOS, {"bounty_program": "no"}, 483),
    (ICOS, [1, 2], 483),
    (ICO, {"id": "abc"}, 483),
    (ICO, {"id": 12.5}, 483),
    (ICO, {"id": True}, 483),
    (ICO, {}, 484),
    (ICO, {"id": None}, 484),
])
def test_parameter_errors_answer_http_200_with_the_code(client, path, payload, code):
    resp = client.post(path, payload)
    assert resp.status_code == 200
    body = resp.json()
    assert body["error"] == code and body["message"]
    if path == ICOS:
        assert body["data"] == []


@pytest.mark.parametrize("body", [b"{not json", b'{"status": "past"', b"[", b"\xff\xfe{}", b"NaN"])
@pytest.mark.parametrize("path", [FILTERS, ICOS, ICO])
def test_483_for_a_body_that_is_not_a_json_object(client, path, body):
    resp = client.send(path, body)
    assert resp.status_code == 200
    assert resp.json()["error"] == 483


def test_485_when_the_daily_quota_is_used_and_every_authenticated_answer_counts(
        one_ledger_day):
    with sandbox.serve(n_icos=30, seed=1, quota=3) as server:
        c = _client_for(server)
        assert c.ico("not-a-number")["error"] == 483
        assert c.ico(None)["error"] == 484
        assert c.icos(location="Atlantis")["error"] == 482
        assert server.stats.quota_used(server.public_key) == 3
        over = c.post(FILTERS)
        assert over.status_code == 429 and over.json()["error"] == 485
        listed = c.post(ICOS, {"status": "past"})
        assert listed.status_code == 429 and listed.json() == {
            "error": 485, "message": listed.json()["message"], "data": []}
        wrong = c.send(FILTERS, b"{}", headers={"X-Service-Access-Key": "AAAA"})
        assert wrong.json()["error"] == 480  # keys are checked before the quota
        assert server.stats.quota_used(server.public_key) == 3
        server.reset_quota()
        assert server.stats.quota_used(server.public_key) == 0
        assert c.filters()["error"] is None
        assert server.stats.quota_used(server.public_key) == 1
        c.close()


def test_quota_counts_requests_and_stats_reset_keeps_it(small):
    c = _client_for(small)
    c.filters()
    c.icos(status="past")
    ico_id = small.directory.ids()[0]
    c.ico(ico_id)
    c.ico(ico_id)
    c.send("/api/v1/unknown/", b"{}")
    assert small.stats.quota_used(small.public_key) == 4
    assert small.stats.quota_used("someone-else") == 0
    assert small.stats.requests == Counter(filters=1, icos=1, ico=2, other=1)
    assert small.stats.profile_hits == Counter({ico_id: 2})
    small.stats.reset()
    assert small.stats.requests == Counter() and small.stats.profile_hits == Counter()
    assert small.stats.quota_used(small.public_key) == 4
    c.close()


# --- signatures over the exact bytes ----------------------------------------------------------

def test_signature_over_raw_utf8_bytes_is_accepted_and_reserialising_breaks_it(sb, client):
    place = "Côte d'Ivoire"
    raw = json.dumps({"location": [place]}, ensure_ascii=False).encode("utf-8")
    assert "ô".encode() in raw
    expected = [r.id for r in sb.directory.records() if r.location == place]
    assert expected, "the default directory should hold ICOs in Côte d'Ivoire"
    resp = client.send(ICOS, raw)
    assert resp.json()["error"] is None
    assert sorted(_ids(resp.json()["data"])) == sorted(expected)

    escaped = json.dumps({"location": [place]}).encode()  # same JSON, other bytes
    assert json.loads(escaped) == json.loads(raw) and escaped != raw
    stale = client.send(ICOS, escaped, headers={"X-Service-Access-Key": sign(sb.private_key, raw)})
    assert stale.status_code == 403 and stale.json()["error"] == 480
    compact = json.dumps({"location": [place]}, ensure_ascii=False, separators=(",", ":"))
    stale = client.send(ICOS, compact.encode(),
                        headers={"X-Service-Access-Key": sign(sb.private_key, raw)})
    assert stale.json()["error"] == 480


# --- filters and sorts, checked against an independent computation ----------------------------

def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _matches(r: Record, p: dict[str, Any]) -> bool:
    checks = [
        "platform" not in p or r.platform_id in _as_list(p["platform"]),
        "category" not in p or r.category_id in _as_list(p["category"]),
        "type" not in p or r.type_id in _as_list(p["type"]),
        "location" not in p or r.location in _as_list(p["location"]),
        "status" not in p or r.status == p["status"],
        "ico_score" not in p or (r.score is not None and r.score >= p["ico_score"]),
        "airdrop_program" not in p or r.airdrop,
        "bounty_program" not in p or r.bounty,
        "investor_kyc" not in p or r.kyc,
        "investor_wl" not in p or r.whitelist,
        "ico_kyc_passed" not in p or r.kyc_passed,
        "accepted_currencies" not in p
        or any(t in r.accepting for t in _as_list(p["accepted_currencies"])),
        "exclude_areas" not in p
        or all(a != r.location and a not in r.restricted for a in _as_list(p["exclude_areas"])),
    ]
    return all(checks)


def _seconds(value: datetime) -> float:
    return (value - datetime(1970, 1, 1)).total_seconds()


def _expected_order(records: list[Record], p: dict[str, Any]) -> list[int]:
    key = p.get("sort_asc") or p.get("sort_desc")
    sign_ = -1 if "sort_desc" in p else 1
    if key is None:
        return sorted((r.id for r in records), reverse=True)
    if key == "id":
        return sorted((r.id for r in records), key=lambda i: sign_ * i)
    if key == "name":
        ordered = sorted(records, key=lambda r: (r.name.lower(), r.id))
        return [r.id for r in (ordered[::-1] if sign_ < 0 else ordered)]
    attr = "start" if key == "start_datetime" else "end"
    dated = [r for r in records if getattr(r, attr) is not None]
    undated = [r for r in records if getattr(r, attr) is None]
    dated.sort(key=lambda r: (sign_ * _seconds(getattr(r, attr)), sign_ * r.id))
    undated.sort(key=lambda r: sign_ * r.id)
    return [r.id for r in dated + undated]


QUERIES = [
    {},
    {"status": "past", "platform": [1], "sort_asc": "name"},
    {"category": [4, 16], "ico_score": 3, "sort_desc": "start_datetime"},
    {"location": ["USA", "Singapore"], "investor_kyc": "yes", "sort_asc": "end_datetime"},
    {"accepted_currencies": ["BTC", "LTC"], "exclude_areas": ["USA"], "sort_desc": "name"},
    {"type": 3, "bounty_program": "yes"},
    {"investor_wl": "yes", "ico_kyc_passed": "yes", "sort_asc": "start_datetime"},
    {"exclude_areas": "China", "status": "ongoing", "sort_desc": "end_datetime"},
    {"airdrop_program": "yes", "platform": [2, 3, 7], "sort_asc": "id"},
    {"status": "upcoming", "ico_score": 4, "sort_desc": "id"},
    {"location": "Unknown", "accepted_currencies": "Fiat", "sort_asc": "end_datetime"},
]


@pytest.mark.parametrize("params", QUERIES, ids=lambda p: ",".join(p) or "no-params")
def test_filters_and_sorts_match_an_independent_computation(sb, client, params):
    records = [r for r in sb.directory.records() if _matches(r, params)]
    expected = _expected_order(records, params)
    assert expected, f"{params} should match something in the default directory"
    items, total = client.all_summaries(**params)
    assert _ids(items) == expected
    assert total == len(expected)
    assert [r.id for r in sb.directory.query(params)] == expected
    by_id = {r.id: r for r in records}
    assert [item["main"]["name"] for item in items] == [by_id[i].name for i in expected]


def test_sort_semantics_edge_cases(sb, client):
    by_name = _ids(client.all_summaries(sort_asc="name")[0])
    names = [sb.directory.record(i).name for i in by_name]
    assert names == sorted(names, key=str.casefold)
    assert any(n[0].islower() for n in names), "lower-case names make case matter"
    by_end, _ = client.all_summaries(sort_desc="end_datetime")
    ends = [sb.directory.record(i).end for i in _ids(by_end)]
    first_missing = ends.index(None)
    assert all(e is None for e in ends[first_missing:])  # missing dates last, even descending
    assert all(a >= b for a, b in itertools.pairwise(ends[:first_missing]))


def test_directory_query_rejects_what_the_server_rejects(sb):
    with pytest.raises(InvalidParameter):
        sb.directory.query({"ico_score": 11})
    with pytest.raises(InvalidParameter):
        sb.directory.query({"sort_asc": "name", "sort_desc": "name"})


# --- fault injection, latency, connections ----------------------------------------------------

def _classify(c: SpecClient) -> str:
    try:
        resp = c.post(FILTERS)
    except requests.ConnectionError:
        return "drop"
    try:
        resp.json()
    except ValueError:
        if resp.status_code in (500, 502, 503):
            assert resp.headers["Content-Type"].startswith("text/html")
            return "5xx"
        assert resp.status_code == 200
        return "truncated"
    return "ok"


def test_faults_come_in_three_kinds_and_never_touch_the_quota():
    with sandbox.serve(n_icos=20, seed=2, fail_rate=1.0) as server:
        c = _client_for(server)
        kinds = Counter(_classify(c) for _ in range(30))
        assert set(kinds) == {"drop", "5xx", "truncated"}
        assert server.stats.faults == 30
        assert server.stats.quota_used(server.public_key) == 0
        server.set_faults(0.0)
        assert _classify(c) == "ok"
        assert server.stats.quota_used(server.public_key) == 1
        c.close()


def test_a_retrying_client_gets_through_half_failing_service():
    with sandbox.serve(n_icos=100, seed=4, fail_rate=0.5, quota=1000) as server:
        c = _client_for(server)
        answers = 0
        for ico_id in server.directory.ids()[:15]:
            for _attempt in range(40):
                try:
                    resp = c.post(ICO, {"id": ico_id})
                    body = resp.json()
                except (requests.ConnectionError, ValueError):
                    continue
                answers += 1
                assert body["data"] == server.directory.profile(ico_id)
                break
            else:
                pytest.fail(f"no answer for {ico_id} in 40 attempts")
        assert server.stats.faults > 5
        assert server.stats.quota_used(server.public_key) == answers == 15
        c.close()


def test_latency_is_applied_to_every_request_until_it_is_set_back_to_zero():
    with sandbox.serve(n_icos=20, seed=1, latency=0.01) as server:
        c = _client_for(server)
        for _ in range(3):
            assert c.filters()["error"] is None
        assert server.stats.delayed == 3
        assert server.stats.delay_seconds == pytest.approx(3 * 0.01)
        server.set_latency(0.0)
        assert server.latency == 0.0 and c.filters()["error"] is None
        assert server.stats.delayed == 3 and server.stats.requests["filters"] == 4
        with pytest.raises(ValueError, match="latency"):
            server.set_latency(-1)
        c.close()


def test_an_answer_is_made_within_its_latency_not_after_it(monkeypatch):
    # a remote service's latency is the time to its answer: the sandbox makes the answer
    # (and its bytes) when the request is let through, then holds it until the latency is up
    with sandbox.serve(n_icos=20, seed=1, latency=0.01) as server:
        ico_id = server.directory.ids("past")[0]
        made_after: list[int] = []  # latencies waited out when each answer was made
        served = server.stats.record_profile

        def record_profile(served_id: int) -> None:
            made_after.append(server.stats.delayed)
            served(served_id)

        monkeypatch.setattr(server.stats, "record_profile", record_profile)
        c = _client_for(server)
        for n in range(3):
            response = c.post(ICO, {"id": ico_id})
            assert response.json()["data"]["id"] == ico_id
            assert server.stats.delayed == n + 1  # and each waited its latency
        assert made_after == [0, 1, 2]  # each made before its own latency was waited out
        c.close()


def test_a_latency_counts_from_the_request_line(monkeypatch):
    waits: list[float] = []

    class Waits:  # the service's time module, its waits for the latency recorded
        def __getattr__(self, name: str) -> Any:
            return getattr(time, name)

        def sleep(self, seconds: float) -> None:
            waits.append(seconds)
            time.sleep(seconds)

    class Early(Waits):  # the server's: every request line read at its clock's start
        def monotonic(self) -> float:
            return 0.0

    monkeypatch.setattr(sandbox_service, "time", Waits())
    with sandbox.serve(n_icos=20, seed=1, latency=0.2) as server:
        c = _client_for(server)
        assert c.post(FILTERS).json()["error"] is None
        # what reading the request and making its answer took is part of its latency
        assert 0 <= waits[0] < 0.2
        monkeypatch.setattr(sandbox_httpd, "time", Early())
        assert c.post(FILTERS).json()["error"] is None
        assert waits[1] == 0.0  # counted from its request line: its latency long up
        c.close()
    assert server.stats.delayed == 2


def test_concurrent_requests_are_answered_together_each_after_its_latency():
    with sandbox.serve(n_icos=20, seed=1, latency=0.01) as server:
        clients = [_client_for(server) for _ in range(4)]
        answers: list[Any] = []
        threads = [threading.Thread(target=lambda c=c: answers.append(c.filters()["error"]))
                   for c in clients]
        server.pause()
        try:
            for t in threads:
                t.start()
            # a server answering one request at a time never holds four at once
            assert server.stats.wait_for(lambda s: s.in_flight == 4, timeout=HANG_GUARD)
            assert answers == [] and server.stats.delayed == 0  # held before the latency
        finally:
            server.resume()
        for t in threads:
            t.join()
        assert answers == [None] * 4
        # a handler counts its request finished just after the client has the answer
        assert server.stats.wait_for(lambda s: s.in_flight == 0, timeout=HANG_GUARD)
        assert server.stats.max_in_flight == 4
        assert server.stats.delayed == 4 and server.stats.connections == 4
        for c in clients:
            c.close()


def test_stop_lets_held_requests_go_and_never_hangs_on_them():
    server = sandbox.start(n_icos=20, seed=1)
    c = _client_for(server)
    outcome: list[str] = []

    def ask() -> None:
        try:
            outcome.append(str(c.filters()["error"]))
        except requests.RequestException as exc:
            outcome.append(type(exc).__name__)

    server.pause()
    asking = threading.Thread(target=ask)
    asking.start()
    assert server.stats.wait_for(lambda s: s.in_flight == 1, timeout=HANG_GUARD)
    # the released request still sleeps its latency: stop must wait for its whole reply,
    # not shut its socket mid-way (the client would see a dropped or truncated answer)
    server.set_latency(0.2)
    server.stop()
    asking.join(HANG_GUARD)
    assert not asking.is_alive() and outcome == ["None"]
    assert server.stats.in_flight == 0 and server.stats.open_connections == 0
    c.close()


def test_pooled_client_reuses_one_connection_with_exact_content_length(small):
    c = _client_for(small)
    for _ in range(10):
        resp = c.post(ICOS, {"status": "past"})
        assert int(resp.headers["Content-Length"]) == len(resp.content)
        assert resp.headers["Content-Type"].startswith("application/json")
    assert small.stats.connections == 1
    c.close()


def test_stop_closes_idle_keep_alive_connections_and_the_port():
    server = sandbox.start(n_icos=20, seed=1)
    c = _client_for(server)
    assert c.filters()["error"] is None  # leaves a keep-alive connection open
    url, port = server.base_url, server.port
    assert server.stats.open_connections == 1  # idle, kept alive by the client's pool
    server.stop()
    assert not server.running and server.stats.open_connections == 0
    with refusing_port(port), pytest.raises(requests.ConnectionError):  # free: bound here
        requests.post(url + FILTERS, data=b"{}", timeout=2)
    mine = f"icoframes-sandbox-{port}"
    lingering = [t for t in threading.enumerate() if t.name.startswith(mine)]
    assert lingering == []
    server.stop()  # idempotent
    c.close()


def test_sandboxes_get_distinct_ports_and_stop_frees_each():
    servers = [sandbox.start(n_icos=20, seed=i) for i in range(5)]
    ports = [s.port for s in servers]
    assert len(set(ports)) == 5
    assert all(s.base_url == f"http://127.0.0.1:{s.port}" for s in servers)
    for s in servers:
        s.stop()
    for port in ports:  # each is free (bound here again), and refuses connections
        with refusing_port(port), pytest.raises(requests.ConnectionError):
            requests.post(f"http://127.0.0.1:{port}{FILTERS}", data=b"{}", timeout=2)
    names = {t.name for t in threading.enumerate()}
    assert not any(n.startswith(f"icoframes-sandbox-{p}") for n in names for p in ports)


def test_start_has_a_real_signature_and_the_command_line_shares_its_defaults(monkeypatch):
    params = inspect.signature(sandbox.start).parameters
    # serve is start by another name (its refusals name serve): the same signature
    assert sandbox.serve.__wrapped__ is sandbox.start
    assert inspect.signature(sandbox.serve) == inspect.signature(sandbox.start)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    assert {"n_icos", "seed", "latency", "quota", "fail_rate", "port", "public_key",
            "private_key", "grow_every", "directory"} == set(params)
    assert params["n_icos"].default == 1000 and params["quota"].default == 5000
    args = add_arguments(argparse.ArgumentParser()).parse_args([])
    for name in ("n_icos", "seed", "latency", "quota", "fail_rate", "grow_every"):
        assert getattr(args, name) == params[name].default, name
    monkeypatch.delenv("ICOFRAMES_PUBLIC_KEY", raising=False)  # keys come from them first
    monkeypatch.delenv("ICOFRAMES_PRIVATE_KEY", raising=False)
    public, private = sandbox_keys(args)  # the private key held as a Secret
    assert (public, private.reveal()) == (params["public_key"].default,
                                          params["private_key"].default)
    with pytest.raises(ValueError, match="quota"):
        sandbox.start(n_icos=0, quota=-1)


def test_repr_and_stats_never_show_the_private_key():
    secret = "s3cret-Private-XYZ"
    with sandbox.serve(n_icos=10, private_key=secret, public_key="pub-1") as server:
        for text in (repr(server), str(server), repr(server.stats), repr(server.directory)):
            assert secret not in text
        assert "pub-1" in repr(server)
        assert server.settings() == {"base_url": server.base_url, "public_key": "pub-1",
                                     "private_key": secret,
                                     "service_name": server.service_name}
        assert server.service_name.startswith("sandbox-0-10-")
        assert _client_for(server).filters()["error"] is None


# --- a directory that changes while it is paged -----------------------------------------------

def test_grow_every_adds_a_new_top_ico_and_shifts_pages():
    with sandbox.serve(n_icos=80, seed=6, grow_every=2, quota=None) as server:
        c = _client_for(server)
        first = c.icos(status="past")
        second = c.icos(status="past")  # the 2nd list request: a new ICO arrives after it
        assert _ids(second["data"]) == _ids(first["data"])
        third = c.icos(status="past")
        assert int(third["total_icos"]) == int(first["total_icos"]) + 1
        new_id = int(third["data"][0]["id"])
        assert new_id > max(_ids(first["data"])) and server.directory.status_of(new_id) == "past"
        assert _ids(third["data"])[1:] == _ids(first["data"])[:-1]
        c.close()


def test_add_update_remove_show_in_list_and_profile(small):
    c = _client_for(small)
    before = small.directory.ids()
    new_id = small.add_ico(status="past")
    assert new_id > max(before) and small.directory.status_of(new_id) == "past"
    assert int(c.icos(status="past")["data"][0]["id"]) == new_id
    assert c.ico(new_id)["data"] == small.directory.profile(new_id)

    small.update_ico(new_id, name="Renamed Coin", ico_score=4.2, raised=12_345_000)
    top = c.icos(status="past")["data"][0]
    assert top["main"]["name"] == "Renamed Coin"
    assert top["main"]["ico_score"] == "4.2"
    assert top["finance"]["raised"] == 12_345_000
    profile = c.ico(new_id)["data"]
    assert profile["main"]["name"] == "Renamed Coin"
    assert float(profile["main"]["ico_score"]) == 4.2
    assert int(profile["finance"]["raised"]) == 12_345_000
    assert c.icos(status="past", ico_score=4)["data"][0]["main"]["name"] == "Renamed Coin"

    small.remove_ico(new_id)
    assert c.ico(new_id)["error"] == 482
    assert new_id not in _ids(c.icos(status="past")["data"])
    upcoming = small.add_ico(status="upcoming")
    assert int(c.icos(status="upcoming")["data"][0]["id"]) == upcoming
    with pytest.raises(KeyError):
        small.remove_ico(new_id)
    with pytest.raises(ValueError, match=", ".join(STATUSES)):
        small.add_ico(status="finished")
    c.close()


# --- the generated data -----------------------------------------------------------------------

def test_generation_is_deterministic_per_seed_and_differs_between_seeds():
    a, b = generate_directory(300, seed=7), generate_directory(300, seed=7)
    assert a.ids() == b.ids()
    assert a.profiles() == b.profiles()
    assert [a.summary(i) for i in a.ids()] == [b.summary(i) for i in b.ids()]
    assert a.profiles() == a.profiles()  # rendering again changes nothing
    assert gc.isenabled()  # bulk rendering pauses the collector, and restores it
    c = generate_directory(300, seed=8)
    assert c.ids() != a.ids()
    assert [p["main"]["name"] for p in c.profiles()] != [p["main"]["name"] for p in a.profiles()]


def test_generation_does_not_depend_on_the_process_or_its_hash_seed():
    script = ("import hashlib, json; from icoframes.sandbox import generate_directory as g; "
              "d = g(200, seed=9); print(hashlib.sha256(json.dumps([d.profiles(), "
              "[d.summary(i) for i in d.ids()]]).encode()).hexdigest())")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, check=True, timeout=HANG_GUARD)
    d = generate_directory(200, seed=9)
    here = json.dumps([d.profiles(), [d.summary(i) for i in d.ids()]]).encode()
    assert child.stdout.strip() == hashlib.sha256(here).hexdigest()


def test_generation_renders_nothing_profiles_are_rendered_on_demand(monkeypatch):
    # what keeps a 50,000-ICO directory cheap to make and to hold: no stored JSON
    import icoframes.sandbox.directory as directory_module

    rendered: list[int] = []
    real = directory_module.render_profile
    monkeypatch.setattr(directory_module, "render_profile",
                        lambda rec: rendered.append(rec.id) or real(rec))
    d = generate_directory(300, seed=3)
    assert rendered == []
    assert all(not isinstance(getattr(r, f), dict | list)
               for r in d.records() for f in r.__slots__)
    first = d.ids()[0]
    assert d.profile(first) == d.profile(first) and rendered == [first, first]


DATE = re.compile(r"\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d")
AMOUNT_STYLES = {
    "amount $1,000": re.compile(r"\$\d{1,3}(,\d{3})+"),
    "amount 1,000": re.compile(r"\d{1,3}(,\d{3})+"),
    "amount 15M": re.compile(r"\d+(\.\d+)?M"),
    "amount 250K": re.compile(r"\d+(\.\d+)?K"),
    "amount 2000 USD": re.compile(r"\d+ USD"),
}
PERCENT_STYLES = {
    "percent 60%": re.compile(r"\d+%"), "percent 60 %": re.compile(r"\d+ %"),
    "percent 60": re.compile(r"\d+"), "percent 60.0%": re.compile(r"\d+\.\d+%"),
}
ROADMAP_KEYS = {
    "roadmap DD-MM-YYYY": re.compile(r"\d\d-\d\d-\d{4}"),
    "roadmap Q3 2018": re.compile(r"Q[1-4] \d{4}"),
    "roadmap 2019": re.compile(r"\d{4}"),
    "roadmap March 2019": re.compile(r"[A-Z][a-z]+ \d{4}"),
}
MARKERS = ("NA", "—", "NOT SET", "Pending", "TBA")
NUMERIC = ("tokens_for_sale", "token_price", "min_purchase", "max_purchase", "soft_cap",
           "hard_cap", "raised")
BOOLEANS = (("main", "premium"), ("main", "scam"), ("main", "kyc"), ("main", "whitelist"),
            ("main", "mvp"), ("main", "kyc_passed"), ("finance", "escrow"), ("dates", "tba"),
            ("additional", "airdrop"), ("additional", "bounty"))
SPEC_KEYS = {
    "main": ("name", "description", "logo", "premium", "scam", "ico_score", "platform", "kyc",
             "whitelist", "category", "type", "mvp", "location", "kyc_passed"),
    "links": ("url", "website", "whitepaper", "social", "video"),
    "finance": ("ticker", "tokens_for_sale", "token_price", "token_price_unit", "min_purchase",
                "max_purchase", "purchase_unit", "token_type", "soft_cap", "hard_cap",
                "caps_unit", "escrow", "markets", "distribution", "restricted_areas",
                "accepting", "raised"),
    "dates": ("start_datetime", "end_datetime", "tba"),
    "additional": ("bonuses", "airdrop", "bounty"),
}


def _is_number_text(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _valid_date(text: str) -> bool:
    try:
        datetime.strptime(text, "%d.%m.%Y %H:%M:%S")
    except ValueError:
        return False
    return True


def _shapes(profile: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    main, links, finance, dates = (profile[k] for k in ("main", "links", "finance", "dates"))
    found.add("id as string" if isinstance(profile["id"], str) else "id as number")
    for section, keys in SPEC_KEYS.items():
        for key in keys:
            if key not in profile[section]:
                found.add("missing key")
            elif profile[section][key] is None:
                found.add("null")
            elif profile[section][key] == "":
                found.add("empty string")
    for key in NUMERIC:
        value = finance.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            found.add("number")
            if value > 2**63:
                found.add("beyond int64")
        elif isinstance(value, str) and value:
            if re.fullmatch(r"\d+(\.\d+)?", value):
                found.add("numeric string")
                if int(float(value)) > 2**63:
                    found.add("beyond int64")
            elif re.fullmatch(r"\d(\.\d+)?e-?\d+", value):
                found.add("scientific string")
            elif value in MARKERS:
                found.add(f"marker {value}")
            else:
                styles = [n for n, rx in AMOUNT_STYLES.items() if rx.fullmatch(value)]
                found.update(styles or ["unparseable number"])
    for marker in MARKERS:
        if main.get("ico_score") == marker or finance.get("ticker") == marker:
            found.add(f"marker {marker}")
    for section, key in BOOLEANS:
        if key in profile[section]:
            found.add(f"bool {profile[section][key]!r}")
    for key in ("start_datetime", "end_datetime"):
        text = dates[key]
        found.add("date empty" if text == "" else
                  "date valid" if DATE.fullmatch(text) and _valid_date(text) else "date invalid")
    for section, key in (("links", "social"), ("additional", "bonuses"),
                         ("finance", "distribution"), (None, "roadmap")):
        value = (profile if section is None else profile[section])[key]
        if value == []:
            found.add(f"empty map {key}")
    for section, key in (("finance", "markets"), ("finance", "restricted_areas"),
                         ("finance", "accepting"), (None, "team"), (None, "advisors")):
        if (profile if section is None else profile[section])[key] == "":
            found.add(f"empty list {key}")
    distribution = finance["distribution"]
    for share in (distribution.values() if isinstance(distribution, dict) else ()):
        if isinstance(share, int | float):
            found.add("percent number")
        else:
            found.update(n for n, rx in PERCENT_STYLES.items() if rx.fullmatch(share))
    roadmap = profile["roadmap"]
    for label in (roadmap if isinstance(roadmap, dict) else ()):
        found.update(n for n, rx in ROADMAP_KEYS.items() if rx.fullmatch(label))
    found.add(f"platform {main['platform']!r}")
    if "updated_at" in profile:
        found.add("extra updated_at")
    if "rating_details" in main:
        found.add("extra rating_details")
    social = links["social"]
    found.update(f"social {k}" for k in (social if isinstance(social, dict) else ()))
    for person in (profile["team"] or []) + (profile["advisors"] or []):
        found.update(f"person without {k}" for k in ("photo", "social") if k not in person)
    return found


EVERY_SHAPE = {
    "id as string", "id as number", "missing key", "null", "empty string", "number",
    "numeric string", "scientific string", "beyond int64", "unparseable number",
    *AMOUNT_STYLES, *(f"marker {m}" for m in MARKERS),
    "bool True", "bool ''", "bool False", "bool None",
    "date valid", "date empty", "date invalid",
    "empty map social", "empty map bonuses", "empty map distribution", "empty map roadmap",
    "empty list markets", "empty list restricted_areas", "empty list accepting",
    "empty list team", "empty list advisors",
    *PERCENT_STYLES, "percent number", *ROADMAP_KEYS,
    "platform 'Ethereum'", "platform 'Ethereum '", "platform 'ERC20'",
    "extra updated_at", "extra rating_details", "social telegram", "social medium",
    "person without photo", "person without social",
}


@pytest.mark.parametrize("seed", [0, 1])
def test_a_default_directory_holds_every_messy_shape_several_times(seed):
    directory = generate_directory(1000, seed=seed)
    counts = Counter(shape for p in directory.profiles() for shape in _shapes(p))
    rare = {shape: counts[shape] for shape in EVERY_SHAPE if counts[shape] < 3}
    assert rare == {}
    summaries = [directory.summary(i) for i in directory.ids()]
    assert sum(isinstance(s["id"], str) for s in summaries) >= 3
    assert sum(isinstance(s["id"], int) for s in summaries) >= 500
    assert {"Côte d'Ivoire", "Curaçao"} & {r.location for r in directory.records()}


def test_the_data_looks_like_the_published_figures(sb):
    records = sb.directory.records()
    n = len(records)
    scores = [r.score for r in records if r.score is not None]
    assert 2.75 <= statistics.median(scores) <= 3.05
    assert 0.08 <= 1 - len(scores) / n <= 0.20
    assert min(scores) >= 0.2 and max(scores) <= 5.0
    summaries = [sb.directory.summary(i) for i in sb.directory.ids()]
    unknown = sum(s["finance"]["raised"] == "" for s in summaries) / n
    assert 0.55 <= unknown <= 0.80  # proceeds known for only ~25-35% (Momtaz)
    raised = [r.raised for r in records if r.raised is not None]
    assert 8e6 <= statistics.median(raised) <= 25e6
    status = Counter(r.status for r in records)
    assert set(status) == set(STATUSES)
    assert 0.68 <= status["past"] / n <= 0.82 and 0.06 <= status["ongoing"] / n <= 0.15
    assert 0.7 <= sum(r.platform_id == 1 for r in records) / n <= 0.9
    assert 0.25 <= sum(bool(r.restricted) for r in records) / n <= 0.40
    assert 0.35 <= sum(r.whitelist for r in records) / n <= 0.52
    ids = sb.directory.ids()
    assert 900 <= ids[0] <= 1100 and ids[-1] - ids[0] > n  # gaps between ids
    tokens = []
    for p in sb.directory.profiles():
        value = p["finance"]["tokens_for_sale"]
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            tokens.append(int(value))
    assert any(t > 2**63 for t in tokens)
    assert 5e7 <= statistics.median(tokens) <= 4e8
    teams = [len(p["team"]) for p in sb.directory.profiles() if p["team"]]
    assert 7 <= statistics.median(teams) <= 11
    past_years = Counter(r.start.year for r in records if r.status == "past" and r.start)
    assert past_years.most_common(1)[0][0] == 2018
