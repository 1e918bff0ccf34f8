"""Secrets as a type (issue 21 part 6): the private key never shows, in any form Python has
for showing a value, and a password in base_url is hidden wherever the address shows."""

from __future__ import annotations

import argparse
import base64
import copy
import dataclasses
import io
import pickle
import traceback

import pytest
import requests
from hostile import LIST, HostileServer, html_reply, paged_list, refusing_port

import icoframes
from icoframes import sandbox
from icoframes.api.auth import url_and_auth
from icoframes.api.client import Client, RetryPolicy
from icoframes.config import get_settings
from icoframes.errors import ConfigError, InvalidParameter, ServiceUnavailable
from icoframes.sandbox.command import add_arguments, keys
from icoframes.secret import Secret, redact_url

KEY = "kEy-0f-the-Test-7781"
BAD_KEY = "kEy-0f-the-Test\x01-7781"  # a control character: refused
PASSWORD = "pa55-w0rd-of-the-test"
# what requests sends for http://user:PASSWORD@host: the password, base64-encoded
BASIC = "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()


pytestmark = pytest.mark.usefixtures("clean_settings")


def shown_with_locals(exc: BaseException) -> str:
    """Everything a traceback with locals prints (pytest --showlocals, rich, IPython verbose)."""
    return "".join(traceback.TracebackException.from_exception(exc, capture_locals=True)
                   .format(chain=True)) + "".join(
        repr(v) for frame in traceback.walk_tb(exc.__traceback__)
        for v in frame[0].f_locals.values())


def test_a_configure_error_with_a_control_character_shows_no_key():
    with pytest.raises(InvalidParameter, match="control characters") as info:
        icoframes.configure(base_url="http://127.0.0.1:1", public_key="pub",
                            private_key=BAD_KEY)
    text = shown_with_locals(info.value)
    assert "private_key" in text and "kEy-0f" not in text


def test_a_typo_in_another_env_var_shows_no_key(monkeypatch):
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", KEY)
    monkeypatch.setenv("ICOFRAMES_TIMEOUT", "3O")  # the letter O
    with pytest.raises(ConfigError, match="ICOFRAMES_TIMEOUT") as info:
        get_settings()
    text = shown_with_locals(info.value)
    assert "get_settings" in text and KEY not in text
    with pytest.raises(ConfigError, match="ICOFRAMES_TIMEOUT") as info:
        icoframes.configure(max_workers=2)  # the same, reached through configure
    assert KEY not in shown_with_locals(info.value)


def test_a_misspelled_setting_shows_neither_its_value_nor_the_key():
    with pytest.raises(InvalidParameter, match="did you mean 'private_key'") as info:
        icoframes.configure(privat_key=KEY)  # type: ignore[call-arg]
    assert KEY not in shown_with_locals(info.value)
    with pytest.raises(InvalidParameter, match="did you mean 'private_key'") as info:
        get_settings(privatekey=KEY)
    assert KEY not in shown_with_locals(info.value)


def test_the_settings_never_show_the_key_in_any_form():
    s = icoframes.configure(base_url="http://127.0.0.1:1", public_key="pub", private_key=KEY)
    assert isinstance(s.private_key, Secret) and s.private_key.reveal() == KEY
    shown = [repr(s), str(s), f"{s}", repr(vars(s)), repr(dataclasses.asdict(s)),
             repr(dataclasses.astuple(s)), repr(copy.deepcopy(s)), str(s.private_key),
             f"{s.private_key}", f"{s.private_key!r:>40}"]
    assert not [text for text in shown if KEY in text]
    pickled = pickle.dumps(s)
    assert KEY.encode() not in pickled
    back = pickle.loads(pickled)
    assert back.base_url == s.base_url and back.private_key is not None
    with pytest.raises(ConfigError, match="pickled key never carries it"):
        back.private_key.reveal()
    assert s.private_key == Secret(KEY) and s.private_key != KEY  # never equal to plain text
    assert dataclasses.replace(s, max_workers=2).private_key.reveal() == KEY


