"""What the ``icoframes`` command says in its own words (:mod:`icoframes.cli` stays short).

The library's errors advise what to do from Python (``offline=True``,
``icoframes.configure(cache_dir=...)``, "call the same loader again"). The command has no
such keywords, so where the command logs such a message (an error it caught, a warning it
shows) it passes it through :func:`for_the_command`, which rewrites that advice into the
command's own options and variables: :data:`CLI_ADVICE`, the one table of them. Only the
command's own lines: another thread's, and the exceptions, keep the library's words.
Where the library points to ``icoframes.load_filters()``, the command names a shell line that
prints the filter set (:func:`filters_line`): run by the Python the command runs in, on the
cache dir and service the command used. :func:`unrecognized` words argparse's "unrecognized
arguments" without showing a value that may be a key.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from collections.abc import Callable

from .config import get_settings
from .errors import IcoframesError
from .quoting import closest_option, counted, may_be_key
from .secret import redact_url

__all__ = ["CLI_ADVICE", "filters_line", "for_the_command", "unrecognized"]

#: Where a rewording names the line of :func:`filters_line`.
LINE = "{line}"

#: Advice that only works from Python (a regular expression over a message) and what the
#: command offers instead. The command has no offline mode: what a stopped export fetched is
#: in the cache, and a run without --refresh uses it (with it, the lists or profiles are
#: asked for again).
CLI_ADVICE: tuple[tuple[str, str], ...] = (
    (r"icoframes\.configure\(cache_dir=\.\.\.\)", "--cache-dir"),
    (r"Everything fetched is cached, and offline=True returns it now without a request\.",
     "Everything fetched is kept in the cache: a run without --refresh does not ask for it "
     "again."),
    (r"offline=True returns what was, now, without a request\.",
     "a run without --refresh does not ask again for what was."),
    (r"; offline=True answers only from a copy an earlier load left in this cache dir "
     r"\(without one it raises NotCached\)\.", "."),
    (r"call the same loader again", "run the same command again"),
    (r"icoframes\.clear_cache\(ledgers=(?:True|'only')\) \(from a shell: (icoframes cache "
     r"clear --ledgers(?:-only)?)\)", r"\1, with this run's --cache-dir and variables,"),
    (r"^ledgers=True forgets this key's", "--ledgers forgets this key's"),
    (r"^ledgers='only' forgets this key's", "--ledgers-only forgets this key's"),
    (r"\(public_key, ICOFRAMES_PUBLIC_KEY\); nothing was deleted",
     "(ICOFRAMES_PUBLIC_KEY); nothing was deleted"),
    # a cache the command cannot write: it has no offline mode to offer instead
    (r"Use offline=True, or a writable cache_dir\.", "Use a writable --cache-dir."),
    (r"; use offline=True or a writable cache_dir", "; use a writable --cache-dir"),
    # the command has no way to list the filter set: each pointer to it names the line that
    # prints it from a shell, in a clause of its own (not in brackets: the line has quotes)
    (r"the (\S+) rows of icoframes\.load_filters\(\) list ([^;()]*)",
     rf"the \1 rows of the filter set list \2; {LINE} prints the filter set"),
    (r" \(icoframes\.load_filters\(\): its row has no id\)",
     f": its row has no id; {LINE} prints the filter set"),
    # the suggestion goes last: a clause after "did you mean ...?" would follow a question mark
    (r"(; did you mean .*?\?)? \(see the (\S+) rows of icoframes\.load_filters\(\)\)",
     rf"; the known ones are the \2 rows of the filter set, which {LINE} prints\1"),
    (r"The filter set is not cached \(icoframes\.load_filters\(\) once online caches it\)\.",
     f"The filter set is not cached: {LINE}, run once online, caches it."),
    (r"attrs\['icoframes'\]\['missing'\]", 'manifest.json ("missing")'),
    (r"(raise|lower) daily_quota\b", r"\1 ICOFRAMES_DAILY_QUOTA"),
    (r", or call icoframes\.configure\(base_url=\.\.\.(?:, public_key=\.\.\., "
     r"private_key=\.\.\.)?\)", ""),
    (r"`sb = icoframes\.sandbox\.start\(\); icoframes\.configure\(\*\*sb\.settings\(\)\)` "
     r"or, from a shell, (`icoframes sandbox --port 8000`)\.",
     r"\1 in another shell, and set the variables it prints."),
)
_ADVICE = [(re.compile(pattern), words) for pattern, words in CLI_ADVICE]


def for_the_command(message: str, *, cache_dir: str | os.PathLike[str] | None = None) -> str:
    """``message`` with its Python-only advice in the command's words; ``cache_dir`` is the
    command's ``--cache-dir``, for the line that prints the filter set (:func:`filters_line`).

    Examples
    --------
    >>> for_the_command("Set ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to a "
    ...                 "folder of your own.")
    'Set ICOFRAMES_CACHE_DIR or --cache-dir to a folder of your own.'
    """
    line: list[str] = []  # made once, and only for a message that names it

    def worded(words: str) -> Callable[[re.Match[str]], str]:
        def said(match: re.Match[str]) -> str:
            text = match.expand(words)  # the line after: a backslash of a path is no escape
            if LINE in text and not line:
                line.append(f"`{filters_line(cache_dir)}`")
            return text.replace(LINE, line[0]) if line else text
        return said

    for pattern, words in _ADVICE:
        message = pattern.sub(worded(words), message)
    return message


def filters_line(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """A shell line that prints the filter set: the Python this command runs in (a cron job's
    venv is not on cron's PATH), on the cache dir (``cache_dir``, else the configured one)
    and the service this command uses, given as ``ICOFRAMES_*`` variables; a ``base_url``
    holding a password is left to the environment, where the command found it."""
    given = {"cache_dir": cache_dir} if cache_dir is not None else {}
    try:
        settings = get_settings(**given)
    except IcoframesError:  # settings refused: that message is the one being said
        shown: dict[str, str | None] = {}
    else:
        url = settings.base_url
        shown = {"CACHE_DIR": os.path.abspath(settings.cache_dir),
                 "BASE_URL": url if url and redact_url(url) == url else None,
                 "SERVICE_NAME": settings.service_name}
    variables = [f"ICOFRAMES_{name}={shlex.quote(value)}" for name, value in shown.items()
                 if value]
    code = "import icoframes; print(icoframes.load_filters().to_string())"
    return " ".join([*variables, shlex.quote(sys.executable or "python3"), "-c",
                     shlex.quote(code)])


def unrecognized(command: argparse.ArgumentParser, top: argparse.ArgumentParser,
                 name: str | None, extras: list[str]) -> str:
    """argparse's "unrecognized arguments" by option name alone (a value may be a key), with
    the closest option of ``command`` (the parser of the command ``name``, else ``top``)."""
    options = [o for o in command._option_string_actions if o.startswith("--")]
    typed = [e.split("=", 1)[0] for e in extras if e.startswith("-")]
    near = closest_option(typed[0], options) if typed else []
    hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
    if typed and typed[0] in top._option_string_actions and command is not top:
        hint = (f"; {typed[0]} is an option of icoframes itself: put it before the command "
                f"(icoframes {typed[0]} {name} ...)")
    # a value that may be a key (errors.md's rule, quoting.may_be_key: 8 or more characters
    # with a letter, no space) is only counted, saying so (else the count reads like a bug);
    # a word of letters alone, not after an option, is shown ("everything"): a command typo
    shown = [e for k, e in enumerate(extras) if e.startswith("-") or not may_be_key(e) or (
        re.fullmatch("[A-Za-z]{1,20}", e) and not (k and extras[k - 1].startswith("-")))]
    hidden = len(extras) - len(shown) + sum(may_be_key(_value(e)) for e in shown)
    named = " ".join(e.split("=", 1)[0] if may_be_key(_value(e)) else e for e in shown)
    more = (f"{' ' if named else ''}(and {counted(hidden, 'value')} not shown: a value may be "
            "a key)") if hidden else ""
    return f"unrecognized arguments: {named}{more}{hint}"


def _value(extra: str) -> str:
    """The value of an ``--option=value`` argument (``""`` for any other)."""
    return extra.split("=", 1)[1] if extra.startswith("-") and "=" in extra else ""
