"""Run the benchmarks and write ``benchmarks/RESULTS.md``: ``python -m benchmarks``.

Options: ``--quick`` (small sizes, one repetition: a smoke run), ``--only
tidy,features,crawl,quota,cache,freshness,store,cachedlists,attrs`` (a subset), ``--out PATH``.
A full run writes ``benchmarks/RESULTS.md``; a quick or partial run prints its markdown
instead, so it never replaces the full results, unless ``--out`` is given. A full run keeps
the sections of the page it replaces that it does not write itself (those measured by hand)
and its "Targets: history" section, to whose head it moves the Targets table it replaces: the
Targets table holds one short row per target, the latest figure. Progress goes
to stderr. The full run is sized to finish in under 10 minutes on 2 cores, but for the
``store`` section (issue 18: every measure in separate processes for this tree and the
commit before the store, cold loads of 10,000 and 20,000 ICOs): 10 to 30 minutes more,
and the ``cachedlists`` one (the commit before its fix at up to 100 cached lists of
3,000 ICOs): a few minutes more.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import bench_cache, bench_crawl, bench_quota
from .common import Target, log, machine, table

RESULTS = Path(__file__).with_name("RESULTS.md")
BUDGET_S = 600

# One baseline run at 50,000 profiles takes about a minute: the baseline stops at
# 10,000 and 50,000 times tidy alone, to show how it grows, within the budget.
TIDY_FULL = {"sizes": (1000, 10000, 50000), "repeats": 3, "baseline_up_to": 10000}
TIDY_QUICK = {"sizes": (200,), "repeats": 1}


@dataclass
class Section:
    title: str
    body: str
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # when it ran and the 1-minute load average before and after: a figure's conditions
    started: str = ""
    load: tuple[float, float] = (0.0, 0.0)


def _tidy(quick: bool) -> Section:
    from . import bench_tidy

    kwargs = TIDY_QUICK if quick else TIDY_FULL
    results = bench_tidy.run(**kwargs)
    body = (f"`icoframes.tidy` against the hand-written pandas tidy (`bench_tidy."
            f"baseline_tidy`, also the tidy step of this suite's baseline) on sandbox "
            f"profiles; median (min–max) of {kwargs['repeats']} alternating runs after a "
            "warm-up that checks both give equal tables. The baseline is not run at 50,000 "
            "(about a minute a run) to keep the suite under 10 minutes; "
            "`python -m benchmarks.bench_tidy` runs it too.\n\n"
            + bench_tidy.markdown(results))
    return Section("Tidy: profiles → typed tables", body, _tidy_targets(results))


def _tidy_targets(results: list[dict]) -> list[Target]:
    at_10k = next((r for r in results if r["n"] == 10_000), None)
    if at_10k is None:  # the quick run has no 10k row
        return []
    return [
        Target("tidy", "10,000 profiles in < 0.75 s", f"{at_10k['tidy_s']:.3f} s (median)",
               at_10k["tidy_s"] < 0.75),
        Target("tidy", "≥ 10× faster than the json_normalize baseline",
               f"{at_10k['speedup']:.1f}×", at_10k["speedup"] >= 10),
        Target("tidy", "peak memory for 10,000 profiles < 500 MB",
               f"{at_10k['peak_mb']:.0f} MB", at_10k["peak_mb"] < 500),
    ]


def _features(quick: bool) -> Section:
    from . import bench_features

    result = bench_features.run(n=500, repeats=1) if quick else bench_features.run()
    return Section("Features: one row per ICO, with USD", bench_features.markdown(result),
                   bench_features.targets(result))


def _crawl(quick: bool) -> Section:
    result = bench_crawl.run(bench_crawl.QUICK if quick else bench_crawl.FULL)
    return Section("Crawl: cold load of the past ICOs", bench_crawl.markdown(result),
                   bench_crawl.targets(result), bench_crawl.notes(result))


def _quota(quick: bool) -> Section:
    result = bench_quota.run(bench_quota.QUICK if quick else bench_quota.FULL)
    return Section("Quota: requests spent", bench_quota.markdown(result),
                   bench_quota.targets(result))


def _cache(quick: bool) -> Section:
    result = bench_cache.run(bench_cache.QUICK if quick else bench_cache.FULL)
    return Section(f"Cache: warm loads of {result['n_past']:,} ICOs, and export",
                   bench_cache.markdown(result), bench_cache.targets(result),
                   bench_cache.notes(result))


def _store(quick: bool) -> Section:
    from . import bench_store  # checks out the commit before the store in a temporary worktree

    result = bench_store.run(quick=quick)
    return Section(f"Store: side by side with {result['commit']}, the last main before the "
                   "SQLite store (issue 18)", bench_store.markdown(result),
                   bench_store.targets(result))


def _cachedlists(quick: bool) -> Section:
    from . import bench_cached_lists  # checks out the commit before the fix in a worktree

    result = bench_cached_lists.run(quick=quick)
    return Section("Cached lists: a load answered from the cache after N cached lists",
                   bench_cached_lists.markdown(result))


def _attrs(quick: bool) -> Section:
    from . import bench_attrs  # needs time-machine (a dev dependency) to date the snapshots

    rows = (bench_attrs.run(n_icos=300, budget=30, days=(5,), repeats=3, rounds=2,
                             change_rounds=1) if quick
            else bench_attrs.run())
    return Section("Report in attrs: what it costs pandas operations and changes()",
                   (bench_attrs.__doc__ or "").split("\n\n", 1)[1] + "\n\n"
                   + bench_attrs.markdown(rows), bench_attrs.targets(rows))


def _freshness(quick: bool) -> Section:
    from . import bench_freshness  # needs time-machine (a dev dependency) to move the clock

    result = bench_freshness.run(bench_freshness.QUICK if quick else bench_freshness.FULL)
    return Section("Freshness: a daily refresh against a daily re-crawl",
                   bench_freshness.markdown(result), bench_freshness.targets(result),
                   bench_freshness.notes(result))


# The Targets table: each row the figure of the last run, with where and when it was measured;
# a target's earlier figures live in the "Targets: history" section, never in the row.
TARGET_HEADER = ["benchmark", "target", "latest figure", "measured (UTC), commit, load", "met",
                 "section"]
HISTORY = "Targets: history"
TARGETS_INTRO = (
    "One row per target: its latest figure; when, at which commit and at which load average "
    "(1-minute, on the machine's cores) it was measured; met or not; and the section holding "
    f'it. Every figure measured before it is in the section "{HISTORY}" before the notes at '
    'the end of this page. "Not recorded": the page does not say.'
)
_OWN = ("Machine", "Targets", "Notes", HISTORY)


def _commit() -> str:
    """The short commit of this tree, with "+" if it has uncommitted changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(RESULTS.parent), *args], check=True,
                              capture_output=True, text=True).stdout.strip()
    try:
        return git("rev-parse", "--short", "HEAD") + ("+" if git("status", "--porcelain") else "")
    except (OSError, subprocess.CalledProcessError):
        return "commit unknown"


