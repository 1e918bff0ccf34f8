"""A seeded synthetic ICO directory: clean typed truth plus the messy JSON the API sends.

:func:`generate_directory` builds a :class:`Directory` of :class:`Record` objects.
A record holds the clean truth the server filters and sorts on (ids, status,
country, score, flags, currencies, dates, raised...). Its list summary
(spec 2.2) and raw profile (spec 2.3) are rendered from it on demand, always
identically for the same record (a per-record seed drives every detail), so a
50,000-ICO directory stays small in memory and ``directory.profile(id)`` is
exactly what the profile endpoint returns.

Figures follow ``/work/shared/notes/ico-figures.md`` (ICObench-derived data,
Fahlenbrach & Frattaroli 2021, Momtaz 2020). Dates of ongoing and upcoming ICOs
are placed around the fixed :data:`REFERENCE_DATE`, never the wall clock, so a
seed always gives the same directory.

Messy value shapes in the profiles. "Cadence" shapes are tied to a record's
``slot`` (one of 50), so a directory of 1,000 ICOs holds each of them about 20
times whatever the seed; the others are drawn per ICO. Counts are ICOs out of
the 1,000 of ``generate_directory(1000, seed=0)`` showing the shape at least once.

=============================================  ==============================================
shape                                          where, and how many ICOs of 1,000
=============================================  ==============================================
JSON numbers / numeric strings                 finance amounts and prices, score: each value
                                               a string with p=0.3 (~730 ICOs have one)
scientific notation ``"1.5e8"``, ``"1.2e-05"``  tokens_for_sale 5% (~50); small ETH/BTC
                                               prices written by ``str(float)`` (~25)
ids as numeric strings                         profile id ~9%, summary id ~10%
``''`` for absent values                       everywhere a value is unknown (all ICOs)
``null``                                       false booleans 3% of values; score and raised
                                               (cadence); soft_cap 3%; whitepaper, video 2%
missing key                                    links.video, finance.escrow, main.mvp,
                                               dates.tba (cadence, ~20 each); team member
                                               photo or social (1.5% of people each)
``"$2,000,000"`` ``"1,500,000"`` ``"15M"``     raised (4% of known values per style) and
``"250K"`` ``"2000000 USD"``                   hard_cap, soft_cap (cadence): ~20 ICOs each
``"NA"`` ``"—"`` ``"NOT SET"`` ``"Pending"``   cadence, ~20 ICOs per field: main.ico_score NA;
``"TBA"``                                      raised Pending, NA, —; min_purchase NA;
                                               max_purchase Pending; soft_cap NOT SET;
                                               hard_cap —; tokens_for_sale TBA; token_price
                                               TBA, Pending; ticker TBA
unparseable numbers                            token_price ``"1 BILL = 1 XLM"``,
                                               ``"1 ETH = 3500 XYZ"``, ``"Dynamic, ..."``
                                               (cadence, ~20)
tokens_for_sale above 2**63                    cadence, ~40 (as number and as string)
booleans ``true``/``''``/``false``/``null``    true where the statement holds, else ``''``;
                                               false and null 3% of false values each
dates ``DD.MM.YYYY HH:MM:SS``, ``''``,         ``''`` start ~12.5%; ``"31.02.YYYY 00:00:00"``
invalid dates                                  and ``"00.00.0000 00:00:00"`` (cadence, ~20
                                               each); end before start (cadence, ~20)
``[]`` for an empty map                        social ~5%, bonuses ~90%, distribution ~15%,
                                               roadmap ~15%
``''`` for an empty list                       markets ~70%, restricted_areas ~69%,
                                               accepting ~8%, team ~29%, advisors ~40%
distribution ``'60%'`` ``'60 %'`` ``'60'``     one style per ICO: 60% / 10% / 10% / 10% / 10%
``'60.0%'`` ``60``
roadmap keys ``DD-MM-YYYY``, ``'Q3 2018'``,    per milestone 85% / 7% / 5% / 3%
``'March 2019'``, ``'2019'``
main.platform ``"Ethereum "``, ``"ERC20"``     5% each of Ethereum ICOs (~50, ~45); the
                                               platform filter id stays 1
unknown extra keys                             top-level ``updated_at`` ~30%,
                                               ``main.rating_details`` ~21%, social keys
                                               telegram, medium, discord, slack...
=============================================  ==============================================

The location ``"Unknown"`` (~7%) is a country name as the directory writes it,
not a missing marker.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import json
import math
import random
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ..params import validate_list_params

__all__ = [
    "CATEGORIES",
    "COUNTRIES",
    "CURRENCIES",
    "PLATFORMS",
    "REFERENCE_DATE",
    "TYPES",
    "Directory",
    "Record",
    "generate_directory",
]

#: Ongoing and upcoming ICOs are dated around this day, not around "now".
REFERENCE_DATE = datetime(2026, 11, 1)

# (id, name, weight in %): the weights are shares of ICOs.
PLATFORMS: tuple[tuple[int, str, float], ...] = (
    (1, "Ethereum", 80.0), (2, "Waves", 3.0), (3, "Stellar", 2.5), (4, "NEO", 2.0),
    (5, "EOS", 1.8), (6, "Bitcoin", 1.2), (7, "Own blockchain", 3.0), (8, "Tron", 1.2),
    (9, "Binance Smart Chain", 1.5), (10, "Hyperledger", 0.6), (11, "Cardano", 0.4),
    (12, "Qtum", 0.5), (13, "NEM", 0.5), (14, "Komodo", 0.3), (15, "Separate blockchain", 1.0),
    (16, "Omni", 0.2), (17, "Solana", 0.3),
)
CATEGORIES: tuple[tuple[int, str, float], ...] = (
    (1, "Platform", 14.0), (2, "Cryptocurrency", 9.0), (3, "Business services", 8.0),
    (4, "Finance", 8.0), (5, "Banking", 4.0), (6, "Infrastructure", 5.0),
    (7, "Entertainment", 5.0), (8, "Gaming", 4.5), (9, "Artificial Intelligence", 4.0),
    (10, "Real estate", 3.0), (11, "Energy", 3.0), (12, "Health", 3.5), (13, "Media", 3.5),
    (14, "Communication", 3.0), (15, "Internet", 4.0), (16, "Investment", 5.0),
    (17, "Software", 4.0), (18, "Smart Contract", 4.0), (19, "Retail", 3.0),
    (20, "Tourism", 2.0), (21, "Education", 1.5), (22, "Charity", 1.0),
)
TYPES: tuple[tuple[int, str, float], ...] = (
    (1, "ICO", 70.0), (2, "Pre-ICO", 10.0), (3, "IEO", 8.0), (4, "STO", 7.0), (5, "IDO", 5.0),
)
# Top countries as in the figures; the long tail shares the remaining ~40%.
_TOP_COUNTRIES = (
    ("USA", 13.0), ("Singapore", 10.2), ("UK", 9.2), ("Unknown", 7.2), ("Russia", 5.6),
    ("Estonia", 5.4), ("Switzerland", 4.8), ("Cayman Islands", 2.2), ("Germany", 2.2),
)
_TAIL_COUNTRIES = (
    "Argentina", "Australia", "Austria", "Belarus", "Belgium", "Belize", "Brazil",
    "British Virgin Islands", "Bulgaria", "Canada", "China", "Côte d'Ivoire", "Curaçao",
    "Cyprus", "Czech Republic", "Denmark", "Finland", "France", "Georgia", "Gibraltar",
    "Hong Kong", "India", "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kazakhstan",
    "Latvia", "Liechtenstein", "Lithuania", "Luxembourg", "Malaysia", "Malta", "Mexico",
    "Netherlands", "New Zealand", "Nigeria", "Norway", "Philippines", "Poland", "Portugal",
    "Romania", "Seychelles", "Slovenia", "South Africa", "South Korea", "Spain", "Sweden",
    "Taiwan", "Thailand", "Turkey", "Ukraine", "United Arab Emirates", "Vietnam",
)
_TAIL_WEIGHT = (100.0 - sum(w for _, w in _TOP_COUNTRIES)) / len(_TAIL_COUNTRIES)
#: Every country name the directory uses (the location filter values, spec 2.1).
COUNTRIES: tuple[str, ...] = tuple(
    sorted([c for c, _ in _TOP_COUNTRIES] + list(_TAIL_COUNTRIES), key=str.casefold)
)
_RESTRICTED_WEIGHTS = (
    ("USA", 30.0), ("China", 14.0), ("Singapore", 5.0), ("South Korea", 6.0), ("Canada", 6.0),
    ("Iran", 3.0), ("North Korea", 3.0), ("Syria", 2.0), ("Cuba", 2.0), ("Sudan", 1.5),
    ("Crimea", 1.0), ("Russia", 1.0), ("UK", 1.0), ("Japan", 1.0), ("Côte d'Ivoire", 0.3),
)
# Ticker -> share of ICOs accepting it (figures: counts among 6,146 ICOs).
CURRENCIES: tuple[tuple[str, float], ...] = (
    ("ETH", 5058 / 6146), ("BTC", 2605 / 6146), ("LTC", 820 / 6146), ("Fiat", 751 / 6146),
    ("BCH", 357 / 6146), ("DASH", 222 / 6146), ("XRP", 188 / 6146), ("USDT", 157 / 6146),
)
_NATIVE = {2: "WAVES", 3: "XLM", 4: "NEO", 5: "EOS", 8: "TRX", 9: "BNB", 11: "ADA", 12: "QTUM",
           13: "XEM", 14: "KMD", 17: "SOL"}
_START_YEARS = ((2016, 0.5), (2017, 18.7), (2018, 56.4), (2019, 17.8), (2020, 6.4))
_STATUSES = (("past", 75.0), ("ongoing", 10.0), ("upcoming", 15.0))

_PERIOD = 50  # rare shapes recur once per this many records (see module docs)
_AMOUNT_STYLES = ("dollar", "comma", "M", "K", "usd")
_UNPARSEABLE_PRICES = ("1 BILL = 1 XLM", "1 ETH = 3500 {t}", "Dynamic, see whitepaper")


class _Weighted:
    """Fast weighted choice: one ``random()`` and a bisect."""

    def __init__(self, pairs: Iterable[tuple[Any, float]]):
        items = list(pairs)
        self.values = [v for v, _ in items]
        self.cum = list(itertools.accumulate(w for _, w in items))
        self.total = self.cum[-1]

    def pick(self, rng: random.Random) -> Any:
        return self.values[bisect.bisect_right(self.cum, rng.random() * self.total)]


_PICK_PLATFORM = _Weighted((p, w) for p, _, w in PLATFORMS)
_PICK_CATEGORY = _Weighted((c, w) for c, _, w in CATEGORIES)
_PICK_TYPE = _Weighted((t, w) for t, _, w in TYPES)
_PICK_COUNTRY = _Weighted(list(_TOP_COUNTRIES) + [(c, _TAIL_WEIGHT) for c in _TAIL_COUNTRIES])
_PICK_RESTRICTED = _Weighted(_RESTRICTED_WEIGHTS)
_PICK_YEAR = _Weighted(_START_YEARS)
_PICK_STATUS = _Weighted(_STATUSES)
_PLATFORM_NAMES = {p: n for p, n, _ in PLATFORMS}
_CATEGORY_NAMES = {c: n for c, n, _ in CATEGORIES}
_TYPE_NAMES = {t: n for t, n, _ in TYPES}


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
        return _PLATFORM_NAMES[self.platform_id]

    @property
    def category(self) -> str:
        return _CATEGORY_NAMES[self.category_id]

    @property
    def type(self) -> str:
        return _TYPE_NAMES[self.type_id]

    @property
    def url(self) -> str:
        return f"https://icodirectory.example/ico/{self.slug}"

    @property
    def logo(self) -> str:
        return f"https://icodirectory.example/img/logo/{self.slug}.png"

    @property
    def profile(self) -> dict[str, Any]:
        """The raw profile, exactly as the profile endpoint returns it in ``data``."""
        return _render_profile(self)

    @property
    def summary(self) -> dict[str, Any]:
        """The list summary (spec 2.2), consistent with the profile."""
        return {
            "id": str(self.id) if self.seed % 10 == 3 else self.id,
            "main": {"name": self.name, "logo": self.logo,
                     "ico_score": "" if self.score is None else f"{self.score:.1f}"},
            "links": {"url": self.url},
            "finance": {"raised": "" if self.raised is None else self.raised},
        }


class Directory:
    """The sandbox's ICO directory: records by id, thread-safe to query and mutate.

    Build one with :func:`generate_directory`. Iterating yields records in
    ascending id order.
    """

    def __init__(self, records: Iterable[Record], *, rng: random.Random, slot_offset: int,
                 names: set[str], slugs: set[str]):
        self._lock = threading.RLock()
        self._records: dict[int, Record] = {r.id: r for r in sorted(records, key=_by_id)}
        self._rng = rng
        self._slot_offset = slot_offset
        self._names = names
        self._slugs = slugs
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
        return _render_profile(self._records[ico_id])

    def summary(self, ico_id: int) -> dict[str, Any]:
        """The list summary (spec 2.2) of ``ico_id``."""
        return self._records[ico_id].summary

    def profiles(self, status: str | None = None) -> list[dict[str, Any]]:
        """Raw profiles of every ICO (or those with ``status``), in ascending id order."""
        with _gc_paused():
            return [_render_profile(r) for r in self.records(status)]

    def iter_profiles(self, status: str | None = None) -> Iterator[dict[str, Any]]:
        """Like :meth:`profiles`, one at a time, for very large directories."""
        return (_render_profile(r) for r in self.records(status))

    def filters(self) -> dict[str, list[dict[str, Any]]]:
        """The filter set (spec 2.1): platform, category, type, location."""
        return {
            "platform": [{"id": i, "name": n} for i, n, _ in PLATFORMS],
            "category": [{"id": i, "name": n} for i, n, _ in CATEGORIES],
            "type": [{"id": i, "name": n} for i, n, _ in TYPES],
            "location": [{"name": c} for c in COUNTRIES],
        }

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
        result = _sort(_filter(records, wire), wire)
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
            ico_id = self._max_id + 1 + self._rng.randrange(3)
            rec = _new_record(self._rng, self._next_index, ico_id, status, self._slot_offset,
                              self._names, self._slugs)
            self._next_index += 1
            self._max_id = ico_id
            self._records[ico_id] = rec
            self._changed()
        return ico_id

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


def generate_directory(n_icos: int = 1000, *, seed: int = 0) -> Directory:
    """Build a realistic synthetic directory of ``n_icos`` ICOs, the same for the same seed.

    Parameters
    ----------
    n_icos : int
        Number of ICOs (about 75% past, 10% ongoing, 15% upcoming).
    seed : int
        Seed of every random choice.

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
    if n_icos < 0:
        raise ValueError("n_icos must be >= 0")
    rng = random.Random(seed)
    slot_offset = rng.randrange(_PERIOD)
    names: set[str] = set()
    slugs: set[str] = set()
    records = []
    ico_id = 1000 + rng.randrange(40)
    with _gc_paused():
        for index in range(n_icos):
            status = _PICK_STATUS.pick(rng)
            records.append(_new_record(rng, index, ico_id, status, slot_offset, names, slugs))
            ico_id += _id_gap(rng)
    return Directory(records, rng=rng, slot_offset=slot_offset, names=names, slugs=slugs)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
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


