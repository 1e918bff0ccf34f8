"""What a user's type checker sees of the loaders: the filters a loader takes by name.

``ListFilters`` (a TypedDict) is written out for type checkers, which cannot read the
names from ``PARAMS``; this checks it names exactly what the loaders accept at runtime.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import icoframes
from icoframes.api.params import LOADER_FILTERS, PARAMS, ListFilters
from icoframes.errors import InvalidParameter, keywords_of
from icoframes.queries import check_keywords

LOADERS = [icoframes.load_list, icoframes.load_icos, icoframes.load_tables,
           icoframes.export_tables]


def _accepted(loader: Callable[..., Any]) -> set[str]:
    """The list parameters ``loader`` takes as ``**filters``: those its runtime check lets
    through, less its own arguments (``status``)."""
    own = keywords_of(loader)
    accepted = set()
    for name in (p.name for p in PARAMS):
        try:
            check_keywords({name: None}, own)
        except InvalidParameter:  # page: a loader fetches every page
            continue
        accepted.add(name)
    return accepted - set(own)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
def test_the_typed_filters_are_the_names_a_loader_accepts(loader):
    assert set(ListFilters.__optional_keys__) == _accepted(loader) == set(LOADER_FILTERS)
    assert not ListFilters.__required_keys__  # total=False: every filter may be left out
    filters = inspect.signature(loader).parameters["filters"]
    assert filters.kind is inspect.Parameter.VAR_KEYWORD
    assert filters.annotation == "Unpack[ListFilters]"
