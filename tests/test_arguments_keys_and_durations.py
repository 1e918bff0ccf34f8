"""Durations are no integers, and a key is never said back, in any form (review A, 2026-11-27).

numpy registers ``np.timedelta64`` as an integer: ``profile(np.timedelta64(5, "ns"))``
fetched ICO 5, a page of ``np.timedelta64(2, "ns")`` was page 2, and a day unit or NaT was
a bare TypeError. A key given by mistake as bytes, inside a list, or for a text setting
(``base_url``, ``quota_reset``) was quoted whole, bytes twice (float()'s own error text).
Requests are counted at the sandbox, over loopback HTTP: a refusal costs none.
"""

from __future__ import annotations

import decimal
import logging

import keyed_sandbox
import numpy as np
import pandas as pd
import pytest
from keyed_sandbox import requests_served as _requests

import icoframes
from icoframes.api.client import Client
from icoframes.cli import main
from icoframes.errors import InvalidParameter
from icoframes.quoting import quoted

_KEY = keyed_sandbox.KEY
_DURATIONS = [np.timedelta64(5, "ns"), np.timedelta64(5, "D"), np.timedelta64("NaT")]
_IDS = ["5ns", "5days", "NaT"]

sb, client = keyed_sandbox.sb, keyed_sandbox.client  # this module's sandbox, its client


@pytest.mark.parametrize("ico_id", _DURATIONS, ids=_IDS)
def test_a_duration_is_no_ico_id_and_costs_no_request(cfg, client, ico_id):
    with pytest.raises(InvalidParameter, match=r"^invalid argument ico_id=.*must be a positive"):
        client.profile(ico_id)
    assert _requests(cfg) == 0 and client.total_attempts == 0


@pytest.mark.parametrize("name", ["page", "platform", "category", "type", "ico_score"])
@pytest.mark.parametrize("value", _DURATIONS, ids=_IDS)
def test_a_duration_is_no_integer_list_parameter(cfg, client, name, value):
    for given in (value, [value]):
        with pytest.raises(InvalidParameter, match=rf"^invalid list parameter {name}="):
            client.list_page(**{name: given})
    assert _requests(cfg) == 0 and client.total_attempts == 0


@pytest.mark.parametrize("value", _DURATIONS, ids=_IDS)
def test_a_duration_is_no_count_of_a_setting_nor_of_a_budget(cfg, value):
    for call in (lambda: icoframes.configure(max_workers=value),
                 lambda: cfg.client(pool_size=value),
                 lambda: icoframes.load_icos(status="past", budget=value, progress=False)):
        with pytest.raises(InvalidParameter, match=r"invalid max_workers|invalid pool_size|budget"):
            call()
    assert _requests(cfg) == 0


def test_a_duration_is_no_number_of_seconds(sb):
    for value in (np.timedelta64(3, "ms"), pd.Timedelta("3s")):
        with pytest.raises(InvalidParameter, match=r"must be a number of seconds, not a "
                                                   r"duration \(pd.Timedelta\(d\).total_seconds"):
            sb.client(timeout=value)


@pytest.mark.parametrize("value", [_KEY.encode(), bytearray(_KEY.encode()), [_KEY], (_KEY,),
                                   {"key": _KEY}, pd.Series([_KEY])],
                         ids=["bytes", "bytearray", "list", "tuple", "dict", "Series"])
def test_a_key_in_bytes_or_a_container_is_never_echoed(sb, value):
    for call in (lambda: sb.client(timeout=value), lambda: sb.client(pool_size=value),
                 lambda: icoframes.configure(timeout=value),
                 lambda: icoframes.configure(max_workers=value)):
        with pytest.raises(InvalidParameter) as caught:
            call()
        assert "not shown: it may" in str(caught.value)
        for part in (_KEY, _KEY[:12], _KEY[-12:]):
            assert part not in str(caught.value), str(caught.value)


@pytest.mark.parametrize("value", [pd.Series([5.0]), np.array([5.0]), np.array([[5]])],
                         ids=["Series", "array", "2-d array"])
