"""What a pickle or a copy of a hidden value carries: the Basic header made of ``base_url``'s
password (a :class:`HiddenText` in each request) and the address itself (a :class:`RedactedURL`
in the settings) travel redacted, as the private key travels without its value; a copy is
the same object, so a copied request still sends the header. Before (REVC L2, L3) a pickle of
either, of the settings or of a requests error holding a request, carried the password."""

from __future__ import annotations

import base64
import copy
import pickle

import pytest
import requests
from hostile import HostileServer, json_reply

import icoframes
from icoframes.api.auth import url_and_auth
from icoframes.api.client import Client
from icoframes.config import get_settings
from icoframes.errors import ConfigError
from icoframes.secret import HIDDEN, HiddenText, RedactedURL
from icoframes.store.cache import Cache

PASSWORD = "pa55-w0rd-of-the-pickle"
TOKEN = base64.b64encode(f"user:{PASSWORD}".encode()).decode()  # what the header carries

pytestmark = pytest.mark.usefixtures("clean_settings")


def _prepared(base_url: str) -> requests.PreparedRequest:
    plain, auth = url_and_auth(base_url)
    assert auth is not None
    return requests.Request("POST", plain + "/x", auth=auth, data=b"{}").prepare()


def test_a_basic_header_travels_in_no_pickle_and_its_copies_are_sent_as_it_is():
    with HostileServer({}, default=json_reply({"error": None})) as srv:
        request = _prepared(srv.base_url.replace("http://", f"http://user:{PASSWORD}@"))
        header = request.headers["Authorization"]
        assert type(header) is HiddenText and header == f"Basic {TOKEN}"
        # a requests error keeps its request: pickled (multiprocessing sends errors so), it
        # carried the header in clear
        for value in (header, request, requests.HTTPError("x", request=request)):
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
                pickled = pickle.dumps(value, protocol=protocol)
                assert TOKEN[:12].encode() not in pickled, (value, protocol)
        back = pickle.loads(pickle.dumps(header))
        assert type(back) is HiddenText and str.__str__(back) == HIDDEN  # no credential
        assert header.__getnewargs__() == (HIDDEN,)
        # its characters one by one (list, sorted, tuple) were plain: repr showed them all
        for shown in (list(header), sorted(header), tuple(header), [*header]):
            assert set(map(repr, shown)) == {repr(HIDDEN)} and len(shown) == len(header)
        assert [str.__str__(c) for c in header] == list(f"Basic {TOKEN}")  # the text as it is
        # a copy is the same text, sent as it is (http.client encodes it)
        assert copy.copy(header) is header and copy.deepcopy(header) is header
        with requests.Session() as session:
            for sent in (request, copy.deepcopy(request), request.copy()):
                assert session.send(sent, timeout=30).status_code == 200
        assert [h["Authorization"] for _, _, h in srv.received] == [f"Basic {TOKEN}"] * 3


def test_pickled_settings_carry_no_password_and_make_no_client():
    url = f"http://user:{PASSWORD}@127.0.0.1:1/base"
    s = icoframes.configure(base_url=url, public_key="pub", private_key="k3y-of-the-pickle")
    pickled = pickle.dumps(get_settings())
    assert PASSWORD.encode() not in pickled and TOKEN[:12].encode() not in pickled  # (was in)
    back = pickle.loads(pickled)
    assert back.base_url == "http://<hidden>@127.0.0.1:1/base" and type(back.base_url) is \
        RedactedURL and repr(back) == repr(s)
    # what they still do: name the same cache folder; what not: send a request
    assert Cache(back.cache_dir, back.service_id).dir == Cache(s.cache_dir, s.service_id).dir
    with pytest.raises(ConfigError, match="missing private_key"):  # as before: no key
        Client.from_settings(back)
    with pytest.raises(ConfigError, match="user information hidden: a pickled") as info:
        Client(base_url=back.base_url, public_key="pub", private_key="k3y")  # (was sent
        # without the password: user '<hidden>', no Basic header)
    assert "'http://<hidden>@127.0.0.1:1/base'" in str(info.value)
    # copies keep the address (dataclasses.asdict deep-copies the fields)
    assert copy.deepcopy(s).base_url == url and copy.copy(s.base_url) is s.base_url
    with Client.from_settings(s) as client:  # the settings themselves still make one
        assert client.base_url == url