def test_a_client_shows_no_key_and_signs_with_it():
    with sandbox.serve(n_icos=5, private_key=KEY) as sb:
        icoframes.configure(**sb.settings())
        with Client.from_settings() as client:
            assert KEY not in repr(client) and KEY not in repr(vars(client))
            assert client.filters()  # signed with the key: the sandbox checks it
            assert KEY.encode() not in pickle.dumps(get_settings())


def test_a_password_in_base_url_is_hidden_where_the_address_shows():
    url = f"http://user:{PASSWORD}@127.0.0.1:1"
    s = icoframes.configure(base_url=url, public_key="pub", private_key=KEY)
    assert s.base_url == url  # used as given
    assert PASSWORD not in repr(s) and "<hidden>@127.0.0.1:1" in repr(s)
    with pytest.raises(InvalidParameter) as info:
        icoframes.configure(base_url=f"ftp://user:{PASSWORD}@example.org")
    assert PASSWORD not in str(info.value) and "<hidden>@example.org" in str(info.value)
    with Client.from_settings() as client:
        assert PASSWORD not in repr(client)
    assert redact_url("http://tok@[::1]:9/x") == "http://<hidden>@[::1]:9/x"
    # a password holding "/" ends the authority urlsplit sees: everything up to the last @
    # is hidden (an @ in a path is hidden with it: showing less is the safe side)
    assert redact_url(f"http://user:{PASSWORD}/x@127.0.0.1:1") == "http://<hidden>@127.0.0.1:1"


def _sandbox_keys(*argv: str) -> tuple[str, str]:
    public, private = keys(add_arguments(argparse.ArgumentParser()).parse_args(argv))
    assert isinstance(private, Secret)  # the private key never held in clear
    return public, private.reveal()


def test_the_sandbox_takes_its_key_from_the_environment_or_a_file(tmp_path, monkeypatch):
    assert _sandbox_keys() == ("sandbox-public", "sandbox-private")  # the defaults
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    assert _sandbox_keys("--private-key-file", str(key_file)) == ("sandbox-public", KEY)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", KEY)
    monkeypatch.setenv("ICOFRAMES_PUBLIC_KEY", "pub-from-env")
    assert _sandbox_keys() == ("pub-from-env", KEY)
    assert _sandbox_keys("--private-key", "other") == ("pub-from-env", "other")
    with pytest.raises(SystemExit):
        _sandbox_keys("--private-key", "x", "--private-key-file", str(key_file))
    with pytest.raises(ConfigError):  # a setting to fix: exit 2
        _sandbox_keys("--private-key-file", str(tmp_path / "none"))


@pytest.mark.parametrize("key", [b"se\xffcret-key", b"\xfe\xff", b"caf\xc3"])
def test_a_key_file_that_is_not_text_is_refused_without_a_byte_of_it(tmp_path, key):
    # Python's decode error names the byte it could not read and its position in the key
    key_file = tmp_path / "key"
    key_file.write_bytes(key)
    with pytest.raises(ConfigError) as info:
        _sandbox_keys("--private-key-file", str(key_file))
    message = str(info.value)
    assert message.endswith("is not UTF-8 text: a key is text")
    assert "0x" not in message and "position" not in message and "\\x" not in message


