"""The order of a narrower query's rows picked from a cached list: certain, or not.

The service sorts by a comparison spec 4.2 names but does not define: the name's
collation is not stated, nor where rows without a date go, nor the order among
rows that tie. So:

* **the same sort as the cached list** (:func:`list_order`): the service's
  comparison orders a subset as it orders the whole, so the list's order is the
  narrower list's, but among rows that tie under it, which keep the cached list's
  order, said (:data:`TIED`). Which rows may tie: names equal under any reading of
  :data:`NAME_KEYS` (bytes, case, accents, upper-case weights, letters and digits
  only, digits by value), or without a name; for a date, rows with the same one, or
  without one, as the copies show them. A date sort is declined when its copies
  are not in the list's order (a date changed since it was paged), or when a row
  without the date is not in the run of such rows that ends the cached list: the
  spec does not say where the service puts them (the sandbox lists them last,
  ascending and descending alike), so only the list's own trailing run says it;
  a row that lost its date since the list was paged keeps its old dated place in
  the list, and one that gained a date leaves the rows listed after it out of
  that run;
* **another sort** (:func:`local_order`), done locally: by ``id`` always; by
  ``name`` when the order of the distinct names is the same under every reading
  of :data:`NAME_KEYS` and no two of them tie under one; by a date when no row
  lacks it. Rows that truly tie (the same date; the same name, equal under every
  collation) keep the cached list's order, said (:data:`TIED`); a row without the
  key or a name order that depends on the collation is an order among distinct
  values the service does not state, not a tie: declined, and the query is paged.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["NAME_KEYS", "TIED", "list_order", "local_order"]


def _accent_folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _alphanumeric(text: str) -> str:
    """Letters and digits only, folded: glibc's en_US (PostgreSQL) ignores spaces and
    punctuation at its first level."""
    return "".join(c for c in _accent_folded(text) if c.isalnum())


def _numeric(text: str) -> list[Any]:
    """A digit-aware key ('Zeta 9' before 'Zeta 10'), as ICU's numeric collation; text and
    numbers alternate from the first part, so two keys always compare part by part.

    A run of digits is its value as ``(length, digits)`` without leading zeros, never an
    int: ``int()`` refuses more than 4,300 digits (a name's run may be longer), and this
    orders and equates runs as their values do (``"007"`` and ``"7"`` are one value).

    Examples
    --------
    >>> _numeric("Zeta 9") < _numeric("Zeta 10"), _numeric("a007") == _numeric("a7")
    (True, True)
    >>> _numeric("b" + "9" * 5000) < _numeric("b1" + "0" * 5000)
    True
    """
    parts = re.split(r"(\d+)", _accent_folded(text))
    return [_value(part) if i % 2 else part for i, part in enumerate(parts)]


def _value(digits: str) -> tuple[int, str]:
    """A run of decimal digits (any script's, as ``int()`` reads them: ``"٣"`` is 3) as a key
    that orders as its value: its ASCII digits without leading zeros, shorter first."""
    if not digits.isascii():
        digits = "".join(str(unicodedata.decimal(c)) for c in digits)
    digits = digits.lstrip("0")
    return len(digits), digits


#: Readings of a name order the spec leaves open (its collation is not stated): bytes, case
#: folded, accents folded, upper-case weights (MySQL's general_ci: ``_`` after the letters),
#: letters and digits only, digits by value. A local name order must be the same under all.
NAME_KEYS: tuple[Callable[[str], Any], ...] = (str, str.casefold, _accent_folded, str.upper,
                                               _alphanumeric, _numeric)


def _tie(keys: list[Any]) -> bool:
    return any(a == b for a, b in itertools.pairwise(sorted(keys)))


def _hashable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key


#: How an order among rows that tie is said (``order_unstated``): the cached list's, since
#: spec 4.2 states none, so a narrower list sorted so may have them in another.
TIED = ("the cached list's order among the {n} rows that tie on {key} ({groups} group(s) "
        "{how}): spec 4.2 states no order among rows that tie, so a narrower list may have "
        "them in another")
_MAY_TIE = {"name": "of names equal under a collation the spec leaves open (case, accents, "
                    "spaces and punctuation, digits), or without a name",
            "date": "of the same one, or without one"}


def _tied(key: str, labels: np.ndarray, how: str) -> str | None:
    """What :data:`TIED` says of rows grouped by ``labels`` (None: no two share one)."""
    counts = np.unique(labels, return_counts=True)[1]
    if not (counts > 1).any():
        return None
    return TIED.format(n=int(counts[counts > 1].sum()), key=key,
                       groups=int((counts > 1).sum()), how=how)


def _name_groups(names: list[Any]) -> np.ndarray:
    """A label per name: names equal under one of :data:`NAME_KEYS` share theirs (joined
    through any chain of them), names missing one of their own together."""
    parent = list(range(len(names)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        return i

    missing = [i for i, n in enumerate(names) if not isinstance(n, str)]
    for i in missing[1:]:
        parent[root(i)] = root(missing[0])
    for fold in NAME_KEYS:
        first: dict[Any, int] = {}
        for i, n in enumerate(names):
            if isinstance(n, str):
                parent[root(i)] = root(first.setdefault(_hashable(fold(n)), i))
    return np.array([root(i) for i in range(len(names))], dtype=np.int64)


def list_order(sort: tuple[str, bool], listing: pd.DataFrame, icos: pd.DataFrame,
               keep: np.ndarray) -> tuple[np.ndarray | None, str, str | None]:
    """The order of the rows at positions ``keep`` (ascending) of ``listing``, a list sorted
    by ``sort``, in a narrower list sorted so; ``icos`` the copies of all its rows (one
    row each, aligned): a date sort reads where the whole list has its undated rows.

    Returns
    -------
    positions : ndarray or None
        The rows' order (the list's), or None when it is not certain.
    how : str
        How it was found, or why it is not certain.
    unstated : str or None
        What of it is not the service's: the order among rows that may tie (:data:`TIED`).
    """
    key, descending = sort
    positions, how = np.arange(len(keep)), "the cached list's order"
    if key == "id":
        return positions, how, None
    if key == "name":
        labels = _name_groups(listing["name"].iloc[keep].astype(object).tolist())
        return positions, how, _tied(key, labels, _MAY_TIE["name"])
    dates = icos[key].to_numpy(dtype="datetime64[ms]")
    values = dates[keep]
    steps = np.diff(values[~np.isnat(values)].astype("int64"))
    if (steps > 0 if descending else steps < 0).any():  # the list's order rests on the copies
        return None, (f"{key}: the copies' dates are not in the cached list's order (one "
                      "changed since it was paged)"), None
    # Where the service puts rows without the date is not stated: only the list's trailing
    # run of them shows it (a row undated in the list's dated part lost its date since, and
    # the service now lists it elsewhere; rows before one that gained a date are no longer
    # listed where they were). A list with them first (NULLS FIRST) is paged, not guessed.
    dated = np.flatnonzero(~np.isnat(dates))
    if (keep[np.isnat(values)] <= (dated[-1] if len(dated) else -1)).any():
        return None, (f"{key}: a row without it is not among those that end the cached "
                      "list (it lost its date, or a row after it gained one, since the list "
                      "was paged; where the service puts rows without it is not stated)"), None
    labels = np.where(np.isnat(values), np.iinfo(np.int64).min, values.astype("int64"))
    return positions, how, _tied(key, labels, _MAY_TIE["date"])


def local_order(sort: tuple[str, bool], listing: pd.DataFrame, icos: pd.DataFrame
                ) -> tuple[np.ndarray | None, str, str | None]:
    """Positions of ``listing`` sorted locally by ``sort`` (its copies ``icos``, aligned), how
    (or, positions None, why the order is not certain), and what is unstated of it: rows
    that truly tie keep the cached list's order (:data:`TIED`)."""
    key, descending = sort
    if key == "id":
        values = listing["id"].to_numpy(dtype="int64")
    elif key == "name":
        names = listing["name"].astype(object).tolist()
        if any(not isinstance(n, str) for n in names):
            return None, "name: a row has no name (where the service puts it is not stated)", None
        distinct = sorted(set(names))  # equal names tie under every collation
        readings = [sorted(range(len(distinct)), key=[fold(n) for n in distinct].__getitem__)
                    for fold in NAME_KEYS]
        if (any(_tie([fold(n) for n in distinct]) for fold in NAME_KEYS)
                or any(reading != readings[0] for reading in readings[1:])):
            return None, ("name: names whose order depends on the collation, or that tie "
                          "under one (case, accents, spaces and punctuation, digits): the "
                          "service's collation is not stated"), None
        rank = {distinct[i]: r for r, i in enumerate(readings[0])}
        values = np.array([rank[n] for n in names], dtype=np.int64)
    else:
        dates = icos[key].to_numpy(dtype="datetime64[ms]")
        if np.isnat(dates).any():
            return None, (f"{key}: a row without it (where the service puts it is not "
                          "stated)"), None
        values = dates.astype("int64")
    # rows that tie keep the cached list's order, whichever the direction
    order = np.lexsort((np.arange(len(values)), -values if descending else values))
    return order, f"sorted locally by {key}", _tied(key, values, "of the same one")
