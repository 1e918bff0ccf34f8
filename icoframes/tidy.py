"""Raw ICO profiles (spec 2.3) -> typed, related DataFrames.

One pass over the profiles collects every column as a plain Python list (C-level
``map``/``extend`` wherever possible); each column is then converted once, by the
vectorised, lenient helpers of :mod:`icoframes.parsing`, chosen by the column's
kind in :mod:`icoframes.schema`. Columns, their order and dtypes all come from
the schema; this module only knows where in a profile each value lives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from . import parsing
from .schema import (
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
from .tables import Tables

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
_SECTION_FIELDS: Final = tuple(f for fields in _SECTIONS.values() for f in fields)
if sorted(_SECTION_FIELDS) != sorted(set(ICOS.names) - set(_NOT_FROM_SECTIONS)):  # pragma: no cover
    raise ImportError("tidy._SECTIONS is out of step with schema.ICOS")
_FIELD_INDEX: Final = {name: i for i, name in enumerate(_SECTION_FIELDS)}

# People tables share one shape: ico_id, position, then the person's own fields.
_PERSON_FIELDS: Final = tuple(n for n in TEAM.names if n not in ("ico_id", "position"))
if ADVISORS.names != TEAM.names:  # pragma: no cover
    raise ImportError("tidy expects team and advisors to share one schema")

# social.owner values; the code is the index.
_OWNERS: Final = ("ico", "team", "advisor")
_ICO, _TEAM, _ADVISOR = 0, 1, 2

_CONVERTERS: Final = {
    "int": parsing.to_int,
    "Int": parsing.to_nullable_int,
    "float": parsing.to_float,
    "bool": parsing.to_bool,
    "text": parsing.to_text,
    "datetime": parsing.to_datetime,
    "list": parsing.to_list,
}


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
    log = _Problems()
    items = profiles if isinstance(profiles, list | tuple) else list(profiles)
    kept = _select(items, log)
    if not kept:
        return Tables(**{name: empty_frame(t) for name, t in _TABLES.items()},
                      problems=log.frame())
    collected = _collect(items, kept, log)
    frames = {
        "icos": _icos(collected, kept, statuses, log),
        "team": _people(TEAM, collected.team, log),
        "advisors": _people(ADVISORS, collected.advisors, log),
        "social": _social(collected, log),
        "distribution": _distribution(collected, log),
        "bonuses": _bonuses(collected, log),
        "roadmap": _roadmap(collected, log),
    }
    return Tables(**frames, problems=log.frame())


_TABLES: Final = {t.name: t for t in (ICOS, TEAM, ADVISORS, SOCIAL, DISTRIBUTION, BONUSES, ROADMAP)}
if tuple(_TABLES) != TABLE_NAMES:  # pragma: no cover
    raise ImportError("tidy builds a table the schema does not declare, or misses one")


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


# --------------------------------------------------------------------------- one pass


def _select(items: list, log: _Problems) -> list[tuple[int, int]]:
    """(index, id) of the profiles to use: readable ids, last occurrence wins, input order."""
    last: dict[int, int] = {}
    bad = []
    for i, profile in enumerate(items):
        raw = profile.get("id") if isinstance(profile, dict) else profile
        pid = parsing.parse_id(raw)
        if pid is None:
            bad.append(raw)
        else:
            last[pid] = i
    log.add("icos", "id", bad)
    return sorted((i, pid) for pid, i in last.items())


class _Maps:
    """Key/value pairs of one kind of map across all profiles, stored flat.

    ``owners[k]`` (an ICO id, or a tuple for people) owns ``counts[k]``
    consecutive entries of ``keys``/``values``.
    """

    __slots__ = ("counts", "keys", "owners", "values")

    def __init__(self) -> None:
        self.owners: list = []
        self.counts: list[int] = []
        self.keys: list = []
        self.values: list = []

    def add(self, owner: object, mapping: dict) -> None:
        self.owners.append(owner)
        self.counts.append(len(mapping))
        self.keys.extend(mapping)
        self.values.extend(mapping.values())

    def owner_column(self, column: int | None = None) -> np.ndarray:
        owners = self.owners if column is None else [o[column] for o in self.owners]
        return np.repeat(np.array(owners, dtype=np.int64), self.counts)


class _Collected:
    __slots__ = ("advisors", "bonuses", "distribution", "icos", "roadmap", "social", "team")

    def __init__(self) -> None:
        self.icos: list[tuple] = []
        self.team: list[tuple] = []
        self.advisors: list[tuple] = []
        self.social = _Maps()  # owner: (ico_id, owner code, position or -1)
        self.distribution = _Maps()
        self.bonuses = _Maps()
        self.roadmap = _Maps()


def _collect(items: list, kept: list[tuple[int, int]], log: _Problems) -> _Collected:
    out = _Collected()
    bad: dict[tuple[str, str], list] = {}
    sections = tuple(_SECTIONS.items())
    icos_rows = out.icos
    social = out.social
    for index, pid in kept:
        profile = items[index]
        row: list = []
        found: dict[str, dict] = {}
        for name, fields in sections:
            section = profile.get(name)
            if type(section) is not dict:
                section = _as_dict(section, bad, ("icos", name))
            found[name] = section
            row.extend(map(section.get, fields))
        icos_rows.append(row)

        links = found["links"]
        ico_social = links.get("social")
        if ico_social:
            if type(ico_social) is not dict:
                ico_social = _as_dict(ico_social, bad, ("social", "links.social"))
            if ico_social:
                social.add((pid, _ICO, -1), ico_social)
        for key, target, owner in (("team", out.team, _TEAM),
                                   ("advisors", out.advisors, _ADVISOR)):
            people = profile.get(key)
            if people:
                _collect_people(pid, people, key, target, owner, social, bad)
        for mapping, maps, where in (
            (found["finance"].get("distribution"), out.distribution,
             ("distribution", "finance.distribution")),
            (found["additional"].get("bonuses"), out.bonuses, ("bonuses", "additional.bonuses")),
            (profile.get("roadmap"), out.roadmap, ("roadmap", "roadmap")),
        ):
            if mapping:
                if type(mapping) is not dict:
                    mapping = _as_dict(mapping, bad, where)
                if mapping:
                    maps.add(pid, mapping)
    for (table, column), values in bad.items():
        log.add(table, column, values)
    return out


def _collect_people(pid: int, people: object, key: str, rows: list[tuple], owner: int,
                    social: _Maps, bad: dict[tuple[str, str], list]) -> None:
    if type(people) is not list:
        people = _as_people(people, bad.setdefault((key, key), []))
    where = ("social", f"{key}.social")
    for position, person in enumerate(people):  # type: ignore[arg-type]
        if type(person) is not dict and not isinstance(person, dict):
            bad.setdefault((key, key), []).append(person)
            continue
        rows.append((pid, position, *map(person.get, _PERSON_FIELDS)))
        links = person.get("social")
        if links:
            if type(links) is not dict:
                links = _as_dict(links, bad, where)
            if links:
                social.add((pid, owner, position), links)


def _as_dict(value: object, bad: dict[tuple[str, str], list], where: tuple[str, str]) -> dict:
    """A section or map that is not a dict: empty, and a problem unless it is an empty value.

    PHP encodes an empty map as ``[]``; ``''`` and ``None`` mean absent.
    """
    if isinstance(value, dict):
        return value
    if value is None or value == "" or value == [] or value == ():
        return {}
    bad.setdefault(where, []).append(value)
    return {}


def _as_people(value: object, bad: list) -> list:
    """A people field that is not a list: ``''``/None -> none, a dict of people or one person."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, dict):
        if value and all(isinstance(v, dict) for v in value.values()):
            return list(value.values())  # PHP list with gaps: {"0": {...}, "2": {...}}
        if any(k in value for k in _PERSON_FIELDS):
            return [value]  # a lone person where a list was expected
    if value is None or value == "" or value == {}:
        return []
    bad.append(value)
    return []


