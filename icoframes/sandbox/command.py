"""The sandbox's command line: ``icoframes sandbox`` and ``python -m icoframes.sandbox``.

Declared here, beside the server it starts, so both entry points share one
set of options and the sandbox never imports the package's CLI. The defaults
are those of :func:`.server.start`.
"""

from __future__ import annotations

import argparse
import errno
import inspect
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..api.auth import read_keys
from ..errors import ConfigError, InvalidParameter, did_you_mean
from ..numerals import (
    ANY_INTEGER,
    AT_LEAST_ONE,
    QUOTA,
    SECONDS,
    checked,
    number_text,
    whole,
)
from ..quoting import LIMIT, closest_option, quoted
from ..secret import Secret
from .httpd import HOST
from .server import MAX_ICOS, PORTS, serve

__all__ = ["AT_LEAST_ONE", "DEMO_ICOS", "N_ICOS", "SECONDS", "Once", "Parser", "add_arguments",
           "checked", "keys", "main", "run", "whole"]

#: Seconds the serving command sleeps at a time: the longest a Ctrl-C can wait to be seen.
_TICK = 0.5
_DEFAULT = {name: p.default for name, p in inspect.signature(serve).parameters.items()}


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a "did you mean" for what was mistyped.

    Its "the following arguments are required" names, for each option typed that is
    none of the command's, the closest of all its options (argparse says that a
    required option is missing before it says what it did not recognize):
    ``icoframes export --ot x`` gets "did you mean '--out'?", ``export --stauts past``
    "did you mean '--status'?" (a missing option is named only when it is the closest).
    A value that is none of an argument's choices gets the closest
    (``--status pst``: 'past'; the command ``exprot``: 'export'), or the choice a
    synonym of the action's ``synonyms`` means (``cache show``: 'info'), never one of its
    ``destructive`` choices (``cache purge``, ``cache clean``: none, the choices listed),
    or what the action's ``hint`` says of it (``--status all``: leave --status out).
    The parser of ``icoframes`` and of each of its commands."""

    _typed: tuple[str, ...] = ()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self._typed = tuple(sys.argv[1:] if args is None else args)  # a command's own, here
        try:
            return super().parse_known_args(args, namespace)
        except SystemExit as exc:
            code = exc.code
        # exited anew, outside the handler, with no local holding the command line: the frames
        # of argparse's exit hold it, a key given with --private-key too (a traceback's locals)
        del args
        self._typed = ()
        raise SystemExit(code)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)  # argparse's own check
        except argparse.ArgumentError as exc:
            if action.choices is None or not isinstance(value, str):
                raise
            synonyms: dict[str, str] = getattr(action, "synonyms", {})
            choices = [str(c) for c in action.choices]
            hint = did_you_mean(value, [*choices, *synonyms])
            meant = hint[len("; did you mean '"):-2] if hint else ""
            if meant in synonyms:  # a word meaning a choice: the choice
                hint = f"; did you mean {synonyms[meant]!r}?"
            # the action's own hint, when it has one ("--status all": leave --status out)
            said: Callable[[str], str] | None = getattr(action, "hint", None)
            hint = (said(value) if said else "") or hint
            # never offers what deletes: a word near one, or meaning one, may mean another
            # (``cache purge``: prune the old, or clear all?); the choices listed say which
            if synonyms.get(meant, meant) in getattr(action, "destructive", ()):
                hint = ""
            if not hint:
                raise
            raise argparse.ArgumentError(action, exc.message + hint) from None

    def _unknown_options(self) -> list[str]:
        """The options typed that are none of this parser's (nor an abbreviation of one)."""
        typed = [t.split("=", 1)[0] for t in self._typed if t.startswith("--")]
        known = [o for o in self._option_string_actions if o.startswith("--")]
        return [t for t in typed if t not in self._option_string_actions
                and not (self.allow_abbrev and sum(o.startswith(t) for o in known) == 1)]

    def error(self, message: str) -> NoReturn:
        # argparse quotes an abbreviated option as typed, value too: it may be a key
        message = re.sub(r"(ambiguous option: [^=\s]+)=\S*", r"\1=...", message)
        # and a value it refused ("invalid choice: '...'") or did not know, whole: short
        message = re.sub(f"'([^']{{{LIMIT + 1},}})'", lambda m: quoted(m[1], keys=True), message)
        if len(message) > 20 * LIMIT:  # "unrecognized arguments: " and 10 MB of them
            message = message[:20 * LIMIT] + f"… ({len(message)} characters)"
        if message.startswith("the following arguments are required: "):
            # the closest of all the options: --stauts meant --status, not the missing --out
            options = [o for o in self._option_string_actions if o.startswith("--")]
            for unknown in self._unknown_options():
                near = closest_option(unknown, options)
                if near:
                    message += (f"; {unknown} is no option of this command: did you mean "
                                f"{' or '.join(map(repr, near))}?")
        super().error(message)


