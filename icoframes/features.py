"""The variables every study of ICOs computes, one row per ICO, each defined once.

:data:`FEATURES` declares every column of :func:`compute_features`: its name,
its dtype and its definition. The docstring of :func:`compute_features` and
:func:`describe_features` are generated from it, and :func:`compute_features`
checks its result against it, so a definition cannot drift from what is computed.

``icoframes.features`` is this module (``icoframes.features.FEATURES``); the
function is :func:`icoframes.compute_features`. Calling the module, the
function's name before 0.2, still works in this version with a ``FutureWarning``.

Missing values: counts (``int64``) and flags about what a profile lists
(``bool``) are never missing, since an empty list is a count of 0. A value
that needs something the profile may lack is nullable: ``Int64`` and
``boolean`` hold ``<NA>``, ``float64`` holds NaN. A ratio or comparison of
amounts in different units is never computed: it is missing.
"""

from __future__ import annotations

import functools
import re
import sys
import types
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from .errors import InvalidParameter, WrongType, check_flags, warn
from .moments import as_naive_utc
from .money import (
    NOT_GIVEN,
    RATE_MAX_AGE,
    Quote,
    RateMaxAge,
    rate_age,
    renamed_rate_max_age,
    to_usd,
)
from .parse.accepted import item_head, named_currencies
from .parse.scales import government_currency
from .parse.units import canonical_unit
from .queries import checked_keywords
from .schema import TEXT_DTYPE
from .tables import Tables
from .textdtype import text_values
from .vocabulary import ACCEPTING_WORDS, PLATFORM_FAMILIES, platform_family, social_network

__all__ = ["FEATURES", "PLATFORM_FAMILIES", "SOCIAL_NETWORKS", "Feature", "as_naive_utc",
           "compute_features", "describe_features"]

#: Raised at or above this share below a cap counts as reaching it: caps are
#: stated rounded (``"$15M"``), raised amounts to the dollar.
CAP_TOLERANCE: Final = 0.005

#: Social networks with a ``has_<network>`` flag (the ICO's own links only).
SOCIAL_NETWORKS: Final = ("twitter", "telegram", "facebook", "medium", "reddit", "github",
                          "bitcointalk", "linkedin", "youtube", "discord", "slack")

# Distribution parts, matched as whole words, case-insensitively.
_TEAM_PARTS: Final = re.compile(r"\b(team|founders?|founding team|employees?|management|staff)\b",
                                re.IGNORECASE)
