"""One key given as both keys is refused with no frame of the refusal holding the key's text:
the locals a traceback shows (``capture_locals``, which IPython's verbose mode, ``pytest
--showlocals`` and rich print) hold it nowhere, as getting-started.md promises. Each path
where the pair is compared: configure(), get_settings() (its overrides and the ICOFRAMES_*
variables), a load, a Client and the sandbox.

A real sandbox over loopback HTTP is configured and asked nothing: 0 requests.
"""

from __future__ import annotations

import traceback

import pytest
from test_secret_key_pair import PRIVATE, keyless, sb

import icoframes
from icoframes import sandbox
from icoframes.api import Client
from icoframes.errors import ConfigError, InvalidParameter

__all__ = ["keyless", "sb"]  # (the fixtures, shared with the refusal tests)


@pytest.fixture
def in_variables(keyless, monkeypatch):
    """The key as both ICOFRAMES_* key variables, no key configured."""
    icoframes.configure(public_key=None, private_key=None)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", PRIVATE)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    return keyless


def _locals_clean(exc: pytest.ExceptionInfo[BaseException], said: str) -> None:
    assert said in str(exc.value)  # the refusal of one key as both, not another error
    shown = "".join(traceback.TracebackException.from_exception(
        exc.value, capture_locals=True).format())
    assert "same text (not shown)" in shown
    held = [line.strip()[:60] for line in shown.splitlines() if PRIVATE in line]
    assert not held, held


def test_configure_with_both_keys(keyless):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(public_key=PRIVATE, private_key=PRIVATE)
    _locals_clean(exc, "public_key and private_key")
    assert keyless.stats.requests.total() == 0


def test_configure_with_the_public_key_only(keyless):
    icoframes.configure(private_key=PRIVATE)
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(public_key=f"{PRIVATE}\n")
    _locals_clean(exc, "public_key and private_key")


def test_configure_against_the_private_key_variable(keyless, monkeypatch):
    icoframes.configure(private_key=None)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(public_key=PRIVATE)
    _locals_clean(exc, "public_key and ICOFRAMES_PRIVATE_KEY")


def test_get_settings_overrides(keyless):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.get_settings(public_key=PRIVATE, private_key=PRIVATE)
    _locals_clean(exc, "public_key and private_key")


def test_the_variables_and_get_settings(in_variables):
    with pytest.raises(ConfigError) as exc:
        icoframes.get_settings()
    _locals_clean(exc, "ICOFRAMES_PUBLIC_KEY and ICOFRAMES_PRIVATE_KEY")


def test_the_variables_and_a_load(in_variables):
    with pytest.raises(ConfigError) as exc:
        icoframes.load_filters()
    _locals_clean(exc, "ICOFRAMES_PUBLIC_KEY and ICOFRAMES_PRIVATE_KEY")
    assert in_variables.stats.requests.total() == 0


def test_a_client(keyless):
    with pytest.raises(InvalidParameter) as exc:
        Client(base_url=keyless.base_url, public_key=PRIVATE, private_key=PRIVATE)
    _locals_clean(exc, "public_key and private_key")
    assert keyless.stats.requests.total() == 0


@pytest.mark.parametrize("start", [sandbox.start, sandbox.serve])
def test_the_sandbox(start):
    with pytest.raises(InvalidParameter) as exc:
        start(n_icos=0, public_key=PRIVATE, private_key=f" {PRIVATE}")
    _locals_clean(exc, "public_key and private_key")


def test_a_blank_private_key_of_the_sandbox_is_refused_without_the_public_key():
    # a refusal of the rules (not of the pair) is raised with no local holding a key either
    with pytest.raises(InvalidParameter) as exc:
        sandbox.start(n_icos=0, public_key=PRIVATE, private_key=" ")
    assert "private_key" in str(exc.value)
    shown = "".join(traceback.TracebackException.from_exception(
        exc.value, capture_locals=True).format())
    assert PRIVATE not in shown
