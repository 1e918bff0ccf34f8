"""Error 481 (no such method) is a wrong ``base_url``: a setting to fix, exit 2.

A ``base_url`` with a path too many (``.../ico-gateway``) is answered 481 on every request,
every day; ``icoframes export`` exited 1, the code of a transient failure (the service
unreachable after retries: a cron wrapper tries again tomorrow), while keys the service
rejects (480) exit 2. Now 481 raises :class:`~icoframes.errors.UnknownMethod`, an
``APIError`` (``except APIError`` still catches it) and a ``ConfigError``: exit 2. A service
that keeps failing still exits 1.
"""

from __future__ import annotations

import logging

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_ERROR, EXIT_USAGE, main
from icoframes.errors import APIError, ConfigError, UnknownMethod

pytestmark = pytest.mark.usefixtures("clean_settings")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=3) as server:
        yield server


def _through_variables(monkeypatch, tmp_path, settings) -> None:
    for name, value in settings.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))


def test_a_wrong_base_url_exits_2_as_rejected_keys_do(sb, tmp_path, monkeypatch, caplog):
    _through_variables(monkeypatch, tmp_path, {**sb.settings(),
                                               "base_url": sb.base_url + "/ico-gateway"})
    caplog.set_level(logging.INFO, logger="icoframes")
    sb.stats.reset()
    assert main(["export", "--out", str(tmp_path / "out")]) == EXIT_USAGE  # (was 1)
    assert "error 481): check base_url" in caplog.text, caplog.text
    # at most each status list's first page (sent together), none retried: the same each time
    assert 1 <= sum(sb.stats.requests.values()) <= 3
    assert not (tmp_path / "out" / "manifest.json").exists()
    monkeypatch.setenv("ICOFRAMES_BASE_URL", sb.base_url)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", "wrong")
    assert main(["export", "--out", str(tmp_path / "out")]) == EXIT_USAGE  # 480, as before


def test_481_is_an_api_error_and_a_config_error(sb, tmp_path):
    icoframes.configure(**{**sb.settings(), "base_url": sb.base_url + "/ico-gateway"},
                        cache_dir=tmp_path / "cache")
    with pytest.raises(APIError) as info:  # user code catching APIError still catches it
        icoframes.load_icos(status="past", progress=False)
    assert type(info.value) is UnknownMethod and isinstance(info.value, ConfigError)
    assert info.value.code == 481 and info.value.endpoint == "/api/v1/icos/"
    assert icoframes.UnknownMethod is UnknownMethod


@pytest.mark.usefixtures("quick_retries")
def test_481_on_a_profile_stops_the_export_with_exit_2(tmp_path, monkeypatch):
    """The lists answered, a profile 481: the endpoint of the spec is missing at that
    address (another service, a proxy routing part of it): no less a setting to fix."""
    with HostileServer({LIST: paged_list(5), PROFILE: json_reply({"error": 481}, 404)}) as srv:
        _through_variables(monkeypatch, tmp_path, srv.settings())
        assert main(["export", "--out", str(tmp_path / "out")]) == EXIT_USAGE  # (was 1)
        assert srv.hits[PROFILE] >= 1


@pytest.mark.usefixtures("quick_retries")
@pytest.mark.parametrize("answer", [html_reply(503, "down for maintenance"),
                                    json_reply({"error": None}, 502)])
def test_a_service_that_keeps_failing_still_exits_1(tmp_path, monkeypatch, answer):
    with HostileServer({LIST: answer}) as srv:
        _through_variables(monkeypatch, tmp_path, srv.settings())
        assert main(["export", "--out", str(tmp_path / "out")]) == EXIT_ERROR
        assert srv.hits[LIST] > 1  # retried: transient, as exit 1 says