# --- querying ---------------------------------------------------------------------------------

def _by_id(rec: Record) -> int:
    return rec.id


def _filter(records: list[Record], wire: Mapping[str, Any]) -> list[Record]:
    out = records
    for field, param in (("platform_id", "platform"), ("category_id", "category"),
                         ("type_id", "type")):
        if param in wire:
            wanted = set(wire[param])
            out = [r for r in out if getattr(r, field) in wanted]
    if "location" in wire:
        places = set(wire["location"])
        out = [r for r in out if r.location in places]
    if "status" in wire:
        out = [r for r in out if r.status == wire["status"]]
    if "ico_score" in wire:
        low = wire["ico_score"]
        out = [r for r in out if r.score is not None and r.score >= low]
    for param, field in (("airdrop_program", "airdrop"), ("bounty_program", "bounty"),
                         ("investor_kyc", "kyc"), ("investor_wl", "whitelist"),
                         ("ico_kyc_passed", "kyc_passed")):
        if param in wire:
            out = [r for r in out if getattr(r, field)]
    if "accepted_currencies" in wire:
        tickers = {t.upper() for t in wire["accepted_currencies"]}
        out = [r for r in out if tickers.intersection(t.upper() for t in r.accepting)]
    if "exclude_areas" in wire:
        areas = set(wire["exclude_areas"])
        out = [r for r in out if r.location not in areas and not areas.intersection(r.restricted)]
    return out


