"""Settings precedence and the errors that say how to fix them."""

from __future__ import annotations

from pathlib import Path

import pytest

import icoframes
from icoframes.config import get_settings
from icoframes.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in ("BASE_URL", "PUBLIC_KEY", "PRIVATE_KEY", "CACHE_DIR", "MAX_WORKERS", "TIMEOUT",
                 "DAILY_QUOTA"):
        monkeypatch.delenv(f"ICOFRAMES_{name}", raising=False)
    icoframes.reset_configuration()
    yield
    icoframes.reset_configuration()


def test_arguments_beat_env_vars_which_beat_defaults(monkeypatch, tmp_path):
    default = get_settings()
    assert default.max_workers == 8 and default.base_url is None
    assert "icoframes" in str(default.cache_dir)
    monkeypatch.setenv("ICOFRAMES_BASE_URL", "http://127.0.0.1:9/api/v1/")
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "3")
    s = get_settings()
    assert s.base_url == "http://127.0.0.1:9"  # /api/v1 suffix and slash dropped
    assert s.cache_dir == tmp_path / "env" and s.max_workers == 3
    icoframes.configure(cache_dir=tmp_path / "arg", max_workers=5)
    s = get_settings()
    assert s.cache_dir == tmp_path / "arg" and s.max_workers == 5
    assert s.base_url == "http://127.0.0.1:9"
    icoframes.configure(cache_dir=None)  # None drops the override
    assert get_settings().cache_dir == tmp_path / "env"


def test_missing_keys_say_how_to_set_them():
    with pytest.raises(ConfigError) as info:
        get_settings().require_credentials()
    message = str(info.value)
    for needle in ("ICOFRAMES_BASE_URL", "ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY",
                   "configure(", "sandbox"):
        assert needle in message


def test_private_key_is_never_in_repr_or_errors(monkeypatch):
    s = icoframes.configure(base_url="http://127.0.0.1:1", public_key="pub",
                            private_key="s3cr3t-value")
    assert "s3cr3t-value" not in repr(s) and "s3cr3t-value" not in str(s)
    with pytest.raises(ConfigError) as info:
        icoframes.configure(private_key=12345)
    assert "12345" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [({"base_url": "ftp://x"}, "http"), ({"max_workers": 0}, "between"),
     ({"timeout": -1}, "positive"), ({"daily_quota": 0}, "positive")],
)
def test_invalid_settings_are_rejected(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        icoframes.configure(**kwargs)


def test_bad_env_var_names_the_variable(monkeypatch):
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "many")
    with pytest.raises(ConfigError, match="ICOFRAMES_MAX_WORKERS"):
        get_settings()


def test_cache_dir_expands_user(monkeypatch):
    icoframes.configure(cache_dir="~/somewhere")
    assert get_settings().cache_dir == Path("~/somewhere").expanduser()
