"""Speed helpers shared by generation and rendering: fast seeded draws and a GC pause.

Each draw consumes the generator exactly as the data was first made with, so
changing one changes every seeded directory.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import random
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["Weighted", "gc_paused", "pick", "sample", "split"]


class Weighted:
    """Fast weighted choice: one ``random()`` and a bisect."""

    def __init__(self, pairs: Iterable[tuple[Any, float]]):
        items = list(pairs)
        self.values = [v for v, _ in items]
        self.cum = list(itertools.accumulate(w for _, w in items))
        self.total = self.cum[-1]

    def pick(self, rng: random.Random) -> Any:
        return self.values[bisect.bisect_right(self.cum, rng.random() * self.total)]


def pick(rng: random.Random, seq: tuple[Any, ...] | list[Any]) -> Any:
    # random.choice goes through _randbelow; one float draw is several times faster
    return seq[int(rng.random() * len(seq))]


def sample(rng: random.Random, seq: tuple[Any, ...], k: int) -> list[Any]:
    # random.sample spends most of its time in an isinstance(Sequence) check
    pool = list(seq)
    rnd = rng.random
    for i in range(k):
        j = i + int(rnd() * (len(pool) - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def split(rng: random.Random, centre: float, low: float, high: float) -> float:
    """A draw whose lower and upper halves have different spreads (skewed figures)."""
    z = rng.gauss(0.0, 1.0)
    return centre + z * (low if z < 0 else high)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many acyclic objects.

    Generating and rendering allocate millions of small dicts and lists without
    cycles; the collector would re-scan the growing heap again and again (about
    40% of the time for 50,000 profiles). Reference counting still frees garbage.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