@pytest.mark.parametrize("name", ["ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY"])
def test_the_sandbox_refuses_a_key_variable_set_empty_as_a_client_does(tmp_path, monkeypatch,
                                                                      name):
    # ICOFRAMES_PRIVATE_KEY="$(cat ~/.sandbox-key)", the file missing, served the default key
    # while a client in the same shell was refused for that same variable
    monkeypatch.delenv("ICOFRAMES_PUBLIC_KEY", raising=False)
    monkeypatch.delenv("ICOFRAMES_PRIVATE_KEY", raising=False)
    monkeypatch.setenv(name, "")
    with pytest.raises(ConfigError) as exited:
        _sandbox_keys()
    assert str(exited.value) == (
        f"icoframes sandbox: {name} is set but empty: refused, not taken for unset (the default "
        f"key would serve, without a word). Give it a value, or unset it (`unset {name}`).")
    with pytest.raises(ConfigError, match=f"{name} is set but empty"):
        icoframes.get_settings()
    key_file = tmp_path / "key"
    key_file.write_text(KEY, encoding="utf-8")
    given = ("--public-key", "pub") if name == "ICOFRAMES_PUBLIC_KEY" else (
        "--private-key-file", str(key_file))  # the option given: the variable decides nothing
    assert _sandbox_keys(*given) == {"ICOFRAMES_PUBLIC_KEY": ("pub", "sandbox-private"),
                                     "ICOFRAMES_PRIVATE_KEY": ("sandbox-public", KEY)}[name]


def test_a_password_in_base_url_is_hidden_in_the_breaker_error(tmp_path, quick_retries):
    # every request fails: the breaker trips and names the host; urlsplit of a bare
    # "user:pw@host" netloc reads "user" as a scheme, which once left the password in clear
    with HostileServer({LIST: paged_list(60)}, default=html_reply(503, "down")) as srv:
        # (no local of this frame holds the address: this frame is in the traceback too)
        icoframes.configure(**{**srv.settings(), "base_url": _with_password(srv.base_url)},
                            cache_dir=tmp_path / "c", max_workers=2)
        with pytest.raises(ServiceUnavailable) as info:
            icoframes.load_icos(status="past", progress=False)
        assert {h.get("Authorization") for _, _, h in srv.received} == {BASIC}  # sent as before
    assert "<hidden>@127.0.0.1" in str(info.value)
    assert PASSWORD not in str(info.value) and PASSWORD not in repr(info.value.args)
    # part 6: nor in the locals of any frame of the load (loaders, fetch, store, the client)
    shown = shown_with_locals(info.value)
    assert PASSWORD not in shown and BASIC[6:] not in shown
    everything = every_local(info.value)
    assert PASSWORD not in everything
    assert BASIC[6:] not in everything  # the Basic header's base64 of user:PASSWORD


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999", "http://user:pw@[::1", "http://:80",
                                 "http://127.0.0.1:0"])
def test_a_base_url_that_cannot_be_used_is_refused_by_configure(url):
    with pytest.raises(InvalidParameter, match="base_url") as info:
        icoframes.configure(base_url=url)
    assert "pw" not in str(info.value)


def test_a_half_made_load_still_has_a_repr():
    # a traceback with locals shows a load whose __init__ raised before setting its fields
    from icoframes.fetch.load import Load
    assert repr(object.__new__(Load)).startswith("Load(")


@pytest.mark.parametrize("bad", ["ke\x07y", "ke\ny", "\u200bkey", "   "])
def test_the_sandbox_refuses_a_private_key_configure_refuses_with_the_same_rule(
        tmp_path, monkeypatch, bad):
    # a key with a control character was served, and configure(**sb.settings()) then failed
    with pytest.raises(InvalidParameter) as refused_by_configure:
        icoframes.configure(private_key=bad)
    with pytest.raises(InvalidParameter) as refused_by_sandbox:
        sandbox.start(n_icos=0, private_key=bad)
    assert str(refused_by_sandbox.value) == str(refused_by_configure.value)
    key_file = tmp_path / "key"
    key_file.write_text(bad + "\n", encoding="utf-8")
    monkeypatch.delenv("ICOFRAMES_PUBLIC_KEY", raising=False)
    cases = [(("--private-key-file", str(key_file)), None)] if bad.strip() else []
    for argv, env in [*cases, ((), bad)]:  # a blank file is refused as "empty"
        if env is None:
            monkeypatch.delenv("ICOFRAMES_PRIVATE_KEY", raising=False)
        else:
            monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", env)
        with pytest.raises(ConfigError) as exited:
            _sandbox_keys(*argv)
        message = str(exited.value)
        assert message == f"icoframes sandbox: {refused_by_configure.value}"
        assert "private_key=<hidden>" in message and (not bad.strip() or bad not in message)


