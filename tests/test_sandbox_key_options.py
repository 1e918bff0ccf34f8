"""``icoframes sandbox``'s key options mean one thing each, and the keys are read once.

``--public-key ''`` (or ``--private-key ''``, or blanks) is refused naming the option: it
served the ``ICOFRAMES_*`` variable's key, or the default, without a word. A key given for
``--private-key-file``'s path by mistake is in no local of the refusal's traceback (the
namespace held it as a ``Path``, and the read error's frames did). Every reader of a key
pair (a client, the sandbox's command, ``serve`` and its service) takes it from
:func:`icoframes.api.auth.read_keys`, read as ``configure`` reads it, stripped.
"""

from __future__ import annotations

import sys

import pytest
from test_sandbox_command_key_locals import KEY, _held

from icoframes import cli
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.sandbox import command
from icoframes.secret import Secret


def _keys(monkeypatch, *argv: str) -> tuple[str, Secret]:
    monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", *argv])
    return command.keys(cli.build_parser().parse_args())


@pytest.mark.parametrize("blank", ["", "  ", "\n"])
@pytest.mark.parametrize("option", ["public_key", "private_key"])
def test_a_key_option_given_blank_is_refused_not_taken_for_unset(monkeypatch, option, blank):
    variable = f"ICOFRAMES_{option.upper()}"
    monkeypatch.setenv(variable, "from-the-variable")
    flag = f"--{option.replace('_', '-')}"
    with pytest.raises(ConfigError) as refused:
        _keys(monkeypatch, f"{flag}={blank}")
    assert str(refused.value) == (
        f"icoframes sandbox: {flag} is given blank: refused, not taken for unset ({variable}, "
        f"else the default key, would serve, without a word). Give it a value, or leave "
        f"{flag} out")
    assert cli.main(["sandbox", f"{flag}={blank}", "--port", "0"]) == 2
    monkeypatch.delenv(variable)
    with pytest.raises(ConfigError, match=f"{flag} is given blank"):  # (not the default key)
        _keys(monkeypatch, f"{flag}={blank}")


def test_a_key_given_as_the_key_files_path_is_in_no_local_of_the_refusal(monkeypatch,
                                                                          tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["icoframes", "sandbox", "--private-key-file", KEY])
    args = cli.build_parser().parse_args()
    assert KEY not in repr(args)
    with pytest.raises(ConfigError) as failed:
        command.keys(args)
    assert str(failed.value) == ("icoframes sandbox: cannot read --private-key-file: No such "
                                 "file or directory: a text of 23 characters (not shown: it "
                                 "may be a key)")
    assert _held(failed.value) == []
    assert failed.value.__context__ is None and failed.value.__cause__ is None
    (tmp_path / KEY).write_bytes(b"\xff" + KEY.encode())  # a file so named, not text
    with pytest.raises(ConfigError, match="is not UTF-8 text") as undecoded:
        command.keys(args)
    assert _held(undecoded.value) == [] and undecoded.value.__context__ is None


def test_a_key_file_still_gives_its_key_stripped(monkeypatch, tmp_path):
    key_file = tmp_path / "sandbox.key"
    key_file.write_text(f"  {KEY}\n", encoding="utf-8")
    public, private = _keys(monkeypatch, "--private-key-file", str(key_file),
                            "--public-key", " pub\n")
    assert (public, private.reveal()) == ("pub", KEY)


def test_read_keys_returns_the_pair_read_or_the_refusal():
    from icoframes.api.auth import read_keys  # (the one reading of a key pair)

    assert read_keys(" pub\n", Secret(f"{KEY}\n")) == ("pub", Secret(KEY))
    assert read_keys("pub", f" {KEY} ") == ("pub", Secret(KEY))  # (text: held as a Secret)
    refused = read_keys(KEY, Secret(KEY))
    assert isinstance(refused, InvalidParameter) and KEY not in str(refused)
    assert str(refused).startswith("public_key and private_key are the same text (not shown)")
    blank = read_keys("pub", Secret(" "))
    assert isinstance(blank, InvalidParameter) and "private_key=<hidden>" in str(blank)
