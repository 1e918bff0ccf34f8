"""Raw ICO profiles (spec 2.3) -> typed, related DataFrames.

Two phases. Gathering reads every value once into plain Python sequences, one
per column: each dict is read by a single ``itemgetter`` call (so it is read
while in the CPU cache: on large inputs the cost is memory latency, not
bytecode), maps are flattened in one pass, ids and positions of child rows
are NumPy arrays built by ``repeat``. Converting then turns each column into
its typed array with one vectorised, lenient helper of
:mod:`icoframes.parse.columns`, chosen by the column's kind in :mod:`icoframes.schema`.
Columns, their order and dtypes all come from the schema; this module only
knows where in a profile each value lives.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain, compress, repeat
from operator import itemgetter
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from ..schema import (
    ADVISORS,
    BONUSES,
    DISTRIBUTION,
    ICOS,
    PROBLEMS,
    ROADMAP,
    SOCIAL,
    TABLE_NAMES,
    TEAM,
    TEXT_DTYPE,
    TableSchema,
    empty_frame,
)
from ..tables import Tables
from . import columns as converters
from . import rules

__all__ = ["tidy"]

# Where each icos column lives in a profile (spec 2.3): section -> field names.
# The names equal the column names (section prefixes dropped); an import-time
# check keeps this in step with schema.ICOS.
_SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    "main": ("name", "description", "logo", "premium", "scam", "ico_score", "platform", "kyc",
             "whitelist", "category", "type", "mvp", "location", "kyc_passed"),
    "links": ("url", "website", "whitepaper", "video"),
    "finance": ("ticker", "tokens_for_sale", "token_price", "token_price_unit", "min_purchase",
                "max_purchase", "purchase_unit", "token_type", "soft_cap", "hard_cap",
                "caps_unit", "escrow", "markets", "restricted_areas", "accepting", "raised"),
    "dates": ("start_datetime", "end_datetime", "tba"),
    "additional": ("airdrop", "bounty"),
}
_NOT_FROM_SECTIONS: Final = ("id", "status")
# Maps inside a section, read by the child tables.
_SECTION_MAPS: Final[dict[str, tuple[str, ...]]] = {
    "links": ("social",), "finance": ("distribution",), "additional": ("bonuses",)}
_SECTION_FIELDS: Final = tuple(f for fields in _SECTIONS.values() for f in fields)
if sorted(_SECTION_FIELDS) != sorted(set(ICOS.names) - set(_NOT_FROM_SECTIONS)):  # pragma: no cover
    raise ImportError("tidy._SECTIONS is out of step with schema.ICOS")

# People tables share one shape: ico_id, position, then the person's own fields.
_PERSON_FIELDS: Final = tuple(n for n in TEAM.names if n not in ("ico_id", "position"))
if ADVISORS.names != TEAM.names:  # pragma: no cover
    raise ImportError("tidy expects team and advisors to share one schema")

# social.owner values, in the order social rows of one ICO are listed.
_OWNERS: Final = ("ico", "team", "advisor")

_TABLES: Final = {t.name: t for t in (ICOS, TEAM, ADVISORS, SOCIAL, DISTRIBUTION, BONUSES, ROADMAP)}
if tuple(_TABLES) != TABLE_NAMES:  # pragma: no cover
    raise ImportError("tidy builds a table the schema does not declare, or misses one")

def tidy(profiles: Iterable[Mapping[str, Any]], *,
         statuses: Mapping[Any, str] | None = None) -> Tables:
    """Turn raw ICO profiles into typed, related tables.

    Pure: no I/O. Any shape of input is accepted without error; whatever
    cannot be read is left missing and counted in ``Tables.problems``.

    Parameters
    ----------
    profiles : iterable of dict
        Profiles exactly as the profile endpoint's ``data`` decodes from JSON
        (spec 2.3), in any order. When an id occurs more than once the last
        occurrence wins. A profile whose ``id`` is not an integer (or numeric
        string) is skipped and counted as a problem of ``icos.id``.
    statuses : mapping, optional
        ICO id (int or numeric string) -> status (``ongoing``, ``upcoming``,
        ``past``), e.g. the list status each profile was loaded under. ICOs not
        in it get a missing status.

    Returns
    -------
    Tables
        ``icos`` (one row per ICO), ``team``, ``advisors``, ``social``,
        ``distribution``, ``bonuses`` and ``roadmap``, each with exactly the
        columns and dtypes of :mod:`icoframes.schema`, plus ``problems``.

    Notes
    -----
    How values are read:

    * **Numbers** (float64): JSON numbers or numeric strings, also ``'$2,000,000'``,
      ``'1,500,000'``, ``'15M'``, ``'250K'``, ``'1.2B'``, ``'2000000 USD'``,
      ``'1.5e8'``; percentages ``'60%'``/``'60 %'`` in ``distribution.percent``.
    * **Missing**: ``None``, ``''`` and the markers ``NA``, ``N/A``, ``—``, ``-``,
      ``NOT SET``, ``Pending``, ``TBA``, ``TBD`` (any case) are missing and are
      not problems. Anything else unreadable (``'1 BILL = 1 XLM'``) is missing
      *and* counted in ``problems``.
    * **Booleans**: the API sends ``''`` both for "does not hold" and for
      "unknown", so a flag is True only where the API said ``true`` (or ``1``,
      ``'1'``, ``'true'``, ``'yes'``, any case) and False otherwise; False does not
      distinguish "no" from "unknown".
    * **Dates** ``DD.MM.YYYY HH:MM:SS`` -> naive datetime64[ms]; impossible dates
      (``31.02.2018 00:00:00``, ``00.00.0000 00:00:00``) are NaT and problems.
    * **Text** is stripped; ``''`` and the markers become missing. Map keys
      (``social.network``, ``distribution.part``, ``bonuses.name``,
      ``roadmap.label``) are kept exactly as sent because they identify rows.
    * **Lists** (``markets``, ``restricted_areas``, ``accepting``) are always a
      list of str: ``''`` gives ``[]``, a lone string a one-item list.
    * **Roadmap** dates come from the keys: ``DD-MM-YYYY``, or best effort for
      ``'Q3 2018'`` (first day of the quarter), ``'March 2019'``, ``'2019'``...;
      NaT otherwise, never an error and not a problem (the label is kept).
    * **People** keep their 0-based ``position`` in the profile's list, so a
      skipped non-dict entry leaves a gap. Social links with an empty url are
      not rows.
    * **Row order** follows the input: ``icos`` in the order of each id's last
      occurrence; child rows grouped by ICO in that order, then as listed in
      the profile (``social``: the ICO's own links, then the team's, then the
      advisors').
    * Wrong shapes (a section that is a string or a non-empty list, a person
      that is not a dict, a map that is not a dict) are counted in ``problems``
      under the source field (e.g. ``icos``/``main``, ``team``/``team``,
      ``social``/``team.social``); ``''``, ``[]`` and ``None`` are just empty.

    The garbage collector is paused during the call (tidy creates no
    reference cycles; walking the input's millions of objects would cost a
    third of the run time) and restored afterwards.

    Examples
    --------
    >>> t = tidy([{"id": "7", "main": {"name": " Foo ", "kyc": True, "ico_score": "3.5"},
    ...            "finance": {"raised": "$1,000", "accepting": "ETH"},
    ...            "team": [{"name": "Ann", "social": {"twitter": "https://t/ann"}}]}],
    ...           statuses={7: "past"})
    >>> t.icos.loc[0, ["id", "status", "name", "kyc", "ico_score", "raised"]].astype(str).tolist()
    ['7', 'past', 'Foo', 'True', '3.5', '1000.0']
    >>> t.icos.loc[0, "accepting"], t.social[["owner", "position", "network"]].values.tolist()
    (['ETH'], [['team', 0, 'twitter']])
    """
    with _gc_paused():
        return _tidy(profiles, statuses)


@contextmanager
def _gc_paused() -> Iterator[None]:
    # The input is a million small dicts and lists; while tidy allocates, the
    # cyclic collector would walk all of them again and again (a third of the
    # run time) for nothing: tidy creates no reference cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _tidy(profiles: Iterable[Mapping[str, Any]], statuses: Mapping[Any, str] | None) -> Tables:
    log = _Problems()
    items = profiles if isinstance(profiles, list | tuple) else list(profiles)
    kept, ids = _select(items, log)
    if not kept:
        return Tables(**{name: empty_frame(t) for name, t in _TABLES.items()},
                      problems=log.frame())
    bad: defaultdict[tuple[str, str], list] = defaultdict(list)
    top = _columns(kept, (*_SECTIONS, "team", "advisors", "roadmap"))
    values: dict[str, Sequence] = {}
    for name, fields in _SECTIONS.items():
        section = _dicts(top[name], bad, ("icos", name))
        values.update(_columns(section, fields + _SECTION_MAPS.get(name, ())))
    team = _People.gather(top["team"], ids, "team", bad)
    advisors = _People.gather(top["advisors"], ids, "advisors", bad)
    frames = {
        "icos": _icos(values, ids, statuses, log),
        "team": team.frame(TEAM, log),
        "advisors": advisors.frame(ADVISORS, log),
        "social": _social(values["social"], ids, team, advisors, bad, log),
        "distribution": _distribution(values["distribution"], ids, bad, log),
        "bonuses": _bonuses(values["bonuses"], ids, bad, log),
        "roadmap": _roadmap(top["roadmap"], ids, bad, log),
    }
    for (table, column), unread in bad.items():
        log.add(table, column, unread)
    return Tables(**frames, problems=log.frame())


# --------------------------------------------------------------------------- problems


class _Problems:
    """Unreadable raw values per (table, column), with a few examples."""

    _EXAMPLES = 3
    _WIDTH = 80

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], tuple[list[int], list[str]]] = {}

    def add(self, table: str, column: str, bad: list) -> None:
        if not bad:
            return
        count, examples = self._found.setdefault((table, column), ([0], []))
        count[0] += len(bad)
        for value in bad:
            if len(examples) >= self._EXAMPLES:
                break
            text = repr(value)
            if len(text) > self._WIDTH:
                text = text[: self._WIDTH - 1] + "…"
            if text not in examples:
                examples.append(text)

    def frame(self) -> pd.DataFrame:
        if not self._found:
            return empty_frame(PROBLEMS)
        order = {name: i for i, name in enumerate(TABLE_NAMES)}
        keys = sorted(self._found, key=lambda k: order.get(k[0], len(order)))
        data = {
            "table": [k[0] for k in keys],
            "column": [k[1] for k in keys],
            "count": [self._found[k][0][0] for k in keys],
            "examples": _object_array([list(self._found[k][1]) for k in keys]),
        }
        return _frame(PROBLEMS, data, self)


# --------------------------------------------------------------------------- gathering


def _select(items: list | tuple, log: _Problems) -> tuple[list[dict], np.ndarray]:
    """The profiles to use and their ids: readable ids only, the last occurrence wins.

    Rows keep the input order (of each id's last occurrence), like
    ``drop_duplicates(keep="last")``.
    """
    last: dict[int, int] = {}
    bad = []
    for i, profile in enumerate(items):
        if isinstance(profile, Mapping):
            raw = profile.get("id")
            pid = rules.parse_id(raw)
        else:  # not a profile at all
            raw, pid = profile, None
        if pid is None:
            bad.append(raw)
        else:
            last[pid] = i
    log.add("icos", "id", bad)
    order = sorted(last.values())
    kept = [items[i] if type(items[i]) is dict else dict(items[i]) for i in order]
    ids = np.array([pid for pid, _ in sorted(last.items(), key=lambda kv: kv[1])],
                   dtype=np.int64)
    return kept, ids


def _columns(dicts: Sequence[dict], fields: tuple[str, ...]) -> dict[str, Sequence]:
    """The values of ``fields`` in every dict (None where missing), column by column.

    Read row by row, one ``itemgetter`` call per dict, so each dict is read
    while it is in the CPU cache: on large inputs that is ~40% faster than one
    C-level pass per field, because the cost is memory latency, not bytecode.
    """
    if len(fields) == 1:
        return {fields[0]: list(map(dict.get, dicts, repeat(fields[0])))}
    get = itemgetter(*fields)
    rows = []
    append = rows.append
    for d in dicts:
        try:
            append(get(d))
        except KeyError:
            append(tuple(map(d.get, fields)))
    if not rows:
        return {field: () for field in fields}
    return dict(zip(fields, zip(*rows, strict=True), strict=True))


def _dicts(values: Sequence, bad: defaultdict[tuple[str, str], list],
           where: tuple[str, str]) -> Sequence[dict]:
    """Every value as a dict: sections and maps that are not dicts become empty."""
    types = list(map(type, values))
    if types.count(dict) == len(types):
        return values
    return [v if t is dict else _as_dict(v, bad, where)
            for v, t in zip(values, types, strict=True)]


def _as_dict(value: object, bad: defaultdict[tuple[str, str], list],
             where: tuple[str, str]) -> dict:
    """A section or map that is not a dict: empty, and a problem unless it is an empty value.

    PHP encodes an empty map as ``[]``; ``''`` and ``None`` mean absent.
    """
    if isinstance(value, Mapping):
        return dict(value)
    if value is None or value == "" or value == [] or value == ():
        return {}
    bad[where].append(value)
    return {}


def _flatten(maps: Sequence, bad: defaultdict[tuple[str, str], list],
             where: tuple[str, str]) -> tuple[np.ndarray, list, list]:
    """Entries per map, and all keys and all values, in order; non-dicts count as empty.

    One pass that touches each map once: on large inputs the cost is memory
    latency, not Python bytecode.
    """
    counts = [0] * len(maps)
    keys: list = []
    values: list = []
    keys_extend, values_extend = keys.extend, values.extend
    for i, mapping in enumerate(maps):
        if type(mapping) is not dict:
            mapping = _as_dict(mapping, bad, where)
        if mapping:
            counts[i] = len(mapping)
            keys_extend(mapping)
            values_extend(mapping.values())
    return np.array(counts, dtype=np.int64), keys, values


class _People:
    """Team members or advisors of every ICO, one entry per person."""

    __slots__ = ("ico_id", "key", "position", "values")

    def __init__(self, key: str, persons: list[dict], ico_id: np.ndarray,
                 position: np.ndarray) -> None:
        self.key = key
        self.ico_id = ico_id
        self.position = position
        self.values = _columns(persons, (*_PERSON_FIELDS, "social"))

    @classmethod
    def gather(cls, people: Sequence, ids: np.ndarray, key: str,
               bad: defaultdict[tuple[str, str], list]) -> _People:
        """Everyone in ``people`` (each ICO's raw ``team`` or ``advisors`` value)."""
        skipped = bad[(key, key)]
        groups = [v if type(v) is list else _as_people(v, skipped) for v in people]
        counts = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
        persons = list(chain.from_iterable(groups))
        ico_id = np.repeat(ids, counts)
        # 0-based position within each profile's list
        position = np.arange(len(persons), dtype=np.int64) - np.repeat(
            np.cumsum(counts) - counts, counts)
        if set(map(type, persons)) - {dict}:  # rare: entries that are not people
            keep = [isinstance(p, Mapping) for p in persons]
            skipped.extend(p for p, ok in zip(persons, keep, strict=True) if not ok)
            persons = [p if type(p) is dict else dict(p) for p in compress(persons, keep)]
            mask = np.array(keep, dtype=bool)
            ico_id, position = ico_id[mask], position[mask]
        return cls(key, persons, ico_id, position)

    def frame(self, table: TableSchema, log: _Problems) -> pd.DataFrame:
        data: dict[str, Any] = {"ico_id": self.ico_id, "position": self.position}
        data.update((name, self.values[name]) for name in _PERSON_FIELDS)
        return _frame(table, data, log)

    def social(self, bad: defaultdict[tuple[str, str], list]) -> tuple[np.ndarray, ...]:
        counts, keys, values = _flatten(self.values["social"], bad,
                                        ("social", f"{self.key}.social"))
        return np.repeat(self.ico_id, counts), np.repeat(self.position, counts), keys, values


def _as_people(value: object, bad: list) -> list:
    """A people field that is not a list: ``''``/None -> none, a dict of people or one person."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        if value and all(isinstance(v, Mapping) for v in value.values()):
            return list(value.values())  # PHP list with gaps: {"0": {...}, "2": {...}}
        if any(k in value for k in _PERSON_FIELDS):
            return [value]  # a lone person where a list was expected
    if value is None or value == "" or value == {} or value == []:
        return []
    bad.append(value)
    return []


# --------------------------------------------------------------------------- frames


def _frame(table: TableSchema, data: dict[str, Any], log: _Problems) -> pd.DataFrame:
    """Frame in schema order; raw lists are converted by their column's kind."""
    columns = {}
    for column in table.columns:
        values = data[column.name]
        if isinstance(values, list | tuple):
            values, bad = converters.CONVERTERS[column.kind](values)
            log.add(table.name, column.name, bad)
        columns[column.name] = values
    return pd.DataFrame(columns, copy=False)


def _object_array(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _icos(values: dict[str, Sequence], ids: np.ndarray,
          statuses: Mapping[Any, str] | None, log: _Problems) -> pd.DataFrame:
    data: dict[str, Any] = {field: values[field] for field in _SECTION_FIELDS}
    data["id"] = ids
    data["status"] = _statuses(ids, statuses)
    return _frame(ICOS, data, log)


def _statuses(ids: np.ndarray, statuses: Mapping[Any, str] | None) -> list:
    if not statuses:
        return [None] * len(ids)
    by_id = {}
    for key, status in statuses.items():
        pid = rules.parse_id(key)
        if pid is not None:
            by_id[pid] = status
    return list(map(by_id.get, ids.tolist()))


def _social(links: Sequence, ids: np.ndarray, team: _People, advisors: _People,
            bad: defaultdict[tuple[str, str], list], log: _Problems) -> pd.DataFrame:
    counts, ico_keys, ico_values = _flatten(links, bad, ("social", "links.social"))
    team_ids, team_pos, team_keys, team_values = team.social(bad)
    adv_ids, adv_pos, adv_keys, adv_values = advisors.social(bad)
    ico_id = np.concatenate([np.repeat(ids, counts), team_ids, adv_ids])
    sizes = [int(counts.sum()), len(team_ids), len(adv_ids)]
    owner = np.repeat(np.arange(len(_OWNERS)), sizes)
    position = np.concatenate([np.full(sizes[0], -1, dtype=np.int64), team_pos, adv_pos])
    urls, url_bad = converters.to_text(ico_values + team_values + adv_values)
    log.add(SOCIAL.name, "url", url_bad)
    networks = _key_text(ico_keys + team_keys + adv_keys, SOCIAL.name, "network", log)

    # One ICO's links together, in input order: its own, its team's, its advisors'.
    row = pd.Index(ids).get_indexer(ico_id)
    order = np.argsort(row, kind="stable")
    # Links with an empty url are not rows.
    order = order[~np.asarray(pd.isna(urls))[order]]
    position = position[order]
    data: dict[str, Any] = {
        "ico_id": ico_id[order],
        "owner": TEXT_DTYPE.__from_arrow__(
            pa.array(_OWNERS, type=pa.string()).take(pa.array(owner[order]))),
        "position": pd.arrays.IntegerArray(position, position < 0),
        "network": networks.take(order),
        "url": urls.take(order),
    }
    return _frame(SOCIAL, data, log)


def _key_text(keys: list, table: str, column: str, log: _Problems) -> Any:
    values, bad = converters.to_key_text(keys)
    log.add(table, column, bad)
    return values


def _maps(maps: Sequence, ids: np.ndarray,
          bad: defaultdict[tuple[str, str], list], where: tuple[str, str]):
    counts, keys, values = _flatten(maps, bad, where)
    return np.repeat(ids, counts), keys, values


def _distribution(maps: Sequence, ids: np.ndarray,
                  bad: defaultdict[tuple[str, str], list], log: _Problems) -> pd.DataFrame:
    ico_id, parts, values = _maps(maps, ids, bad,
                                  (DISTRIBUTION.name, "finance.distribution"))
    percent, percent_bad = converters.to_float(values, percent=True)
    log.add(DISTRIBUTION.name, "percent", percent_bad)
    data = {
        "ico_id": ico_id,
        "part": _key_text(parts, DISTRIBUTION.name, "part", log),
        "percent": percent,
    }
    return _frame(DISTRIBUTION, data, log)


def _bonuses(maps: Sequence, ids: np.ndarray,
             bad: defaultdict[tuple[str, str], list], log: _Problems) -> pd.DataFrame:
    ico_id, names, terms = _maps(maps, ids, bad,
                                 (BONUSES.name, "additional.bonuses"))
    data = {"ico_id": ico_id, "name": _key_text(names, BONUSES.name, "name", log), "terms": terms}
    return _frame(BONUSES, data, log)


def _roadmap(maps: Sequence, ids: np.ndarray,
             bad: defaultdict[tuple[str, str], list], log: _Problems) -> pd.DataFrame:
    ico_id, labels, descriptions = _maps(maps, ids, bad,
                                         (ROADMAP.name, "roadmap"))
    data = {
        "ico_id": ico_id,
        "label": _key_text(labels, ROADMAP.name, "label", log),
        "date": converters.to_label_date(labels),
        "description": descriptions,
    }
    return _frame(ROADMAP, data, log)
