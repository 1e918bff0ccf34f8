"""Names of places that hold a separator, for splitting a list written as one string.

:mod:`icoframes.parse.splits` splits ``restricted_areas`` and ``accepting``
(:data:`icoframes.vocabulary.SPLIT_LISTS`) at commas and at ``/ + & and``; these say where a
comma or an ``and`` is inside one name, and the data dictionary (``make docs``) prints them.
"""

from __future__ import annotations

from typing import Final

__all__ = ["AND_NAMES", "COMMA_NAMES", "CONTINUATIONS"]

#: A split part that is one of these and nothing more names nothing: it ends the name before it
#: (``'Korea, Republic of'``, ``'Bahamas, The'``); ``'The Netherlands'`` is an item of its own.
CONTINUATIONS: Final = (
    "the", "republic of", "republic of the", "the republic of", "islamic republic of",
    "democratic republic of", "democratic republic of the", "the democratic republic of the",
    "people's republic of", "democratic people's republic of", "united republic of",
    "federated states of", "plurinational state of", "bolivarian republic of", "state of",
    "province of china", "the former yugoslav republic of", "former yugoslav republic of",
    "sar", "s.a.r.", "rep.", "rep", "dem. rep.", "dem. people's rep.", "islamic rep.",
    "arab rep.", "fed. sts.", "north", "south")
#: Names with a comma whose second part could name a place: joined only to make one of these
#: (``'Virgin Islands, U.S.'``; ``'China, U.S.'`` is two). Matched as :data:`AND_NAMES` are.
COMMA_NAMES: Final = frozenset({
    "virgin islands, u.s.", "virgin islands, british", "bonaire, sint eustatius and saba",
    "bonaire, saint eustatius and saba", "saint helena, ascension and tristan da cunha",
    "hong kong sar, china", "macao sar, china", "macau sar, china", "venezuela, rb"})
#: Names holding ``and``/``&``, never split there; a half of one left alone is a doubtful split.
#: Matched casefolded, ``&`` as ``and``, ``St.`` as ``Saint``, without accents.
AND_NAMES: Final = frozenset({
    "antigua and barbuda", "bosnia and herzegovina", "heard island and mcdonald islands",
    "heard and mcdonald islands", "saint kitts and nevis", "saint pierre and miquelon",
    "saint vincent and the grenadines", "sao tome and principe", "svalbard and jan mayen",
    "south georgia and the south sandwich islands", "south georgia and south sandwich islands",
    "svalbard and jan mayen islands", "trinidad and tobago", "turks and caicos islands",
    "turks and caicos", "wallis and futuna", "wallis and futuna islands", "ashmore and cartier "
    "islands", "sint eustatius and saba", "saint eustatius and saba", "great britain and "
    "northern ireland", "ascension and tristan da cunha",
    "united kingdom of great britain and northern ireland"})
