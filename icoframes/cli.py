"""The ``icoframes`` command: ``export`` for cron, ``sandbox`` to serve the emulated API,
``demo`` for the end-to-end tour, and ``cache`` to inspect or clear the cache.

Exit codes: :data:`EXIT_CODES` says what each means (0 done, 1 anything else, 2 bad
arguments or settings, 3 the daily limit before anything was listed, 4 no ICO matched, 5
incomplete, 130 interrupted, 143 terminated); the export's ``--help`` and the README list them.
Logs go to stderr, warnings among them (one log line each, in the same format);
progress bars show only when stderr is a terminal.
``icoframes --version`` prints the installed version. The export command's
filter options are made from the spec 4.2 declaration in :mod:`icoframes.api.params`.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .ages import seconds_option
from .api.params import PARAMS, STATUS_WORDS, status_option_hint
from .cachecommand import CACHE_DIR_HELP, add_cache_parser, run_cache
from .clitext import for_the_command, unrecognized
from .config import MAX_WORKERS, SETTINGS
from .errors import (
    AuthError,
    ConfigError,
    EmptyResult,
    IcoframesError,
    InvalidParameter,
    NotCached,
    QuotaExceeded,
)
from .numerals import ANY_INTEGER, COUNT, integer_text, whole
from .paths import EMPTY_PATH, as_written, is_empty_path

if TYPE_CHECKING:
    from .export import ExportResult
    from .reporting import LoadReport

__all__ = ["EXIT_CODES", "Terminated", "build_parser", "main", "run"]

log = logging.getLogger("icoframes.cli")

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_QUOTA, EXIT_EMPTY, EXIT_INCOMPLETE = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT, 128 + SIGTERM, as shells report
#: Every exit code of the command and what it means (the export's --help and the README say so).
EXIT_CODES = {
    EXIT_OK: "done (or the day's complete export kept: a later run that day was incomplete "
             "and fetched nothing newer; a warning says so)",
    EXIT_ERROR: "anything else (the service unreachable after retries or not answering, the "
                "disk of the cache or of --out full: nothing written, ...)",
    EXIT_USAGE: "bad arguments or settings (no keys, keys the service rejects: 480, a wrong "
                "base_url: 481, an unknown ICOFRAMES_ variable or one set empty, a cache dir or "
                "--out that cannot be written, a cache dir refused (another user's, a link), an "
                "--out naming a file or holding another query's snapshots or the other layout, a "
                "snapshot tree holding a day written later than the machine's clock says it is now "
                "(the clock set back: nothing written); sandbox: a --port in use, a key refused; "
                "demo: an --out it cannot make)",
    EXIT_QUOTA: "the daily request limit (the service's error 485 or ICOFRAMES_DAILY_QUOTA) "
                "was reached before anything could be listed: nothing written (what was "
                "fetched is cached, the next run resumes)",
    EXIT_EMPTY: "the query matched no ICO: nothing written (unless --allow-empty)",
    EXIT_INCOMPLETE: "incomplete: what was fetched is written, marked complete: false with the "
                     "missing ids and why in manifest.json (reason quota when the daily limit "
                     "stopped the load part way); the next run fetches them "
                     "(exit 0 instead with --allow-incomplete); cache clear or prune left a "
                     "path alone (each named, with why)",
    EXIT_INTERRUPTED: "interrupted by Ctrl-C (what was fetched is kept)",
    EXIT_TERMINATED: "terminated by SIGTERM or SIGHUP (what was fetched is kept)",
}
FILTERS = tuple(p for p in PARAMS if p.filter)


def _add_filter_options(parser: argparse.ArgumentParser) -> None:
    """One option per filter of spec 4.2, made from :data:`icoframes.api.params.PARAMS`."""
    from .sandbox.command import Once as _Once
    group = parser.add_argument_group("filters (spec 4.2)")
    for param in FILTERS:
        flag = "--" + param.name.replace("_", "-")
        if param.kind in ("status", "sort"):
            choice = group.add_argument(flag, dest=param.name, choices=param.allowed,
                                        type=_folded, action=_Once,
                                        help=f"{param.doc} (default: all)")
            choice.synonyms, choice.hint = (  # type: ignore[attr-defined]  # finished, all
                (STATUS_WORDS, status_option_hint) if param.kind == "status" else ({}, None))
        elif param.kind in ("ids", "strings"):
            group.add_argument(flag, dest=param.name, action="append", metavar=param.value,
                               help=f"{param.doc} (repeatable)")
        elif param.kind == "int":
            bounds = f"{param.low}-{param.high}" if param.high else f">= {param.low}"
            group.add_argument(flag, dest=param.name, type=whole("an integer", param.low,
                                                                 param.high), metavar=param.value,
                               action=_Once,
                               help=f"{param.doc} ({bounds})")
        else:  # a yes-flag: the API can only ask for "yes"
            group.add_argument(flag, dest=param.name, action="store_true", default=None,
                               help=param.doc)


def _folded(text: str) -> str:
    return text.strip().casefold()


def _filters_from(args: argparse.Namespace) -> dict[str, Any]:
    filters = {p.name: getattr(args, p.name) for p in FILTERS
               if getattr(args, p.name) is not None}
    for param in FILTERS:
        if param.kind == "ids" and param.name in filters:
            filters[param.name] = [_id_or_name(v) for v in filters[param.name]]
    return filters


def _id_or_name(text: str) -> int | str:
    """An ids option's value: an integer in ASCII digits is that integer (``-1`` is refused
    as ``load_icos(platform=-1)`` refuses it); any other text is passed on as written and
    means what it means to ``load_icos(platform=text)``: another number (``1.0``, ``٣``) is
    refused with a "did you mean", before any request; anything else (``²`` too) is a name."""
    number = integer_text(text)
    return text if number is None else number


def _folder(text: str) -> Path:
    """A folder option's path as written (:func:`~.paths.as_written`), never empty."""
    if is_empty_path(text):
        raise argparse.ArgumentTypeError(EMPTY_PATH)
    return as_written(text)


