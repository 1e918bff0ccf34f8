"""``icoframes cache info|clear``: the cache of the configured service, from the shell.

What :func:`icoframes.cache_info` and :func:`icoframes.clear_cache` do, printed; a part of
the ``icoframes`` command (:mod:`icoframes.cli`) kept apart so that its module stays short.
"""

from __future__ import annotations

import argparse
import json

__all__ = ["add_cache_parser", "run_cache"]


def add_cache_parser(sub: argparse._SubParsersAction) -> None:
    """The ``cache`` subcommand, on the subparsers of the ``icoframes`` parser."""
    cache = sub.add_parser("cache", help="show or clear the cache of the configured service")
    cache.add_argument("action", choices=("info", "clear"))


def run_cache(args: argparse.Namespace) -> int:
    """Run ``icoframes cache``; its exit code."""
    from .loaders import cache_info, clear_cache

    if args.action == "clear":
        clear_cache()
        print("cache cleared")
    else:
        print(json.dumps(cache_info().as_dict(), indent=2, default=str))
    return 0