def _sort(records: list[Record], wire: Mapping[str, Any]) -> list[Record]:
    key = wire.get("sort_asc") or wire.get("sort_desc")
    descending = "sort_desc" in wire or key is None
    if key is None or key == "id":
        return sorted(records, key=_by_id, reverse=descending)
    if key == "name":
        return sorted(records, key=lambda r: (r.name.casefold(), r.id), reverse=descending)
    field = "start" if key == "start_datetime" else "end"
    dated = [r for r in records if getattr(r, field) is not None]
    undated = [r for r in records if getattr(r, field) is None]
    dated.sort(key=lambda r: (getattr(r, field), r.id), reverse=descending)
    undated.sort(key=_by_id, reverse=descending)
    return dated + undated


# --- generating the truth ---------------------------------------------------------------------

def _id_gap(rng: random.Random) -> int:
    u = rng.random()
    if u < 0.55:
        return 1
    if u < 0.95:
        return 2 + rng.randrange(4)
    return 10 + rng.randrange(40)


def _split(rng: random.Random, centre: float, low: float, high: float) -> float:
    """A draw whose lower and upper halves have different spreads (skewed figures)."""
    z = rng.gauss(0.0, 1.0)
    return centre + z * (low if z < 0 else high)


def _dt_text(value: datetime) -> str:
    return (f"{value.day:02d}.{value.month:02d}.{value.year} "
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}")


