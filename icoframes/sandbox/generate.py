"""Seeded generation of the directory's clean truth: realistic records, the same per seed.

:func:`generate_records` makes the records and the maker of later ones;
:func:`~.directory.generate_directory` puts them in a :class:`~.directory.Directory`.

Figures follow ``/work/shared/notes/ico-figures.md`` (ICObench-derived data,
Fahlenbrach & Frattaroli 2021, Momtaz 2020). Dates of ongoing and upcoming ICOs
are placed around the fixed :data:`~.catalog.REFERENCE_DATE`, never the wall
clock, so a seed always gives the same directory. The messy shapes a record
carries (``score_shape``, ``raised_shape``, invalid date texts) are chosen here;
:mod:`.render` writes them out.
"""

from __future__ import annotations

import math
import random
import re
from datetime import datetime, timedelta

from .catalog import (
    AMOUNT_STYLES,
    CATEGORIES,
    COUNTRY_SHARES,
    CURRENCIES,
    PERIOD,
    PLATFORMS,
    REFERENCE_DATE,
    RESTRICTED_SHARES,
    TYPES,
)
from .draws import Weighted, gc_paused, sample, split
from .record import NewRecord, Record

__all__ = ["generate_records"]

_NATIVE = {2: "WAVES", 3: "XLM", 4: "NEO", 5: "EOS", 8: "TRX", 9: "BNB", 11: "ADA", 12: "QTUM",
           13: "XEM", 14: "KMD", 17: "SOL"}
_START_YEARS = ((2016, 0.5), (2017, 18.7), (2018, 56.4), (2019, 17.8), (2020, 6.4))
# status (one of api.params.STATUSES) -> share of ICOs in %; this order is the draw's
_STATUS_SHARES = {"past": 75.0, "ongoing": 10.0, "upcoming": 15.0}
# status -> share of ICOs whose amount raised is known
_RAISED_KNOWN = {"past": 0.40, "ongoing": 0.15, "upcoming": 0.0}

_PICK_PLATFORM = Weighted((p, w) for p, _, w in PLATFORMS)
_PICK_CATEGORY = Weighted((c, w) for c, _, w in CATEGORIES)
_PICK_TYPE = Weighted((t, w) for t, _, w in TYPES)
_PICK_COUNTRY = Weighted(COUNTRY_SHARES)
_PICK_RESTRICTED = Weighted(RESTRICTED_SHARES)
_PICK_YEAR = Weighted(_START_YEARS)
_PICK_STATUS = Weighted(_STATUS_SHARES.items())


def generate_records(n_icos: int, seed: int) -> tuple[list[Record], NewRecord]:
    """``n_icos`` realistic records in ascending id order, and the maker of later ones.

    The same seed gives the same records; records made later by the maker
    continue the same draws (see :meth:`.Directory.add_ico`).

    Examples
    --------
    >>> records, new_record = generate_records(3, seed=1)
    >>> [r.id for r in records] == sorted(r.id for r in records)
    True
    >>> new_record(3, records[-1].id, "past").id > records[-1].id
    True
    """
    if n_icos < 0:
        raise ValueError("n_icos must be >= 0")
    rng = random.Random(seed)
    slot_offset = rng.randrange(PERIOD)
    names: set[str] = set()
    slugs: set[str] = set()
    records = []
    ico_id = 1000 + rng.randrange(40)
    with gc_paused():
        for index in range(n_icos):
            status = _PICK_STATUS.pick(rng)
            records.append(_new_record(rng, index, ico_id, status, slot_offset, names, slugs))
            ico_id += _id_gap(rng)
    return records, _record_maker(rng, slot_offset, names, slugs)


def _record_maker(rng: random.Random, slot_offset: int, names: set[str],
                  slugs: set[str]) -> NewRecord:
    # Records added later continue the same draws, so a seed plus the same
    # sequence of add_ico calls always gives the same directory.
    def new_record(index: int, max_id: int, status: str) -> Record:
        ico_id = max_id + 1 + rng.randrange(3)
        return _new_record(rng, index, ico_id, status, slot_offset, names, slugs)

    return new_record


def _id_gap(rng: random.Random) -> int:
    u = rng.random()
    if u < 0.55:
        return 1
    if u < 0.95:
        return 2 + rng.randrange(4)
    return 10 + rng.randrange(40)


def _dt_text(value: datetime) -> str:
    return (f"{value.day:02d}.{value.month:02d}.{value.year} "
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}")


def _new_record(rng: random.Random, index: int, ico_id: int, status: str, slot_offset: int,
                names: set[str], slugs: set[str]) -> Record:
    slot = (index + slot_offset) % PERIOD
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
        score = round(min(5.0, max(0.2, split(rng, 2.9, 0.70, 0.86))), 1)

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
    days = min(400.0, max(1.0, math.exp(split(rng, math.log(39.5), 1.154, 0.987))))
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
    known_share = _RAISED_KNOWN[status]
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
    shape = AMOUNT_STYLES[min(4, int((style - 0.80) / 0.04))]
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
    picks = sorted(sample(rng, tuple(range(1, len(letters))), size - 1))
    return letters[0] + "".join(letters[i] for i in picks)