def test_a_series_or_an_array_of_one_number_is_no_timeout(sb, value):
    """pandas 2.2 reads float() of a one-element Series (with a FutureWarning): such a
    timeout was taken as 5 s there, refused under pandas 3. It is refused under both."""
    for call in (lambda: sb.client(timeout=value), lambda: icoframes.configure(timeout=value)):
        with pytest.raises(InvalidParameter, match="must be a number of seconds"):
            call()


def test_ten_megabytes_of_bytes_are_refused_short(sb):
    for call in (lambda: sb.client(timeout=b"x" * 10_000_000),
                 lambda: icoframes.configure(timeout=b"1 x" * 3_000_000)):
        with pytest.raises(InvalidParameter) as caught:
            call()
        assert len(str(caught.value)) < 300


@pytest.mark.parametrize(("name", "value"), [("base_url", _KEY), ("quota_reset", _KEY),
                                             ("service_name", _KEY + "/")])
def test_a_key_given_for_a_text_setting_is_never_echoed(sb, name, value):
    with pytest.raises(InvalidParameter, match=f"^invalid {name}=a text of") as caught:
        icoframes.configure(**{name: value})
    assert _KEY not in str(caught.value)


def test_a_client_reads_its_address_as_configure_does(sb):
    with pytest.raises(InvalidParameter, match=r"^invalid base_url=a text of 26") as caught:
        Client(base_url=_KEY, public_key="p", private_key=_KEY)
    assert _KEY not in str(caught.value)
    with pytest.raises(InvalidParameter, match=r"^invalid base_url='ftp://x': must start"):
        Client(base_url="ftp://x", public_key="p", private_key=_KEY)
    with pytest.raises(InvalidParameter, match=r"<hidden>@127.0.0.1:0"):
        Client(base_url="http://u:pw@127.0.0.1:0", public_key="p", private_key=_KEY)
    with Client(base_url=sb.base_url + "/api/v1/", public_key=sb.public_key,
                private_key=_KEY) as made:
        assert made.base_url == sb.base_url
        made.list_page()
        assert made.total_requests == 1


@pytest.mark.parametrize("size", [100, 1024])
def test_a_pool_larger_than_the_workers_is_taken(sb, size):
    with sb.client(pool_size=size) as made:
        made.list_page()
        assert made.total_requests == 1
    with pytest.raises(InvalidParameter, match="must be between 1 and 1024"):
        sb.client(pool_size=1025)


@pytest.mark.parametrize(("call", "said"), [
    (lambda c, sb: c.profile(decimal.Decimal("5")), "invalid argument ico_id=Decimal('5')"),
    (lambda c, sb: sb.client(max_response_bytes=decimal.Decimal(4096)),
     "invalid max_response_bytes=Decimal('4096')"),
    (lambda c, sb: icoframes.configure(max_workers=decimal.Decimal(8)),
     "invalid max_workers=Decimal('8')")])
def test_a_whole_decimal_is_refused_with_the_integer_it_means(cfg, client, call, said):
    # an integer argument is an int (or numpy's), never cut: Decimal("2.5") no more than 2.5
    with pytest.raises(InvalidParameter, match="^" + said.replace("(", r"\(").replace(")", r"\)")
                       ) as caught:
        call(client, cfg)
    assert str(caught.value).endswith(f"; did you mean {said.split(chr(39))[1]}?")
    assert _requests(cfg) == 0


class _BadRepr(int):
    def __repr__(self) -> str:
        raise RuntimeError("repr fails")


def test_an_integer_whose_repr_fails_is_still_refused(sb):
    assert quoted(_BadRepr(5)) == "a _BadRepr"
    with pytest.raises(InvalidParameter, match=r"^invalid max_workers=a _BadRepr: must be"):
        icoframes.configure(max_workers=_BadRepr(100))
    with pytest.raises(InvalidParameter, match=r"^invalid pool_size=a _BadRepr: must be"):
        sb.client(pool_size=_BadRepr(5000))


def test_a_key_given_to_a_number_option_of_the_command_line_is_not_shown(capsys, caplog):
    caplog.set_level(logging.INFO, logger="icoframes")
    assert main(["sandbox", "--port", "0", "--seed", _KEY]) == 2
    said = capsys.readouterr().err + caplog.text
    assert "argument --seed" in said and "not shown: it may be a key" in said
    assert _KEY not in said
