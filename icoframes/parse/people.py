"""Team members and advisors: one entry per person of each profile's ``team`` or ``advisors``.

Both lists share one element shape (spec 2.3); each person keeps its 0-based
``position`` in the profile's list, and its ``social`` map feeds the social table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, compress
from typing import Any, Final

import numpy as np
import pandas as pd

from ..schema import EACH, Source, TableSchema
from .problems import Problems
from .sources import convert, flatten, read_fields

__all__ = ["PERSON_SOCIAL", "People", "people_key"]

#: Spec 2.3: team[n].social and advisors[n].social have the shape of links.social,
#: whose path the social table's sources name.
PERSON_SOCIAL: Final = "social"


def people_key(table: TableSchema) -> str:
    """The profile field holding the list of people: ``team`` of ``('team', '*', 'name')``."""
    keys = {c.source[0] for c in table.columns if c.source and c.source[1:2] == (EACH,)}
    if len(keys) != 1:
        raise ValueError(f"{table.name}: its columns name no single list of people: {keys}")
    return keys.pop()


def _person_fields(table: TableSchema) -> dict[str, str]:
    """Column -> the field of each person it is read from: ``name`` of ``('team', '*', 'name')``."""
    return {c.name: c.source[2] for c in table.columns
            if c.source and len(c.source) == 3 and c.source[1] == EACH}


class People:
    """Team members or advisors of every ICO, one entry per person."""

    __slots__ = ("fields", "ico_id", "key", "position", "table", "values")

    def __init__(self, table: TableSchema, persons: list[dict], ico_id: np.ndarray,
                 position: np.ndarray) -> None:
        self.table = table
        self.key = people_key(table)
        self.fields = _person_fields(table)
        self.ico_id = ico_id
        self.position = position
        self.values = read_fields(persons, (*self.fields.values(), PERSON_SOCIAL))

    @classmethod
    def gather(cls, table: TableSchema, values: dict[Source, Sequence], ids: np.ndarray,
               log: Problems) -> People:
        """Everyone in each ICO's raw ``team`` (or ``advisors``) value."""
        key = people_key(table)
        person_fields = tuple(_person_fields(table).values())
        groups = [v if type(v) is list else
                  _as_people(v, person_fields, log, (table.name, key), ids[i])
                  for i, v in enumerate(values[(key,)])]
        counts = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
        persons = list(chain.from_iterable(groups))
        ico_id = np.repeat(ids, counts)
        # 0-based position within each profile's list
        position = np.arange(len(persons), dtype=np.int64) - np.repeat(
            np.cumsum(counts) - counts, counts)
        if set(map(type, persons)) - {dict}:  # rare: entries that are not people
            keep = [isinstance(p, Mapping) for p in persons]
            mask = np.array(keep, dtype=bool)
            log.add(table.name, key, [p for p, ok in zip(persons, keep, strict=True) if not ok],
                    ids=ico_id[~mask], reason="wrong_shape")
            persons = [p if type(p) is dict else dict(p) for p in compress(persons, keep)]
            ico_id, position = ico_id[mask], position[mask]
        return cls(table, persons, ico_id, position)

    def frame(self, log: Problems) -> pd.DataFrame:
        data: dict[str, Any] = {"ico_id": self.ico_id, "position": self.position}
        data.update((name, self.values[field]) for name, field in self.fields.items())
        return convert(self.table, data, log)

    def social(self, log: Problems) -> tuple[np.ndarray, np.ndarray, list, list]:
        counts, keys, values = flatten(self.values[PERSON_SOCIAL], log,
                                       ("social", f"{self.key}.{PERSON_SOCIAL}"), self.ico_id)
        return np.repeat(self.ico_id, counts), np.repeat(self.position, counts), keys, values


def _as_people(value: object, fields: Sequence[str], log: Problems, where: tuple[str, str],
               ico_id: object) -> list:
    """A people field that is not a list: ``''``/None -> none, a dict of people or one person."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        if value and all(isinstance(v, Mapping) for v in value.values()):
            return list(value.values())  # PHP list with gaps: {"0": {...}, "2": {...}}
        if any(k in value for k in fields):
            return [value]  # a lone person where a list was expected
    if value is None or value == "" or value == {} or value == []:
        return []
    log.add(*where, [value], ids=[ico_id], reason="wrong_shape")
    return []
