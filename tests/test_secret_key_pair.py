"""One key given as both keys (the private key pasted as the public key too, or the public key
as the private one) is refused before any request, wherever each key was set: configure(),
the ICOFRAMES_* variables, a Client, the sandbox and the command line. The public key goes in
clear in every request's header and shows in every repr, so the key must never be echoed.

Each case runs against a real sandbox over loopback HTTP and counts its requests: 0.
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.api import Client
from icoframes.cli import main
from icoframes.errors import ConfigError, InvalidParameter

PRIVATE = "priv-" + "Q7x" * 12  # long enough to find in any output


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=2, private_key=PRIVATE) as server:
        yield server


@pytest.fixture
def keyless(cfg, monkeypatch):
    """The sandbox configured, and no key variable in the environment."""
    for name in ("ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY"):
        monkeypatch.delenv(name, raising=False)
    return cfg


def _refused(exc: pytest.ExceptionInfo[BaseException], *said: str) -> None:
    text = str(exc.value)
    assert f"{said[0]} and {said[1]} are the same text (not shown)" in text, text
    assert PRIVATE not in text and PRIVATE not in repr(exc.value)


@pytest.mark.parametrize("given", ["public_key", "private_key"])
def test_configure_refuses_one_key_for_both_and_keeps_the_settings(keyless, given):
    key = PRIVATE if given == "public_key" else keyless.public_key
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(**{given: key + "\n"})  # as read from a file
    _refused(exc, "public_key", "private_key")
    settings = icoframes.get_settings()  # refused before any change
    assert settings.public_key == keyless.public_key and PRIVATE not in repr(settings)
    assert keyless.stats.requests.total() == 0


def test_configure_names_the_variable_holding_the_other_key(keyless, monkeypatch):
    icoframes.configure(private_key=None)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(public_key=PRIVATE)
    _refused(exc, "public_key", "ICOFRAMES_PRIVATE_KEY")
    assert icoframes.get_settings().public_key == keyless.public_key


def test_both_variables_one_key_are_refused_before_a_load_asks(keyless, monkeypatch):
    icoframes.configure(public_key=None, private_key=None)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", PRIVATE)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    with pytest.raises(ConfigError) as exc:
        icoframes.load_filters()
    _refused(exc, "ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY")
    assert keyless.stats.requests.total() == 0


def test_the_command_line_exits_2_without_the_key(keyless, monkeypatch, tmp_path, capsys,
                                                  caplog):
    icoframes.reset_configuration()
    monkeypatch.setenv("ICOFRAMES_BASE_URL", keyless.base_url)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", PRIVATE)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    assert main(["export", "--out", str(tmp_path / "out"), "--status", "past",
                 "--cache-dir", str(tmp_path / "cache")]) == 2
    err = caplog.text + capsys.readouterr().err  # the command logs to stderr
    assert "ICOFRAMES_PUBLIC_KEY and ICOFRAMES_PRIVATE_KEY are the same text" in err
    assert PRIVATE not in err and "Traceback" not in err
    assert keyless.stats.requests.total() == 0 and not (tmp_path / "out").exists()


def test_a_client_refuses_one_key_for_both(keyless):
    with pytest.raises(InvalidParameter) as exc:
        Client(base_url=keyless.base_url, public_key=PRIVATE, private_key=PRIVATE)
    _refused(exc, "public_key", "private_key")
    assert keyless.stats.requests.total() == 0


def test_the_sandbox_refuses_to_serve_one_key_for_both():
    # its banner and repr print the public key
    with pytest.raises(InvalidParameter) as exc:
        sandbox.start(n_icos=0, public_key=PRIVATE, private_key=f" {PRIVATE}")
    _refused(exc, "public_key", "private_key")


def test_two_keys_that_only_share_a_prefix_are_taken(keyless):
    settings = icoframes.configure(public_key=PRIVATE[:-1])
    assert settings.public_key == PRIVATE[:-1]


def test_a_call_that_sets_no_key_leaves_the_variables_to_their_configerror(keyless, monkeypatch):
    icoframes.configure(public_key=None, private_key=None)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", PRIVATE)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", PRIVATE)
    with pytest.raises(ConfigError) as exc:
        icoframes.configure(max_workers=2)
    _refused(exc, "ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY")
    assert not isinstance(exc.value, InvalidParameter)