def _command_of(parser: argparse.ArgumentParser,
                args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the command given (``export``: its usage), else ``parser``."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found = subparsers[0].choices.get(args.command) if subparsers else None
    return found if isinstance(found, argparse.ArgumentParser) else parser


def build_parser() -> argparse.ArgumentParser:
    # numbers are refused by the parser, exit 2 naming the option: --max-age inf was a
    # traceback and exit 1, and a demo of 0 ICOs ended "... --allow-empty", which it lacks
    from .sandbox.command import DEMO_ICOS, Parser, add_arguments
    from .sandbox.command import Once as _Once
    parser = Parser(
        prog="icoframes",
        description="ICO directory API data as typed tables and Parquet exports.",
        epilog="Settings come from the environment (other ICOFRAMES_ names are refused): "
               + ", ".join(s.env for s in SETTINGS) + ".")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    parser.add_argument("--version", action="version", version=f"icoframes {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    export = sub.add_parser("export", help="write every table as Parquet, plus a manifest",
                            description="Load the ICOs matching the filters (using the cache) "
                                        "and write DIR/<table>.parquet and DIR/manifest.json.",
                            epilog="exit codes: " + "; ".join(
                                f"{code} {meaning}" for code, meaning in EXIT_CODES.items()))
    export.add_argument("--out", action=_Once, required=True, type=_folder, metavar="DIR",
                        help="the export folder (created when missing; required)")
    export.add_argument("--snapshot", action="store_true",
                        help="write under DIR/snapshot_date=YYYY-MM-DD/ (hive style, the UTC day "
                             "it began); re-pages each list no run paged that day (a second "
                             "run the same day pays no list page); a re-run of the same query "
                             "on the same day replaces that day's snapshot; a DIR holding "
                             "another query's snapshots, of any day, is refused (exit 2: one "
                             "tree per query)")
    export.add_argument("--allow-empty", action="store_true",
                        help="write empty tables when no ICO matches (default: exit 4, "
                             "nothing written)")
    export.add_argument("--allow-incomplete", action="store_true",
                        help="exit 0 when listed ICOs could not be fetched or a list came "
                             "back partial (default: exit 5; the export is written and "
                             "marked complete: false either way)")
    refresh = export.add_argument("--refresh", action=_Once, choices=("none", "changed", "all"),
                        help="none: use fresh cache (lists paged this UTC day and younger "
                             "than --max-age); changed: re-page and re-fetch changed "
                             "profiles; all: re-fetch everything (default: none)")
    # Python's refresh=True/False typed as words: the choice it is (as refresh='changed' is)
    refresh.synonyms = (  # type: ignore[attr-defined]
        dict.fromkeys(("true", "yes", "on", "1"), "changed")
        | dict.fromkeys(("false", "no", "off", "0"), "none"))
    export.add_argument("--max-age", action=_Once, type=seconds_option, default=86400.0,
                        metavar="AGE", help="re-page cached lists older than this: a duration "
                        "such as 12h, or seconds (default: one day); lists fetched before the "
                        "current UTC day are re-paged whatever their age, so a daily cron export "
                        "holds that day's lists (manifest: lists_fresh_after, lists_fetched)")
    export.add_argument("--profile-max-age", action=_Once, type=seconds_option, metavar="AGE",
                        help="a duration such as 30D, or seconds: re-fetch profiles when the "
                             "lists are re-paged once they are older than half to all of "
                             "this, a point fixed per ICO (default: ongoing 1 day, upcoming 7 "
                             "days, past 90 days)")
    export.add_argument("--budget", action=_Once, type=COUNT, metavar="N",
                        help="at most N profile requests (N >= 0), the most stale first")
    export.add_argument("--max-workers", action=_Once, type=whole("an integer", 1, MAX_WORKERS),
                        metavar="N", help=f"concurrent requests, 1-{MAX_WORKERS} (default: 8)")
    export.add_argument("--cache-dir", action=_Once, type=_folder, metavar="DIR",
                        help=CACHE_DIR_HELP)
    _add_filter_options(export)

    add_arguments(sub.add_parser("sandbox",
                                 help="serve the emulated API on 127.0.0.1 until stopped"))

    demo = sub.add_parser("demo", help="start the sandbox, export every table and draw the plots")
    demo.add_argument("--out", action=_Once, type=_folder, default=Path("data/demo"),
                      metavar="DIR", help="where the export and the plots go "
                                          "(default: data/demo)")
    demo.add_argument("--n-icos", action=_Once, type=DEMO_ICOS, default=1000, metavar="N",
                      help="ICOs in the demo's sandbox (default: 1000)")
    demo.add_argument("--seed", action=_Once, type=ANY_INTEGER, default=0,
                      help="the seed of the sandbox's directory (default: 0)")

    add_cache_parser(sub, folder=_folder, once=_Once)  # --cache-dir as export's
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # argparse's own message, with a "did you mean", and the command's usage
            command = _command_of(parser, args) if args.command else parser
            command.error(unrecognized(command, parser, args.command, extras))
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help
        return int(exc.code or 0)
    # icoframes' own INFO lines, other libraries' from WARNING: matplotlib's first import
    # wrote "INFO matplotlib.font_manager: generated new fontManager" into the demo's output
    shown = logging.StreamHandler(sys.stderr)
    shown.addFilter(lambda r: r.levelno >= logging.WARNING or r.name.startswith("icoframes"))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, handlers=[shown],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("urllib3").setLevel(logging.WARNING)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run the command ``args`` names; its exit code (an error logged, not raised)."""
    cache_dir = getattr(args, "cache_dir", None)  # the line that prints the filter set reads it
    try:
        if args.command == "export":
            with _signals_raise(), _warnings_logged(cache_dir):
                return _export(args)
        if args.command == "sandbox":
            with _signals_raise():
                return _sandbox(args)
        if args.command == "demo":
            from .demo import run_demo

            run_demo(out=args.out, n_icos=args.n_icos, seed=args.seed)
            return EXIT_OK
        if args.command == "cache":  # a clear that left a path alone is incomplete
            with _warnings_logged(cache_dir):  # (a 0.1 ledger converted or kept aside: said)
                return EXIT_OK if run_cache(args) else EXIT_INCOMPLETE
    except EmptyResult as exc:  # each with the library's advice in the command's words
        log.error("%s", for_the_command(str(exc), cache_dir=cache_dir))
        return EXIT_EMPTY
    except QuotaExceeded as exc:
        log.error("%s", for_the_command(str(exc), cache_dir=cache_dir))
        return EXIT_QUOTA
    except (InvalidParameter, ConfigError, NotCached, AuthError) as exc:  # 481's a ConfigError
        log.error("%s", for_the_command(str(exc), cache_dir=cache_dir))
        return EXIT_USAGE
    except IcoframesError as exc:
        log.error("%s", for_the_command(str(exc), cache_dir=cache_dir))
        return EXIT_ERROR
    except KeyboardInterrupt as exc:  # Terminated too; a note says the export was written
        term = isinstance(exc, Terminated)
        log.error("%s; %severything fetched so far is cached",
                  f"terminated ({(exc.args or ['SIGTERM'])[0]})" if term else "interrupted",
                  "".join(f"{note}; " for note in getattr(exc, "__notes__", [])))
        return EXIT_TERMINATED if term else EXIT_INTERRUPTED
    except Exception:  # a cron job should log the traceback, then fail with 1
        log.exception("%s failed", args.command)
        return EXIT_ERROR
    return EXIT_ERROR


def run() -> None:
    """The ``icoframes`` command: :func:`main`, then exit with its code.

    After a signal stopped an export, everything fetched is already durable,
    so the process exits at once instead of waiting, at interpreter shutdown,
    for pool threads still stuck on the service (a connect to a server that
    accepts nothing cannot be cut from another thread).
    """
    code = main()
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED) and any(
            t.is_alive() and not t.daemon for t in threading.enumerate()
            if t is not threading.main_thread()):
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: raised in the main thread, stopping a load as Ctrl-C does.

    A ``KeyboardInterrupt`` so that whatever stops a load promptly on Ctrl-C (the
    crawl waits on its results with a timeout, so the main thread gets the
    signal) treats a ``kill`` from cron or systemd the same way.
    """


@contextmanager
def _signals_raise() -> Iterator[None]:
    """While the block runs, SIGINT raises ``KeyboardInterrupt``, SIGTERM and SIGHUP (a closed
    terminal) :class:`Terminated`: a clean-up and a log line, as any stop.

    SIGINT is set explicitly: a command started in the background (``icoframes export &``, a
    test suite run as a job) inherits SIGINT *ignored*, and would never stop on ``kill -INT``;
    SIGHUP ignored (``nohup``) stays so. Only the main thread sets handlers.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hup = getattr(signal, "SIGHUP", signal.SIGTERM)  # none on Windows
    ended = {signal.SIGTERM, *[hup] * (signal.getsignal(hup) != signal.SIG_IGN)}

    def on_sigterm(signum: int, frame: Any) -> None:
        for sig in ended:  # once: a second must not cut the clean-up that keeps what was fetched
            signal.signal(sig, signal.SIG_IGN)
        raise Terminated(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_sigterm) for sig in ended}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _export(args: argparse.Namespace) -> int:
    from .export import MANIFEST, export_tables
    from .loaders import Refresh
    from .manifest import stop_said

    refreshes: dict[str | None, Refresh] = {None: False, "none": False, "changed": True,
                                            "all": "all"}
    refresh = refreshes[args.refresh]
    try:
        result = export_tables(
            args.out,
            snapshot=args.snapshot,
            refresh=refresh,
            max_age=args.max_age,
            profile_max_age=args.profile_max_age,
            budget=args.budget,
            allow_empty=args.allow_empty,
            max_workers=args.max_workers,
            cache_dir=args.cache_dir,
            progress=None,
            **_filters_from(args),  # status among them
        )
    except QuotaExceeded as exc:
        said = for_the_command(str(exc), cache_dir=args.cache_dir).rstrip().rstrip(".")
        log.error("%s. Nothing was written: the limit came before anything this export could "
                  "use was listed; exit %d.", said, EXIT_QUOTA)
        return EXIT_QUOTA
    if result.kept:  # a warning said why: the day's complete export stays, exit 0 as it is
        log.info("kept %s (complete); %s", result.path, _spent(result.report))
        return EXIT_OK
    log.info("wrote %s (%s); %s", result.path,
             ", ".join(f"{k}: {v}" for k, v in result.rows.items()), _spent(result.report))
    if result.complete:
        return EXIT_OK
    gaps = _gaps(result)
    if result.stopped is not None:  # who refused, and what is left
        gaps = f"{stop_said(result.stopped)}; {gaps}"
    # the manifest keeps the library's words, the log the command's
    gaps = for_the_command(gaps, cache_dir=args.cache_dir)
    if args.allow_incomplete:
        log.warning("the export is incomplete (--allow-incomplete: exit 0): %s", gaps)
        return EXIT_OK
    log.error("the export is incomplete, written and marked complete: false in %s: %s; "
              "exit %d (--allow-incomplete exits 0)", result.path / MANIFEST,
              gaps, EXIT_INCOMPLETE)
    return EXIT_INCOMPLETE


def _spent(report: LoadReport) -> str:
    """What the load cost, per endpoint, or that the cache answered everything."""
    if report.answered_from_cache:
        oldest = report.oldest_fetch
        when = "" if oldest is None else f", the oldest list fetched {oldest:%Y-%m-%d %H:%M} UTC"
        return f"0 requests spent (the lists and profiles from the cache{when})"
    from .quoting import counted
    spent = ", ".join(f"{k} {v}" for k, v in report.requests.items() if v)
    return f"{counted(report.requests_total, 'request')} spent ({spent or 'none'})"


def _gaps(result: ExportResult) -> str:
    """What an incomplete export lacks, in one line for the log."""
    parts = []
    missing = result.missing
    if missing:
        first = "; ".join(f"{m['id']} ({m['state']}: {m['reason']})" for m in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        parts.append(f"{len(missing)} listed ICO(s) not fetched: {first}{more}")
    stale = result.not_refreshed
    if stale:
        first = "; ".join(f"{m['id']} ({m['reason']})" for m in stale[:3])
        parts.append(f"{len(stale)} row(s) kept from an earlier fetch: {first}")
    from .manifest import kept_words

    partial = [q for q in result.manifest.get("queries", []) if not q.get("complete")]
    for query in partial:
        params = {k: v for k, v in (query.get("params") or {}).items() if v is not None}
        kept = query.get("kept")
        parts.append(f"the list {params} came back partial" + (kept_words(kept) if kept else ""))
    return "; ".join(parts) or "see the manifest"


@contextmanager
def _warnings_logged(cache_dir: Path | None = None) -> Iterator[None]:
    """Warnings become log lines (``WARNING icoframes: ...``), in the format of the others.

    A cron log then holds one line per warning, not Python's two-line warnings
    format with a file name and source line. Filters still apply (a warning
    filtered to "error" still raises).
    """
    previous = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        name = "icoframes" if category.__module__.startswith("icoframes") else "py.warnings"
        said = for_the_command(str(message), cache_dir=cache_dir)  # as it is, unless reworded
        logging.getLogger(name).warning("%s (%s)", message if said == str(message) else said,
                                        category.__name__)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


def _sandbox(args: argparse.Namespace) -> int:
    from .sandbox.command import run

    return run(args)