def target_rows(sections: list[Section], commit: str) -> list[list[str]]:
    """One short row per target: the figure, its conditions, met or not, and its section."""
    return [[t.benchmark, t.target, t.measured,
             f"{s.started}, {commit}, load {s.load[0]:.1f}–{s.load[1]:.1f}",
             "yes" if t.met else "**no**", f'"{s.title}"']
            for s in sections for t in s.targets]


def _sections_of(text: str) -> list[tuple[str, str]]:
    """The ``## `` sections of a results page, in order: (title, text with its heading)."""
    return [(part.splitlines()[0][3:].strip(), part.rstrip("\n"))
            for part in re.split(r"(?m)^(?=## )", text) if part.startswith("## ")]


def carried_over(previous: str, titles: set[str], now: str) -> list[str]:
    """What a full run keeps of the page it replaces: every section this run does not write
    (the dated sections measured by hand), then the "Targets: history" section with the
    replaced Targets table put at its head (dated ``now``)."""
    old = _sections_of(previous)
    history = next((text for title, text in old if title == HISTORY), f"## {HISTORY}")
    table_lines = [line for title, text in old if title == "Targets"
                   for line in text.splitlines() if line.startswith("|")]
    if table_lines:
        heading, _, rest = history.partition("\n")
        history = "\n".join([heading, "", f"### The Targets table replaced by the full run of "
                              f"{now}", "", *table_lines, rest])
    return [text for title, text in old if title not in _OWN and title not in titles] + [history]


