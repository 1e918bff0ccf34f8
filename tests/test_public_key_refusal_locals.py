"""A public key refused by its rules (the private key given as ``public_key``, with a zero-width
space as copied from a web page) is not shown in the message ("not shown: it may be a key"),
and no frame of the refusal holds its text either: not the frames of its traceback (the
caller's locals, a comprehension's, the check's and the reader's), nor those of an error
chained to it, shown or suppressed (``from None``). What a traceback with locals prints
(``pytest --showlocals``, IPython's verbose mode, rich, Sentry). Each path a public key is read
by: configure(), get_settings()'s override, ICOFRAMES_PUBLIC_KEY (get_settings(), a load), a
Client, the sandbox and its command (``--public-key``).

A real sandbox over loopback HTTP is configured and asked nothing: 0 requests.
"""

from __future__ import annotations

import sys
import traceback

import pytest
from test_secret_key_pair import keyless, sb

import icoframes
from icoframes import cli, sandbox
from icoframes.api import Client
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.sandbox import command

__all__ = ["keyless", "sb"]  # (the fixtures, shared with the key-pair tests)

PRIVATE = "priv-" + "Zq7" * 10  # long enough to find in any output
GIVEN = PRIVATE + "\u200b"  # refused: not printable (a repr shows the rest of it)
HIDDEN = "a text of 36 characters (not shown: it may be a key)"


def _holding(exc: BaseException) -> list[str]:
    """The locals (as frame.name) whose repr shows the key, of every frame of the traceback of
    ``exc`` and of every error chained to it (``__cause__``, ``__context__``)."""
    held, todo, seen = [], [exc], set()
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
        held += [f"{f.f_code.co_name}.{name}" for f in frames
                 for name, value in f.f_locals.items() if PRIVATE in repr(value)]
        todo += [error.__cause__, error.__context__]
    return held


def _refused(exc: pytest.ExceptionInfo[BaseException], said: str) -> None:
    assert str(exc.value) == f"invalid {said}={HIDDEN}: must be a non-empty string without " \
                             "control characters"
    assert _holding(exc.value) == []
    shown = "".join(traceback.TracebackException.from_exception(
        exc.value, capture_locals=True).format())
    assert PRIVATE not in shown


@pytest.fixture
def in_variable(keyless, monkeypatch):
    """The refused text as ICOFRAMES_PUBLIC_KEY, no public key configured."""
    icoframes.configure(public_key=None)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", GIVEN)
    return keyless


def test_configure(keyless):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.configure(public_key=GIVEN, timeout=5)
    _refused(exc, "public_key")
    assert icoframes.get_settings().public_key == keyless.public_key  # kept as it was
    assert keyless.stats.requests.total() == 0


def test_get_settings_override(keyless):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.get_settings(public_key=GIVEN)
    _refused(exc, "public_key")


def test_the_variable_and_get_settings(in_variable):
    with pytest.raises(ConfigError) as exc:
        icoframes.get_settings()
    _refused(exc, "ICOFRAMES_PUBLIC_KEY")


def test_the_variable_and_a_load(in_variable):
    with pytest.raises(ConfigError) as exc:
        icoframes.load_icos(status="past", progress=False)
    _refused(exc, "ICOFRAMES_PUBLIC_KEY")
    assert in_variable.stats.requests.total() == 0


def test_a_client(keyless):
    with pytest.raises(InvalidParameter) as exc:
        Client(base_url=keyless.base_url, public_key=GIVEN, private_key="other")
    _refused(exc, "public_key")
    assert keyless.stats.requests.total() == 0


@pytest.mark.parametrize("start", [sandbox.start, sandbox.serve])
def test_the_sandbox(start):
    with pytest.raises(InvalidParameter) as exc:
        start(n_icos=0, public_key=GIVEN, private_key="other")
    _refused(exc, "public_key")


def test_the_sandbox_command(monkeypatch, capsys):
    # icoframes sandbox --public-key <the private key>: its options held the text in clear
    monkeypatch.delenv("ICOFRAMES_PRIVATE_KEY", raising=False)
    monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", "--public-key", GIVEN,
                                      "--private-key", "other", "--port", "0"])
    args = cli.build_parser().parse_args()
    assert PRIVATE not in repr(args)
    with pytest.raises(ConfigError) as exc:
        command.run(args)
    assert str(exc.value) == f"icoframes sandbox: invalid public_key={HIDDEN}: must be a " \
                             "non-empty string without control characters"
    assert _holding(exc.value) == []
    assert PRIVATE not in capsys.readouterr().out