def test_the_sandbox_refuses_a_public_key_configure_refuses_with_the_same_message():
    for bad in ("pub\x00", "pübkey", " "):
        with pytest.raises(InvalidParameter) as refused_by_configure:
            icoframes.configure(public_key=bad)
        with pytest.raises(InvalidParameter) as refused_by_sandbox:
            sandbox.start(n_icos=0, public_key=bad)
        assert str(refused_by_sandbox.value) == str(refused_by_configure.value)


def every_local(exc: BaseException) -> str:
    """The repr of every local of every frame reachable from ``exc``: its traceback's and
    those of every exception chained to it, shown or suppressed (``from None``)."""
    seen: set[int] = set()
    texts = []
    todo: list[BaseException | None] = [exc]
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        texts += [repr(v) for frame, _ in traceback.walk_tb(error.__traceback__)
                  for v in frame.f_locals.values()]
        texts.append(repr(error.args))
        todo += [error.__cause__, error.__context__]
    return "\n".join(texts)


def _with_password(base_url: str, password: str = PASSWORD) -> str:
    return base_url.replace("http://", f"http://user:{password}@")


def _hang(handler) -> None:  # accept the request, never answer
    handler.server.owner.stopping.wait()


@pytest.mark.parametrize("failure", ["refused", "HTTP 500", "timeout"])
def test_a_password_in_base_url_is_in_no_frame_of_a_failed_request(failure):
    # part 6: a traceback with locals (IPython verbose, pytest --showlocals, rich) of a
    # request that failed must not show base_url's password, in clear or as its Basic header
    behaviour = _hang if failure == "timeout" else html_reply(500, "down")
    # a port bound and never listening while the block runs: a port found free and closed
    # again could be another xdist worker's server by the time the request goes out
    with HostileServer({}, default=behaviour) as srv, refusing_port() as closed:
        base = f"http://127.0.0.1:{closed}" if failure == "refused" else srv.base_url
        # no local of this frame holds the address: it is in the traceback too
        icoframes.configure(base_url=_with_password(base), public_key="pub", private_key=KEY,
                            timeout=0.3 if failure == "timeout" else 30)
        retry = RetryPolicy(max_attempts=2, backoff=0.001, max_backoff=0.002, max_elapsed=30)
        with Client.from_settings(retry=retry) as client, \
                pytest.raises(ServiceUnavailable) as info:
            client.filters()
        if failure == "HTTP 500":  # the user information still goes as Basic auth
            assert [headers.get("Authorization") for _, _, headers in srv.received] == [BASIC] * 2
    assert {"refused": "connection refused", "HTTP 500": "HTTP 500",
            "timeout": "timed out"}[failure] in str(info.value)
    shown = shown_with_locals(info.value)  # what a traceback with locals prints
    assert PASSWORD not in shown and BASIC[6:] not in shown
    assert "<hidden>@127.0.0.1" in shown  # the client and the settings are among the locals
    # every frame, also those of the transport error the client replaced (from None): the
    # password is in none; the Basic header is, in http.client's bytes of the request head
    everything = every_local(info.value)
    assert PASSWORD not in everything
    assert BASIC[6:] not in everything  # the Basic header's base64 of user:PASSWORD


def test_a_password_in_base_url_is_in_no_frame_of_a_load_whose_list_failed(tmp_path,
                                                                           quick_retries):
    # no list page answered: the load raises the page's own error (the client's, kept by the
    # load and raised after it); its chain once held http.client's frames of the refused
    # connection, whose locals hold the request's head, its Basic header
    with refusing_port() as closed:
        icoframes.configure(base_url=_with_password(f"http://127.0.0.1:{closed}"),
                            public_key="pub", private_key=KEY, cache_dir=tmp_path / "c")
        with pytest.raises(ServiceUnavailable, match="connection refused") as info:
            icoframes.load_icos(status="past", progress=False)
    everything = every_local(info.value)  # (its own local: an assertion's would hold it too)
    assert PASSWORD not in everything and BASIC[6:] not in everything


