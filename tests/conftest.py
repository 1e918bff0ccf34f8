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
