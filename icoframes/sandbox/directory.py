"""The sandbox's ICO directory: records by id, thread-safe to query, render and change.

A :class:`Directory` holds immutable :class:`~.record.Record` objects, answers
list queries through :mod:`.query` (with a small cache of results), renders
profiles and summaries through :mod:`.render` on demand, and swaps records
under a lock. :func:`generate_directory` fills one with :mod:`.generate`.

>>> d = generate_directory(20, seed=3)
>>> len(d), d.summary(d.ids()[0])["id"] in (d.ids()[0], str(d.ids()[0]))
(20, True)
"""

from __future__ import annotations

import json
import math
import numbers
import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..api.params import STATUSES, read_ico_id, read_status, validate_list_params
from ..errors import InvalidParameter, UnknownName, WrongType, checked_keywords, checked_methods
from ..numerals import as_integer, did_you_mean_number
from ..quoting import did_you_mean, quoted
from .catalog import CATEGORY_NAMES, COUNTRIES
from .draws import gc_paused
from .generate import generate_records
from .query import by_id, filter_records, sort_records
from .record import NewRecord, Record
from .render import render_profile, render_summary

__all__ = ["Directory", "generate_directory"]


def _one_status(value: Any, mutator: str) -> str:
    """``value`` read as the loaders read a status (:func:`read_status`); a word for every
    status or a list of them refused with the mutator's own hint: the loaders' "leave status
    out" loads all three lists, and a mutator sets the one list an ICO is in."""
    return read_status(value, one=f"{mutator} puts an ICO in one status list: give one of "
                                  f"{', '.join(map(repr, STATUSES))}, a call per ICO")

# query results kept; paging through one query re-uses its entry
_CACHED_QUERIES = 64


@checked_methods
class Directory:
    """Records by id, thread-safe to query and mutate.

    Build one with :func:`generate_directory`.
    """

    def __init__(self, records: Iterable[Record], *, new_record: NewRecord):
        self._lock = threading.RLock()
        self._records: dict[int, Record] = {r.id: r for r in sorted(records, key=by_id)}
        self._new_record = new_record
        self._next_index = max((r.index for r in self._records.values()), default=-1) + 1
        self._max_id = max(self._records, default=999)
        self._version = 0  # bumped by every change; a query result of an older one is stale
        self._cache: dict[str, list[Record]] = {}

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"Directory({len(self)} ICOs)"

    def record(self, ico_id: int) -> Record:
        """The record of ``ico_id``; KeyError when there is none."""
        return self._records[ico_id]

    def records(self, status: str | None = None) -> list[Record]:
        """Records in ascending id order, optionally only those with ``status``."""
        with self._lock:
            values = list(self._records.values())
        return [r for r in values if status is None or r.status == status]

    def ids(self, status: str | None = None) -> list[int]:
        """Ids in ascending order, optionally only those with ``status``."""
        return [r.id for r in self.records(status)]

    def status_of(self, ico_id: int) -> str:
        """Status (one of ``icoframes.api.params.STATUSES``) of ``ico_id``; KeyError if unknown."""
        return self._records[ico_id].status

    def profile(self, ico_id: int) -> dict[str, Any]:
        """The raw profile of ``ico_id``, exactly as the profile endpoint sends it in ``data``."""
        return render_profile(self._records[ico_id])

    def summary(self, ico_id: int) -> dict[str, Any]:
        """The list summary (spec 2.2) of ``ico_id``, consistent with its profile."""
        return render_summary(self._records[ico_id])

    def profiles(self, status: str | None = None) -> list[dict[str, Any]]:
        """Raw profiles of every ICO (or those with ``status``), in ascending id order."""
        with gc_paused():
            return [render_profile(r) for r in self.records(status)]

    def query(self, params: Mapping[str, Any]) -> list[Record]:
        """Every record matching the list parameters (spec 4.2), sorted; ``page`` is ignored.

        Filters: platform/category/type by id; location by country; status;
        ico_score = score at least the value (no score never matches); yes-flags;
        accepted_currencies = accepts any; exclude_areas = drop ICOs restricted in
        or located in any of them. Sorting: no sort means id descending; name sorts
        case-insensitively; missing dates sort last either way; ties go by id in
        the sort direction.

        Raises
        ------
        icoframes.errors.InvalidParameter
            When ``params`` break spec 4.2 (the server answers 483).
        """
        wire = validate_list_params(params)
        wire.pop("page", None)
        key = json.dumps(wire, sort_keys=True, ensure_ascii=False)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                return list(cached)
            records = list(self._records.values())
            version = self._version
        result = sort_records(filter_records(records, wire), wire)
        with self._lock:
            if version == self._version:
                if len(self._cache) >= _CACHED_QUERIES:
                    self._cache.pop(next(iter(self._cache)))
                self._cache[key] = result
        return list(result)

    def add_ico(self, status: str = "past") -> int:
        """Insert a brand-new ICO with a new highest id and return that id; ``status`` in any
        case, as the loaders take it (InvalidParameter with the status meant, else)."""
        status = _one_status(status, "add_ico")
        with self._lock:
            rec = self._new_record(self._next_index, self._max_id, status)
            self._next_index += 1
            self._max_id = rec.id
            self._records[rec.id] = rec
            self._changed()
        return rec.id

    def update_ico(self, ico_id: int, *, name: str | None = None,
                   ico_score: float | None = None, raised: int | None = None,
                   status: str | None = None, end: datetime | None = None,
                   remove_end: bool = False, location: str | None = None,
                   category: str | None = None) -> None:
        """Change an ICO's values, in its summary and profile alike.

        ``name``, ``ico_score`` and ``raised`` show in the list summary too;
        ``status`` moves the ICO to another status list (an upcoming sale that
        started, an ongoing one that ended); ``end`` changes the end of its
        current stage (profile only, as on the real service), ``remove_end``
        takes it away (an empty ``end_datetime``: listed with the undated ICOs
        when sorted by it). ``location`` (a country of the filter set) and
        ``category`` (a category's name) show in the profile only, as on the real
        service: the list summary stays the same. Arguments left at None (``remove_end`` False) keep
        their value. The changed values are rendered plainly (no messy shape).
        Nothing else in the profile changes (caps, markets, prices, team... stay
        as generated), except what shows the changed value: a new ``name`` in the
        description, ``rating_details`` a scored ICO may have when one without a
        score gets ``ico_score``, ``tba`` made false by ``end``.
        Each is read as the loaders read theirs: a status, location or category in any
        case; a refused one raises :class:`~icoframes.errors.InvalidParameter` (a
        ``ValueError``) with the value meant, an unknown ``ico_id``
        :class:`~icoframes.errors.UnknownName` (a ``KeyError`` too), naming the ids there are.
        """
        status = None if status is None else _one_status(status, "update_ico")
        location = None if location is None else _one_of("location", location, COUNTRIES,
                                                         "a country of the filter set")
        categories = {n: c for c, n in CATEGORY_NAMES.items()}
        category = None if category is None else _one_of("category", category, categories,
                                                         "a category's name")
        ico_score, raised = _number("ico_score", ico_score), _number("raised", raised, whole=True)
        if end is not None and not isinstance(end, datetime):
            raise WrongType(f"invalid argument end={quoted(end)}: must be a datetime")
        with self._lock:
            rec = self._records[ico_id := self._known(ico_id)]
            changes: dict[str, Any] = {}
            if status is not None:
                changes["status"] = status
            if end is not None:
                changes.update(end=end, end_text=end.strftime("%d.%m.%Y %H:%M:%S"), tba=False)
            if remove_end:
                changes.update(end=None, end_text="")
            if name is not None:
                changes["name"] = name
            if ico_score is not None:
                changes.update(score=round(float(ico_score), 1), score_shape="float")
            if raised is not None:
                changes.update(raised=int(raised), raised_shape="int")
            if location is not None:
                changes["location"] = location
            if category is not None:
                changes["category_id"] = categories[category]
            self._records[ico_id] = replace(rec, origin=rec.drawn, **changes)
            self._changed()

    def remove_ico(self, ico_id: int) -> None:
        """Delete an ICO; :class:`~icoframes.errors.UnknownName` (a ``KeyError`` too) when
        ``ico_id`` is unknown."""
        with self._lock:
            del self._records[self._known(ico_id)]
            self._changed()

    def _known(self, ico_id: Any) -> int:
        """``ico_id`` read as the loaders read an id, when the directory has it (under the
        lock); else the refusal, naming the ids there are."""
        number = read_ico_id(ico_id)
        if number not in self._records:
            ids = self._records
            there = f"ids {min(ids)} to {max(ids)}, {len(ids)} in all" if ids else "no ICO"
            raise UnknownName(f"unknown ICO id {number}: the sandbox's directory has {there}")
        return number

    def _changed(self) -> None:
        self._version += 1
        self._cache.clear()


