"""Shared helpers of the benchmarks: timing, summaries, formatting, the machine, progress."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import icoframes

T = TypeVar("T")

_STARTED = time.monotonic()


def log(message: str) -> None:
    """Progress to stderr, stamped with seconds since the suite started."""
    print(f"[bench {time.monotonic() - _STARTED:6.1f} s] {message}", file=sys.stderr, flush=True)


def timed(function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[float, T]:
    """Wall seconds of one call, and its result."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


@dataclass(frozen=True)
class Summary:
    """Median and range of repeated timings (seconds)."""

    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        if not samples:
            raise ValueError("no samples")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def text(self, digits: int = 2) -> str:
        if self.n == 1:
            return f"{self.median:.{digits}f} s (1 run)"
        return f"{self.median:.{digits}f} s ({self.low:.{digits}f}–{self.high:.{digits}f})"


def alternate(order: Sequence[T], rep: int) -> list[T]:
    """The run order for one repetition: reversed every other time.

    Alternating the order means slow drift of the machine's load (and any
    position effect, like a cold page cache for whoever runs first) hits the
    project and the baseline alike.
    """
    return list(order) if rep % 2 == 0 else list(reversed(order))


@dataclass(frozen=True)
class Target:
    """One performance target and how the run did against it."""

    benchmark: str
    target: str
    measured: str
    met: bool


def requests_by_endpoint(sb: Any) -> dict[str, int]:
    """Requests the sandbox has received so far, per endpoint (a snapshot)."""
    counts = sb.stats.requests
    return {k: counts.get(k, 0) for k in ("filters", "icos", "ico")}


def spent_since(sb: Any, before: dict[str, int]) -> dict[str, int]:
    """Requests per endpoint received since the snapshot ``before``."""
    now = requests_by_endpoint(sb)
    return {k: now[k] - before[k] for k in now}


@contextlib.contextmanager
def baseline_worktree(commit: str) -> Iterator[Path]:
    """This repository at ``commit``, checked out in a temporary git worktree (under the
    system's temp dir) for a benchmark to run beside this tree; removed afterwards."""
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="icoframes-baseline-") as tmp:
        tree = Path(tmp) / f"icoframes-{commit}"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(tree),
                        commit], check=True, stdout=subprocess.DEVNULL)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)],
                           check=False)


@contextlib.contextmanager
def fresh_cache(sb: Any, **settings: Any) -> Iterator[Path]:
    """Point icoframes at ``sb`` with an empty cache dir, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="icoframes-bench-") as tmp:
        icoframes.configure(**sb.settings(), cache_dir=tmp, **settings)
        try:
            yield Path(tmp)
        finally:
            icoframes.reset_configuration()


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:.1f} MB"


def ratio(value: float) -> str:
    return f"{value:.1f}×"


def _memory_total() -> str:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, str]:
    """What the numbers were measured on."""
    import numpy
    import pandas
    import pyarrow
    import requests

    return {
        "date (UTC)": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M"),
        "CPU": _cpu_model(),
        "cores (os.cpu_count)": str(os.cpu_count()),
        "memory (MemTotal)": _memory_total(),
        "OS": f"{platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "icoframes": icoframes.__version__,
        "pandas": pandas.__version__,
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
        "requests": requests.__version__,
    }


def table(header: Sequence[str], rows: Sequence[Sequence[Any]],
          align: Sequence[str] | None = None) -> str:
    """A markdown table; ``align`` holds "l" or "r" per column (default: first left, rest right)."""
    align = align or ["l"] + ["r"] * (len(header) - 1)
    marks = [":---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