class Once(argparse.Action):
    """Store an option's value, refusing it given twice: ``--status past --status ongoing``
    took the last one silently (every option of ``icoframes export``, ``demo`` and
    ``sandbox`` that takes a value)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault("_given_twice", {})
        if self.dest in given:
            shown = ("its values are not shown" if self.secret
                     else f"{_as_typed(given[self.dest])}, then {_as_typed(values)}")
            raise argparse.ArgumentError(self, f"given twice ({shown}); give it once")
        given[self.dest] = values
        setattr(namespace, self.dest, values)

    secret = False


def _as_typed(value: Any) -> str:
    """An option's value as typed, quoted short (:func:`~icoframes.quoting.quoted`) if long."""
    return str(value) if isinstance(value, str | int | float) and len(str(value)) <= LIMIT \
        else quoted(value)


class SecretOnce(Once):
    """:class:`Once` for a secret, or a text that may be one (``--public-key``: the private key
    given there by mistake): its values are never written in the refusal, and it is held as a
    :class:`~icoframes.secret.Secret` (the namespace's repr, a traceback's locals)."""

    secret = True

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, Secret(values), option_string)


_PORT = whole("a port", *PORTS)
#: ``--n-icos``: a sandbox's ICOs; ``demo --n-icos``: one at least.
N_ICOS, DEMO_ICOS = whole("a whole number", 0, MAX_ICOS), whole("a whole number", 1, MAX_ICOS)
_SHARE = checked(number_text, "a share from 0 to 1", lambda v: 0 <= v <= 1)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the sandbox's options to ``parser`` and return it.

    Each number is checked by the parser, so a value out of range exits 2 naming its
    option before any server starts."""
    parser.add_argument("--port", action=Once, type=_PORT, default=8000,
                        help="the port of 127.0.0.1 to serve on; 0 takes a free one "
                             "(default: 8000)")
    parser.add_argument("--public-key", action=SecretOnce,  # the private key, by mistake?
                        help="the public key clients send (default: ICOFRAMES_PUBLIC_KEY, else "
                             f"{_DEFAULT['public_key']!r})")
    keys = parser.add_mutually_exclusive_group()
    # held as a Secret too: the key itself given for the path, by mistake, shows nowhere
    keys.add_argument("--private-key-file", action=SecretOnce, metavar="PATH",
                      help="read the private key from this file (default: "
                           f"ICOFRAMES_PRIVATE_KEY, else {_DEFAULT['private_key']!r})")
    keys.add_argument("--private-key", action=SecretOnce, metavar="KEY",
                      help="the private key itself; it shows in the process list: prefer "
                           "ICOFRAMES_PRIVATE_KEY or --private-key-file")
    parser.add_argument("--quota", action=Once, type=QUOTA, default=_DEFAULT["quota"],
                        help="requests per key per day, or 'none' for no limit (0 is refused) "
                             f"(default: {_DEFAULT['quota']})")
    parser.add_argument("--n-icos", action=Once, type=N_ICOS, default=_DEFAULT["n_icos"],
                        help=f"ICOs in the synthetic directory (default: {_DEFAULT['n_icos']})")
    parser.add_argument("--seed", action=Once, type=ANY_INTEGER, default=_DEFAULT["seed"],
                        help="the seed the directory is generated from: the same seed and "
                             f"--n-icos give the same ICOs (default: {_DEFAULT['seed']})")
    parser.add_argument("--latency", action=Once, type=SECONDS, default=_DEFAULT["latency"],
                        metavar="SECONDS",
                        help="seconds each answer is delayed by "
                             f"(default: {_DEFAULT['latency']})")
    parser.add_argument("--fail-rate", action=Once, type=_SHARE, default=_DEFAULT["fail_rate"],
                        metavar="P",
                        help="share of requests answered with a 5xx, a dropped connection "
                             f"or broken JSON (default: {_DEFAULT['fail_rate']})")
    parser.add_argument("--grow-every", action=Once, type=AT_LEAST_ONE, metavar="N",
                        help="add a new ICO at the top of the list after every N list requests "
                             "(default: never)")
    return parser


def keys(args: argparse.Namespace) -> tuple[str, Secret]:
    """The public and private key (a :class:`~icoframes.secret.Secret`, stripped): the options,
    else ICOFRAMES_* variables (refused set empty), else the defaults.

    A key file that cannot be read, a key option given blank (``--public-key ''``: not taken
    for unset, which would serve the variable's key or the default), or a key
    :func:`icoframes.configure` would refuse (a control character, blank) raises ConfigError
    with a message that never shows it, nor a path that may be a key (``--private-key-file
    KEY``): a setting to fix, exit 2 as the parser's refusals. No local of its frames holds
    the private key in clear, nor a public key refused, nor the key file's path (``--public-key``
    and ``--private-key-file`` are held as Secrets too: the private key, given there?).
    """
    for option in ("public_key", "private_key"):
        if (given := getattr(args, option)) is not None and not given.stripped():
            raise ConfigError(_blank(option))
    public = (args.public_key or Secret(_variable("ICOFRAMES_PUBLIC_KEY")
                                        or _DEFAULT["public_key"])).reveal()
    if args.private_key_file is not None:
        private = _key_file(args.private_key_file)
    else:
        private = args.private_key or Secret(_variable("ICOFRAMES_PRIVATE_KEY")
                                             or _DEFAULT["private_key"])
    if isinstance(read := read_keys(public, private), InvalidParameter):
        del public  # raised with no local holding a key's text
        raise ConfigError(f"icoframes sandbox: {read}")
    return read


def _blank(option: str) -> str:
    """The refusal of a key option given blank: which option, and what it would have meant."""
    flag, variable = f"--{option.replace('_', '-')}", f"ICOFRAMES_{option.upper()}"
    return (f"icoframes sandbox: {flag} is given blank: refused, not taken for unset "
            f"({variable}, else the default key, would serve, without a word). Give it a "
            f"value, or leave {flag} out")


def _key_file(named: Secret) -> Secret:
    """The private key in the file ``named`` (a Secret: it may be the key itself, given for
    the path), stripped; ConfigError when it cannot be read or is empty, raised outside the
    handlers and with no local holding the path (nor the error that quotes it)."""
    unread, undecoded = None, False  # (its OSError's words; not UTF-8)
    try:
        if key := Secret(Path(named.reveal()).read_text(encoding="utf-8").strip()):
            return key
    except UnicodeDecodeError:  # (its text names a byte of the key and where it is)
        undecoded = True
    except OSError as exc:  # (its text quotes the path: the key, given for it by mistake)
        unread = exc.strerror or type(exc).__name__
    shown = _path(named)
    if unread is not None:
        raise ConfigError(f"icoframes sandbox: cannot read --private-key-file: {unread}: {shown}")
    if undecoded:
        raise ConfigError(f"icoframes sandbox: --private-key-file {shown} is not UTF-8 text: "
                          "a key is text")
    raise ConfigError(f"icoframes sandbox: {shown} is empty")


def _path(named: Secret) -> str:
    """``--private-key-file``'s path as a refusal shows it: whole when it names a folder's
    file (a separator, the folder there), else as a text that may be a key (not shown)."""
    shown = named.reveal()
    return shown if os.sep in shown and Path(shown).parent.is_dir() else quoted(shown, keys=True)


def _variable(name: str) -> str | None:
    """The variable ``name``; set empty (``"$(cat ~/.sandbox-key)"``, the file missing) it is
    refused, as a client refuses it, not taken for unset: the default key would serve."""
    if (value := os.environ.get(name)) == "":
        raise ConfigError(f"icoframes sandbox: {name} is set but empty: refused, not taken for "
                         f"unset (the default key would serve, without a word). Give it a "
                         f"value, or unset it (`unset {name}`).")
    return value


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns the exit code 0.

    ConfigError (exit 2) for a key refused (:func:`keys`) or a port it cannot listen on."""
    public_key, private_key = keys(args)
    _check_port(args.port)  # at once: a big directory takes seconds to make before serving
    try:  # from the start: a Ctrl-C as soon as the address shows still stops it cleanly
        try:
            started = serve(port=args.port, public_key=public_key, private_key=private_key,
                            quota=args.quota, n_icos=args.n_icos, seed=args.seed,
                            latency=args.latency, fail_rate=args.fail_rate,
                            grow_every=args.grow_every)
        except OSError as exc:  # the port taken, or one the user may not bind: --port to fix
            raise ConfigError(_unusable_port(args.port, exc)) from None
        with started as sb:
            print(f"icoframes sandbox serving {len(sb.directory)} ICOs at {sb.base_url}",
                  flush=True)
            builtin = private_key == Secret(_DEFAULT["private_key"])
            print(_client_lines(sb.base_url, sb.public_key, str(sb.service_name), args.seed,
                                builtin), flush=True)
            while True:  # short sleeps: Python runs a Ctrl-C's handler in this thread when
                time.sleep(_TICK)  # it next runs, and one another thread got waits till then
    except KeyboardInterrupt:
        print("sandbox stopped", file=sys.stderr)
    return 0


