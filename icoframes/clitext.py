"""What the ``icoframes`` command says in its own words (:mod:`icoframes.cli` stays short).

The library's errors advise what to do from Python (``offline=True``,
``icoframes.configure(cache_dir=...)``, "call the same loader again"). The command has no
such keywords, so where the command logs such a message (an error it caught, a warning it
shows) it passes it through :func:`for_the_command`, which rewrites that advice into the
command's own options and variables: :data:`CLI_ADVICE`, the one table of them. Only the
command's own lines: another thread's, and the exceptions, keep the library's words.
:func:`unrecognized` words argparse's "unrecognized arguments" without showing a value that
may be a key.
"""

from __future__ import annotations

import argparse
import re

from .quoting import closest_option, counted

__all__ = ["CLI_ADVICE", "for_the_command", "unrecognized"]

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
    # a cache the command cannot write: it has no offline mode to offer instead
    (r"Use offline=True, or a writable cache_dir\.", "Use a writable --cache-dir."),
    (r"; use offline=True or a writable cache_dir", "; use a writable --cache-dir"),
    # the command has no way to list the filter set: the line that prints it from a shell
    (r"icoframes\.load_filters\(\)", "the filter set (`python3 -c 'import icoframes; "
     "print(icoframes.load_filters().to_string())'` prints it)"),
    (r"attrs\['icoframes'\]\['missing'\]", 'manifest.json ("missing")'),
    (r"raise daily_quota\b", "raise ICOFRAMES_DAILY_QUOTA"),
    (r", or call icoframes\.configure\(base_url=\.\.\., public_key=\.\.\., "
     r"private_key=\.\.\.\)", ""),
    (r"`sb = icoframes\.sandbox\.start\(\); icoframes\.configure\(\*\*sb\.settings\(\)\)` "
     r"or, from a shell, (`icoframes sandbox --port 8000`)\.",
     r"\1 in another shell, and set the variables it prints."),
)
_ADVICE = [(re.compile(pattern), words) for pattern, words in CLI_ADVICE]


def for_the_command(message: str) -> str:
    """``message`` with its Python-only advice in the command's words.

    Examples
    --------
    >>> for_the_command("Set ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to a "
    ...                 "folder of your own.")
    'Set ICOFRAMES_CACHE_DIR or --cache-dir to a folder of your own.'
    """
    for pattern, words in _ADVICE:
        message = pattern.sub(words, message)
    return message


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
    # a word on its own is shown ("everything"); a value (after an option, or any other
    # text) may be a key, and is only counted, saying so (else the count reads like a bug)
    shown = [e for k, e in enumerate(extras) if e.startswith("-") or (
        re.fullmatch("[A-Za-z]{1,20}", e) and not (k and extras[k - 1].startswith("-")))]
    hidden = len(extras) - len(shown) + sum("=" in e for e in shown)
    named = " ".join(e.split("=", 1)[0] if e.startswith("-") else e for e in shown)
    more = (f"{' ' if named else ''}(and {counted(hidden, 'value')} not shown: a value may be "
            "a key)") if hidden else ""
    return f"unrecognized arguments: {named}{more}{hint}"