def _new_record(rng: random.Random, index: int, ico_id: int, status: str, slot_offset: int,
                names: set[str], slugs: set[str]) -> Record:
    slot = (index + slot_offset) % _PERIOD
    name = _project_name(rng, names)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if slug in slugs:
        slug = f"{slug}-{ico_id}"
    slugs.add(slug)
    platform_id = _PICK_PLATFORM.pick(rng)

    score: float | None = None
    score_shape = "float" if rng.random() < 0.7 else "str"
    if slot == 5:
        score_shape = "NA"
    elif slot == 31:
        score_shape = "null"
    elif rng.random() < 0.116:
        score_shape = ""
    else:
        # median 2.9, p10 2.0, p90 4.0 (figures)
        score = round(min(5.0, max(0.2, _split(rng, 2.9, 0.70, 0.86))), 1)

    kyc = rng.random() < 0.42
    whitelist = rng.random() < (0.75 if kyc else 0.19)

    accepting = [t for t, share in CURRENCIES
                 if rng.random() < (share if t != "ETH" or platform_id == 1 else 0.35)]
    native = _NATIVE.get(platform_id)
    if native and rng.random() < 0.5:
        accepting.append(native)
    restricted: tuple[str, ...] = ()
    if rng.random() < 0.318:
        picked = {_PICK_RESTRICTED.pick(rng) for _ in range(1 + int(rng.expovariate(0.6)))}
        restricted = tuple(sorted(picked, key=str.casefold))

    start, end = _dates(rng, status)
    start_text = "" if start is None else _dt_text(start)
    end_text = "" if end is None else _dt_text(end)
    if slot == 7 and start is not None:
        start_text, start = f"31.02.{start.year} 00:00:00", None
    elif slot == 33 and end is not None:
        end_text, end = "00.00.0000 00:00:00", None
    elif slot == 17 and start is not None:
        end = start - timedelta(days=1 + rng.randrange(30))
        end_text = _dt_text(end)

    raised, raised_shape = _raised(rng, status, slot)
    return Record(
        id=ico_id, index=index, slot=slot, seed=rng.getrandbits(62), status=status, name=name,
        slug=slug, ticker=_ticker(rng, name), platform_id=platform_id,
        category_id=_PICK_CATEGORY.pick(rng), type_id=_PICK_TYPE.pick(rng),
        location=_PICK_COUNTRY.pick(rng), score=score, score_shape=score_shape,
        airdrop=rng.random() < 0.16, bounty=rng.random() < 0.5, kyc=kyc, whitelist=whitelist,
        kyc_passed=rng.random() < 0.18, accepting=tuple(accepting), restricted=restricted,
        start=start, end=end, start_text=start_text, end_text=end_text,
        tba=start is None and end is None and not start_text and not end_text,
        raised=raised, raised_shape=raised_shape,
    )


def _dates(rng: random.Random, status: str) -> tuple[datetime | None, datetime | None]:
    # duration: median 39.5 days, p10 9, p90 140 (figures)
    days = min(400.0, max(1.0, math.exp(_split(rng, math.log(39.5), 1.154, 0.987))))
    hour = 0 if rng.random() < 0.6 else (12 if rng.random() < 0.4 else rng.randrange(24))
    if status == "past":
        year = _PICK_YEAR.pick(rng)
        start = datetime(year, 1, 1) + timedelta(days=rng.randrange(365))
        end = start + timedelta(days=round(days))
    elif status == "ongoing":
        start = REFERENCE_DATE - timedelta(days=1 + rng.randrange(75))
        end = REFERENCE_DATE + timedelta(days=1 + rng.randrange(120))
    else:
        start = REFERENCE_DATE + timedelta(days=1 + rng.randrange(240))
        end = start + timedelta(days=round(days))
    start = start.replace(hour=hour)
    end = end.replace(hour=23, minute=59, second=59) if rng.random() < 0.5 else end.replace(
        hour=hour)
    if rng.random() < 0.125:  # 12.5% have no start date; most of those have no end either
        return None, (end if rng.random() < 0.3 else None)
    return start, end