BENCHMARKS: dict[str, Callable[[bool], Section]] = {
    "tidy": _tidy, "features": _features, "crawl": _crawl,
    "quota": _quota, "cache": _cache, "freshness": _freshness, "store": _store,
    "cachedlists": _cachedlists, "attrs": _attrs,
}


def render(sections: list[Section], *, quick: bool, total_s: float,
           kept: list[str] | None = None, commit: str = "") -> str:
    """The results page; ``kept``: sections of the page it replaces, put before the notes."""
    mode = "a quick smoke run: small sizes, 1 repetition" if quick else "a full run"
    lines = [
        "# Benchmark results",
        "",
        f"Written by `python -m benchmarks` (`make bench`), {mode}. Each benchmark runs "
        "icoframes side by side with the **baseline** a notebook user writes without it "
        "(`benchmarks/baseline.py`: one `requests.Session`, serial requests signed by "
        "hand, `pd.json_normalize` + per-column casts + Python loops, no cache), "
        "alternating project and baseline runs over several repetitions and reporting "
        "the **median (min–max)**. The machine is shared and noisy: read the ratios, "
        "not the absolute times. Everything talks to the bundled sandbox over "
        "127.0.0.1, in the same process as the client.",
        "",
        f"Total runtime of this run: **{total_s / 60:.1f} min** ({total_s:.0f} s).",
        "",
        "## Machine",
        "",
        table(["", "value"], [[k, v] for k, v in machine().items()], align=["l", "l"]),
        "",
    ]
    targets = [t for s in sections for t in s.targets]
    if targets:
        lines += ["## Targets", "", TARGETS_INTRO, "",
                  table(TARGET_HEADER, target_rows(sections, commit or _commit()),
                        align=["l"] * len(TARGET_HEADER)), ""]
    for s in sections:
        lines += [f"## {s.title}", "", s.body, "", f"*({s.seconds:.0f} s)*", ""]
    for text in kept or []:
        lines += [text, ""]
    notes = [n for s in sections for n in s.notes]
    missed = [t for t in targets if not t.met]
    notes = [f"Missed: {t.target} — measured {t.measured}." for t in missed] + notes
    notes.append(
        "The sandbox serves from a thread of the benchmark's own process, so client and "
        "server share one GIL and the machine's "
        f"{os.cpu_count()} cores. At 0 ms latency every run is CPU-bound on that shared "
        "interpreter: more client threads mostly add GIL hand-offs, and the figures say "
        "little about a remote service, where only latency and the client's own CPU count.")
    lines += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    return "\n".join(lines)


def _utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and one repetition (a smoke run)")
    parser.add_argument("--only", default=",".join(BENCHMARKS),
                        help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    parser.add_argument("--out", type=Path,
                        help=f"markdown file to write (default: {RESULTS} for a full run; "
                             "quick and partial runs print to stdout)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(BENCHMARKS))
    if unknown or not names:
        parser.error(f"--only takes names from {', '.join(BENCHMARKS)}; got {args.only!r}")
    partial = set(names) != set(BENCHMARKS)

    started = time.monotonic()
    sections = []
    for name in names:
        log(f"{name}: starting")
        begun, begun_utc, load = time.monotonic(), _utc_now(), os.getloadavg()[0]
        section = BENCHMARKS[name](args.quick)
        section.seconds = time.monotonic() - begun
        section.started, section.load = begun_utc, (load, os.getloadavg()[0])
        log(f"{name}: done in {section.seconds:.0f} s")
        sections.append(section)
    total = time.monotonic() - started
    out = args.out or (None if args.quick or partial else RESULTS)
    kept = (carried_over(out.read_text(encoding="utf-8"), {s.title for s in sections},
                         _utc_now()) if out is not None and out.exists() else None)
    text = render(sections, quick=args.quick, total_s=total, kept=kept)

    if out is None:
        print(text)
    else:
        out.write_text(text, encoding="utf-8")
        log(f"wrote {out}")
    log(f"total {total:.0f} s")
    if not args.quick and not partial and total > BUDGET_S + 1800:
        log(f"over budget: the full run should finish in {BUDGET_S} s; cut sizes or repeats")
    for t in (t for s in sections for t in s.targets if not t.met):
        log(f"target missed: {t.target}: {t.measured}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
