"""``icoframes cache info|clear``: the cache of the configured service, from the shell.

What :func:`icoframes.cache_info` and :func:`icoframes.clear_cache` do, printed; a part of
the ``icoframes`` command (:mod:`icoframes.cli`) kept apart so that its module stays short.
``cache clear`` prints each path it removed and the bytes freed, and each path it left
alone with why (on stderr): the command then exits 5, the clear being incomplete.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from .quoting import counted

__all__ = ["CACHE_DIR_HELP", "add_cache_parser", "run_cache"]


#: ``--cache-dir``'s help, the same for ``export`` and ``cache``.
CACHE_DIR_HELP = "the cache dir (default: the cache_dir setting, ICOFRAMES_CACHE_DIR)"


def add_cache_parser(sub: argparse._SubParsersAction, *, folder: Callable[[str], Any] = str,
                     once: Any = "store") -> None:
    """The ``cache`` subcommand, on the subparsers of the ``icoframes`` parser; ``folder`` and
    ``once``: the type and action of the command's folder options (``export --cache-dir``'s)."""
    cache = sub.add_parser(
        "cache", help="info: print what the cache of the configured service holds; "
                      "clear: delete it",
        description="info prints, as JSON, the cache's path and size, its profiles and "
                    "list queries, the oldest and newest profile, and today's requests "
                    "against the daily quota; clear deletes the cache of the service.",
        epilog="clear prints each path removed and the bytes freed; a path it left alone "
               "(a symbolic link, a file in the service folder that is not the cache's) is "
               "named with why, and the command exits 5 (incomplete)")
    action = cache.add_argument("action", choices=("info", "clear"),
                                help="info: what the cache holds; clear: delete it")
    # words a user may type for one (the parser's "did you mean" names the choice)
    action.synonyms = {"show": "info", "list": "info", "status": "info",
                       "delete": "clear", "remove": "clear", "purge": "clear", "wipe": "clear"}
    cache.add_argument("--cache-dir", action=once, type=folder, metavar="DIR",
                       help=CACHE_DIR_HELP)


def run_cache(args: argparse.Namespace) -> bool:
    """Run ``icoframes cache``; whether it did all it was asked (a clear that left a path
    alone did not: the command exits 5)."""
    from .loaders import cache_info, clear_cache

    if args.action != "clear":
        print(json.dumps(cache_info(cache_dir=args.cache_dir).as_dict(), indent=2,
                         default=str))
        return True
    report = clear_cache(cache_dir=args.cache_dir)
    for path in report.removed:
        print(f"removed {path}")
    for skip in report.skipped:  # a cron job's log shows what is still there, and why
        print(f"left alone {skip['path']}: {skip['reason']}", file=sys.stderr)
    done = (f"{counted(len(report.removed), 'path')} removed, "
            f"{report.freed_bytes:,} bytes freed")
    if report.skipped:
        print(f"cache not cleared: {done}, {counted(len(report.skipped), 'path')} left alone")
        return False
    print(f"cache cleared: {done}" if report.removed else "cache cleared: nothing was cached")
    return True