_RAISED_MARKERS = {3: "Pending", 13: "NA", 29: "—", 41: "null"}


def _raised(rng: random.Random, status: str, slot: int) -> tuple[int | None, str]:
    known_share = {"past": 0.40, "ongoing": 0.15, "upcoming": 0.0}[status]
    u = rng.random()
    # log-normal: median $15.07M, mean $24.16M (Fahlenbrach & Frattaroli)
    value = max(10_000, round(math.exp(rng.gauss(math.log(15.07e6), 0.97)), -3))
    style = rng.random()
    if slot in _RAISED_MARKERS:
        return None, _RAISED_MARKERS[slot]
    if u >= known_share:
        return None, ""
    if style < 0.55:
        return int(value), "int"
    if style < 0.80:
        return int(value), "str"
    shape = _AMOUNT_STYLES[min(4, int((style - 0.80) / 0.04))]
    if shape == "M":
        value = max(1, round(value / 1e6)) * 1_000_000
    return int(value), shape


_PREFIXES = (
    "Aero", "Alpha", "Aqua", "Astra", "Aura", "Bit", "Block", "Bright", "Byte", "Carbon", "Chain",
    "Civic", "Cloud", "Coin", "Core", "Crypto", "Cyber", "Data", "Deci", "Delta", "Echo", "Ener",
    "Ether", "Fin", "Flux", "Fusion", "Gala", "Geo", "Gold", "Hash", "Helio", "Hyper", "Kine",
    "Lend", "Lumi", "Medi", "Mega", "Meta", "Mint", "Nano", "Neo", "Nex", "Nova", "Omni", "Open",
    "Opti", "Orbi", "Pay", "Peer", "Pixel", "Poly", "Prime", "Quant", "Rocket", "Sky", "Smart",
    "Sol", "Star", "Terra", "Token", "Trust", "Uni", "Vera", "Vita", "Volt", "Wave", "Zen", "Zeta",
)
_MIDDLES = ("", "", "", "", "", "a", "o", "i", "ra", "lo", "ve", "xo", "ti", "mi", "no")
_SUFFIXES = (
    "bit", "cash", "chain", "coin", "dex", "ex", "fi", "hub", "io", "ium", "ify", "ledger",
    "link", "lab", "mark", "net", "nova", "pay", "port", "scan", "stake", "sure", "swap",
    "trade", "verse", "vault", "wise", "x", "yield", "zone",
)
_SECOND_WORDS = (
    "Network", "Protocol", "Capital", "Labs", "Finance", "Exchange", "Platform", "Project",
    "Token", "Coin", "AI", "Cloud", "Market", "Games", "Health", "Energy", "World", "Global",
)


def _project_name(rng: random.Random, taken: set[str]) -> str:
    name = ""
    for _ in range(4):
        prefix, middle = rng.choice(_PREFIXES), rng.choice(_MIDDLES)
        if prefix[-1] in "aeiou" and middle[:1] in ("a", "o", "i"):
            middle = ""  # avoid names like "Alphaaswap"
        word = prefix + middle + rng.choice(_SUFFIXES)
        u = rng.random()
        if u < 0.2:
            name = f"{word} {rng.choice(_SECOND_WORDS)}"
        elif u < 0.24:  # lower-case brands make case-insensitive sorting matter
            name = rng.choice("iex") + word
        elif u < 0.28:
            name = word.lower()
        else:
            name = word
        if name not in taken:
            break
    else:
        name = f"{name} {2 + rng.randrange(8)}.0"
    taken.add(name)
    return name


def _ticker(rng: random.Random, name: str) -> str:
    letters = [c for c in name.upper() if "A" <= c <= "Z"]
    size = min(len(letters), 3 + (rng.random() < 0.4))
    picks = sorted(_sample(rng, tuple(range(1, len(letters))), size - 1))
    return letters[0] + "".join(letters[i] for i in picks)


# --- rendering the profile --------------------------------------------------------------------

_FIRST = (
    "Alex", "Anna", "Andrei", "Ben", "Carlos", "Chloé", "Chen", "Daniel", "David", "Elena",
    "Emma", "Felix", "Hiro", "Igor", "Ivan", "James", "Jana", "José", "Julia", "Jürgen", "Kai",
    "Laura", "Li", "Lucas", "Maria", "Mark", "Max", "Michael", "Min-jun", "Nadia", "Nikolai",
    "Olga", "Omar", "Paul", "Priya", "Rahul", "Sara", "Sergey", "Sofia", "Søren", "Thomas",
    "Tom", "Victor", "Wei", "Yuki", "Zoë", "Małgorzata", "Ahmed", "Kwame", "Lucía",
)
_LAST = (
    "Anderson", "Becker", "Brown", "Chen", "Costa", "Dubois", "Fischer", "García", "Hoffmann",
    "Ivanov", "Jensen", "Kim", "Kowalski", "Kuznetsov", "Lee", "Martin", "Müller", "Nakamura",
    "Novák", "Nguyen", "O'Brien", "Petrov", "Rossi", "Schmidt", "Silva", "Smith", "Tan",
    "Tanaka", "Wang", "Weber", "Williams", "Wong", "Zhang", "Mensah", "Okafor", "Sokolova",
)
_ROLES = (
    "CEO", "CTO", "COO", "CMO", "CFO", "Co-founder", "Lead Developer", "Blockchain Developer",
    "Full-stack Developer", "Marketing Manager", "Community Manager", "Designer",
    "Product Manager", "Legal Counsel", "Business Development", "Data Scientist",
)
_ADVISOR_ROLES = ("Advisor", "Legal Advisor", "Blockchain Advisor", "Strategic Advisor",
                  "Marketing Advisor", "Financial Advisor")
