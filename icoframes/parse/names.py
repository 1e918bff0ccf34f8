"""Other spellings of platform and country names, declared once.

:data:`PLATFORM_FAMILIES` (declared in :mod:`icoframes.vocabulary`) groups the
spellings profiles use for a platform
(``"ERC20"``, ``"ethereum "`` -> Ethereum): :func:`icoframes.features` reads
``icos.platform`` through it, and a loader's ``platform=`` filter suggests the
filter set's spelling from it (``platform="ERC20"``: did you mean 'Ethereum'?).
:data:`COUNTRY_NAMES` does the same for the common names of countries the
directory spells otherwise (``"United Kingdom"``: did you mean 'UK'?).
:func:`same_name` says which names of a list are another spelling of a value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from ..vocabulary import PLATFORM_FAMILIES

__all__ = ["COUNTRY_NAMES", "PLATFORM_FAMILIES", "same_name"]

#: A country as the directory names it -> other common names of it (case-insensitive).
COUNTRY_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "UK": ("united kingdom", "great britain", "britain", "england", "scotland", "wales",
           "gb", "u.k.", "united kingdom of great britain and northern ireland"),
    "USA": ("united states", "united states of america", "us", "u.s.", "u.s.a.", "america"),
    "United Arab Emirates": ("uae", "u.a.e.", "emirates", "dubai", "abu dhabi"),
    "South Korea": ("korea", "republic of korea", "korea, republic of", "rok"),
    "North Korea": ("dprk", "democratic people's republic of korea"),
    "Russia": ("russian federation",),
    "China": ("prc", "people's republic of china", "mainland china"),
    "Czech Republic": ("czechia",),
    "Netherlands": ("the netherlands", "holland"),
    "Côte d'Ivoire": ("ivory coast",),
    "British Virgin Islands": ("bvi", "virgin islands, british"),
    "Cayman Islands": ("cayman",),
    "Hong Kong": ("hong kong sar", "hk"),
    "Switzerland": ("swiss confederation",),
    "Iran": ("islamic republic of iran", "iran, islamic republic of"),
    "Syria": ("syrian arab republic",),
    "Vietnam": ("viet nam",),
}


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def same_name(value: str, names: Iterable[str], groups: Mapping[str, tuple[str, ...]]
              ) -> list[str]:
    """The ``names`` that ``groups`` say are another spelling of ``value``, in their order.

    Examples
    --------
    >>> same_name("ERC20", ["Ethereum", "Waves"], PLATFORM_FAMILIES)
    ['Ethereum']
    >>> same_name("united kingdom", ["Singapore", "UK"], COUNTRY_NAMES)
    ['UK']
    >>> same_name("UK", ["United Kingdom"], COUNTRY_NAMES), same_name("Mars", ["UK"], COUNTRY_NAMES)
    (['United Kingdom'], [])
    """
    group = {_folded(key): key for key in groups}
    for key, spellings in groups.items():
        group.update({_folded(s): key for s in spellings})
    mine = group.get(_folded(value))
    if mine is None:
        return []
    return [n for n in names if group.get(_folded(n)) == mine and _folded(n) != _folded(value)]
