"""Other spellings of platform and country names, declared once.

:data:`PLATFORM_FAMILIES` groups the spellings profiles use for a platform
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

__all__ = ["COUNTRY_NAMES", "PLATFORM_FAMILIES", "same_name"]

#: Platform family -> spellings of ``icos.platform`` meaning it (case-insensitive,
#: whitespace collapsed). Any other platform is its own family, as written.
PLATFORM_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "Ethereum": ("ethereum", "eth", "erc20", "erc-20", "erc 20", "erc223", "erc-223",
                 "erc721", "erc-721", "ethereum erc20", "ethereum (erc20)"),
    "Binance Smart Chain": ("binance smart chain", "bsc", "bep20", "bep-20", "bnb chain",
                            "binance chain", "bep2"),
    "Bitcoin": ("bitcoin", "btc"),
    "Stellar": ("stellar", "xlm"),
    "Tron": ("tron", "trx", "trc20", "trc-20"),
    "Waves": ("waves",),
    "NEO": ("neo", "nep5", "nep-5"),
    "EOS": ("eos",),
    "Solana": ("solana", "sol", "spl"),
    "Cardano": ("cardano", "ada"),
}

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
