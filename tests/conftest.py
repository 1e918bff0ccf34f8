"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

import pytest

import icoframes


@pytest.fixture
def cfg(sb, tmp_path):
    """The test module's ``sb`` sandbox, configured with a fresh cache dir, counters and quota."""
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    sb.reset_quota()
    sb.stats.reset()
    yield sb
    icoframes.reset_configuration()


@pytest.fixture
def configure(tmp_path):
    """Configure icoframes for a hostile test server: ``configure(srv, **settings)``."""
    def use(srv, **settings):
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", **settings)
    yield use
    icoframes.reset_configuration()


@pytest.fixture
def clean_settings(monkeypatch):
    """No ICOFRAMES_* variable of the environment and no configuration, before and after."""
    from icoframes.config import SETTINGS
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    icoframes.reset_configuration()
    yield
    icoframes.reset_configuration()
