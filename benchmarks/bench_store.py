"""Issue 18's measures, this tree side by side with the commit before the SQLite store.

``python -m benchmarks --only store`` (or ``python -m benchmarks.bench_store``) checks
the baseline commit (default ``c308183``, the last main before the store) out in a
temporary git worktree and runs every measure in separate processes, one tree after
the other, each process importing icoframes from its tree (``PYTHONPATH``) and using
only the public API:

* **crawl**: a cold ``load_icos(status="past")`` of a 300-ICO sandbox (230 past) with
  the default workers, alternating with the serial hand-written baseline
  (:mod:`benchmarks.baseline`), at 0 ms and at 50 ms latency; the limit is
  requests × latency ÷ workers; and at 0 ms again with the sandbox in a process of its
  own (``icoframes sandbox``), as a remote service is: client and server then share
  neither an interpreter lock nor a core;
* **processes**: a cold ``load_icos(status="past")`` of a 3,000-ICO sandbox (2,233
  past) by one process, then by three processes started together on one empty cache
  dir; the sandbox serves from another process; time from the go to the last return;
* **memory**: the peak resident memory (``ru_maxrss``) of a process making a cold
  ``load_icos()`` of all 20,000 ICOs of a sandbox served from another process;
* **load** (:mod:`benchmarks.bench_load`): warm ``load_icos`` of about 10,000 ICOs,
  a refresh of 10% with the derived tables' share, narrower queries after a superset.

The markdown goes to stdout (or the suite's RESULTS.md), progress to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
BASELINE_COMMIT = "c308183"
CRAWL_ICOS, CRAWL_REPEATS, LATENCIES = 300, 3, (0.0, 0.05)
PROCESS_ICOS, PROCESSES = 3_000, 3
MEMORY_ICOS = 20_000
SEED = 7

#: One load in a process of its own: ready, wait for the go on stdin, load, report.
LOADER = """
import json, resource, sys, time
import icoframes
job = json.loads(sys.argv[1])
icoframes.configure(**job["settings"])
print("ready", flush=True)
sys.stdin.readline()
start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)
rows = len(icoframes.load_icos(progress=False, **job["query"]))
end, after = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"start": start, "end": end, "rows": rows, "icoframes": icoframes.__file__,
                  "cpu_s": cpu,
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# -- in a child process, one tree ---------------------------------------------------------


def _loaders(tree: Path, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Start one loader process per job, let them all go at once, return their reports."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    procs = [subprocess.Popen([sys.executable, "-c", LOADER, json.dumps(job)], env=env,
                              cwd=tempfile.gettempdir(), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for job in jobs]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go = time.monotonic()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.close()
    reports = []
    for proc in procs:
        assert proc.stdout is not None
        out = proc.stdout.read()
        if proc.wait():
            raise RuntimeError(f"a loader exited with {proc.returncode}")
        report = json.loads(out)
        report["from_go_s"] = report["end"] - go
        if Path(report["icoframes"]).parent.resolve() != (tree / "icoframes").resolve():
            raise RuntimeError(f"a loader imported {report['icoframes']}, not {tree}")
        reports.append(report)
    return reports


