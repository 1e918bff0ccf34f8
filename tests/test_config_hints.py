"""A ``quota_reset`` with seconds and a ``daily_quota`` with its thousands separated are
refused with the value meant, as every other refusal of ``configure`` (REV-SH A9): they were
refused with no "did you mean"."""

from __future__ import annotations

import pytest

import icoframes


@pytest.mark.parametrize(("setting", "given", "hint"), [
    ("quota_reset", "06:00:00", "; did you mean '06:00'?"),
    ("quota_reset", " 6:30:00.5 ", "; did you mean '06:30'?"),
    ("daily_quota", "5,000", "; did you mean 5000?"),
    ("daily_quota", "1 000 000", "; did you mean 1000000?"),
    ("daily_quota", "5_000", "; did you mean 5000?"),
])
def test_the_value_meant_is_named(clean_settings, setting, given, hint):
    with pytest.raises(icoframes.InvalidParameter) as refused:
        icoframes.configure(**{setting: given})
    assert str(refused.value).endswith(hint)
    settings = icoframes.get_settings()  # nothing set
    assert settings.daily_quota == 5000 and settings.quota_reset is None


@pytest.mark.parametrize(("setting", "given"), [
    ("quota_reset", "25:00:00"), ("quota_reset", "06:61:00"), ("daily_quota", "5,00"),
    ("daily_quota", "5,000_000"), ("daily_quota", "0,000"), ("max_workers", "1,000")])
def test_no_value_is_named_that_is_not_taken(clean_settings, setting, given):
    # 0 and 1000 workers are refused too ("must be between"): no hint sends the user there
    with pytest.raises(icoframes.InvalidParameter) as refused:
        icoframes.configure(**{setting: given})
    assert "did you mean" not in str(refused.value)
