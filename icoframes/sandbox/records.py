"""The directory's data types: immutable ICO records and the thread-safe Directory of them.

A :class:`Record` holds the clean truth the server filters and sorts on (ids,
status, country, score, flags, currencies, dates, raised...); its summary and
raw profile are rendered from it on demand by :mod:`.render`. A
:class:`Directory` holds records by id, answers queries through :mod:`.query`
and is mutated under a lock; :mod:`.generate` builds one.
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..api.params import validate_list_params
from .catalog import CATEGORY_NAMES, PLATFORM_NAMES, TYPE_NAMES, filter_set
from .query import by_id, filter_records, sort_records
from .render import render_profile, render_summary

__all__ = ["Directory", "NewRecord", "Record"]


@dataclass(frozen=True, slots=True)
class Record:
    """One ICO: the clean truth, from which its summary and profile are rendered.

    Records are immutable; :meth:`Directory.update_ico` swaps in a new one, so a
    request being served never sees a half-updated ICO.

    ``start``/``end`` are None when the profile shows ``''`` or an invalid date;
    ``score``/``raised`` are None when the profile shows no usable value.
    """

    id: int
    index: int
    slot: int
    seed: int
    status: str
    name: str
    slug: str
    ticker: str
    platform_id: int
    category_id: int
    type_id: int
    location: str
    score: float | None
    score_shape: str
    airdrop: bool
    bounty: bool
    kyc: bool
    whitelist: bool
    kyc_passed: bool
    accepting: tuple[str, ...]
    restricted: tuple[str, ...]
    start: datetime | None
    end: datetime | None
    start_text: str
    end_text: str
    tba: bool
    raised: int | None
    raised_shape: str

    @property
    def flags(self) -> dict[str, bool]:
        """The yes-filter flags: airdrop, bounty, kyc, whitelist, kyc_passed."""
        return {"airdrop": self.airdrop, "bounty": self.bounty, "kyc": self.kyc,
                "whitelist": self.whitelist, "kyc_passed": self.kyc_passed}

    @property
    def platform(self) -> str:
        """Canonical platform name (the profile may spell it differently)."""
        return PLATFORM_NAMES[self.platform_id]

    @property
    def category(self) -> str:
        return CATEGORY_NAMES[self.category_id]

    @property
    def type(self) -> str:
        return TYPE_NAMES[self.type_id]

    @property
    def url(self) -> str:
        return f"https://icodirectory.example/ico/{self.slug}"

    @property
    def logo(self) -> str:
        return f"https://icodirectory.example/img/logo/{self.slug}.png"

    @property
    def profile(self) -> dict[str, Any]:
        """The raw profile, exactly as the profile endpoint returns it in ``data``."""
        return render_profile(self)

    @property
    def summary(self) -> dict[str, Any]:
        """The list summary (spec 2.2), consistent with the profile."""
        return render_summary(self)


#: Makes a brand-new record from (index, highest id so far, status); its id is higher.
NewRecord = Callable[[int, int, str], "Record"]


class Directory:
    """The sandbox's ICO directory: records by id, thread-safe to query and mutate.

    Build one with :func:`~icoframes.sandbox.generate.generate_directory`.
    Iterating yields records in ascending id order.
    """

    def __init__(self, records: Iterable[Record], *, new_record: NewRecord):
        self._lock = threading.RLock()
        self._records: dict[int, Record] = {r.id: r for r in sorted(records, key=by_id)}
        self._new_record = new_record
        self._next_index = max((r.index for r in self._records.values()), default=-1) + 1
        self._max_id = max(self._records, default=999)
        self._version = 0
        self._cache: dict[str, list[Record]] = {}

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, ico_id: object) -> bool:
        return ico_id in self._records

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records())

    def __repr__(self) -> str:
        return f"Directory({len(self)} ICOs)"

    @property
    def version(self) -> int:
        """Bumped by every mutation."""
        return self._version

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
        """Status (ongoing, upcoming or past) of ``ico_id``; KeyError when unknown."""
        return self._records[ico_id].status

    def profile(self, ico_id: int) -> dict[str, Any]:
        """The raw profile of ``ico_id``, exactly as the profile endpoint sends it in ``data``."""
        return render_profile(self._records[ico_id])

    def summary(self, ico_id: int) -> dict[str, Any]:
        """The list summary (spec 2.2) of ``ico_id``."""
        return self._records[ico_id].summary

    def profiles(self, status: str | None = None) -> list[dict[str, Any]]:
        """Raw profiles of every ICO (or those with ``status``), in ascending id order."""
        with gc_paused():
            return [render_profile(r) for r in self.records(status)]

    def iter_profiles(self, status: str | None = None) -> Iterator[dict[str, Any]]:
        """Like :meth:`profiles`, one at a time, for very large directories."""
        return (render_profile(r) for r in self.records(status))

    def filters(self) -> dict[str, list[dict[str, Any]]]:
        """The filter set (spec 2.1): platform, category, type, location."""
        return filter_set()

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
                if len(self._cache) >= 64:  # bound memory; paging re-uses the newest entries
                    self._cache.pop(next(iter(self._cache)))
                self._cache[key] = result
        return list(result)

    def add_ico(self, status: str = "past") -> int:
        """Insert a brand-new ICO with a new highest id and return that id."""
        if status not in ("past", "ongoing", "upcoming"):
            raise ValueError(f"status must be past, ongoing or upcoming, not {status!r}")
        with self._lock:
            rec = self._new_record(self._next_index, self._max_id, status)
            self._next_index += 1
            self._max_id = rec.id
            self._records[rec.id] = rec
            self._changed()
        return rec.id

    def update_ico(self, ico_id: int, *, name: str | None = None,
                   ico_score: float | None = None, raised: int | None = None) -> None:
        """Change an ICO's name, score or raised amount, in its summary and profile alike.

        Arguments left at None keep their value. The changed values are rendered
        plainly (no messy shape). KeyError when ``ico_id`` is unknown.
        """
        with self._lock:
            rec = self._records[ico_id]
            changes: dict[str, Any] = {}
            if name is not None:
                changes["name"] = name
            if ico_score is not None:
                changes.update(score=round(float(ico_score), 1), score_shape="float")
            if raised is not None:
                changes.update(raised=int(raised), raised_shape="int")
            self._records[ico_id] = replace(rec, **changes)
            self._changed()

    def remove_ico(self, ico_id: int) -> None:
        """Delete an ICO; KeyError when ``ico_id`` is unknown."""
        with self._lock:
            del self._records[ico_id]
            self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._cache.clear()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many acyclic objects.

    Rendering allocates millions of small dicts and lists without cycles; the
    collector would re-scan the growing heap again and again (about 40% of the
    time for 50,000 profiles). Reference counting still frees garbage.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
