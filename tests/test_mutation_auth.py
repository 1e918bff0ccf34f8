"""api/auth.py: the spec's request signature and HTTP Basic auth from base_url's user
information, value by value (`make mutate MODULE=auth`). The expected signatures were
computed independently with ``openssl dgst -sha256 -hmac KEY -binary | base64``."""

from __future__ import annotations

import pytest
import requests

from icoframes.api.auth import BasicFromURL, url_and_auth
from icoframes.api.auth import sign as sign_body
from icoframes.errors import ConfigError
from icoframes.secret import HiddenText, Secret


@pytest.mark.parametrize(("body", "key", "signature"), [
    (b'{"id":1}', Secret("secret"), "A971iWIMgT8Zj9A9eWfikrFj7wQ16/Qwcc4OlRl2PLc="),
    (b'{"id":1}', "secret", "A971iWIMgT8Zj9A9eWfikrFj7wQ16/Qwcc4OlRl2PLc="),  # a plain str
    (b"", "k", "i7mQxAp9YcuXWXqUISUCW+UKyL63RDbjc1uYiTp/ZiA="),
    # a key outside ASCII, as UTF-8
    (b'{"id":1}', "\u043a\u043b\u044e\u0447", "fLpSE8q1GgvitrGq/XIVdouINlIJ4UmkSOM3Ncfqe7M="),
    (b"\x00\xff", Secret("secret"), "27lcHAdBpbGA2w3/iVOgwsWIPekx46rjLBzqFYfUtHQ="),
])
def test_sign_is_base64_of_the_raw_hmac_sha256(body, key, signature):
    assert sign_body(body, key) == signature


def test_sign_with_a_key_that_lost_its_value_is_refused():
    with pytest.raises(ConfigError, match=r"^this private key has no value"):
        sign_body(b"{}", Secret(None))


def _prepared() -> requests.PreparedRequest:
    return requests.Request("POST", "http://127.0.0.1:9/v1/icos/all", data=b"{}").prepare()


def test_basic_from_url_sets_the_header_it_was_given_hidden_in_its_repr():
    auth = BasicFromURL(Secret("Basic dTpw"))
    request = _prepared()
    assert auth(request) is request
    assert "Authorization" in list(request.headers)  # the name as sent, in its usual case
    header = request.headers["Authorization"]
    assert header == "Basic dTpw" and type(header) is HiddenText and repr(header) == "'<hidden>'"
    assert repr(auth) == "BasicFromURL(<hidden>)" and "dTpw" not in repr(vars(auth))


def test_url_and_auth_with_and_without_user_information():
    plain, auth = url_and_auth("http://us%40er:p%3Aw@127.0.0.1:8000/v1")
    assert plain == "http://127.0.0.1:8000/v1" and isinstance(auth, BasicFromURL)
    request = auth(_prepared())
    assert request.headers["Authorization"] == "Basic dXNAZXI6cDp3"  # "us@er:p:w"
    assert url_and_auth("http://127.0.0.1:8") == ("http://127.0.0.1:8", None)
    assert url_and_auth("http://user@127.0.0.1:8") == ("http://127.0.0.1:8", None)
