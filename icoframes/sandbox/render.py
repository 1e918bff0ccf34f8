"""Rendering a record into the messy raw JSON the API sends: its profile and list summary.

Every detail of a profile is drawn from a generator seeded by the record's own
``seed``, so the same record always renders identically and a 50,000-ICO
directory need not keep its profiles in memory. An edited record's details are
drawn as before its edits (:attr:`.Record.drawn`): an edit shows only what it changed.

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
caps and prices in ETH, BTC, EUR               caps: USD 77%, EUR 3%, ETH 15%, BTC 5%; prices:
                                               USD 75%, ETH 20%, BTC 5%; converted from USD
                                               at the synthetic rate (:mod:`.rates`) of the
                                               sale's last day (else first, else
                                               REFERENCE_DATE)
a cap text in USD beside a cap in ETH/BTC      slots 25 and 27 force caps_unit USD; the other
                                               cap stays in the drawn unit (a soft cap above
                                               the hard cap "in USD": ~6)
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

import math
import random
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .catalog import (
    ADVISOR_ROLES,
    ALLOCATION_PARTS,
    AMOUNT_STYLES,
    EXCHANGES,
    FIRST_NAMES,
    LAST_NAMES,
    MILESTONES,
    PERIOD,
    PITCHES,
    REFERENCE_DATE,
    SALE_PARTS,
    SOCIAL_NETWORKS,
    SOCIAL_SHARES,
    TEAM_ROLES,
)
from .draws import pick, sample, split
from .rates import known_rate

if TYPE_CHECKING:
    from .record import Record

__all__ = ["render_profile", "render_summary"]

_UNPARSEABLE_PRICES = ("1 BILL = 1 XLM", "1 ETH = 3500 {t}", "Dynamic, see whitepaper")

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_HANDLES = {(f, last): re.sub(r"[^a-z]+", "-", f"{f} {last}".lower())
            for f in FIRST_NAMES for last in LAST_NAMES}


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


def render_profile(rec: Record) -> dict[str, Any]:
    """The raw profile (spec 2.3) of ``rec``, the same every time for the same record."""
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
                       f"{rec.platform}. {pick(rng, PITCHES)} {pick(rng, PITCHES)}",
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
                   for key, share in zip(SOCIAL_NETWORKS, SOCIAL_SHARES, strict=True)
                   if rnd() < share}
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
    team = _people(rng, rec.slug, _team_size(rng), TEAM_ROLES)
    advisors = _people(rng, rec.slug, 0 if rnd() < 0.4 else 1 + int(rnd() * 8), ADVISOR_ROLES)
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


def render_summary(rec: Record) -> dict[str, Any]:
    """The list summary (spec 2.2) of ``rec``, consistent with its profile."""
    return {
        "id": str(rec.id) if rec.seed % 10 == 3 else rec.id,
        "main": {"name": rec.name, "logo": rec.logo,
                 "ico_score": "" if rec.score is None else f"{rec.score:.1f}"},
        "links": {"url": rec.url},
        "finance": {"raised": "" if rec.raised is None else rec.raised},
    }


def _render_finance(rng: random.Random, rec: Record, eth: bool) -> dict[str, Any]:
    rnd, slot, drawn = rng.random, rec.slot, rec.drawn  # draws read drawn, shown values rec
    # tokens for sale: p10 1e7, median 1.5e8, p90 2.5e9 (figures); two significant digits
    log10 = split(rng, math.log10(1.5e8), 0.92, 0.96)
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
    price_usd = _sig(10 ** split(rng, math.log10(0.15), 0.92, 0.80))
    u = rnd()
    unit = "USD" if u < 0.75 else ("ETH" if u < 0.95 else "BTC")
    # amounts in another currency: the USD amount at the synthetic rate of the sale's day
    sale_day = drawn.end or drawn.start or REFERENCE_DATE
    price: Any = price_usd if unit == "USD" else _sig(price_usd / known_rate(unit, sale_day))
    price = _num(rng, price)
    if slot == 9:
        price = _UNPARSEABLE_PRICES[rec.index // PERIOD % 3].format(t=rec.ticker)
    elif slot == 15:
        price = "TBA"
    elif slot == 45:
        price = "Pending"
    elif rnd() < 0.06:
        price, unit = "", ""

    purchase_unit = "ETH" if rnd() < 0.6 else "USD"
    small = (0.01, 0.05, 0.1, 0.2, 0.5, 1) if purchase_unit == "ETH" else (10, 50, 100, 500)
    min_purchase: Any = _num(rng, pick(rng, small)) if rnd() < 0.55 else ""
    max_purchase: Any = _num(rng, pick(rng, (100, 500, 1000, 5000))) if rnd() < 0.3 else ""
    if slot == 1:
        min_purchase = "NA"
    if slot == 39:
        max_purchase = "Pending"
    if min_purchase == "" and max_purchase == "":
        purchase_unit = ""

    # hard cap stated by 95%, soft cap by 44% (Fahlenbrach & Frattaroli)
    fill = min(1.6, max(0.05, rng.gauss(0.81, 0.3)))
    hard_usd = drawn.raised / fill if drawn.raised else math.exp(rng.gauss(math.log(20e6), 1.0))
    hard_usd = max(50_000.0, _sig(hard_usd, 2))
    soft_usd = _sig(hard_usd * rng.uniform(0.05, 0.4), 2)
    u = rnd()
    caps_unit = ("USD" if u < 0.77 else "EUR") if u < 0.8 else ("ETH" if u < 0.95 else "BTC")
    rate = known_rate(caps_unit, sale_day)
    hard: Any = _num(rng, _cap(hard_usd / rate)) if rnd() < 0.95 else ""
    soft: Any = _num(rng, _cap(soft_usd / rate)) if rnd() < 0.44 else ""
    if slot == 25:
        hard = _amount_text(hard_usd, AMOUNT_STYLES[rec.index // PERIOD % 5])
        caps_unit = "USD"
    elif slot == 23:
        hard = "—"
    if slot == 27:
        soft = _amount_text(soft_usd, AMOUNT_STYLES[(rec.index // PERIOD + 2) % 5])
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
    if drawn.status == "past" and rnd() < 0.4:
        markets = [f"https://{x}.example/trade/{rec.ticker}"
                   for x in sample(rng, EXCHANGES, 1 + int(rnd() * 4))]
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


def _cap(amount: float) -> int | float:
    """A cap as written: three significant digits, whole from 100 up."""
    value = _sig(amount, 3)
    return int(value) if value >= 100 else value


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
    size = round(math.exp(split(rng, math.log(9), 0.86, 0.63)))
    return 0 if rng.random() < 0.28 else min(60, max(1, size))


def _people(rng: random.Random, slug: str, count: int,
            roles: tuple[str, ...]) -> list[dict[str, Any]]:
    rnd = rng.random
    people = []
    for position in range(count):
        first, last = pick(rng, FIRST_NAMES), pick(rng, LAST_NAMES)
        handle = _HANDLES[first, last]
        lead = roles is TEAM_ROLES and position < 2
        role = ("CEO", "CTO")[position] if lead else pick(rng, roles)
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
    parts = sample(rng, ALLOCATION_PARTS, 2 + int(rnd() * 4))
    weights = [rng.random() + 0.2 for _ in parts]
    rest = 100 - sale
    shares = [math.floor(rest * w / sum(weights)) for w in weights]
    shares[0] += rest - sum(shares)
    u = rng.random()
    style = "%" if u < 0.6 else ("space" if u < 0.7 else ("bare" if u < 0.8 else
                                                         ("dec" if u < 0.9 else "num")))
    out: dict[str, Any] = {}
    for name, share in zip((pick(rng, SALE_PARTS), *parts), (sale, *shares), strict=True):
        out[name] = {"%": f"{share}%", "space": f"{share} %", "bare": f"{share}",
                     "dec": f"{share}.0%", "num": share}[style]
    return out


def _bonuses(rng: random.Random) -> Any:
    rnd = rng.random
    if rng.random() >= 0.10:
        return []
    names = ("Pre-sale", "Week 1", "Week 2", "Early bird", "Whale bonus", "Referral")
    return {n: f"{5 * (1 + int(rnd() * 8))}% bonus tokens" for n in
            sample(rng, names, 1 + int(rnd() * 4))}


def _roadmap(rng: random.Random, start: datetime | None) -> Any:
    rnd = rng.random
    if rng.random() < 0.15:
        return []
    base = start or datetime(2018, 6, 1)
    days = sorted(int(rnd() * 1260) - 540 for _ in range(3 + int(rnd() * 8)))
    out: dict[str, str] = {}
    for offset, text in zip(days, sample(rng, MILESTONES, len(days)), strict=True):
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