# --------------------------------------------------------------------------- frames


def _frame(table: TableSchema, data: dict[str, Any], log: _Problems) -> pd.DataFrame:
    """Frame in schema order; raw lists/tuples are converted by their column's kind."""
    columns = {}
    for column in table.columns:
        values = data[column.name]
        if isinstance(values, list | tuple):
            values, bad = _CONVERTERS[column.kind](values)
            log.add(table.name, column.name, bad)
        columns[column.name] = values
    return pd.DataFrame(columns, copy=False)


def _object_array(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _transpose(rows: list, width: int) -> list[tuple]:
    return list(zip(*rows, strict=True)) if rows else [()] * width


def _icos(collected: _Collected, kept: list[tuple[int, int]],
          statuses: Mapping[Any, str] | None, log: _Problems) -> pd.DataFrame:
    columns = _transpose(collected.icos, len(_SECTION_FIELDS))
    data: dict[str, Any] = {name: columns[i] for name, i in _FIELD_INDEX.items()}
    ids = [pid for _, pid in kept]
    data["id"] = np.array(ids, dtype=np.int64)
    data["status"] = _statuses(ids, statuses)
    return _frame(ICOS, data, log)


def _statuses(ids: list[int], statuses: Mapping[Any, str] | None) -> list:
    if not statuses:
        return [None] * len(ids)
    by_id = {}
    for key, status in statuses.items():
        pid = parsing.parse_id(key)
        if pid is not None:
            by_id[pid] = status
    return [by_id.get(pid) for pid in ids]


def _people(table: TableSchema, rows: list[tuple], log: _Problems) -> pd.DataFrame:
    columns = _transpose(rows, len(table.columns))
    return _frame(table, dict(zip(table.names, columns, strict=True)), log)


def _social(collected: _Collected, log: _Problems) -> pd.DataFrame:
    maps = collected.social
    urls, bad = parsing.to_text(maps.values)
    log.add(SOCIAL.name, "url", bad)
    position = maps.owner_column(2)
    data: dict[str, Any] = {
        "ico_id": maps.owner_column(0),
        "owner": TEXT_DTYPE.__from_arrow__(
            pa.array(_OWNERS, type=pa.string()).take(pa.array(maps.owner_column(1)))
        ),
        "position": pd.arrays.IntegerArray(position, position < 0),
        "network": _key_text(maps.keys, SOCIAL.name, "network", log),
        "url": urls,
    }
    keep = ~np.asarray(pd.isna(urls))
    if not keep.all():  # links with an empty url are not rows
        data = {name: values[keep] for name, values in data.items()}
    return _frame(SOCIAL, data, log)


def _key_text(keys: list, table: str, column: str, log: _Problems) -> Any:
    values, bad = parsing.to_key_text(keys)
    log.add(table, column, bad)
    return values


def _distribution(collected: _Collected, log: _Problems) -> pd.DataFrame:
    maps = collected.distribution
    percent, bad = parsing.to_float(maps.values, percent=True)
    log.add(DISTRIBUTION.name, "percent", bad)
    data = {
        "ico_id": maps.owner_column(),
        "part": _key_text(maps.keys, DISTRIBUTION.name, "part", log),
        "percent": percent,
    }
    return _frame(DISTRIBUTION, data, log)


def _bonuses(collected: _Collected, log: _Problems) -> pd.DataFrame:
    maps = collected.bonuses
    data = {
        "ico_id": maps.owner_column(),
        "name": _key_text(maps.keys, BONUSES.name, "name", log),
        "terms": maps.values,
    }
    return _frame(BONUSES, data, log)


def _roadmap(collected: _Collected, log: _Problems) -> pd.DataFrame:
    maps = collected.roadmap
    data = {
        "ico_id": maps.owner_column(),
        "label": _key_text(maps.keys, ROADMAP.name, "label", log),
        "date": parsing.to_label_date(maps.keys),
        "description": maps.values,
    }
    return _frame(ROADMAP, data, log)
