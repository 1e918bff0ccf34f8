"""List responses into frames: summaries (spec 2.2) and the filter set (spec 2.1).

Pure functions of decoded JSON, shared by the loaders and the crawl. List
items are read like profiles: at the source paths ``schema.LIST`` declares, by
:mod:`icoframes.parse.sources`, with the same id rule and converters, and
whatever cannot be read is reported in a :class:`~icoframes.parse.problems.Problems`
(with the ICO's id where the item has a readable one).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from ..api.params import FILTER_KEYS, ID_LIST_PARAMS
from ..schema import FILTERS, LIST
from . import rules
from .amounts import read_raised
from .base import Reason
from .columns import to_text
from .problems import Problems, canonical_text
from .sources import convert, field_paths, gather, select

__all__ = ["FILTER_KEYS", "filters_frame", "list_frame", "merge_pages", "merge_parsed",
           "page_counts", "summary_keys"]
_ID: Final = ("id",)


def page_counts(page: Mapping[str, Any]) -> tuple[int, int]:
    """``(total_icos, total_pages)`` of a list response; the API sends them as text or numbers.

    Each is read by :func:`icoframes.parse.rules.parse_count` (a non-negative
    int64, like ids but 0 allowed); an absent or unreadable count is 0, which
    callers treat as "no more pages".

    Examples
    --------
    >>> page_counts({"total_icos": "41", "total_pages": 3.0})
    (41, 3)
    >>> page_counts({"total_icos": -1, "total_pages": "99999999999999999999"})
    (0, 0)
    """
    return (rules.parse_count(page.get("total_icos")) or 0,
            rules.parse_count(page.get("total_pages")) or 0)


def merge_pages(pages: Iterable[Mapping[str, Any]]) -> list:
    """The summaries of several list pages in order, once per id (the last copy wins).

    The list can shift while it is paged (a new ICO at the top pushes an item
    onto the next page), so the same ICO can appear on two pages. Items
    without a readable id (:func:`~icoframes.parse.rules.parse_id`) are kept,
    each once, so that :func:`list_frame` counts them as problems.

    Examples
    --------
    >>> pages = [{"data": [{"id": 1, "v": "a"}, {"id": "x"}]}, {"data": [{"id": "1", "v": "b"}]}]
    >>> merge_pages(pages)
    [{'id': '1', 'v': 'b'}, {'id': 'x'}]
    """
    seen: dict[object, object] = {}
    for page in pages:
        data = page.get("data")
        for item in data if isinstance(data, list) else []:
            ico_id = rules.parse_id(item.get("id")) if isinstance(item, Mapping) else None
            key = ("unreadable", len(seen)) if ico_id is None else ico_id
            seen[key] = item  # keeps the position of the first copy
    return list(seen.values())


def list_frame(items: Sequence[object], *, status: str | None,
               problems: Problems | None = None) -> pd.DataFrame:
    """List summaries (spec 2.2) as a typed frame with the ``LIST`` schema columns.

    Parameters
    ----------
    items : sequence
        The ``data`` items of list responses, as decoded from JSON.
    status : str or None
        The status filter the list was loaded with (the ``status`` column).
    problems : Problems, optional
        Where to report what cannot be read: an item that is not an object or
        whose id is not a positive int64 is left out and reported under
        ``list.id`` (without an ``ico_id``); an unreadable value (a score of
        ``'high'``) is missing and reported under its column with the item's
        id. An id given twice: the last copy is kept, and each earlier copy
        that reads otherwise (another row, or other problems) is reported under
        ``list.id`` (``duplicate_id``, the dropped copy as JSON), as
        :func:`~icoframes.parse.profiles.tidy` reports profiles; copies that read
        alike (a score ``"3.5"`` and ``3.5``) are no problem. Not reported when omitted.

    Returns
    -------
    pandas.DataFrame
        One row per readable id (its last copy), in input order (of each id's last copy).

    Examples
    --------
    >>> problems = Problems()
    >>> frame = list_frame([{"id": "7", "main": {"name": "Foo", "ico_score": "high"}},
    ...                     {"id": "99999999999999999999"}], status="past", problems=problems)
    >>> frame[["id", "name", "status"]].values.tolist(), frame["ico_score"].isna().all()
    ([[7, 'Foo', 'past']], np.True_)
    >>> problems.frame().astype(object).values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [[<NA>, 'list', 'id', '99999999999999999999', 'unreadable_id'],
     [7, 'list', 'ico_score', 'high', 'unreadable_number']]
    """
    log = Problems() if problems is None else problems
    records = items if isinstance(items, list | tuple) else list(items)
    kept, ids = select(records, log, LIST.name, _read_as)
    fields = {name: path for name, path in field_paths(LIST).items() if path != _ID}
    values = gather(kept, list(fields.values()), log, LIST.name, ids)
    data: dict[str, Any] = {name: values[path] for name, path in fields.items()}
    data.update((c.name, ids) for c in LIST.columns if c.source == _ID)
    data["status"] = [status] * len(kept)
    data["raised"], unread = read_raised(data["raised"])  # as a profile's, by the rule of units
    log.add_unread(LIST.name, "raised", unread, ids)
    return convert(LIST, data, log)


def merge_parsed(pages: list[tuple[list[Any], pd.DataFrame, list[dict[str, Any]]]],
                 merged: list[Any]) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The parsed pages as one list, as :func:`list_frame` of the ``merged`` items
    (:func:`merge_pages`) would give it: one row per id at its first place with its last
    copy's values, the problems of each id's last copy and every unreadable item's (the
    crawl parses each page once, as it comes: ``pages`` are its items, frame, problems)."""
    frames = [frame for _, frame, _ in pages]
    if not frames:
        return list_frame([], status=None), []
    rows = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    place = {ico_id: n for n, ico_id in enumerate(
        rules.parse_id(item.get("id")) for item in merged if isinstance(item, Mapping))}
    last = rows.drop_duplicates("id", keep="last")
    order = last["id"].map(place).to_numpy().argsort(kind="stable")
    frame = last.take(order).reset_index(drop=True)
    owner = {}  # id -> the page holding its last copy
    for n, (_, page, _) in enumerate(pages):
        owner.update(dict.fromkeys(page["id"].tolist(), n))
    lost = Problems()
    for n, (_, _, records) in enumerate(pages):
        lost.extend(r for r in records if r.get("ico_id") is None or owner.get(r["ico_id"]) == n)
    return frame, lost.records() if len(lost) else []


def _read_as(item: Mapping[str, Any]) -> str:
    """What one list item reads as, as text copies alike share: its row and the problems it
    gives. Copies that differ only in how a value is written read alike (a score ``"3.5"``
    and ``3.5``); an unreadable value written otherwise does not (``"high"``, ``"High"``)."""
    problems = Problems()
    row = list_frame([item], status=None, problems=problems)
    return canonical_text([row.astype(object).values.tolist(),
                           [(p["column"], p["value"], p["reason"]) for p in problems.records()]])


def summary_keys(listing: pd.DataFrame,
                 problems: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """A text key of the summary values whose change means a profile must be re-fetched.

    A ``raised`` that was not read (``"$512.500"``: 512.5 or 512,500?) is keyed by its text,
    from ``problems`` (the list's problem records, as :func:`list_frame` reports them), so
    that a change to another such text is seen; keys of values read are ``[name, score,
    raised]`` as ever (a cache keeps them: a new form would fetch every profile again).

    Examples
    --------
    >>> log = Problems()
    >>> frame = list_frame([{"id": 1, "main": {"name": "X"}, "finance": {"raised": "$512.500"}},
    ...                     {"id": 2, "finance": {"raised": "$5"}}], status=None, problems=log)
    >>> summary_keys(frame, log.records())
    ['["X", null, null, "$512.500"]', '[null, null, 5.0]']
    >>> summary_keys(frame)
    ['["X", null, null]', '[null, null, 5.0]']
    """
    # missing as None, element by element: astype/where cost more than the rest (20 rows)
    names = [n if isinstance(n, str) or not pd.isna(n) else None
             for n in listing["name"].tolist()]
    scores = listing["ico_score"].to_numpy(dtype=float)
    raised = listing["raised"].to_numpy(dtype=float)
    texts = {p["ico_id"]: p["value"] for p in problems
             if p.get("column") == "raised" and p.get("table") == LIST.name}
    ids = listing["id"].tolist() if texts else [None] * len(listing)
    return [json.dumps([n, None if np.isnan(s) else s, None if np.isnan(r) else r]
                       + ([texts[i]] if np.isnan(r) and i in texts else []))
            for n, s, r, i in zip(names, scores, raised, ids, strict=True)]


def filters_frame(raw: Mapping[str, Any], problems: Problems | None = None) -> pd.DataFrame:
    """The filter set (spec 2.1) as a frame with the ``FILTERS`` schema.

    Entries without a name are left out and reported under ``filters.name``
    (``no_name``, or ``wrong_type``/``surrogate`` for a name that is no text);
    an entry that is not an object is reported under its key (``filters.platform``,
    ``wrong_shape``); an unreadable id is missing and reported under ``filters.id``. Location
    entries have no id. The filter set belongs to no ICO: ``ico_id`` is missing.

    Examples
    --------
    >>> problems = Problems()
    >>> frame = filters_frame({"platform": [{"id": "1", "name": "Ethereum"}, {"id": 2}],
    ...                        "location": [{"name": "Malta"}, "Chad"]}, problems)
    >>> frame.astype(object).values.tolist()
    [['platform', 1, 'Ethereum'], ['location', <NA>, 'Malta']]
    >>> problems.frame()[["column", "value", "reason"]].values.tolist()
    [['location', 'Chad', 'wrong_shape'], ['name', 'null', 'no_name']]
    """
    log = Problems() if problems is None else problems
    keys: list[str] = []
    ids: list[object] = []
    names: list[object] = []
    for key in FILTER_KEYS:
        entries = raw.get(key) if isinstance(raw, Mapping) else None
        if isinstance(entries, Mapping):  # PHP encodes a list with gaps as an object
            entries = list(entries.values())
        elif not isinstance(entries, list | tuple):
            if entries not in (None, ""):
                log.add(FILTERS.name, key, [entries], reason="wrong_shape")
            entries = []
        log.add(FILTERS.name, key, [e for e in entries if not isinstance(e, Mapping)],
                reason="wrong_shape")
        for entry in entries:
            if isinstance(entry, Mapping):
                keys.append(key)
                ids.append(None if key not in ID_LIST_PARAMS else entry.get("id"))
                names.append(entry.get("name"))
    texts, unread = to_text(names)
    named = np.asarray(pd.notna(texts), dtype=bool)
    # a nameless entry names no filter value: a gap, reported (unreadable names included),
    # like a name kept with U+FFFD for a lone surrogate
    why: dict[int, Reason] = dict.fromkeys(np.flatnonzero(~named).tolist(), "no_name")
    why.update(zip(unread.rows, unread.reasons, strict=True))
    rows = sorted(why)
    log.add(FILTERS.name, "name", [names[i] for i in rows], reason=[why[i] for i in rows])
    index = np.flatnonzero(named)
    data = {"filter": [keys[i] for i in index], "id": [ids[i] for i in index],
            "name": texts.take(index)}
    return convert(FILTERS, data, log)
