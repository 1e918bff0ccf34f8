"""Reading a table's columns out of records by the source paths the schema declares.

The one path from decoded JSON records (profiles, list items) to typed columns:
:func:`select` keeps the records with a readable id (:func:`rules.parse_id`),
:func:`gather` reads the raw value at every source path, and :func:`convert`
turns each raw column into its dtype with the converter of its kind
(:data:`icoframes.parse.columns.CONVERTERS`), reporting what it cannot read
with the id of the ICO each value belongs to.

Gathering reads each dict once, with a single ``itemgetter`` call per dict,
so it is read while it is in the CPU cache: on large inputs the cost is memory
latency, not bytecode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from ..schema import EACH, KEY, Source, TableSchema
from ..vocabulary import NONE_WORDS, fold
from . import rules
from .base import Reason, Unread
from .columns import CONVERTERS, to_float
from .problems import Problems, canonical_text

__all__ = ["ID", "as_dict", "as_dicts", "convert", "field_paths", "flatten", "gather",
           "id_column", "read_fields", "report_copies", "select"]

#: The source of an ICO's id: ``icos.id``, ``list.id`` and every child's ``ico_id``.
ID: Source = ("id",)


def field_paths(table: TableSchema) -> dict[str, Source]:
    """The plain source paths of ``table``: column -> path, for values read one per record.

    A path of one or two keys (``("id",)``, ``("finance", "caps_unit")``) is a
    field of the record or of one of its sections; paths that step into every
    entry of a list or map (``*``, ``<key>``) and derived columns are left to
    the caller.

    Examples
    --------
    >>> from icoframes.schema import LIST
    >>> field_paths(LIST)["raised"]
    ('finance', 'raised')
    """
    return {c.name: c.source for c in table.columns
            if c.source and len(c.source) <= 2 and EACH not in c.source and KEY not in c.source}


def select(items: Sequence[object], problems: Problems, table: str,
           content: Callable[[Mapping[str, Any]], str] | None = None
           ) -> tuple[list[dict], np.ndarray]:
    """The records to use and their ids: readable ids only, the last occurrence of an id wins.

    Records keep the input order (of each id's last occurrence), like
    ``drop_duplicates(keep="last")``. A record that is not a mapping
    (``wrong_shape``), or whose ``id`` :func:`rules.parse_id` cannot read
    (``unreadable_id``), is reported under ``table.id``; so is each earlier copy of an id
    whose content differs from the kept (last) copy's (``duplicate_id``, the dropped copy as
    the value; see :func:`report_copies`, which ``content`` is passed to).

    Examples
    --------
    >>> problems = Problems()
    >>> kept, ids = select([{"id": 2}, {"id": "x"}, {"id": "2"}, 7], problems, "list")
    >>> kept, ids.tolist(), problems.frame()[["value", "reason"]].values.tolist()
    ([{'id': '2'}], [2], [['x', 'unreadable_id'], ['7', 'wrong_shape']])
    >>> kept, ids = select([{"id": 3, "v": 1}, {"id": 3, "v": 2}], problems := Problems(), "list")
    >>> kept, problems.frame()[["ico_id", "value", "reason"]].values.tolist()
    ([{'id': 3, 'v': 2}], [[3, '{"id": 3, "v": 1}', 'duplicate_id']])
    """
    last: dict[int, int] = {}
    repeated: set[int] = set()
    bad: list[object] = []
    reasons: list[Reason] = []
    for i, record in enumerate(items):
        if isinstance(record, Mapping):
            raw = record.get("id")
            rid = rules.parse_id(raw)
        else:  # not a record at all
            raw, rid = record, None
        if rid is None:
            bad.append(raw)
            reasons.append("unreadable_id" if isinstance(record, Mapping) else "wrong_shape")
        else:
            if rid in last:
                repeated.add(rid)
            last[rid] = i
    problems.add(table, "id", bad, reason=reasons)
    if repeated:
        report_copies(items, repeated, problems, table, content or _content)
    order = sorted(last.values())
    records: Sequence[Any] = items  # every position in ``order`` holds a Mapping (checked above)
    kept = [records[i] if type(records[i]) is dict else dict(records[i]) for i in order]
    ids = np.array([rid for rid, _ in sorted(last.items(), key=lambda kv: kv[1])],
                   dtype=np.int64)
    return kept, ids


def report_copies(items: Sequence[object], repeated: set[int], problems: Problems, table: str,
                  content: Callable[[Mapping[str, Any]], str]) -> None:
    """Each copy of a ``repeated`` id whose ``content`` differs
    from the kept (last) copy's, as a problem ``duplicate_id`` of ``table.id``, in the order of
    each id's first occurrence, then of its copies. ``content`` is text that copies alike
    share (:func:`_content`: the fields but the id, as
    :func:`~icoframes.parse.problems.canonical_text`, NaN too); only the copies of repeated
    ids are read by it (5,000 profiles with one id twice: select takes 4 ms of CPU, not 165)."""
    copies: dict[int, list[Mapping[str, Any]]] = {}
    for record in items:
        if isinstance(record, Mapping) and (rid := rules.parse_id(record.get("id"))) in repeated:
            copies.setdefault(rid, []).append(record)
    for rid, records in copies.items():
        kept = content(records[-1])
        lost = [record for record in records[:-1] if content(record) != kept]
        problems.add(table, "id", lost, ids=[rid] * len(lost), reason="duplicate_id")


def _content(record: Mapping[str, Any]) -> str:
    """A record's fields but its id, as text copies alike share (NaN too; never raises)."""
    return canonical_text({key: value for key, value in record.items() if key != "id"})


