"""A load answered from the cache after N cached lists, side by side with another commit.

A narrower query is answered from a cached superset only when no list cached since says
its rows are not the service's now (:func:`icoframes.fetch.standing.contradicted`): every
list cached since is checked, so a session that has run many queries (a notebook, the
local query tests) pays for each of them on every load answered from the cache. Up to
commit 9ad5469 each list checked re-read the derived tables and judged its filters on
freshly aligned rows (50–120 ms a list on 300 ICOs on a loaded 2-core machine): the cost
of one load grew with the lists cached, that of a session with their square.

``python -m benchmarks --only cachedlists`` (or ``python -m benchmarks.bench_cached_lists``)
checks the baseline commit (default ``9ad5469``) out in a temporary git worktree and
runs, per tree and sandbox size, one process (``PYTHONPATH``: icoframes from that tree;
the public API only), the trees alternating. Per process, on a sandbox at 0 ms latency:
a cold ``load_icos(status="past")``; then N distinct narrower lists of the past ICOs
paged and cached (``refresh=True``: one category, type or country each, with one of
eight sorts), and after each step of N the timed load
``load_list(status="past", ico_score=3, sort_desc="id")``: answered from the cached
superset (0 requests, checked), every list cached since checked; the median of
``repeats`` loads. Both trees' answers are compared (the same ids in the same order).

The markdown goes to stdout (or the suite's RESULTS.md), progress to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
BASELINE_COMMIT = "9ad5469"
SEED = 3
#: (ICOs in the sandbox, the numbers of cached lists after which the load is timed, repeats)
FULL = ((300, (0, 10, 50, 100, 200), 3), (3_000, (0, 10, 50, 100), 3))
QUICK = ((120, (0, 5), 1),)
#: The timed query: a narrower one the cached superset answers.
QUERY: dict[str, Any] = {"ico_score": 3, "sort_desc": "id"}
SORTS: tuple[dict[str, str], ...] = (
    {}, {"sort_asc": "name"}, {"sort_desc": "name"}, {"sort_asc": "start_datetime"},
    {"sort_desc": "start_datetime"}, {"sort_asc": "end_datetime"},
    {"sort_desc": "end_datetime"}, {"sort_asc": "id"})


# -- one process, one tree (imports nothing of benchmarks/: it runs against any tree) -----


def measure(n_icos: int, steps: tuple[int, ...], repeats: int) -> dict[str, Any]:
    """The timed load after each step of cached lists, in this process's icoframes."""
    import warnings

    import icoframes
    from icoframes import sandbox

    out: dict[str, Any] = {"icoframes": str(Path(icoframes.__file__).resolve().parent), "steps": []}
    with sandbox.serve(n_icos=n_icos, seed=SEED, quota=None) as sb, \
            tempfile.TemporaryDirectory(prefix="icoframes-bench-lists-") as cache, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NoMatchWarning of the lists without a row
        icoframes.configure(**sb.settings(), cache_dir=cache, daily_quota=100 * n_icos)

        def spent() -> int:
            return sum(sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico"))

        out["n_past"] = len(icoframes.load_icos(status="past", progress=False))
        filters = icoframes.load_filters()
        named = filters.loc[filters["filter"].isin(["category", "type", "location"])]
        lists = [{row.filter: row.name, **sort} for sort in SORTS for row in named.itertuples()]
        if max(steps) > len(lists):
            raise SystemExit(f"bench_cached_lists: {len(lists)} distinct lists, not {max(steps)}")
        cached = 0
        for n in steps:
            while cached < n:
                icoframes.load_list(status="past", progress=False, refresh=True, **lists[cached])
                cached += 1
            seconds, ids = [], []
            for _ in range(repeats):
                before, start = spent(), time.perf_counter()
                rows = icoframes.load_list(status="past", progress=False, **QUERY)
                seconds.append(time.perf_counter() - start)
                if spent() != before:
                    raise SystemExit(f"bench_cached_lists: the load after {n} lists was paged")
                ids = rows["id"].tolist()
            digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:12]
            out["steps"].append({"lists": n, "seconds": seconds, "rows": len(ids),
                                 "answer": digest})
        icoframes.reset_configuration()
    return out


# -- the driver ---------------------------------------------------------------------------


def _log(message: str) -> None:
    print(f"[bench_cached_lists] {message}", file=sys.stderr, flush=True)


def _child(tree: Path, n_icos: int, steps: tuple[int, ...], repeats: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(HERE), "--child", json.dumps([n_icos, steps,
                                                                             repeats])],
                          env=env, cwd=tempfile.gettempdir(), check=True,
                          stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    if Path(result["icoframes"]).resolve() != (tree / "icoframes").resolve():
        raise RuntimeError(f"the child imported {result['icoframes']}, not {tree}")
    return result


def run(commit: str = BASELINE_COMMIT, *, quick: bool = False) -> dict[str, Any]:
    """Every size, both trees (the baseline ``commit`` first, then this tree, alternating
    from one size to the next); the answers of the two trees must be the same."""
    here = HERE.parents[1]
    sizes = QUICK if quick else FULL
    result: dict[str, Any] = {"commit": commit, "sizes": []}
    from .common import baseline_worktree  # (here: each child runs this file as a script)

    with baseline_worktree(commit) as base:
        trees = {commit: base, "this tree": here}
        for i, (n_icos, steps, repeats) in enumerate(sizes):
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            runs: dict[str, Any] = {}
            for name in order:
                _log(f"{n_icos} ICOs, lists {steps}: {name}")
                runs[name] = _child(trees[name], n_icos, steps, repeats)
            answers = {name: [s["answer"] for s in runs[name]["steps"]] for name in trees}
            if answers[commit] != answers["this tree"]:
                raise AssertionError(f"{n_icos} ICOs: the trees answered differently: "
                                     f"{answers}")
            result["sizes"].append({"n_icos": n_icos, "repeats": repeats,
                                    "n_past": runs["this tree"]["n_past"],
                                    "runs": runs})
    return result


def _median(step: dict[str, Any]) -> float:
    return statistics.median(step["seconds"])


def markdown(result: dict[str, Any]) -> str:
    commit = result["commit"]
    lines = [f"`load_list(status=\"past\", {', '.join(f'{k}={v!r}' for k, v in QUERY.items())})`"
             " answered from the cached `status=\"past\"` list after N narrower lists were "
             f"paged and cached, this tree against {commit} (the commit before the fix), one "
             "process per tree and size, alternating; the median of the repeats; 0 requests "
             "and the same rows in both trees (checked).", "",
             f"| ICOs (past) | cached lists N | {commit} | this tree | {commit} ÷ this tree | "
             "rows |", "|---:|---:|---:|---:|---:|---:|"]
    for size in result["sizes"]:
        before, after = size["runs"][commit]["steps"], size["runs"]["this tree"]["steps"]
        for old, new in zip(before, after, strict=True):
            lines.append(f"| {size['n_icos']:,} ({size['n_past']:,}) | {new['lists']} | "
                         f"{_median(old):.3f} s | {_median(new):.3f} s | "
                         f"{_median(old) / _median(new):.1f}× | {new['rows']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE_COMMIT, help="the commit to compare with")
    parser.add_argument("--quick", action="store_true", help="one small size, one repeat")
    args = parser.parse_args(argv)
    print(markdown(run(args.baseline, quick=args.quick)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        n_icos, steps, repeats = json.loads(sys.argv[2])
        print(json.dumps(measure(n_icos, tuple(steps), repeats)))
    else:
        main()