def _one_of(name: str, value: Any, names: Iterable[str], what: str) -> str:
    """The one of ``names`` that ``value`` is in any case (stripped), else InvalidParameter
    with the closest."""
    by_fold = {n.casefold(): n for n in names}
    if isinstance(value, str) and value.strip().casefold() in by_fold:
        return by_fold[value.strip().casefold()]
    raise InvalidParameter(f"invalid argument {name}={quoted(value)}: must be {what}"
                           + did_you_mean(value, by_fold.values()))


def _number(name: str, value: Any, *, whole: bool = False) -> Any:
    """``value`` as a finite number (``whole``: an integer), else InvalidParameter; None kept."""
    if value is None:
        return None
    if whole and (number := as_integer(value)) is not None:
        return number
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) \
            and (not whole or float(value).is_integer()):  # raised=1e6: a whole amount
        return int(float(value)) if whole else value
    raise InvalidParameter(f"invalid argument {name}={quoted(value)}: must be "
                           f"{'a whole number' if whole else 'a finite number'}"
                           + did_you_mean_number(value, whole=whole))


@checked_keywords
def generate_directory(n_icos: int = 1000, *, seed: int = 0) -> Directory:
    """Build a realistic synthetic directory of ``n_icos`` ICOs, the same for the same seed.

    Parameters
    ----------
    n_icos : int
        Number of ICOs (about 75% past, 10% ongoing, 15% upcoming).
    seed : int
        Seed of every random choice, including those of ICOs added later.

    Returns
    -------
    Directory
        Ids start near 1000 with random gaps.

    Examples
    --------
    >>> d = generate_directory(50, seed=1)
    >>> len(d), d.ids() == generate_directory(50, seed=1).ids()
    (50, True)
    """
    records, new_record = generate_records(n_icos, seed)
    return Directory(records, new_record=new_record)
