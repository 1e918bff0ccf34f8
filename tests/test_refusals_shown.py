"""What a refusal shows of the value it refuses (REVC L4, L5): an address's password, query
and fragment hidden (a token may be in them)."""

from __future__ import annotations

import pytest

import icoframes
from icoframes.errors import ConfigError, InvalidParameter


@pytest.mark.parametrize(("url", "shown"), [
    ("https://user:pw-SECRET@api.example.com/?api_token=tok-SECRET",
     "'https://<hidden>@api.example.com/?<hidden>'"),
    ("https://api.example.com/v1?api_token=tok-SECRET#frag-SECRET",
     "'https://api.example.com/v1?<hidden>#<hidden>'"),
    ("http://127.0.0.1:8000/#SECRET", "'http://127.0.0.1:8000/#<hidden>'"),
    # an empty query or fragment: refused too (was taken, its first request refused: 481)
    ("http://127.0.0.1:8000/?", "'http://127.0.0.1:8000/?'"),  # nothing to hide: as given
    ("http://127.0.0.1:8000/#", "'http://127.0.0.1:8000/#'"),
    ("http://127.0.0.1:8000?#", "'http://127.0.0.1:8000?#'"),
])
def test_a_base_url_refusal_hides_its_query_and_fragment(monkeypatch, url, shown):
    why = "has a query or a fragment ('?', '#'): the API's paths go after it"
    try:
        with pytest.raises(InvalidParameter) as raised:
            icoframes.configure(base_url=url, public_key="K", private_key="S")
        assert str(raised.value) == f"invalid base_url={shown}: {why}"
        monkeypatch.setenv("ICOFRAMES_BASE_URL", url)
        with pytest.raises(ConfigError) as env:
            icoframes.get_settings()
    finally:
        icoframes.reset_configuration()
    assert f"ICOFRAMES_BASE_URL={shown}: {why}" in str(env.value)
    assert "SECRET" not in str(raised.value) + str(env.value)
