"""A CA bundle or client certificate that does not exist is a ``ConfigError`` before any
request (REVD's pre-existing LOW): ``requests`` checks the path at each request and raised a
bare ``OSError`` out of the client, the request booked as sent though it never left.

The server is a plain HTTP one on 127.0.0.1 addressed as ``https://``: no request may reach
it (its hits stay 0), and none is booked (``sent``).
"""

from __future__ import annotations

import re

import pytest
import requests
from hostile import PROFILE, HostileServer, json_reply

from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import APIError, ConfigError

ONCE = RetryPolicy(max_attempts=1)


@pytest.fixture
def srv():
    one = {"id": 1, "main": {"name": "A"}}
    with HostileServer({PROFILE: json_reply({"error": None, "data": one})}) as server:
        yield server


def _https(srv) -> dict[str, str]:
    return {**srv.settings(), "base_url": srv.base_url.replace("http://", "https://")}


def _refused(missing: str, path) -> str:
    return "^" + re.escape(f"{missing} ({str(path)!r}) does not exist: no request to an https "
                           "base_url can be sent: fix the path, or unset it") + "$"


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_a_missing_ca_bundle_of_the_environment_is_a_config_error_before_any_request(
        srv, tmp_path, monkeypatch, variable):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.setenv(variable, str(tmp_path / "gone.pem"))
    with pytest.raises(ConfigError, match=_refused(variable, tmp_path / "gone.pem")), \
            Client(**_https(srv), retry=ONCE) as client:  # (was made)
        client.profile(1)  # (was a bare OSError here, the request booked as sent)
    assert srv.hits[PROFILE] == 0


def test_a_missing_file_of_a_callers_session_is_a_config_error_before_any_request(
        srv, tmp_path, monkeypatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    with requests.Session() as session:
        session.verify = str(tmp_path / "ca")
        with pytest.raises(ConfigError, match=_refused("the session's verify", tmp_path / "ca")), \
                Client(**_https(srv), retry=ONCE, session=session) as client:
            client.profile(1)
        session.verify = True  # the environment's, as requests reads it (trust_env)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "env.pem"))
        with pytest.raises(ConfigError, match=_refused("REQUESTS_CA_BUNDLE", tmp_path / "env.pem")):
            Client(**_https(srv), retry=ONCE, session=session)
        monkeypatch.delenv("REQUESTS_CA_BUNDLE")
        session.cert = (str(tmp_path / "me.crt"), str(tmp_path / "me.key"))
        with pytest.raises(ConfigError, match=_refused("the session's cert", tmp_path / "me.crt")):
            Client(**_https(srv), retry=ONCE, session=session)
    assert srv.hits[PROFILE] == 0


def test_a_file_gone_after_the_client_was_made_is_an_error_of_that_request_not_booked(
        srv, tmp_path, monkeypatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    bundle = tmp_path / "ca.pem"
    bundle.write_text("")
    with requests.Session() as session:
        session.verify = str(bundle)
        with Client(**_https(srv), retry=ONCE, session=session) as client:
            bundle.unlink()
            with pytest.raises(APIError, match=re.escape(
                    "/api/v1/ico/: the request could not be sent (OSError: Could not find a "
                    f"suitable TLS CA certificate bundle, invalid path: {bundle})")):
                client.profile(1)
            assert client.attempts["ico"] == 1 and client.sent["ico"] == 0
    assert srv.hits[PROFILE] == 0


def test_a_missing_ca_bundle_is_not_read_for_an_http_base_url(srv, tmp_path, monkeypatch):
    # requests reads it for https only: a stale variable never stopped the http sandbox
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "gone.pem"))
    with Client(**srv.settings(), retry=ONCE) as client:
        assert client.profile(1) == {"id": 1, "main": {"name": "A"}}
    assert srv.hits[PROFILE] == 1