def read_fields(dicts: Sequence[dict], fields: tuple[str, ...]) -> dict[str, Sequence]:
    """The values of ``fields`` in every dict (None where missing), column by column.

    Read row by row, one ``itemgetter`` call per dict, so each dict is read
    while it is in the CPU cache: on large inputs that is ~40% faster than one
    C-level pass per field, because the cost is memory latency, not bytecode.
    """
    if len(fields) == 1:
        return {fields[0]: list(map(dict.get, dicts, repeat(fields[0])))}
    get = itemgetter(*fields)
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    for d in dicts:
        try:
            append(get(d))
        except KeyError:
            append(tuple(map(d.get, fields)))
    if not rows:
        return {field: () for field in fields}
    return dict(zip(fields, zip(*rows, strict=True), strict=True))


def gather(records: Sequence[dict], paths: Sequence[Source], problems: Problems,
           table: str, ids: np.ndarray) -> dict[Source, Sequence]:
    """The raw value at each path of one or two keys, in every record.

    Every record and every section is read once, whatever the number of paths.
    A section that is not a dict (``profile["main"] == "oops"``) reads as empty
    and is reported under ``(table, section)`` with the record's id (``ids``,
    one per record); ``''``, ``[]`` and None are just empty (PHP encodes an
    empty map as ``[]``).

    Examples
    --------
    >>> problems = Problems()
    >>> values = gather([{"id": 1, "main": {"name": "A"}}, {"id": 2, "main": "oops"}],
    ...                 [("id",), ("main", "name")], problems, "list", np.array([1, 2]))
    >>> values[("main", "name")], problems.records()  # doctest: +NORMALIZE_WHITESPACE
    (['A', None], [{'ico_id': 2, 'table': 'list', 'column': 'main', 'value': 'oops',
                    'reason': 'wrong_shape'}])
    """
    sections: dict[str, list[str]] = {}
    for path in paths:
        if len(path) == 1:
            sections.setdefault(path[0], [])
        elif len(path) == 2:
            sections.setdefault(path[0], []).append(path[1])
        else:
            raise ValueError(f"not a field path: {path!r}")
    top = read_fields(records, tuple(sections))
    values: dict[Source, Sequence] = {(name,): top[name] for name in sections}
    for name, fields in sections.items():
        if fields:
            section = as_dicts(top[name], problems, (table, name), ids)
            values.update(((name, f), v) for f, v in read_fields(section, tuple(fields)).items())
    return values