def test_a_password_in_base_url_is_in_no_frame_of_a_configuration_error(monkeypatch):
    # a typo in another setting, the address with its password in the environment or given
    # along: the frames reading the settings hold it as a RedactedURL, never as plain text
    monkeypatch.setenv("ICOFRAMES_BASE_URL", _with_password("http://127.0.0.1:1"))
    monkeypatch.setenv("ICOFRAMES_TIMEOUT", "3O")  # the letter O
    with pytest.raises(ConfigError, match="ICOFRAMES_TIMEOUT") as info:
        get_settings()
    assert PASSWORD not in shown_with_locals(info.value)
    monkeypatch.delenv("ICOFRAMES_TIMEOUT")
    with pytest.raises(InvalidParameter, match="timeout") as info:
        icoframes.configure(base_url=_with_password("http://127.0.0.1:2"), timeout="x")
    assert PASSWORD not in shown_with_locals(info.value)
    s = get_settings()  # used as given
    assert s.base_url == _with_password("http://127.0.0.1:1") and PASSWORD not in repr(vars(s))


def test_a_password_basic_auth_cannot_carry_is_refused_without_showing_it():
    # HTTP Basic is Latin-1: requests raised UnicodeEncodeError at every request, its
    # frames holding the password; now the client refuses it when it is made
    with pytest.raises(ConfigError, match="Latin-1") as info:
        Client(base_url=_with_password("http://127.0.0.1:1", PASSWORD + "\u20ac"),
               public_key="p", private_key=KEY)
    assert PASSWORD not in shown_with_locals(info.value) + every_local(info.value)


def _send(value: str) -> None:  # as urllib3's HTTPConnection.request, cut by Ctrl-C
    raise KeyboardInterrupt


def _cut_while_sending(header: str) -> KeyboardInterrupt:
    """The interrupt of a send of ``header``: its frames hold only the header (no test's
    locals, which hold the password)."""
    try:
        _send(header)
    except KeyboardInterrupt as exc:
        return exc
    raise AssertionError("not cut")


def test_a_long_basic_header_in_a_frame_never_shows_not_even_cut_by_rich():
    # rich's traceback with locals (show_locals) cuts a string longer than 80 characters
    # with obj[:80] before its repr: a HiddenText's slice was a plain str, and a password
    # of 70 characters made a Basic header of 106, shown in clear (urllib3's frame sending
    # the request holds it as its local ``value``)
    password = "p" * 70
    _, auth = url_and_auth(f"http://user:{password}@127.0.0.1:9")
    assert auth is not None
    header = auth(requests.Request("POST", "http://127.0.0.1:9/").prepare()
                  ).headers["Authorization"]
    token = base64.b64encode(f"user:{password}".encode()).decode()
    assert header == f"Basic {token}" and len(header) > 100  # sent as it is
    assert header.encode("latin-1") == f"Basic {token}".encode()
    for shown in (header[:80], header[6:], header + "", "x" + header, header * 2, f"{header}",
                  "%s" % header, str(header), header.split()[1], header.strip(),  # noqa: UP031
                  header.partition(" ")[2], header.upper(), header.replace("Basic ", "")):
        assert token[:20] not in repr(shown) and token[:20] not in str(shown), repr(shown)

    cut = _cut_while_sending(header)
    assert token[:20] not in shown_with_locals(cut)
    rich = pytest.importorskip("rich")  # (in the dev environment; not a dependency)
    from rich.console import Console
    from rich.traceback import Traceback

    out = io.StringIO()
    Console(file=out, width=400).print(Traceback.from_exception(
        type(cut), cut, cut.__traceback__, show_locals=True))
    assert rich and "value = '<hidden>'" in out.getvalue().replace("│", "")
    assert token[:20] not in out.getvalue()