_SOCIAL = ("twitter", "telegram", "facebook", "medium", "reddit", "github", "bitcointalk",
           "linkedin", "youtube", "discord", "slack")
_SOCIAL_SHARE = (0.9, 0.85, 0.7, 0.55, 0.45, 0.45, 0.35, 0.3, 0.25, 0.15, 0.1)
_PARTS = ("Team", "Advisors", "Reserve", "Bounty", "Partners", "Foundation", "Marketing",
          "Community", "Development", "Airdrop", "Ecosystem", "Pre-sale")
_SALE_PARTS = ("Crowdsale", "ICO", "Token sale", "Public sale")
_MILESTONES = (
    "Concept and whitepaper", "Team formation", "Private sale", "Pre-sale", "Token sale",
    "Prototype", "MVP release", "Beta launch", "Security audit", "Exchange listing",
    "Mainnet launch", "Mobile app", "Partnerships in Asia", "Global expansion",
    "Version 2.0", "DAO governance",
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_EXCHANGES = ("binance", "kucoin", "hitbtc", "bittrex", "huobi", "okex", "gate", "idex",
              "bitfinex", "uniswap")
_HANDLES = {(f, last): re.sub(r"[^a-z]+", "-", f"{f} {last}".lower())
            for f in _FIRST for last in _LAST}
_PITCHES = (
    "It connects users and providers without intermediaries.",
    "Its token pays for services inside the ecosystem.",
    "The team has shipped a working prototype.",
    "Holders share the platform's revenue.",
    "It brings transparent, auditable records to the industry.",
    "Smart contracts automate payments and settlement.",
)


def _pick(rng: random.Random, seq: tuple[Any, ...] | list[Any]) -> Any:
    # random.choice goes through _randbelow; one float draw is several times faster
    return seq[int(rng.random() * len(seq))]


def _sample(rng: random.Random, seq: tuple[Any, ...], k: int) -> list[Any]:
    # random.sample spends most of its time in an isinstance(Sequence) check
    pool = list(seq)
    rnd = rng.random
    for i in range(k):
        j = i + int(rnd() * (len(pool) - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def _amount_text(value: float, style: str) -> str:
    if style == "dollar":
        return f"${value:,.0f}"
    if style == "comma":
        return f"{value:,.0f}"
    if style == "M":
        return f"{value / 1e6:g}M"
    if style == "K":
        return f"{value / 1e3:g}K"
    return f"{value:.0f} USD"


def _flag(rng: random.Random, value: bool) -> Any:
    u = rng.random()
    if value:
        return True
    return False if u < 0.03 else (None if u < 0.06 else "")


def _num(rng: random.Random, value: float | int) -> Any:
    return str(value) if rng.random() < 0.3 else value


def _sig(value: float, digits: int = 2) -> float:
    """``value`` rounded to ``digits`` significant digits (positive values only)."""
    return round(value, digits - 1 - math.floor(math.log10(value)))


def _render_profile(rec: Record) -> dict[str, Any]:
    rng = random.Random(rec.seed)
    rnd = rng.random
    slot = rec.slot
    eth = rec.platform_id == 1

    platform = rec.platform
    spelling = rnd()
    if eth and spelling < 0.05:
        platform = "Ethereum "
    elif eth and spelling < 0.10:
        platform = "ERC20"
    score_value: Any = {"float": rec.score, "str": str(rec.score), "NA": "NA", "null": None,
                        "": ""}[rec.score_shape]
    if rec.score is None and rec.score_shape in ("float", "str"):
        score_value = ""
    details = {k: _sig(min(5.0, max(0.5, 3.0 + rng.gauss(0, 0.8)))) for k in
               ("team", "vision", "product")}
    main: dict[str, Any] = {
        "name": rec.name,
        "description": f"{rec.name} is a {rec.category.lower()} project on "
                       f"{rec.platform}. {_pick(rng, _PITCHES)} {_pick(rng, _PITCHES)}",
        "logo": rec.logo,
        "premium": _flag(rng, rnd() < 0.05),
        "scam": _flag(rng, rnd() < 0.03),
        "ico_score": score_value,
        "platform": platform,
        "kyc": _flag(rng, rec.kyc),
        "whitelist": _flag(rng, rec.whitelist),
        "category": rec.category,
        "type": rec.type,
        "mvp": _flag(rng, rnd() < 0.35),
        "location": rec.location,
        "kyc_passed": _flag(rng, rec.kyc_passed),
    }
    if slot == 39:
        del main["mvp"]
    if rnd() < 0.25 and rec.score is not None:
        main["rating_details"] = details

    site = f"https://{rec.slug}.example"
    social: Any = {key: f"https://{key}.example/{rec.slug}"
                   for key, share in zip(_SOCIAL, _SOCIAL_SHARE, strict=True) if rnd() < share}
    if rnd() < 0.06:
        social = {}  # some ICOs list no social links at all
    u = rnd()
    links: dict[str, Any] = {
        "url": rec.url,
        "website": site,
        "whitepaper": f"{site}/whitepaper.pdf" if u < 0.88 else (None if u < 0.90 else ""),
        "social": social or [],
        "video": "",
    }
    u = rnd()
    if u < 0.5:
        links["video"] = f"https://youtube.example/watch?v={rec.seed % 10**11:011d}"
    elif u < 0.52:
        links["video"] = None
    if slot == 45:
        links["whitepaper"] = None
    if slot == 35:
        del links["video"]

    finance = _render_finance(rng, rec, eth)
    dates: dict[str, Any] = {"start_datetime": rec.start_text, "end_datetime": rec.end_text,
                             "tba": _flag(rng, rec.tba)}
    if slot == 49:
        del dates["tba"]
    additional = {"bonuses": _bonuses(rng), "airdrop": _flag(rng, rec.airdrop),
                  "bounty": _flag(rng, rec.bounty)}
    team = _people(rng, rec.slug, _team_size(rng), _ROLES)
    advisors = _people(rng, rec.slug, 0 if rnd() < 0.4 else 1 + int(rnd() * 8), _ADVISOR_ROLES)
    profile: dict[str, Any] = {
        "id": str(rec.id) if rnd() < 0.1 else rec.id,
        "main": main,
        "links": links,
        "finance": finance,
        "dates": dates,
        "additional": additional,
        "roadmap": _roadmap(rng, rec.start),
        "team": team or "",
        "advisors": advisors or "",
    }
    if rnd() < 0.3:
        stamp = REFERENCE_DATE - timedelta(days=int(rnd() * 2000), seconds=int(rnd() * 86400))
        profile["updated_at"] = stamp.strftime("%Y-%m-%d %H:%M:%S")
    return profile


def _render_finance(rng: random.Random, rec: Record, eth: bool) -> dict[str, Any]:
    rnd = rng.random
    slot = rec.slot
    # tokens for sale: p10 1e7, median 1.5e8, p90 2.5e9 (figures); two significant digits
    log10 = _split(rng, math.log10(1.5e8), 0.92, 0.96)
    exponent = max(0, math.floor(log10) - 1)
    mantissa = round(10 ** (log10 - exponent))  # two digits, kept exact as an int
    tokens: Any = mantissa * 10**exponent
    if slot in (43, 47):
        tokens = (100 + int(rnd() * 900)) * 10 ** (17 + int(rnd() * 4))  # beyond int64
    shape = rnd()
    if slot == 47:
        tokens = str(tokens)
    elif slot == 11:
        tokens = "TBA"
    elif shape < 0.05:
        tokens = f"{float(tokens):.1e}".replace("e+0", "e").replace("e+", "e")
    elif shape < 0.12:
        tokens = ""
    elif shape < 0.35:
        tokens = str(tokens)

    # token price in USD: p10 0.01, median 0.15, p90 1.6 (figures)
    price_usd = _sig(10 ** _split(rng, math.log10(0.15), 0.92, 0.80))
    u = rnd()
    unit = "USD" if u < 0.75 else ("ETH" if u < 0.95 else "BTC")
    price: Any = price_usd if unit == "USD" else _sig(price_usd / (400 if unit == "ETH" else 8000))
    price = _num(rng, price)
    if slot == 9:
        price = _UNPARSEABLE_PRICES[rec.index // _PERIOD % 3].format(t=rec.ticker)
    elif slot == 15:
        price = "TBA"
    elif slot == 45:
        price = "Pending"
    elif rnd() < 0.06:
        price, unit = "", ""

    purchase_unit = "ETH" if rnd() < 0.6 else "USD"
    small = (0.01, 0.05, 0.1, 0.2, 0.5, 1) if purchase_unit == "ETH" else (10, 50, 100, 500)
    min_purchase: Any = _num(rng, _pick(rng, small)) if rnd() < 0.55 else ""
    max_purchase: Any = _num(rng, _pick(rng, (100, 500, 1000, 5000))) if rnd() < 0.3 else ""
    if slot == 1:
        min_purchase = "NA"
    if slot == 39:
        max_purchase = "Pending"
    if min_purchase == "" and max_purchase == "":
        purchase_unit = ""

    # hard cap stated by 95%, soft cap by 44% (Fahlenbrach & Frattaroli)
    fill = min(1.6, max(0.05, rng.gauss(0.81, 0.3)))
    hard_usd = rec.raised / fill if rec.raised else math.exp(rng.gauss(math.log(20e6), 1.0))
    hard_usd = max(50_000.0, _sig(hard_usd, 2))
    soft_usd = _sig(hard_usd * rng.uniform(0.05, 0.4), 2)
    u = rnd()
    caps_unit = "USD" if u < 0.8 else ("ETH" if u < 0.95 else "BTC")
    divisor = {"USD": 1, "ETH": 400, "BTC": 8000}[caps_unit]
    hard: Any = _num(rng, int(_sig(hard_usd / divisor, 3))) if rnd() < 0.95 else ""
    soft: Any = _num(rng, int(_sig(soft_usd / divisor, 3))) if rnd() < 0.44 else ""
    if slot == 25:
        hard = _amount_text(hard_usd, _AMOUNT_STYLES[rec.index // _PERIOD % 5])
        caps_unit = "USD"
    elif slot == 23:
        hard = "—"
    if slot == 27:
        soft = _amount_text(soft_usd, _AMOUNT_STYLES[(rec.index // _PERIOD + 2) % 5])
        caps_unit = "USD"
    elif slot == 21:
        soft = "NOT SET"
    elif rnd() < 0.03:
        soft = None

    raised: Any = _raised_value(rec)
    u = rnd()
    token_type = ""
    if eth:
        token_type = "ERC20" if u < 0.87 else ("ERC223" if u < 0.9 else ("ERC721" if u < 0.91
                                                                          else ""))
    markets: list[str] = []
    if rec.status == "past" and rnd() < 0.4:
        markets = [f"https://{x}.example/trade/{rec.ticker}"
                   for x in _sample(rng, _EXCHANGES, 1 + int(rnd() * 4))]
    finance: dict[str, Any] = {
        "ticker": "TBA" if slot == 19 else rec.ticker,
        "tokens_for_sale": tokens,
        "token_price": price,
        "token_price_unit": unit,
        "min_purchase": min_purchase,
        "max_purchase": max_purchase,
        "purchase_unit": purchase_unit,
        "token_type": token_type,
        "soft_cap": soft,
        "hard_cap": hard,
        "caps_unit": caps_unit if hard != "" or soft != "" else "",
        "escrow": _flag(rng, rnd() < 0.1),
        "markets": markets or "",
        "distribution": _distribution(rng),
        "restricted_areas": list(rec.restricted) or "",
        "accepting": list(rec.accepting) or "",
        "raised": raised,
    }
    if slot == 37:
        del finance["escrow"]
    return finance


def _raised_value(rec: Record) -> Any:
    shape = rec.raised_shape
    if rec.raised is None:
        return None if shape == "null" else ("" if shape in ("", "int", "str") else shape)
    if shape == "int":
        return rec.raised
    if shape == "str":
        return str(rec.raised)
    return _amount_text(rec.raised, shape)


def _team_size(rng: random.Random) -> int:
    # 28% list no team; else p10 3, median 9, p90 20 (figures)
    size = round(math.exp(_split(rng, math.log(9), 0.86, 0.63)))
    return 0 if rng.random() < 0.28 else min(60, max(1, size))


def _people(rng: random.Random, slug: str, count: int,
            roles: tuple[str, ...]) -> list[dict[str, Any]]:
    rnd = rng.random
    people = []
    for position in range(count):
        first, last = _pick(rng, _FIRST), _pick(rng, _LAST)
        handle = _HANDLES[first, last]
        role = ("CEO", "CTO")[position] if roles is _ROLES and position < 2 else _pick(rng, roles)
        person: dict[str, Any] = {
            "name": f"{first} {last}",
            "role": role,
            "photo": f"https://icodirectory.example/img/people/{slug}-{position}.jpg",
            "social": {"linkedin": f"https://linkedin.example/in/{handle}"},
        }
        u = rnd()
        if u < 0.3:
            person["social"]["twitter"] = f"https://twitter.example/{handle}"
        elif u < 0.45:
            person["social"] = []
        u = rnd()
        if u < 0.015:
            del person["photo"]
        elif u < 0.03:
            del person["social"]
        elif u < 0.13:
            person["photo"] = ""
        people.append(person)
    return people


def _distribution(rng: random.Random) -> Any:
    rnd = rng.random
    if rng.random() < 0.15:
        return []
    # share sold in the sale: p10 25%, median 55%, p90 85% (figures)
    sale = min(95, max(5, round(rng.gauss(55, 23))))
    parts = _sample(rng, _PARTS, 2 + int(rnd() * 4))
    weights = [rng.random() + 0.2 for _ in parts]
    rest = 100 - sale
    shares = [math.floor(rest * w / sum(weights)) for w in weights]
    shares[0] += rest - sum(shares)
    u = rng.random()
    style = "%" if u < 0.6 else ("space" if u < 0.7 else ("bare" if u < 0.8 else
                                                         ("dec" if u < 0.9 else "num")))
    out: dict[str, Any] = {}
    for name, share in zip((_pick(rng, _SALE_PARTS), *parts), (sale, *shares), strict=True):
        out[name] = {"%": f"{share}%", "space": f"{share} %", "bare": f"{share}",
                     "dec": f"{share}.0%", "num": share}[style]
    return out


def _bonuses(rng: random.Random) -> Any:
    rnd = rng.random
    if rng.random() >= 0.10:
        return []
    names = ("Pre-sale", "Week 1", "Week 2", "Early bird", "Whale bonus", "Referral")
    return {n: f"{5 * (1 + int(rnd() * 8))}% bonus tokens" for n in
            _sample(rng, names, 1 + int(rnd() * 4))}


def _roadmap(rng: random.Random, start: datetime | None) -> Any:
    rnd = rng.random
    if rng.random() < 0.15:
        return []
    base = start or datetime(2018, 6, 1)
    days = sorted(int(rnd() * 1260) - 540 for _ in range(3 + int(rnd() * 8)))
    out: dict[str, str] = {}
    for offset, text in zip(days, _sample(rng, _MILESTONES, len(days)), strict=True):
        when = base + timedelta(days=offset)
        u = rng.random()
        if u < 0.85:
            key = f"{when.day:02d}-{when.month:02d}-{when.year}"
        elif u < 0.92:
            key = f"Q{(when.month - 1) // 3 + 1} {when.year}"
        elif u < 0.97:
            key = f"{_MONTHS[when.month - 1]} {when.year}"
        else:
            key = str(when.year)
        out.setdefault(key, text)
    return out