_SALE_PARTS: Final = re.compile(
    r"\b(sale|crowd ?sale|pre-?sale|ico|ieo|ido|sto|public|private|investors?|contributors?)\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class Feature:
    """One column of :func:`compute_features`: its name, dtype and definition."""

    name: str
    dtype: str
    definition: str
    needs_rates: bool = False


def _f(name: str, dtype: str, definition: str, needs_rates: bool = False) -> Feature:
    return Feature(name, dtype, definition, needs_rates)


#: Every column :func:`~icoframes.compute_features` returns, in order.
FEATURES: Final[tuple[Feature, ...]] = (
    _f("ico_id", "int64", "icos.id"),
    _f("duration_days", "float64",
       "end_datetime - start_datetime in days; NaN when either is missing or the end is "
       "before the start"),
    _f("start_year", "Int64", "year of start_datetime"),
    _f("start_quarter", "Int64", "quarter (1-4) of start_datetime"),
    _f("team_size", "int64", "rows of the team table"),
    _f("advisor_count", "int64", "rows of the advisors table"),
    _f("has_whitepaper", "bool", "a whitepaper link is given"),
    _f("has_video", "bool", "a video link is given"),
    *(_f(f"has_{network}", "bool", f"the ICO's own social links include {network} "
         "(team and advisors' links do not count)") for network in SOCIAL_NETWORKS),
    _f("n_social_links", "int64",
       "distinct networks among the ICO's own social links (any network, not only those above)"),
    _f("platform_family", str(TEXT_DTYPE),
       "platform through PLATFORM_FAMILIES (ERC20, ERC-20, Etherum -> Ethereum); "
       "other platforms as written"),
    _f("is_ethereum", "boolean", "platform_family is Ethereum; <NA> when no platform"),
    _f("n_restricted_areas", "int64", "items of restricted_areas"),
    _f("n_accepted_currencies", "int64",
       "distinct currencies accepting names (spellings through the unit alias table; an "
       "item of free text names none: 'and others', 'any ERC20 token', 'Fiat', 'credit card', "
       "words of vocabulary.NOT_CURRENCY_WORDS; nor do ALL and TOP in a list: "
       "vocabulary.ACCEPTING_WORDS): icoframes.parse.accepted"),
    _f("accepts_fiat", "bool", "accepting names a government currency or 'Fiat' (ALL and "
       "TOP in a list are words, not currencies: vocabulary.ACCEPTING_WORDS)"),
    _f("has_bonus", "bool",
       "at least one row of the bonuses table (False when every term is 0% or none)"),
    _f("roadmap_items", "int64", "rows of the roadmap table"),
    _f("team_token_share", "float64",
       "sum of distribution percent of parts naming the team (words: team, founder(s), "
       "employee(s), management, staff; 'Team & Advisors' counts); NaN without a distribution, "
       "or when such a part's percent is missing or could not be read"),
    _f("sale_token_share", "float64",
       "sum of distribution percent of parts naming a sale (words: sale, crowdsale, "
       "pre-sale, presale, ICO, IEO, IDO, STO, public, private, investor(s), contributor(s)); "
       "NaN without a distribution, or when such a part's percent is missing or could not be "
       "read"),
    _f("log_raised", "float64", "natural log of raised (USD); NaN when unknown or not positive"),
    _f("hard_cap_usd", "float64",
       "hard_cap in USD (to_usd: rate of caps_unit at the sale's end, else start)", True),
    _f("soft_cap_usd", "float64", "soft_cap in USD, as hard_cap_usd", True),
    _f("raised_to_hard_cap", "float64", "raised / hard_cap_usd; NaN when either is missing",
       True),
    _f("reached_soft_cap", "boolean",
       f"raised >= soft_cap_usd x (1 - {CAP_TOLERANCE}) (caps are rounded); <NA> when either "
       "is missing", True),
    _f("reached_hard_cap", "boolean", "as reached_soft_cap, against hard_cap_usd", True),
    _f("soft_cap_above_hard_cap", "boolean",
       "soft_cap > hard_cap, both in caps_unit; <NA> when either is missing"),
    _f("ends_before_starts", "boolean",
       "end_datetime < start_datetime; <NA> when either is missing"),
    _f("status_disagrees_with_dates", "boolean",
       "status contradicts the dates at as_of (upcoming: starts after as_of; past: ended "
       "before it; ongoing: in between); <NA> when the status or the dates cannot tell"),
)
_BY_NAME: Final = {f.name: f for f in FEATURES}


@checked_keywords
def describe_features(*, rates: bool = True) -> pd.DataFrame:
    """The columns of :func:`compute_features`: name, dtype and definition, from
    :data:`~icoframes.features.FEATURES`.

    Examples
    --------
    >>> d = describe_features().set_index("name")
    >>> d.loc["team_size", "dtype"], d.loc["team_size", "definition"]
    ('int64', 'rows of the team table')
    """
    check_flags(rates=rates)
    rows = [f for f in FEATURES if rates or not f.needs_rates]
    return pd.DataFrame({
        "name": [f.name for f in rows],
        "dtype": [f.dtype for f in rows],
        "definition": [f.definition for f in rows],
        "needs_rates": [f.needs_rates for f in rows],
    }).astype({"name": TEXT_DTYPE, "dtype": TEXT_DTYPE, "definition": TEXT_DTYPE})


@checked_keywords
def compute_features(tables: Tables, *, rates: pd.DataFrame | None = None,
                     as_of: object = None,
                     rate_max_age: RateMaxAge = RATE_MAX_AGE,
                     quote: Quote | None = None, max_age: object = NOT_GIVEN) -> pd.DataFrame:
    """One row per ICO with the variables ICO studies use, each defined in
    :data:`~icoframes.features.FEATURES`.

    Parameters
    ----------
    tables : Tables
        As :func:`icoframes.tidy` or :func:`icoframes.load_tables` return them.
    rates : pandas.DataFrame, optional
        Daily USD rates (long or wide form, see :func:`icoframes.to_usd`).
        Without them the columns marked "with rates" below are left out.
    as_of : datetime-like, optional
        The moment ``status_disagrees_with_dates`` judges against; default now
        (UTC, naive like the ICOs' dates). A ``datetime``, ``date``, ``Timestamp``,
        ``numpy.datetime64``, or text: an ISO date with a 4-digit year
        (``"2018-06-01"``, ``"2018-06-01 12:00"``), or ``"now"``/``"today"`` (this moment,
        UTC, not midnight); other text is refused.
    rate_max_age : str or Timedelta or numpy.timedelta64 or float or None, default ``"7D"``
        Passed to :func:`icoframes.to_usd`: the oldest rate accepted before a date, a
        duration (``"7D"``, ``"12h"``) or seconds of a day or more.
    quote : {"usd_per_unit", "units_per_usd"}, optional
        Passed to :func:`icoframes.to_usd`: the direction of wide rates' bare
        currency columns.
    max_age : deprecated
        The old name of ``rate_max_age``; accepted in this version with a
        ``FutureWarning``.

    Returns
    -------
    pandas.DataFrame
        One row per row of ``tables.icos`` (same order), a RangeIndex, and these columns:

{table}

    Raises
    ------
    WrongType
        ``tables`` is not a :class:`~icoframes.Tables` (a ``TypeError`` too: pass the
        ``Tables`` of a load or :func:`~icoframes.read_export`, not one of its frames).
    InvalidParameter
        ``as_of``, ``rates``, ``rate_max_age`` or ``quote`` is refused (a ``ValueError``).

    Examples
    --------
    >>> from icoframes import tidy
    >>> t = tidy([{"id": 1, "main": {"platform": "ERC20"},
    ...            "dates": {"start_datetime": "01.03.2018 00:00:00",
    ...                      "end_datetime": "31.03.2018 00:00:00"},
    ...            "finance": {"distribution": {"Team": "20%", "Crowdsale": "60%"}},
    ...            "team": [{"name": "Ann"}, {"name": "Bo"}]}])
    >>> f = compute_features(t, as_of="2019-01-01")
    >>> f.loc[0, ["duration_days", "team_size", "platform_family", "team_token_share"]].to_dict()
    {'duration_days': 30.0, 'team_size': 2, 'platform_family': 'Ethereum', 'team_token_share': 20.0}
    >>> str(f["team_size"].dtype), str(f["start_quarter"].dtype), bool(f.loc[0, "has_whitepaper"])
    ('int64', 'Int64', False)
    """
    rate_max_age = renamed_rate_max_age(rate_max_age, max_age, "compute_features")
    rate_age(rate_max_age, "compute_features")  # refused before any work, rates or not
    if not isinstance(tables, Tables):
        raise WrongType(f"tables must be icoframes.Tables, got {type(tables).__name__}")
    icos = tables.icos
    n = len(icos)
    rows = pd.Index(icos["id"].to_numpy())
    if not rows.is_unique:
        raise InvalidParameter("tables.icos has repeated ids")
    when = as_naive_utc(as_of, "as_of")

    def per_ico(child: pd.DataFrame) -> np.ndarray:
        found = rows.get_indexer(child["ico_id"].to_numpy())
        return found

    def count(child: pd.DataFrame) -> np.ndarray:
        found = per_ico(child)
        return np.bincount(found[found >= 0], minlength=n)

    start = icos["start_datetime"]
    end = icos["end_datetime"]
    both = start.notna() & end.notna()
    backwards = both & (end < start)
    # each column as numpy or pandas compute it: _typed casts it to its declared dtype
    out: dict[str, object] = {"ico_id": icos["id"].to_numpy()}
    days = (end - start).dt.total_seconds() / 86_400.0
    out["duration_days"] = days.mask(backwards).to_numpy()
    out["start_year"] = start.dt.year
    out["start_quarter"] = start.dt.quarter
    out["team_size"] = count(tables.team)
    out["advisor_count"] = count(tables.advisors)
    out["has_whitepaper"] = icos["whitepaper"].notna().to_numpy()
    out["has_video"] = icos["video"].notna().to_numpy()
    out.update(_social(tables.social, per_ico, n))
    family = _platform_families(icos["platform"])
    out["platform_family"] = family
    # isin, unlike ==, is False (not <NA>) for a missing platform under pandas 2.2 too
    out["is_ethereum"] = pd.arrays.BooleanArray(family.isin(["Ethereum"]).to_numpy(),
                                                family.isna().to_numpy())
    out["n_restricted_areas"] = list(map(len, icos["restricted_areas"]))
    out["n_accepted_currencies"] = [len(named_currencies(items)) for items in icos["accepting"]]
    out["accepts_fiat"] = [any(map(_fiat, items)) for items in icos["accepting"]]
    out["has_bonus"] = count(tables.bonuses) > 0
    out["roadmap_items"] = count(tables.roadmap)
    out.update(_shares(tables.distribution, per_ico, n))
    out["log_raised"] = np.log(icos["raised"].where(icos["raised"] > 0)).to_numpy()
    raised = icos["raised"].to_numpy()  # float64, as every amount of the schema
    if rates is not None:
        money = to_usd(icos, rates, columns=("soft_cap", "hard_cap"), rate_max_age=rate_max_age,
                       quote=quote)
        hard = money["hard_cap_usd"].to_numpy()
        soft = money["soft_cap_usd"].to_numpy()
        out["hard_cap_usd"] = hard
        out["soft_cap_usd"] = soft
        with np.errstate(invalid="ignore"):  # an infinite raised amount of an infinite cap
            out["raised_to_hard_cap"] = raised / pd.Series(hard).where(hard > 0).to_numpy()
        out["reached_soft_cap"] = _at_least(raised, soft * (1 - CAP_TOLERANCE))
        out["reached_hard_cap"] = _at_least(raised, hard * (1 - CAP_TOLERANCE))
    out["soft_cap_above_hard_cap"] = _compare(icos["soft_cap"].to_numpy(),
                                              icos["hard_cap"].to_numpy())
    out["ends_before_starts"] = pd.arrays.BooleanArray(backwards.to_numpy(), ~both.to_numpy())
    out["status_disagrees_with_dates"] = _status_disagrees(icos["status"], start, end, when)
    return _typed(out, with_rates=rates is not None)


compute_features.__doc__ = (compute_features.__doc__ or "").replace(
    "{table}", "\n".join(
        f"        * ``{f.name}`` ({f.dtype}{', with rates' if f.needs_rates else ''}): "
        f"{f.definition}" for f in FEATURES))


# --------------------------------------------------------------------------- helpers


def _social(social: pd.DataFrame, per_ico, n: int) -> dict[str, np.ndarray]:
    own = social[(social["owner"] == "ico").to_numpy()]
    found = per_ico(own)
    network = own["network"].map(social_network, na_action="ignore").to_numpy()
    keep = found >= 0
    pairs = pd.DataFrame({"row": found[keep], "network": network[keep]}).dropna()
    pairs = pairs.drop_duplicates()
    rows, networks = pairs["row"].to_numpy(), pairs["network"].to_numpy()
    out: dict[str, np.ndarray] = {
        f"has_{name}": np.bincount(rows[networks == name], minlength=n) > 0
        for name in SOCIAL_NETWORKS}
    out["n_social_links"] = np.bincount(rows, minlength=n)
    return out


def _platform_families(platform: pd.Series) -> pd.Series:
    uniques = platform.dropna().unique()
    mapping = {p: platform_family(p) for p in uniques}
    return text_values(platform.map(mapping))


# the same few hundred spellings recur across thousands of ICOs: each is read once
_unit_code = functools.lru_cache(maxsize=10_000)(canonical_unit)


def _fiat_item(item: str) -> bool:
    # "Fiat (USD, EUR)", "EUR (bank transfer)": a currency, and what the brackets say of it
    return any(government_currency(one) and _unit_code(one) not in ACCEPTING_WORDS
               for one in {item, item_head(item)})


_fiat = functools.lru_cache(maxsize=10_000)(_fiat_item)


def _shares(distribution: pd.DataFrame, per_ico, n: int) -> dict[str, np.ndarray]:
    found = per_ico(distribution)
    percent = distribution["percent"].to_numpy()
    mine = found >= 0
    ok = mine & ~np.isnan(percent)
    parts = distribution["part"].fillna("").to_numpy()  # a part not named matches no word
    names = pd.unique(parts[mine])
    stated = np.bincount(found[ok], minlength=n) > 0
    out = {}
    for column, words in (("team_token_share", _TEAM_PARTS), ("sale_token_share", _SALE_PARTS)):
        matches = {p: bool(words.search(p)) for p in names}
        hit = np.array([matches[p] for p in parts[mine]], dtype=bool)
        total = np.bincount(found[mine][hit], weights=np.nan_to_num(percent[mine][hit]),
                            minlength=n)
        # a part of the kind whose percent is missing or unread: the sum is not known (not 0)
        unread = np.bincount(found[mine][hit], weights=np.isnan(percent[mine][hit]),
                             minlength=n) > 0
        out[column] = pd.Series(total).where(stated & ~unread).to_numpy()
    return out


def _at_least(value: np.ndarray, bound: np.ndarray) -> pd.arrays.BooleanArray:
    known = ~np.isnan(value) & ~np.isnan(bound)
    return pd.arrays.BooleanArray(value >= bound, ~known)  # NaN compares False: masked


def _compare(greater: np.ndarray, smaller: np.ndarray) -> pd.arrays.BooleanArray:
    known = ~np.isnan(greater) & ~np.isnan(smaller)
    return pd.arrays.BooleanArray(greater > smaller, ~known)  # NaN compares False: masked


def _status_disagrees(status: pd.Series, start: pd.Series, end: pd.Series,
                      as_of: pd.Timestamp) -> pd.arrays.BooleanArray:
    """True where the dates rule the status out; False where they imply it; else <NA>.

    Where the dates both rule a status out and imply it (an end before the start), it
    disagrees: the mask is of rows neither rules out nor implies.
    """
    s = status.str.strip().str.lower()
    has_start, has_end = start.notna().to_numpy(), end.notna().to_numpy()
    started = has_start & (start <= as_of).to_numpy()
    not_started = has_start & (start > as_of).to_numpy()
    ended = has_end & (end < as_of).to_numpy()
    not_ended = has_end & (end >= as_of).to_numpy()
    # per status: what the dates rule out, what they say for sure
    says = {
        "upcoming": (started | ended, not_started),
        "past": (not_started | not_ended, ended),
        "ongoing": (not_started | ended, started & not_ended),
    }
    disagrees = np.zeros(len(s), dtype=bool)
    agrees = np.zeros(len(s), dtype=bool)
    for name, (ruled_out, implied) in says.items():
        this = s.isin([name]).to_numpy()  # False, not <NA>, for no status under pandas 2.2
        disagrees |= this & ruled_out
        agrees |= this & implied
    return pd.arrays.BooleanArray(disagrees, ~(disagrees | agrees))


def _typed(columns: dict[str, object], *, with_rates: bool) -> pd.DataFrame:
    wanted = [f for f in FEATURES if with_rates or not f.needs_rates]
    if [f.name for f in wanted] != list(columns):  # pragma: no cover - a definition drifted
        raise AssertionError(f"features computed {list(columns)}, declared "
                             f"{[f.name for f in wanted]}")
    return pd.DataFrame(columns).astype({f.name: f.dtype for f in wanted})


def __getattr__(name: str) -> object:
    if name == "features":  # ``from icoframes.features import features``, before 0.2
        warn("icoframes.features.features is now icoframes.compute_features; the old "
             "name goes in the next version", FutureWarning)
        return compute_features
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _FeaturesModule(types.ModuleType):
    """This module, callable for one version as the function it was named after."""

    def __call__(self, tables: Tables, **options: object) -> pd.DataFrame:
        warn("icoframes.features(tables, ...) is now icoframes.compute_features(tables, ...): "
             "icoframes.features is the module (FEATURES, describe_features); calling it "
             "goes in the next version", FutureWarning)
        return compute_features(tables, **options)  # type: ignore[arg-type]


sys.modules[__name__].__class__ = _FeaturesModule
