"""``icoframes cache info|clear|prune``: the cache of the configured service, from the shell.

What :func:`icoframes.cache_info`, :func:`icoframes.clear_cache` and
:func:`icoframes.prune_cache` do, printed; a part of the ``icoframes`` command
(:mod:`icoframes.cli`) kept apart so that its module stays short. ``cache clear`` and
``cache prune --older-than DAYS`` print each path they removed and the bytes freed, and each
path left alone with why (on stderr): the command then exits 5, being incomplete.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .ages import age_option
from .errors import InvalidParameter
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
                      "clear: delete it; prune: delete what no load used for DAYS",
        description="info prints, as JSON, the cache's path and size, its profiles and "
                    "list queries, the oldest and newest profile, and today's requests "
                    "against the daily quota (a count stored under a day after this clock's "
                    "is said on stderr too: not today's); clear deletes the cache of the "
                    "service (with --ledgers, this key's request count too; with "
                    "--ledgers-only, that count "
                    "alone, the cache kept); prune --older-than DAYS "
                    "deletes, in the whole cache dir, the service folders no load used for "
                    "longer, and in the others the lists fetched before then (the request "
                    "ledgers stay), as icoframes.prune_cache does.",
        epilog="clear and prune print each path removed and the bytes freed; a path left "
               "alone (a symbolic link, a file in the service folder that is not the "
               "cache's, a folder another process holds, a service folder others may "
               "write to) is named with why, and the command exits 5 (incomplete); a "
               "cache dir others may write to is refused by each action (exit 2), as "
               "by a load. A cache dir that does not exist is said so "
               "(exit 0: nothing is cached there)")
    action = cache.add_argument("action", choices=("info", "clear", "prune"),
                                help="info: what the cache holds; clear: delete it; prune: "
                                     "delete what was not used for --older-than DAYS")
    # words a user may type for one (the parser's "did you mean" names the choice); never
    # one that deletes: those are listed, to be typed as they are
    action.synonyms = {"show": "info", "list": "info", "status": "info"}
    action.destructive = ("clear", "prune")
    cache.add_argument("--older-than", type=age_option("days"), metavar="DAYS",
                       help="prune only, and needed there: how long without use, a duration "
                            "such as 30D or 12h as icoframes.prune_cache reads it, or a number "
                            "of DAYS (0 or more: a number without a unit is days here, not "
                            "the seconds it is in Python)")
    forget = cache.add_mutually_exclusive_group()
    forget.add_argument("--ledgers", action="store_true",
                        help="clear only: delete this key's request count too, as "
                             "icoframes.clear_cache(ledgers=True) does; the cache goes, so its "
                             "profiles are fetched again (requests), and the count's requests "
                             "may have been sent today (the service may refuse with error 485 "
                             "before daily_quota)")
    forget.add_argument("--ledgers-only", action="store_true",
                        help="clear only: forget this key's request count for this service "
                             "and keep the whole cache, as icoframes.clear_cache(ledgers="
                             "'only') does (the way out of a count stored days ahead of a "
                             "right clock); the requests it held may have been sent today, so "
                             "the service may refuse with error 485 before daily_quota. Needs "
                             "the key's ICOFRAMES_PUBLIC_KEY")
    cache.add_argument("--cache-dir", action=once, type=folder, metavar="DIR",
                       help=CACHE_DIR_HELP)



def run_cache(args: argparse.Namespace) -> bool:
    """Run ``icoframes cache``; whether it did all it was asked (a clear or a prune that left
    a path alone did not: the command exits 5)."""
    from .loaders import cache_info, clear_cache, prune_cache

    older_than: dt.timedelta | None = getattr(args, "older_than", None)
    if (args.action == "prune") != (older_than is not None):
        raise InvalidParameter("icoframes cache prune needs --older-than DAYS" if older_than
                               is None else "--older-than is for icoframes cache prune only")
    for flag in ("ledgers", "ledgers_only"):
        if getattr(args, flag, False) and args.action != "clear":
            raise InvalidParameter(f"--{flag.replace('_', '-')} is for icoframes cache clear "
                                   "only")
    if args.action == "info":
        info = cache_info(cache_dir=args.cache_dir)
        print(json.dumps(info.as_dict(), indent=2, default=str))
        if not info.cache_dir_exists:  # a typo in --cache-dir read like an empty cache
            print(f"no cache at {info.path}: the cache dir {Path(info.path).parent} does not "
                  "exist", file=sys.stderr)
        if info.quota is not None and info.quota.ahead_day is not None:  # not today's count
            from .fetch.quotaday import ahead_said
            print(f"{ahead_said(info.quota)} (requests_today is null). If this clock is right, "
                  "icoframes cache clear --ledgers-only forgets the count and keeps the cache; "
                  "the service may then refuse (error 485) before daily_quota", file=sys.stderr)
        return True
    only = getattr(args, "ledgers_only", False)
    report = (clear_cache(cache_dir=args.cache_dir, ledgers="only" if only else args.ledgers)
              if args.action == "clear"
              else prune_cache(older_than or dt.timedelta(0), cache_dir=args.cache_dir))
    for path in report.removed:
        print(f"removed {path}")
    for skip in report.skipped:  # a cron job's log shows what is still there, and why
        print(f"left alone {skip['path']}: {skip['reason']}", file=sys.stderr)
    for note in report.notes:  # a count not found: the next run would stop the same way
        print(note)
    if only:  # (nothing of the cache went: no "cache cleared")
        if report.removed:
            print("request count forgotten; the cache is kept")
        return True
    done = (f"{counted(len(report.removed), 'path')} removed, "
            f"{report.freed_bytes:,} bytes freed")
    did = "cleared" if args.action == "clear" else "pruned"
    if report.missing:  # nothing to do: done, exit 0, but said (a typo in --cache-dir?)
        print(f"cache not {did}: {report.missing} does not exist (nothing is cached there)")
        return True
    if report.skipped:
        print(f"cache not {did}: {done}, {counted(len(report.skipped), 'path')} left alone")
        return False
    print(f"cache {did}: {done}" if report.removed else f"cache {did}: nothing "
          + ("was cached" if did == "cleared" else "was unused that long"))
    return True