def as_dicts(values: Sequence, problems: Problems, where: tuple[str, str],
             ids: np.ndarray) -> Sequence[dict]:
    """Every value as a dict: sections and maps that are not dicts become empty.

    ``ids`` holds the ICO id of each value, for the problems reported.
    """
    types = list(map(type, values))
    if types.count(dict) == len(types):
        return values
    return [v if t is dict else as_dict(v, problems, where, ids[i])
            for i, (v, t) in enumerate(zip(values, types, strict=True))]


def as_dict(value: object, problems: Problems, where: tuple[str, str], ico_id: object) -> dict:
    """A section or map that is not a dict: empty, and a problem (``wrong_shape``) unless it is
    an empty value.

    PHP encodes an empty map as ``[]``; ``''``, ``None``, the missing markers and
    the none words (``'No'``, ``'None'``: :data:`icoframes.vocabulary.NONE_WORDS`)
    mean absent.
    """
    if isinstance(value, Mapping):
        return dict(value)
    if value is None or value == [] or value == ():
        return {}
    if type(value) is str and (value.strip() in rules.MARKER_SPELLINGS
                               or fold(value) in NONE_WORDS):
        return {}
    problems.add(*where, [value], ids=[ico_id], reason="wrong_shape")
    return {}


def flatten(maps: Sequence, problems: Problems, where: tuple[str, str],
            ids: np.ndarray) -> tuple[np.ndarray, list, list]:
    """Entries per map, and all keys and all values, in order; non-dicts count as empty.

    One pass that touches each map once: on large inputs the cost is memory
    latency, not Python bytecode. ``ids`` holds the ICO id of each map.
    """
    counts = [0] * len(maps)
    keys: list = []
    values: list = []
    keys_extend, values_extend = keys.extend, values.extend
    for i, mapping in enumerate(maps):
        if type(mapping) is not dict:
            mapping = as_dict(mapping, problems, where, ids[i])
        if mapping:
            counts[i] = len(mapping)
            keys_extend(mapping)
            values_extend(mapping.values())
    return np.array(counts, dtype=np.int64), keys, values


def id_column(table: TableSchema) -> str | None:
    """The column holding the ICO id of each row (sourced from ``id``), if the table has one.

    Examples
    --------
    >>> from icoframes.schema import FILTERS, ICOS, TEAM
    >>> id_column(ICOS), id_column(TEAM), id_column(FILTERS)
    ('id', 'ico_id', None)
    """
    return next((c.name for c in table.columns if c.source == ID), None)


def convert(table: TableSchema, data: Mapping[str, Any], problems: Problems, *,
            readers: Mapping[str, Callable[[Sequence], tuple[Any, Unread]]] | None = None
            ) -> pd.DataFrame:
    """A frame in schema order: raw lists converted by their column's kind, problems reported.

    ``readers``: a converter per column name, used instead of its kind's (a column read
    with an option, such as a profile's order of day and month).

    Values that are already arrays (ids, positions, built columns) are used as
    they are. Each unreadable value is reported with the ICO id of its row,
    taken from the table's id column (:func:`id_column`, an array in ``data``).

    Examples
    --------
    >>> from icoframes.schema import DISTRIBUTION
    >>> problems = Problems()
    >>> frame = convert(DISTRIBUTION, {"ico_id": np.array([7, 8]), "part": ["Team", "Sale"],
    ...                                "percent": ["25", "lots"]}, problems)
    >>> frame["percent"].tolist(), problems.records()  # doctest: +NORMALIZE_WHITESPACE
    ([25.0, nan], [{'ico_id': 8, 'table': 'distribution', 'column': 'percent', 'value': 'lots',
                    'reason': 'unreadable_number'}])
    """
    key = id_column(table)
    row_ids = None if key is None else np.asarray(data[key])
    columns = {}
    for column in table.columns:
        values = data[column.name]
        if isinstance(values, list | tuple):
            if readers is not None and column.name in readers:
                values, unread = readers[column.name](values)
            elif column.bounds is not None:
                values, unread = to_float(values, bounds=column.bounds)
            else:
                values, unread = CONVERTERS[column.kind](values)
            problems.add_unread(table.name, column.name, unread, row_ids)
        columns[column.name] = values
    return pd.DataFrame(columns, copy=False)
