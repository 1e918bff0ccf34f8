"""Journal: what making each profile durable on arrival costs a cold crawl at 0 ms latency.

Two ways of keeping the profiles of a cold ``load_icos(status="past")``, run
alternately against one sandbox:

* **journal** (icoframes as it is): each profile is appended to this process's
  journal as it arrives (durable on return), ids are claimed before they are
  fetched, and the journal is folded into Parquet parts every
  ``FOLD_EVERY`` profiles or ``FOLD_SECONDS``;
* **in memory** (the way before the journal): profiles are buffered in memory
  and written as a Parquet part at the same fold points, with no claims, so a
  kill loses what was buffered and a second process fetches everything again.

At 0 ms latency the client's own work is all there is, so this is where the
journal's share shows most; against a remote service it is hidden by latency.

Run alone with ``python -m benchmarks --only journal``.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pyarrow as pa

import icoframes
from icoframes import sandbox
from icoframes.files import utcnow
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.journal import EVENT_SCHEMA

from .common import (
    Summary,
    Target,
    alternate,
    fresh_cache,
    log,
    requests_by_endpoint,
    spent_since,
    table,
    timed,
)

__all__ = ["FULL", "QUICK", "Config", "markdown", "run", "targets"]

JOURNAL, IN_MEMORY = "journal", "in memory"
TARGET_OVERHEAD = 0.05


@dataclass(frozen=True)
class Config:
    n_icos: int = 1200
    seed: int = 13
    repeats: int = 11  # the machine's noise is of the size measured: many short runs


FULL = Config()
QUICK = Config(n_icos=60, repeats=1)


class _NoClaims:
    """Claims that grant every id: one process, nobody to share with."""

    def claim(self, ids: list[int]) -> tuple[list[int], list[int]]:
        return list(ids), []

    def release(self, ids: Any) -> None:
        pass

    def close(self) -> None:
        pass


@contextlib.contextmanager
def in_memory() -> Iterator[None]:
    """Profiles buffered in memory and written as a part at each fold; no claims."""
    buffer: list[tuple[Any, ...]] = []
    mutex = threading.Lock()
    numbers = itertools.count()  # events are told apart by writer and number, as in a journal

    def append(self: Cache, record: ProfileRecord) -> None:
        with mutex:
            _, row = record.encode(next(numbers), utcnow(), "memory")
            buffer.append(row)

    def fold(self: Cache) -> None:
        with mutex:
            rows, buffer[:] = list(buffer), []
        if rows:
            events = pa.table([list(c) for c in zip(*rows, strict=True)], schema=EVENT_SCHEMA)
            with self.lock():
                self.log._write_part(events)

    with (mock.patch.object(Cache, "append", append), mock.patch.object(Cache, "fold", fold),
          mock.patch.object(Cache, "claims", lambda self: _NoClaims()),
          mock.patch.object(Cache, "arrived_since", lambda self, ids, marker: set())):
        yield


def _cold_load(sb: sandbox.Sandbox, how: str) -> tuple[int, int]:
    """One cold load; the rows and the requests it spent (checked by the caller)."""
    before = requests_by_endpoint(sb)
    with fresh_cache(sb), (in_memory() if how == IN_MEMORY else contextlib.nullcontext()):
        icos = icoframes.load_icos(status="past", progress=False)
    if not icos.attrs["icoframes"]["complete"]:
        raise AssertionError(f"journal benchmark, {how}: an incomplete load")
    return len(icos), sum(spent_since(sb, before).values())


def run(config: Config = FULL) -> dict[str, Any]:
    times: dict[str, list[float]] = {JOURNAL: [], IN_MEMORY: []}
    outcomes: set[tuple[str, int, int]] = set()
    with sandbox.serve(n_icos=config.n_icos, seed=config.seed, latency=0.0, quota=None) as sb:
        past = len(sb.directory.ids("past"))
        for rep in range(-1, config.repeats):  # rep -1: a warm-up of each, not timed
            for how in alternate((JOURNAL, IN_MEMORY), rep):
                seconds, (rows, requests) = timed(_cold_load, sb, how)
                outcomes.add((how, rows, requests))
                if rep >= 0:
                    times[how].append(seconds)
                    log(f"journal: {how}: {seconds:.2f} s, {requests} requests")
    # both ways must load every past ICO with the same requests, or the times mean nothing
    loads = {(rows, requests) for _, rows, requests in outcomes}
    if len(loads) != 1 or next(iter(loads))[0] != past:
        raise AssertionError(f"journal benchmark: loads differ or miss rows: {sorted(outcomes)}"
                             f" ({past} past ICOs)")
    rows, requests = next(iter(loads))
    return {"config": config, "rows": rows, "requests": requests,
            "times": {how: Summary.of(t) for how, t in times.items()}}


def overhead(result: dict[str, Any]) -> float:
    """The journal's median time over the in-memory median, less one."""
    return result["times"][JOURNAL].median / result["times"][IN_MEMORY].median - 1


def targets(result: dict[str, Any]) -> list[Target]:
    share = overhead(result)
    return [Target("journal", "the journal adds < 5% to a cold crawl at 0 ms latency",
                   f"{share:+.1%} ({result['times'][JOURNAL].median:.2f} s vs "
                   f"{result['times'][IN_MEMORY].median:.2f} s in memory, median)",
                   share < TARGET_OVERHEAD)]


def markdown(result: dict[str, Any]) -> str:
    config, times = result["config"], result["times"]
    rows = [[how, times[how].n, times[how].text(), f"{result['requests']:,}"]
            for how in (JOURNAL, IN_MEMORY)]
    return "\n".join([
        f"A cold `load_icos(status=\"past\")` of {result['rows']:,} ICOs (sandbox of "
        f"{config.n_icos:,}, no latency), from an empty cache dir each run, the two ways "
        "alternating after a warm-up of each: **journal** (icoframes: each profile appended "
        "to the journal on arrival, ids claimed, folds into parts) and **in memory** (the way "
        "before the journal: profiles buffered and written as a part at the same fold points, "
        "no claims). Both were checked to load the same rows with the same requests. "
        f"The journal's overhead: **{overhead(result):+.1%}** (medians); the ranges show "
        "this machine's run-to-run noise, of the same size, hence the many short runs.",
        "",
        table(["profiles kept", "runs", "wall time, median (min–max)", "requests"], rows,
              align=["l", "r", "r", "r"]),
    ])