def _client_lines(base_url: str, public_key: str, name: str, seed: int,
                  builtin_private: bool) -> str:
    """What a client in another shell sets: a line to paste, and why the service name matters.

    The private key is in the line only when it is the built-in one (``--help`` shows it: not
    a secret, and without it the pasted line fails with "missing private_key"); a key the user
    gave is left out. Without the service name the client's cache is named by host and port,
    and a sandbox restarted there with another seed would be answered from the first one's
    cache, as complete."""
    private = (f" ICOFRAMES_PRIVATE_KEY={_DEFAULT['private_key']}" if builtin_private else "")
    given = "" if builtin_private else " (ICOFRAMES_PRIVATE_KEY as the sandbox was given it)"
    return (f"  in the client's shell{given}:\n"
            f"  export ICOFRAMES_BASE_URL={base_url} ICOFRAMES_PUBLIC_KEY={public_key}"
            f"{private} ICOFRAMES_SERVICE_NAME={name}\n"
            f"  (ICOFRAMES_SERVICE_NAME names this directory, seed {seed}, in the client's cache: "
            "without it the cache goes by host and port, and a sandbox restarted on this port "
            "with another --seed or --n-icos is answered from this one's cache)")


def _check_port(port: int) -> None:
    """ConfigError unless ``port`` of 127.0.0.1 can be listened on now, as the server binds it
    (reusing an address only in TIME_WAIT). Taken meanwhile, the server's own bind says so."""
    if port == 0:  # a free one, chosen at the bind
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise ConfigError(_unusable_port(port, exc)) from None


def _unusable_port(port: int, exc: OSError) -> str:
    """Why ``port`` cannot be listened on, in one line, and what to give instead."""
    why = ("is in use" if exc.errno == errno.EADDRINUSE
           else f"cannot be listened on ({exc.strerror or exc})")
    return (f"icoframes sandbox: port {port} of 127.0.0.1 {why}: choose another with --port, "
            "or --port 0 for a free one")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m icoframes.sandbox [options]``: exit 2 for a setting refused, as
    ``icoframes sandbox``."""
    parser = add_arguments(Parser(
        prog="python -m icoframes.sandbox",
        description="Serve the emulated ICO directory API on 127.0.0.1 until stopped."))
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
