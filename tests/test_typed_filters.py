"""What a user's type checker sees of the loaders: the filters a loader takes by name.

``ListFilters`` (a TypedDict) is written out for type checkers, which cannot read the
names from ``PARAMS``; this checks it names exactly what the loaders accept at runtime,
that each value type takes nothing the runtime refuses and every kind of value it reads,
and that it is exported from ``icoframes`` with ``SortKey``.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterable
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.api import params
from icoframes.api.params import LOADER_FILTERS, PARAMS, ListFilters, Param
from icoframes.errors import InvalidParameter, keywords_of
from icoframes.queries import build_queries, check_keywords

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


def test_the_typed_filters_and_sort_keys_are_exported_from_icoframes():
    assert icoframes.ListFilters is ListFilters and icoframes.SortKey is params.SortKey
    assert {"ListFilters", "SortKey"} <= set(icoframes.__all__)


# A filter set as the service sends it: names and places a loader checks its filters against
_FILTER_SET = pd.DataFrame({
    "filter": ["platform", "category", "type", "location", "location"],
    "id": pd.array([3, 3, 3, None, None], dtype="Int64"),
    "name": ["Ethereum", "Ethereum", "Ethereum", "Germany", "France"]})


def _read(name: str, value: Any) -> None:
    """``value`` of the filter ``name`` as a loader reads it (InvalidParameter if refused)."""
    build_queries("past", {name: value}, lambda: _FILTER_SET)


def _text(param: Param) -> str:
    return "ETH" if param.tickers else "Germany" if param.kind == "strings" else "Ethereum"


def _number(param: Param) -> int:
    return param.low if param.low is not None else 3


# What the runtime reads for each kind of parameter, a value of each form it takes (each
# checked below to be read): an id out of a frame is a numpy integer, a flag held in a
# variable a bool, numpy's too
_FORMS = {
    "sort": lambda p: list(p.allowed),
    "int": lambda p: [p.low, np.int64(p.low)],
    "ids": lambda p: [3, np.int64(3), "Ethereum", [3, "Ethereum"], (np.int64(3),)],
    "strings": lambda p: [_text(p), [_text(p)], (_text(p),)],
    "yes-flag": lambda p: [True, np.True_, "yes"],
}


def _members(annotation: Any) -> list[Any]:
    """The types of a union, flattened (``None`` left out: every filter may be None)."""
    if get_origin(annotation) not in (Union, types.UnionType):
        return [annotation]
    return [m for a in get_args(annotation) for m in _members(a) if m is not type(None)]


def _matches(value: Any, member: Any) -> bool:
    origin = get_origin(member)
    if origin is Literal:
        return isinstance(value, str) and value in get_args(member)
    if origin is Iterable:
        return (not isinstance(value, str | bytes) and isinstance(value, Iterable)
                and all(any(_matches(v, m) for m in _members(get_args(member)[0]))
                        for v in value))
    return isinstance(value, origin or member)


def _samples(member: Any, param: Param) -> list[Any]:
    """A value of each form ``member`` (a type of the filter's annotation) lets through."""
    origin = get_origin(member)
    if origin is Literal:
        return list(get_args(member))
    if origin is Iterable:
        return [[v] for m in _members(get_args(member)[0]) for v in _samples(m, param)]
    if origin is np.integer:
        return [np.int64(_number(param))]
    # False is typed (a flag held in a variable) and refused when called, with why
    return {int: [_number(param)], str: [_text(param)], bool: [True]}.get(member, [member(1)])


@pytest.mark.parametrize("param", [p for p in PARAMS if p.name in LOADER_FILTERS],
                         ids=lambda p: p.name)
def test_each_typed_filter_takes_what_the_runtime_reads_and_nothing_it_refuses(param):
    annotation = get_type_hints(ListFilters)[param.name]
    assert type(None) in get_args(annotation)  # None: left out, as at runtime
    members = _members(annotation)
    for value in _FORMS[param.kind](param):  # every form the runtime reads is typed
        _read(param.name, value)
        assert any(_matches(value, m) for m in members), (param.name, value, members)
    for member in members:  # and every type is read by the runtime
        for value in _samples(member, param):
            _read(param.name, value)


@pytest.mark.parametrize("name", ["ico_score", "platform"])
def test_true_where_an_integer_is_typed_is_refused_when_called_as_the_docstring_says(name):
    # a type checker takes a bool for an int: no annotation can keep True out, so the
    # docstring must not say the types take nothing the runtime refuses
    members = _members(get_type_hints(ListFilters)[name])
    assert any(_matches(True, m) for m in members)
    with pytest.raises(InvalidParameter):
        _read(name, True)
    doc = inspect.cleandoc(ListFilters.__doc__ or "")
    assert f"{name}=True" in doc and "none it refuses" not in doc
