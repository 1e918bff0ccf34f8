"""The one collector of values that could not be read, per table and column.

:func:`icoframes.parse.profiles.tidy`, :func:`icoframes.parse.lists.list_frame`
and :func:`icoframes.parse.lists.filters_frame` all count what they lose into a
:class:`Problems`; its :meth:`~Problems.frame` has the ``PROBLEMS`` schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import numpy as np
import pandas as pd

from ..schema import PROBLEMS, TABLE_NAMES, empty_frame

__all__ = ["Problems"]


class Problems:
    """Unreadable raw values per ``(table, column)``: how many, and a few examples.

    Examples
    --------
    >>> problems = Problems()
    >>> problems.add("list", "id", ["99999999999999999999", -1])
    >>> problems.add("list", "id", [])  # nothing lost, nothing recorded
    >>> problems.frame()[["table", "column", "count"]].values.tolist()
    [['list', 'id', 2]]
    >>> problems.frame().loc[0, "examples"]
    ["'99999999999999999999'", '-1']
    """

    EXAMPLES: Final = 3
    WIDTH: Final = 80

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], tuple[list[int], list[str]]] = {}

    def __len__(self) -> int:
        """How many ``(table, column)`` pairs lost values."""
        return len(self._found)

    def __repr__(self) -> str:
        counts = ", ".join(f"{t}.{c} {n[0]}" for (t, c), (n, _) in self._found.items())
        return f"Problems({counts})"

    def add(self, table: str, column: str, bad: Iterable[object]) -> None:
        """Count the raw values ``bad`` of ``table.column`` that could not be read."""
        bad = list(bad)
        if not bad:
            return
        count, examples = self._found.setdefault((table, column), ([0], []))
        count[0] += len(bad)
        for value in bad:
            if len(examples) >= self.EXAMPLES:
                break
            text = repr(value)
            if len(text) > self.WIDTH:
                text = text[: self.WIDTH - 1] + "…"
            if text not in examples:
                examples.append(text)

    def records(self) -> list[dict[str, object]]:
        """The problems as plain JSON-able dicts (table, column, count, examples)."""
        return [{"table": t, "column": c, "count": n[0], "examples": list(e)}
                for (t, c), (n, e) in self._found.items()]

    def extend(self, records: Iterable[dict[str, object]]) -> None:
        """Add problems given as :meth:`records` (e.g. read back from the cache).

        Examples
        --------
        >>> a = Problems(); a.add("list", "ico_score", ["high"])
        >>> b = Problems(); b.extend(a.records()); b.extend(a.records()); b
        Problems(list.ico_score 2)
        """
        for record in records:
            table, column = str(record["table"]), str(record["column"])
            count, examples = self._found.setdefault((table, column), ([0], []))
            count[0] += int(record["count"])  # type: ignore[call-overload]
            for text in record.get("examples") or []:  # type: ignore[attr-defined]
                if len(examples) < self.EXAMPLES and text not in examples:
                    examples.append(str(text))

    def frame(self) -> pd.DataFrame:
        """The problems as a frame with the ``PROBLEMS`` schema; the tables in schema order."""
        if not self._found:
            return empty_frame(PROBLEMS)
        order = {name: i for i, name in enumerate(TABLE_NAMES)}
        keys = sorted(self._found, key=lambda k: order.get(k[0], len(order)))
        examples = np.empty(len(keys), dtype=object)
        for i, key in enumerate(keys):
            examples[i] = list(self._found[key][1])
        return pd.DataFrame({
            "table": pd.array([k[0] for k in keys], dtype=PROBLEMS.column("table").dtype),
            "column": pd.array([k[1] for k in keys], dtype=PROBLEMS.column("column").dtype),
            "count": np.array([self._found[k][0][0] for k in keys], dtype=np.int64),
            "examples": examples,
        })
