"""Parameters of the list operation (spec 4.2), declared once and checked locally.

:func:`validate_list_params` rejects a bad parameter before a request is spent;
the sandbox applies the same declarations on the server side.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import InvalidParameter

__all__ = [
    "ID_LIST_PARAMS",
    "LIST_PARAMS",
    "SORT_KEYS",
    "STATUSES",
    "STRING_LIST_PARAMS",
    "YES_FLAGS",
    "validate_list_params",
]

STATUSES = ("ongoing", "upcoming", "past")
SORT_KEYS = ("name", "id", "start_datetime", "end_datetime")
ID_LIST_PARAMS = ("platform", "category", "type")
STRING_LIST_PARAMS = ("location", "accepted_currencies", "exclude_areas")
YES_FLAGS = ("airdrop_program", "bounty_program", "investor_kyc", "investor_wl", "ico_kyc_passed")
LIST_PARAMS = (
    "sort_asc",
    "sort_desc",
    "page",
    *ID_LIST_PARAMS,
    *STRING_LIST_PARAMS,
    "status",
    "ico_score",
    *YES_FLAGS,
)


def validate_list_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Check list parameters against spec 4.2 and return them in wire form.

    ``None`` values are dropped; list-typed filters given as a scalar are
    wrapped in a list; yes-flags accept ``True``/``"yes"`` (``False`` drops the
    flag, since the API can only say "yes").

    Raises
    ------
    InvalidParameter
        Naming the parameter and what is allowed.

    Examples
    --------
    >>> validate_list_params({"status": "past", "platform": 3, "bounty_program": True})
    {'status': 'past', 'platform': [3], 'bounty_program': 'yes'}
    """
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        if name not in LIST_PARAMS:
            allowed = ", ".join(LIST_PARAMS)
            raise _invalid(name, value, f"is not a list parameter; allowed: {allowed}")
        if name in ("sort_asc", "sort_desc"):
            if value not in SORT_KEYS:
                raise _invalid(name, value, f"must be one of {', '.join(SORT_KEYS)}")
            out[name] = value
        elif name == "status":
            if value not in STATUSES:
                raise _invalid(name, value, f"must be one of {', '.join(STATUSES)}")
            out[name] = value
        elif name == "page":
            out[name] = _int_in(name, value, 1, None)
        elif name == "ico_score":
            out[name] = _int_in(name, value, 1, 10)
        elif name in ID_LIST_PARAMS:
            out[name] = [_int_in(name, v, 1, None, what="ids (positive integers)")
                         for v in _as_list(name, value)]
        elif name in STRING_LIST_PARAMS:
            items = _as_list(name, value)
            for item in items:
                if not isinstance(item, str) or not item.strip():
                    raise _invalid(name, value, "must be a non-empty string or a list of them")
            out[name] = list(items)
        elif name in YES_FLAGS:
            if value is True or value == "yes":
                out[name] = "yes"
            elif value is not False:
                raise _invalid(name, value, "accepts True or 'yes' (False leaves the filter off)")
    if "sort_asc" in out and "sort_desc" in out:
        raise InvalidParameter(
            "give sort_asc or sort_desc, not both "
            f"(got sort_asc={out['sort_asc']!r}, sort_desc={out['sort_desc']!r})"
        )
    return out


def _as_list(name: str, value: Any) -> list[Any]:
    if isinstance(value, str | numbers.Number) and not isinstance(value, bool):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, Mapping | bytes):
        items = list(value)
        if not items:
            raise _invalid(name, value, "must not be an empty list")
        return items
    raise _invalid(name, value, "must be a value or a list of values")


def _int_in(name: str, value: Any, low: int, high: int | None, *, what: str | None = None) -> int:
    # numpy integers count: ids often come straight out of a DataFrame
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)
    if not ok and isinstance(value, str) and value.strip().isdigit():
        value, ok = int(value), True
    if ok and value >= low and (high is None or value <= high):
        return int(value)
    allowed = what or (f"an integer from {low} to {high}" if high else f"an integer >= {low}")
    raise _invalid(name, value, f"must be {allowed}")


def _invalid(name: str, value: Any, rule: str) -> InvalidParameter:
    return InvalidParameter(f"invalid list parameter {name}={value!r}: {name} {rule}")