def _spent(sb: Any) -> int:
    return sum(sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico"))


def measure_crawl(tree: Path, n_icos: int, repeats: int) -> dict[str, Any]:
    import icoframes
    from benchmarks import baseline  # the tree's copy: unchanged since the baseline commit
    from icoframes import sandbox

    out: dict[str, Any] = {}
    with sandbox.serve(n_icos=n_icos, seed=SEED, quota=None) as sb:
        out["n_past"] = len(sb.directory.ids("past"))
        for latency in LATENCIES:
            sb.set_latency(latency)
            times: dict[str, list[float]] = {"icoframes": [], "baseline": []}
            requests: dict[str, set[int]] = {"icoframes": set(), "baseline": set()}
            for rep in range(repeats):
                for who in (["icoframes", "baseline"] if rep % 2 == 0
                            else ["baseline", "icoframes"]):
                    before = _spent(sb)
                    with tempfile.TemporaryDirectory(prefix="icoframes-bench-") as cache:
                        start = time.perf_counter()
                        if who == "baseline":
                            rows = len(baseline.load(sb.settings(), "past")["icos"])
                        else:
                            icoframes.configure(**sb.settings(), cache_dir=cache)
                            rows = len(icoframes.load_icos(status="past", progress=False))
                            icoframes.reset_configuration()
                        times[who].append(time.perf_counter() - start)
                    requests[who].add(_spent(sb) - before)
                    if rows != out["n_past"]:
                        raise AssertionError(f"{who}: {rows} rows, expected {out['n_past']}")
            out[f"{latency * 1000:.0f} ms"] = {
                who: {"times": t, "requests": sorted(requests[who])} for who, t in times.items()}
    out["workers"] = icoframes.config.Settings().max_workers
    return out


@contextlib.contextmanager
def _served_apart(tree: Path, n_icos: int, latency: float) -> Iterator[dict[str, Any]]:
    """``icoframes sandbox`` in a process of its own (as a remote service is): its settings."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    server = subprocess.Popen([sys.executable, "-m", "icoframes", "sandbox", "--port", "0",
                               "--quota", "none", "--n-icos", str(n_icos), "--seed", str(SEED),
                               "--latency", str(latency)],
                              env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1]  # "... serving N ICOs at <url>"
        yield {"base_url": url, "public_key": "sandbox-public", "private_key": "sandbox-private"}
    finally:
        server.terminate()
        server.wait()


def measure_crawl_apart(tree: Path, n_icos: int, repeats: int) -> dict[str, Any]:
    """The crawl of :func:`measure_crawl` with the sandbox in a process of its own: at 0 ms
    alternating with the serial baseline (``icoframes``, ``baseline``), then icoframes alone
    at 50 ms (``"50 ms"``; the serial baseline's 13 s a run is measured in-process)."""
    import icoframes
    from benchmarks import baseline

    times: dict[str, list[float]] = {"icoframes": [], "baseline": []}
    rows: dict[str, set[int]] = {"icoframes": set(), "baseline": set()}
    slow: list[float] = []

    def load(settings: dict[str, Any], who: str) -> float:
        with tempfile.TemporaryDirectory(prefix="icoframes-bench-") as cache:
            start = time.perf_counter()
            if who == "baseline":
                rows[who].add(len(baseline.load(settings, "past")["icos"]))
            else:
                icoframes.configure(**settings, cache_dir=cache)
                rows[who].add(len(icoframes.load_icos(status="past", progress=False)))
                icoframes.reset_configuration()
            return time.perf_counter() - start

    with _served_apart(tree, n_icos, 0.0) as settings:
        for rep in range(repeats):
            for who in ["icoframes", "baseline"][:: 1 if rep % 2 == 0 else -1]:
                times[who].append(load(settings, who))
    with _served_apart(tree, n_icos, LATENCIES[-1]) as settings:
        slow = [load(settings, "icoframes") for _ in range(repeats)]
    if len(rows["icoframes"] | rows["baseline"]) != 1:
        raise AssertionError(f"the loads read different rows: {rows}")
    return {"n_past": rows["icoframes"].pop(), **{who: {"times": t} for who, t in times.items()},
            f"{LATENCIES[-1] * 1000:.0f} ms": {"icoframes": {"times": slow}}}


def measure_processes(tree: Path, n_icos: int, processes: int) -> dict[str, Any]:
    from icoframes import sandbox

    out: dict[str, Any] = {}
    with sandbox.serve(n_icos=n_icos, seed=SEED, quota=None) as sb:
        out["n_past"] = len(sb.directory.ids("past"))
        for n in (1, processes):
            with tempfile.TemporaryDirectory(prefix="icoframes-bench-") as cache:
                job = {"settings": {**sb.settings(), "cache_dir": cache,
                                    "daily_quota": 10 * n_icos}, "query": {"status": "past"}}
                before = _spent(sb)
                reports = _loaders(tree, [job] * n)
                out[str(n)] = {"total_s": max(r["from_go_s"] for r in reports),
                               "each_s": [r["end"] - r["start"] for r in reports],
                               "cpu_s": sum(r["cpu_s"] for r in reports),
                               "rows": [r["rows"] for r in reports],
                               "requests": _spent(sb) - before}
    return out


def measure_memory(tree: Path, n_icos: int) -> dict[str, Any]:
    from icoframes import sandbox

    with sandbox.serve(n_icos=n_icos, seed=SEED, quota=None) as sb, \
            tempfile.TemporaryDirectory(prefix="icoframes-bench-") as cache:
        job = {"settings": {**sb.settings(), "cache_dir": cache, "daily_quota": 10 * n_icos},
               "query": {}}
        before = _spent(sb)
        [report] = _loaders(tree, [job])
        return {"rows": report["rows"], "peak_mib": report["maxrss_mib"],
                "seconds": report["end"] - report["start"], "requests": _spent(sb) - before}


def _child(tree: Path, mode: str, *args: int) -> dict[str, Any]:
    script = HERE.with_name("bench_load.py") if mode == "load" else HERE
    argv = [str(a) for a in args] if mode == "load" else [mode, str(tree), *map(str, args)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(["nice", sys.executable, str(script), "--child", *argv], env=env,
                          cwd=tempfile.gettempdir(), check=True, stdout=subprocess.PIPE,
                          text=True)
    return dict(json.loads(done.stdout))


# -- the driver ---------------------------------------------------------------------------


def _log(message: str) -> None:
    print(f"[bench_store] {message}", file=sys.stderr, flush=True)


def run(commit: str = BASELINE_COMMIT, *, quick: bool = False) -> dict[str, Any]:
    """Every measure for the baseline commit, then for this tree; returns the figures."""
    sizes = {"crawl": (60, 1), "crawl_apart": (60, 1), "processes": (200, PROCESSES),
             "memory": (400,), "load": (300, 1)} if quick else {
        "crawl": (CRAWL_ICOS, CRAWL_REPEATS), "crawl_apart": (CRAWL_ICOS, 2 * CRAWL_REPEATS),
        "processes": (PROCESS_ICOS, PROCESSES),
        "memory": (MEMORY_ICOS,), "load": (13_500, 3)}
    here = HERE.parents[1]
    result: dict[str, Any] = {"commit": commit, "sizes": sizes, "trees": {}}
    from .common import baseline_worktree  # (here: each child runs this file as a script)

    with baseline_worktree(commit) as base:
        trees = {commit: base, "this tree": here}
        for mode, args in sizes.items():
            for name, tree in trees.items():
                _log(f"{mode} {args}: {name}")
                started = time.monotonic()
                figures = _child(tree, mode, *args)
                result["trees"].setdefault(name, {})[mode] = figures
                _log(f"{mode}: {name} done in {time.monotonic() - started:.0f} s")
    return result


def _median(values: list[float]) -> float:
    return statistics.median(values)


def markdown(result: dict[str, Any]) -> str:
    from .bench_load import markdown as load_markdown

    names = list(result["trees"])
    a, b = names
    ta, tb = result["trees"][a], result["trees"][b]
    repeats = result["sizes"]["crawl"][1]
    lines = [f"| measure | {a} | this tree | this ÷ {a} |", "|:---|---:|---:|---:|"]

    def row(label: str, va: float, vb: float, unit: str = "s", digits: int = 2) -> None:
        lines.append(f"| {label} | {va:.{digits}f} {unit} | {vb:.{digits}f} {unit} | "
                     f"{vb / va:.2f}× |")

    for latency in (f"{ms * 1000:.0f} ms" for ms in LATENCIES):
        ca, cb = ta["crawl"][latency], tb["crawl"][latency]
        row(f"cold crawl of {tb['crawl']['n_past']} ICOs at {latency}: icoframes, "
            f"{tb['crawl']['workers']} workers", _median(ca["icoframes"]["times"]),
            _median(cb["icoframes"]["times"]))
        row("… the serial baseline, same process", _median(ca["baseline"]["times"]),
            _median(cb["baseline"]["times"]))
    aa, ab = ta.get("crawl_apart"), tb.get("crawl_apart")
    if aa and ab:
        row(f"cold crawl of {ab['n_past']} ICOs at 0 ms, the sandbox in its own process: "
            "icoframes", _median(aa["icoframes"]["times"]), _median(ab["icoframes"]["times"]))
        row("… the serial baseline", _median(aa["baseline"]["times"]),
            _median(ab["baseline"]["times"]))
        if "50 ms" in aa and "50 ms" in ab:
            row("… at 50 ms: icoframes", _median(aa["50 ms"]["icoframes"]["times"]),
                _median(ab["50 ms"]["icoframes"]["times"]))
    pa, pb = ta["processes"], tb["processes"]
    n = result["sizes"]["processes"][1]
    row(f"cold `load_icos(status=\"past\")` of {pb['n_past']:,} ICOs, 1 process",
        pa["1"]["total_s"], pb["1"]["total_s"])
    row(f"… {n} processes on one cache dir, go to last return", pa[str(n)]["total_s"],
        pb[str(n)]["total_s"])
    ma, mb = ta["memory"], tb["memory"]
    row(f"peak memory (ru_maxrss) of a cold `load_icos()` of {mb['rows']:,} ICOs",
        ma["peak_mib"], mb["peak_mib"], "MiB", 0)
    row("… its time", ma["seconds"], mb["seconds"])
    sent = [", ".join(map(str, t["crawl"]["0 ms"]["icoframes"]["requests"])) for t in (ta, tb)]
    requests = (f"Requests: the crawl sent {sent[0]} ({a}) and {sent[1]} (this tree) per "
                f"run; {n} processes sent {pa[str(n)]['requests']} ({a}) and "
                f"{pb[str(n)]['requests']} (this tree) against {pa['1']['requests']} and "
                f"{pb['1']['requests']} for one; the memory run {ma['requests']:,} and "
                f"{mb['requests']:,}.")
    intro = (f"Baseline: `{result['commit']}`, the last main before the SQLite store, in a "
             "temporary worktree; every measure runs in processes of its own, one tree after "
             f"the other, under `nice`. Crawl: median of {repeats} runs alternating with the "
             "serial baseline in the same process, sandbox in that process (the crawl apart: "
             "the same at 0 ms, the sandbox in a process of its own); processes and "
             "memory: one run each, the sandbox in another process.")
    load = load_markdown(names, {name: [result["trees"][name]["load"]] for name in names},
                         result["sizes"]["load"][0])
    return "\n".join([intro, "", *lines, "", requests, "", load])


def targets(result: dict[str, Any]) -> list[Any]:
    from .common import Target

    t = result["trees"]["this tree"]
    out = []
    c0, c50 = t["crawl"]["0 ms"], t["crawl"]["50 ms"]
    ours0, base0 = _median(c0["icoframes"]["times"]), _median(c0["baseline"]["times"])
    out.append(Target("store", "cold crawl at 0 ms no slower than the serial baseline",
                      f"{base0 / ours0:.2f}× the baseline's speed ({ours0:.2f} s vs "
                      f"{base0:.2f} s)", ours0 <= base0))
    if apart := t.get("crawl_apart"):
        ours, base = (_median(apart[who]["times"]) for who in ("icoframes", "baseline"))
        out.append(Target("store", "… the same with the sandbox in its own process (as a "
                          "remote service)", f"{base / ours:.2f}× the baseline's speed "
                          f"({ours:.2f} s vs {base:.2f} s)", ours <= base))
    ours50 = _median(c50["icoframes"]["times"])
    limit = max(c50["icoframes"]["requests"]) * 0.05 / t["crawl"]["workers"]
    out.append(Target("store", "cold crawl at 50 ms within 1.2× of requests × latency ÷ "
                      "workers", f"{ours50 / limit:.2f}× ({ours50:.2f} s vs {limit:.2f} s)",
                      ours50 <= 1.2 * limit))
    if apart and "50 ms" in apart:
        ours = _median(apart["50 ms"]["icoframes"]["times"])
        out.append(Target("store", "… the same with the sandbox in its own process",
                          f"{ours / limit:.2f}× ({ours:.2f} s vs {limit:.2f} s)",
                          ours <= 1.2 * limit))
    p = t["processes"]
    n = str(result["sizes"]["processes"][1])
    out.append(Target("store", f"{n} processes on one cache no slower in total than one",
                      f"{p[n]['total_s']:.2f} s vs {p['1']['total_s']:.2f} s",
                      p[n]["total_s"] <= p["1"]["total_s"]))
    peak = t["memory"]["peak_mib"]
    out.append(Target("store", f"peak memory of a cold {t['memory']['rows']:,}-ICO load "
                      "≤ 454 MiB", f"{peak:.0f} MiB", peak <= 454))
    base_warm = _median(result["trees"][result["commit"]]["load"]["warm_s"])
    warm = _median(t["load"]["warm_s"])
    out.append(Target("store", "warm load_icos of ~10,000 ICOs no slower than before the store",
                      f"{warm:.3f} s vs {base_warm:.3f} s", warm <= base_warm))
    narrower = t["load"]["narrower"]
    spent = [q["requests"] for q in narrower]
    out.append(Target("store", "narrower queries after a superset load at 0 requests",
                      f"{sum(1 for s in spent if s == 0)} of {len(spent)} at 0 "
                      f"(requests: {', '.join(map(str, spent))})", not any(spent)))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE_COMMIT)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.baseline, quick=args.quick)
    print(markdown(result))
    for target in targets(result):
        print(f"- {target.target}: {target.measured} ({'met' if target.met else 'MISSED'})")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        mode, tree, *rest = sys.argv[2:]
        measures = {"crawl": measure_crawl, "crawl_apart": measure_crawl_apart,
                    "processes": measure_processes,
                    "memory": measure_memory}
        print(json.dumps(measures[mode](Path(tree), *map(int, rest))))
    else:
        main()
