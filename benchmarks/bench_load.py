"""Load path, side by side with another commit: warm loads, a 10% refresh, narrower queries.

``python -m benchmarks.bench_load --baseline c308183`` checks the baseline commit out
in a temporary git worktree (under the system's temp dir), then runs the same
measurement in separate processes, alternating the two trees (A B B A ...), each
process importing icoframes from its tree (``PYTHONPATH``) and using only the
public API. Per process, on a sandbox of ``n_icos`` ICOs (about 10,000 past) at
0 ms latency:

* a cold ``load_icos(status="past")`` fills the cache (for scale only);
* warm ``load_icos(status="past")``: the median of several runs after one untimed;
* narrower queries after that superset load: the rows ``offline=True`` returns
  (before any of them was asked online), then the requests each spends online
  (counted by the sandbox);
* a refresh of 10%: the ``raised`` of every tenth past ICO changes in the
  sandbox, then ``load_icos(status="past", refresh=True)`` re-pages the list and
  fetches those profiles; the time of the call and, inside it, of bringing the
  derived tables up to date (``DerivedTables``: the rebuild share).

The markdown goes to stdout (for RESULTS.md), progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

N_ICOS = 13_500
SEED = 7
WARM_RUNS = 5
#: Narrower queries of the past ICOs, as loader keywords.
NARROWER: tuple[dict[str, Any], ...] = (
    {"category": "Finance"}, {"type": ["IEO", "STO"]}, {"location": "Singapore"},
    {"ico_score": 4}, {"investor_kyc": True}, {"bounty_program": True, "ico_score": 3},
    {"accepted_currencies": "ETH"}, {"sort_asc": "id"}, {"sort_desc": "id"},
    {"platform": "Ethereum"}, {"exclude_areas": "USA"}, {"sort_asc": "name"},
)


# -- one process, one tree (imports nothing of benchmarks/: it runs against any tree) -----


def _timed_methods(cls: type, names: tuple[str, ...], sink: list[float]) -> None:
    """Wrap the methods of ``cls`` among ``names``; add each outermost call's seconds."""
    depth = [0]
    for name in names:
        method = getattr(cls, name, None)
        if method is None:  # a name of another tree: each tree measured has one of them
            continue

        def wrapper(self: Any, *args: Any, __method: Any = method, **kwargs: Any) -> Any:
            depth[0] += 1
            start = time.perf_counter()
            try:
                return __method(self, *args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    sink.append(time.perf_counter() - start)

        setattr(cls, name, wrapper)


def measure(n_icos: int, warm_runs: int) -> dict[str, Any]:
    import icoframes
    from icoframes import sandbox
    from icoframes.errors import NotCached
    from icoframes.store import derived

    derived_s: list[float] = []
    # the derived-table work under its name in each tree: `update` before the SQLite
    # store (c308183), `_rebuild` and `_update` after; a tree with none would time 0 s
    _timed_methods(derived.DerivedTables, ("_rebuild", "_update", "update"), derived_s)
    if not any(hasattr(derived.DerivedTables, n) for n in ("_rebuild", "_update", "update")):
        raise SystemExit("bench_load: no derived-table method to time in this tree")
    out: dict[str, Any] = {"icoframes": str(Path(icoframes.__file__).resolve().parent)}
    with sandbox.serve(n_icos=n_icos, seed=SEED, quota=None) as sb, \
            tempfile.TemporaryDirectory(prefix="icoframes-bench-load-") as cache:
        icoframes.configure(**sb.settings(), cache_dir=cache, daily_quota=10 * n_icos)

        def spent() -> int:
            return sum(sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico"))

        start = time.perf_counter()
        icos = icoframes.load_icos(status="past", progress=False, max_workers=16)
        out["cold_s"], out["n_past"] = time.perf_counter() - start, len(icos)
        icoframes.load_filters()
        icoframes.load_icos(status="past", progress=False)  # untimed: first touch
        warm = []
        for _ in range(warm_runs):
            start = time.perf_counter()
            icoframes.load_icos(status="past", progress=False)
            warm.append(time.perf_counter() - start)
        out["warm_s"] = warm

        narrower = []
        for filters in NARROWER:
            try:  # first: what the superset alone answers
                offline: int | str = len(icoframes.load_icos(status="past", progress=False,
                                                             offline=True, **filters))
            except NotCached:
                offline = "NotCached"
            before = spent()
            start = time.perf_counter()
            rows = len(icoframes.load_icos(status="past", progress=False, **filters))
            seconds = time.perf_counter() - start
            requests = spent() - before
            narrower.append({"filters": filters, "rows": rows, "requests": requests,
                             "seconds": seconds, "offline_rows": offline})
        out["narrower"] = narrower

        past = sb.directory.ids("past")
        changed = past[::10]
        for ico_id in changed:
            record = sb.directory.record(ico_id)
            sb.update_ico(ico_id, raised=(record.raised or 0) + 1000)
        derived_s.clear()
        before = spent()
        start = time.perf_counter()
        refreshed = icoframes.load_icos(status="past", progress=False, refresh=True)
        out["refresh"] = {"seconds": time.perf_counter() - start, "changed": len(changed),
                          "requests": spent() - before, "derived_s": sum(derived_s),
                          "rows": len(refreshed)}
        icoframes.reset_configuration()
    return out


# -- the driver ---------------------------------------------------------------------------


def _log(message: str) -> None:
    print(f"[bench_load] {message}", file=sys.stderr, flush=True)


def _child(tree: Path, n_icos: int, warm_runs: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, __file__, "--child", str(n_icos), str(warm_runs)],
                          env=env, cwd=tempfile.gettempdir(), check=True,
                          stdout=subprocess.PIPE, text=True)
    result = json.loads(done.stdout)
    if Path(result["icoframes"]).resolve() != (tree / "icoframes").resolve():
        raise RuntimeError(f"the child imported {result['icoframes']}, not {tree}")
    return result


def _median(values: list[float]) -> float:
    return statistics.median(values)


def markdown(names: list[str], runs: dict[str, list[dict[str, Any]]], n_icos: int) -> str:
    a, b = names
    first = {name: runs[name][0] for name in names}
    n_past = first[a]["n_past"]
    lines = [f"Sandbox of {n_icos:,} ICOs ({n_past:,} past), 0 ms latency, "
             f"{len(runs[a])} processes per tree, alternating; times are medians over them.",
             "", f"| measure | {a} | {b} | {b} ÷ {a} |", "|:---|---:|---:|---:|"]

    def row(label: str, key: Any, unit: str = "s") -> None:
        va = _median([key(r) for r in runs[a]])
        vb = _median([key(r) for r in runs[b]])
        lines.append(f"| {label} | {va:.3f} {unit} | {vb:.3f} {unit} | {vb / va:.2f}× |")

    row(f"warm `load_icos(status=\"past\")`, {n_past:,} ICOs",
        lambda r: _median(r["warm_s"]))
    row("refresh of 10%: `load_icos(status=\"past\", refresh=True)`",
        lambda r: r["refresh"]["seconds"])
    row("… of which bringing the derived tables up to date",
        lambda r: r["refresh"]["derived_s"])
    row("cold `load_icos(status=\"past\")` (for scale)", lambda r: r["cold_s"])
    refresh = {n: first[n]["refresh"] for n in names}
    share = {n: 100 * _median([r["refresh"]["derived_s"] / r["refresh"]["seconds"]
                               for r in runs[n]]) for n in names}
    lines += ["", "Refresh of 10%: " + "; ".join(
        f"{n}: {refresh[n]['changed']} profiles changed, {refresh[n]['requests']} requests, "
        f"derived tables {share[n]:.0f}% of the call" for n in names) + ".", "",
        f"| narrower query after `load_icos(status=\"past\")` | rows | requests: {a} | "
        f"requests: {b} | offline: {a} | offline: {b} |", "|:---|---:|---:|---:|---:|---:|"]
    for qa, qb in zip(first[a]["narrower"], first[b]["narrower"], strict=True):
        shown = ", ".join(f"{k}={v!r}" for k, v in qa["filters"].items())
        lines.append(f"| `{shown}` | {qa['rows']} | {qa['requests']} | {qb['requests']} | "
                     f"{qa['offline_rows']} | {qb['offline_rows']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=2, help="processes per tree")
    parser.add_argument("--n-icos", type=int, default=N_ICOS)
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parents[1]
    from .common import baseline_worktree  # (here: each child runs this file as a script)

    with baseline_worktree(args.baseline) as baseline:
        trees = {args.baseline: baseline, "this tree": here}
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for rep in range(args.runs):
            order = list(trees) if rep % 2 == 0 else list(reversed(trees))
            for name in order:
                _log(f"run {rep + 1}/{args.runs}: {name}")
                runs[name].append(_child(trees[name], args.n_icos, WARM_RUNS))
    print(markdown(list(trees), runs, args.n_icos))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        main()
