"""Read-only dicts and lists for what icoframes keeps in ``DataFrame.attrs``.

pandas deep-copies a frame's ``attrs`` into every frame derived from it (each
selection, ``head``, filter, ``groupby`` part...), so a load report of thousands of
missing ICOs, or a year of snapshots' summaries, held as plain dicts made each such
operation tens of times slower, and :func:`icoframes.changes` quadratic in the days.
:class:`FrozenDict` and :class:`FrozenList` refuse changes, so one value can be shared
by every derived frame: their ``__deepcopy__`` returns the value itself.

They are a ``dict`` and a ``list`` (``isinstance``, ``==`` a plain one, ``json.dumps``,
pyarrow's storing of ``attrs`` in Parquet metadata and ``pickle`` work unchanged);
``dict(value)`` or ``list(value)`` is a plain, changeable copy of the top level
(:func:`thawed`, also ``icoframes.thawed``, copies every level).

>>> report = freeze({"queries": [{"complete": True}], "requests": {"icos": 2}})
>>> report == {"queries": [{"complete": True}], "requests": {"icos": 2}}
True
>>> import copy
>>> copy.deepcopy(report) is report
True
>>> report["requests"]["icos"] = 3
Traceback (most recent call last):
...
TypeError: this dict is read-only (one value shared by every frame pandas derives ...
>>> thawed(report)["requests"]["icos"] = 3  # a plain copy: changeable
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

from .errors import checked_keywords

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FrozenDict", "FrozenList", "freeze", "thawed", "without_attrs"]

_T = TypeVar("_T")
_Frame = TypeVar("_Frame", "pd.DataFrame", "pd.Series")

_REFUSED = ("this {kind} is read-only (one value shared by every frame pandas derives from "
            "the frame whose attrs hold it); change a copy: {kind}(...) copies its top "
            "level, icoframes.thawed(...) every level")


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    # the copy that fits: dict(...) of a list would keep only its indexes
    raise TypeError(_REFUSED.format(kind="list" if isinstance(self, list) else "dict"))


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses changes and is never copied by ``copy.deepcopy``."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self  # immutable, every level: sharing it is safe

    def __copy__(self) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type, tuple[dict[str, Any]]]:
        # pickle's default for a dict subclass fills it item by item (refused here)
        return (type(self), (dict(self),))


class FrozenList(list[Any]):
    """A ``list`` that refuses changes and is never copied by ``copy.deepcopy``."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = clear = extend = insert = pop = remove = reverse = sort = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __copy__(self) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return (type(self), (list(self),))


@overload
def freeze(value: Mapping[str, Any]) -> FrozenDict: ...
@overload
def freeze(value: list[Any]) -> FrozenList: ...
@overload
def freeze(value: _T) -> _T: ...
def freeze(value: Any) -> Any:
    """``value`` with every dict (a :class:`~collections.abc.Mapping`) a :class:`FrozenDict`
    and every list a :class:`FrozenList`, at every level; other values as they are (the
    reports hold numbers, text, ``None`` and tuples)."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value


@checked_keywords
def thawed(value: _T) -> _T:
    """A changeable copy of ``value``: plain dicts and lists at every level.

    What icoframes keeps in a frame's ``attrs`` (a load report, a snapshots'
    manifest) is read-only at every level, being shared by every frame pandas
    derives; ``dict(value)`` or ``list(value)`` copies only its top level.

    Parameters
    ----------
    value : object
        A mapping or list, at any depth (a read-only one of ``attrs`` or any other);
        other values are returned as they are.

    Returns
    -------
    object
        ``value`` with every mapping a new ``dict`` and every list a new ``list``.

    Examples
    --------
    >>> import icoframes
    >>> stated = freeze({"missing": [{"id": 1}], "complete": False})
    >>> plain = icoframes.thawed(stated)
    >>> plain["missing"].append({"id": 2})
    >>> len(plain["missing"]), len(stated["missing"])
    (2, 1)
    """
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list):
        return [thawed(v) for v in value]  # type: ignore[return-value]
    return value


def without_attrs(frame: _Frame) -> _Frame:
    """A shallow copy of ``frame`` without ``attrs``: a working frame whose every derived
    frame (a day's group, a comparison's selection) carries no report along."""
    out = frame.copy(deep=False)  # the caller's frame keeps its attrs
    out.attrs = {}
    return out
