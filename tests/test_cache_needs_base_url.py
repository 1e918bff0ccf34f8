"""Without settings, the cache functions and ``icoframes cache info|clear|prune`` ask for
``base_url`` only: the service's folder is named after it, and no key is needed to read or
delete a folder (REV-SH A4). The message said "missing base_url, public_key, private_key"."""

from __future__ import annotations

import pytest

import icoframes
from icoframes.cli import main


def test_the_cache_functions_ask_for_the_base_url_only(clean_settings, tmp_path):
    for call in (lambda: icoframes.cache_info(cache_dir=tmp_path),
                 lambda: icoframes.clear_cache(cache_dir=tmp_path)):
        with pytest.raises(icoframes.ConfigError) as refused:
            call()
        message = str(refused.value)
        assert message.startswith("icoframes is missing base_url. Set ICOFRAMES_BASE_URL in the "
                                  "environment, or call icoframes.configure(base_url=...). ")
        assert "key" not in message.split("To try", 1)[0]
    assert list(tmp_path.iterdir()) == []


def test_the_cache_command_asks_for_the_base_url_only(clean_settings, tmp_path, caplog):
    code = main(["cache", "info", "--cache-dir", str(tmp_path)])
    err = caplog.text  # the command logs its one error line
    assert "icoframes is missing base_url. Set ICOFRAMES_BASE_URL" in err
    assert code == 2 and "PUBLIC_KEY" not in err and "private_key" not in err


def test_a_load_still_asks_for_every_missing_credential(clean_settings):
    with pytest.raises(icoframes.ConfigError) as refused:
        icoframes.get_settings().require_credentials()
    assert str(refused.value).startswith(
        "icoframes is missing base_url, public_key, private_key. Set ICOFRAMES_BASE_URL, "
        "ICOFRAMES_PUBLIC_KEY, ICOFRAMES_PRIVATE_KEY in the environment, or call "
        "icoframes.configure(base_url=..., public_key=..., private_key=...). ")
