"""The one collector of values that could not be read: one row per value, with its ICO.

:func:`icoframes.parse.profiles.tidy`, :func:`icoframes.parse.lists.list_frame`
and :func:`icoframes.parse.lists.filters_frame` all report what they lose into a
:class:`Problems`; its :meth:`~Problems.frame` has the ``PROBLEMS`` schema: the
``ico_id`` of the ICO the value belongs to (missing when the id itself could
not be read, or for the filter set, which belongs to no ICO), the table and
column, the raw value as text (:func:`value_text`) and the reason it was not
read (a code of :data:`icoframes.reasons.REASONS`, required by :meth:`Problems.add`).
:func:`icoframes.tables.problem_summary` gives the per-column view.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from ..reasons import REASONS, Reason
from ..schema import PROBLEMS, TABLE_NAMES, empty_frame
from ..tables import problem_summary
from ..textdtype import text_values
from .base import Unread
from .text import clean_surrogates

__all__ = ["Problems", "canonical_text", "problems_of_load", "value_text"]

#: Characters of a raw value kept in ``problems.value``; longer text ends in "…".
WIDTH: Final = 100
_INT64_MAX: Final = 2**63 - 1
# A value that is not known (records of older versions kept only a count): missing text.
_UNKNOWN: Final = object()


def value_text(value: object) -> str:
    """A raw value as the text ``problems.value`` shows: strings as they are, the rest as JSON.

    Raw values are decoded JSON, so JSON is their natural text (``true``,
    ``[1, 2]``, ``{"x": 1}``); text longer than :data:`WIDTH` characters is cut
    and ends in ``…``.

    Examples
    --------
    >>> value_text("1 BILL = 1 XLM"), value_text(True), value_text({"x": [1, None]})
    ('1 BILL = 1 XLM', 'true', '{"x": [1, null]}')
    >>> len(value_text("x" * 500)), value_text("x" * 500)[-1]
    (100, '…')
    """
    if type(value) is str:
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):  # keys of other types, circular containers
            text = repr(value)
    text = clean_surrogates(text)  # a lone surrogate cannot be written: U+FFFD
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"


def canonical_text(value: object) -> str:
    """One text that equal raw values share, to tell copies apart: JSON with sorted keys
    (NaN and ``pd.NA`` alike in each copy; what JSON cannot write, as its repr), else its
    repr (keys of mixed types, a cycle); a value no text is made of is unlike any other.
    Never raises (a ``pd.Series`` has no truth value to compare).

    Examples
    --------
    >>> canonical_text({"b": float("nan"), "a": 1}) == canonical_text({"a": 1, "b": float("nan")})
    True
    >>> canonical_text({1: "x", "y": 2})
    "{1: 'x', 'y': 2}"
    """
    for dump in (_sorted_json, repr):
        try:
            return dump(value)
        except (TypeError, ValueError, RecursionError):
            continue
    return f"no text: object {id(value)}"


def _sorted_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


class Problems:
    """Unreadable raw values, each with its table, column, reason and (where known) ICO id.

    Examples
    --------
    >>> problems = Problems()
    >>> problems.add("icos", "token_price", ["1 BILL = 1 XLM", True], ids=[7, 9],
    ...              reason=["unreadable_price", "wrong_type"])
    >>> problems.add("list", "id", ["99999999999999999999"], reason="unreadable_id")  # no id
    >>> problems.add("list", "id", [], reason="unreadable_id")  # nothing lost, nothing recorded
    >>> problems.frame().astype(object).values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [[7, 'icos', 'token_price', '1 BILL = 1 XLM', 'unreadable_price'],
     [9, 'icos', 'token_price', 'true', 'wrong_type'],
     [<NA>, 'list', 'id', '99999999999999999999', 'unreadable_id']]
    >>> problems
    Problems(icos.token_price 2, list.id 1)
    """

    def __init__(self) -> None:
        # (table, column) -> chunks of (raw values, their ico ids or None, their reasons),
        # in the order added; a reason is None only for records of older versions (extend)
        self._found: dict[tuple[str, str],
                          list[tuple[list[object], np.ndarray | None,
                                     Sequence[str | None]]]] = {}

    def __len__(self) -> int:
        """How many values could not be read."""
        return sum(len(values) for chunks in self._found.values() for values, _, _ in chunks)

    def __repr__(self) -> str:
        counts = ", ".join(f"{t}.{c} {sum(len(v) for v, _, _ in chunks)}"
                           for (t, c), chunks in self._found.items())
        return f"Problems({counts})"

    def add(self, table: str, column: str, bad: Iterable[object],
            ids: Iterable[object] | None = None, *,
            reason: Reason | Sequence[Reason]) -> None:
        """Record the raw values ``bad`` of ``table.column`` that could not be read, and why.

        Parameters
        ----------
        table, column : str
            Where the values were to go (or the source field of a malformed entry).
        bad : iterable
            The raw values, as decoded from JSON.
        ids : array-like of int, optional
            The ICO id of each value, in the same order (None or NaN where not
            known); all missing when omitted. An id that names no ICO (an ICO id
            is a whole number from 1 to 2**63 - 1, as :func:`~icoframes.parse.rules.parse_id`
            reads it: not ``0``, ``-3`` or ``1.5``) is missing too, in an int array as
            in a list.
        reason : str or sequence of str
            Why the values were not read: one code of
            :data:`icoframes.reasons.REASONS` for all of them, or one per value.

        Raises
        ------
        ValueError
            If ``ids`` or ``reason`` do not give one entry per value, or a
            reason is not a declared code.
        """
        values = bad if isinstance(bad, list) else list(bad)
        if not values:
            return
        reasons = [reason] * len(values) if isinstance(reason, str) else reason
        self._store(table, column, values, ids, reasons)

    def _store(self, table: str, column: str, values: list[object],
               ids: Iterable[object] | None, reasons: Sequence[str | None]) -> None:
        if len(reasons) != len(values):
            raise ValueError(f"{table}.{column}: {len(reasons)} reasons for {len(values)} values")
        undeclared = sorted(map(str, set(reasons) - REASONS.keys() - {None}))
        if undeclared:
            raise ValueError(f"{table}.{column}: undeclared reasons {undeclared}; "
                             "declare them in icoframes.reasons")
        id_array = None
        if ids is not None:
            id_array = ids if isinstance(ids, np.ndarray) else np.array(list(ids), dtype=object)
            if len(id_array) != len(values):
                raise ValueError(f"{table}.{column}: {len(id_array)} ids for {len(values)} values")
        self._found.setdefault((table, column), []).append((values, id_array, reasons))

    def add_unread(self, table: str, column: str, unread: Unread,
                   row_ids: np.ndarray | None) -> None:
        """Record what a converter could not read, naming each value's ICO by its row.

        ``unread`` is a converter's :class:`~icoframes.parse.base.Unread` (rows,
        values and their reasons); ``row_ids`` holds the ICO id of every row
        the converter read (``icos.id`` or a child table's ``ico_id``), so the
        ids come from the rows the converter's masks found, without a pass
        over the good values.
        """
        if unread.rows:
            self.add(table, column, unread.values,
                     ids=None if row_ids is None else row_ids[unread.rows],
                     reason=unread.reasons)

    def records(self) -> list[dict[str, Any]]:
        """The problems as plain JSON-able dicts: ``ico_id`` (int or None), table, column,
        value and reason.

        Examples
        --------
        >>> problems = Problems()
        >>> problems.add("list", "ico_score", ["high"], ids=[7], reason="unreadable_number")
        >>> problems.records()  # doctest: +NORMALIZE_WHITESPACE
        [{'ico_id': 7, 'table': 'list', 'column': 'ico_score', 'value': 'high',
          'reason': 'unreadable_number'}]
        """
        frame = self.frame()
        ids, values, reasons = (frame[name].astype(object).where(frame[name].notna(), None)
                                .tolist() for name in ("ico_id", "value", "reason"))
        return [{"ico_id": i, "table": t, "column": c, "value": v, "reason": r}
                for i, t, c, v, r in zip(ids, frame["table"].tolist(), frame["column"].tolist(),
                                         values, reasons, strict=True)]

    def merge(self, other: Problems) -> None:
        """Add the problems ``other`` recorded, as if they were recorded here (in order)."""
        for key, chunks in other._found.items():
            self._found.setdefault(key, []).extend(chunks)

    def extend(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Add problems given as :meth:`records` (e.g. read back from the list cache).

        A record without a ``reason`` (stored by a version before reasons) has
        a missing reason. A record of the per-column shape older versions
        stored (``count`` and ``examples``, no ``value``) adds ``count`` values
        without an id: its examples, then missing values, so that the count
        stays right.

        Examples
        --------
        >>> a = Problems(); a.add("list", "ico_score", ["high"], ids=[7], reason="vague")
        >>> b = Problems(); b.extend(a.records()); b.extend(a.records()); b
        Problems(list.ico_score 2)
        >>> b.frame()["reason"].tolist()
        ['vague', 'vague']
        >>> c = Problems(); c.extend([{"table": "list", "column": "id", "count": 3,
        ...                            "examples": ["'x'"]}])
        >>> c.frame()["value"].isna().tolist(), c.frame().loc[0, "value"]
        ([False, True, True], "'x'")
        >>> c.frame()["reason"].isna().all()
        np.True_
        """
        for record in records:
            table, column = str(record["table"]), str(record["column"])
            if "value" in record:  # already text (a raw null is "null"): None is unknown
                value = record["value"]
                reason = record.get("reason")
                self._store(table, column, [_UNKNOWN if value is None else str(value)],
                            [record.get("ico_id")], [reason if reason is None else str(reason)])
            else:  # the per-column shape of older versions
                count = int(record.get("count") or 0)
                examples: list[object] = [str(e) for e in (record.get("examples") or [])[:count]]
                if count:
                    self._store(table, column, examples + [_UNKNOWN] * (count - len(examples)),
                                None, [None] * count)

    def frame(self) -> pd.DataFrame:
        """The problems as a frame with the ``PROBLEMS`` schema.

        Tables in schema order (then ``list``, ``filters``), columns in the
        order they first lost a value, values in the order they were added.
        """
        if not self._found:
            return empty_frame(PROBLEMS)
        order = {name: i for i, name in enumerate(TABLE_NAMES)}
        keys = sorted(self._found, key=lambda k: order.get(k[0], len(order)))
        tables: list[tuple[str, int]] = []
        columns: list[tuple[str, int]] = []
        texts: list[str | None] = []
        id_parts: list[np.ndarray] = []
        reasons: list[str | None] = []
        for key in keys:
            for values, ids, why in self._found[key]:
                tables.append((key[0], len(values)))
                columns.append((key[1], len(values)))
                texts.extend(None if v is _UNKNOWN else value_text(v) for v in values)
                id_parts.append(np.full(len(values), None, dtype=object) if ids is None else ids)
                reasons.extend(why)
        return pd.DataFrame({
            "ico_id": _ico_ids(id_parts),
            "table": _repeated(tables, _dtype("table")),
            "column": _repeated(columns, _dtype("column")),
            # (text_values: a missing text as the schema's missing value, NaN, on every pandas;
            # pd.array keeps None in pandas 2.2's object text)
            "value": text_values(texts),
            "reason": text_values(reasons),
        })

    def summary(self) -> pd.DataFrame:
        """Per ``(table, column)``: how many values and a few examples (see ``problem_summary``).

        Examples
        --------
        >>> problems = Problems()
        >>> problems.add("list", "id", ["x", "y", "x", "z", "w"], reason="unreadable_id")
        >>> problems.summary().astype(object).values.tolist()
        [['list', 'id', 5, ['x', 'y', 'z']]]
        """
        return problem_summary(self.frame())


def problems_of_load(profiles: pd.DataFrame, ico_ids: Iterable[int],
                     queries: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The problems one load returns: its ICOs' profile problems and its list pages' problems.

    Parameters
    ----------
    profiles : pandas.DataFrame
        Problems of the tidy tables over every cached profile (``PROBLEMS`` schema).
    ico_ids : iterable of int
        The ICOs the load returns: only their profile problems are kept (a
        profile problem without an id cannot be told apart from another
        query's and is left out).
    queries : iterable of dict
        The load's queries as in ``attrs["icoframes"]["queries"]``; every
        problem recorded for their list pages is kept, with or without an id,
        since it belongs to the query.

    Returns
    -------
    pandas.DataFrame
        ``PROBLEMS`` schema: the profile problems, then the list problems.

    Examples
    --------
    >>> found = Problems()
    >>> found.add("icos", "kyc", ["maybe", "perhaps"], ids=[1, 2], reason="unknown_flag")
    >>> queries = [{"problems": [{"ico_id": None, "table": "list", "column": "id",
    ...                           "value": "x", "reason": "unreadable_id"}]}]
    >>> problems_of_load(found.frame(), [2], queries).astype(object).values.tolist()
    [[2, 'icos', 'kyc', 'perhaps', 'unknown_flag'], [<NA>, 'list', 'id', 'x', 'unreadable_id']]
    """
    keep = profiles["ico_id"].isin(np.fromiter(ico_ids, dtype=np.int64)).to_numpy(
        dtype=bool, na_value=False)
    listed = Problems()
    for query in queries:
        listed.extend(query.get("problems") or [])
    # concat leaves out empty parts: pandas may loosen dtypes when given an empty frame
    parts = [part for part in (profiles[keep], listed.frame()) if len(part)]
    return pd.concat(parts, ignore_index=True) if parts else empty_frame(PROBLEMS)


def _dtype(column: str) -> Any:
    """The declared dtype of a ``PROBLEMS`` column, typed ``Any``: pandas-stubs' ``pd.array``
    overloads take no general ``np.dtype | ExtensionDtype``."""
    return PROBLEMS.column(column).dtype


def _repeated(runs: list[tuple[str, int]], dtype: Any) -> Any:
    labels = [label for label, _ in runs]
    counts = np.array([n for _, n in runs], dtype=np.int64)
    return pd.array(labels, dtype=dtype).take(np.repeat(np.arange(len(runs)), counts))


def _ico_ids(parts: list[np.ndarray]) -> pd.arrays.IntegerArray:
    """Nullable Int64 ids from chunks of int arrays (fast) or object arrays with None/NaN."""
    data, mask = [], []
    for ids in parts:
        if ids.dtype.kind in "iu":  # as _id_or_none: 0, negatives, beyond int64 name no ICO
            named = (ids > 0) & (ids <= _INT64_MAX)
            data.append(np.where(named, ids, 0).astype(np.int64))
            mask.append(~named)
            continue
        readable = [_id_or_none(i) for i in ids.tolist()]
        mask.append(np.array([i is None for i in readable], dtype=bool))
        data.append(np.array([0 if i is None else i for i in readable], dtype=np.int64))
    return pd.arrays.IntegerArray(np.concatenate(data), np.concatenate(mask))


def _id_or_none(value: object) -> int | None:
    """An ICO id given by a caller or read back from JSON: an int, else None (NaN, None, NA)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | np.integer) and 0 < int(value) <= _INT64_MAX:
        return int(value)
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return int(value) if 0 < value <= _INT64_MAX else None
    return None
