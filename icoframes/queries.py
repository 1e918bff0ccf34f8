"""A loader's arguments -> the list queries it sends: checked, resolved, one form per query.

:func:`build_queries` is the whole job. Everything spec 4.2 lets us check locally is checked
first (parameter names, statuses in any case, ranges, yes-flags True only, currencies: a name
of the unit alias table becomes its ticker, ``"Ether"`` -> ``ETH``), so a typo there costs
nothing. Names are then checked against the service's filter set (spec 2.1), read through a
callable that is called at most once and only when a name is given:

* ``platform``, ``category`` and ``type`` names become their ids (one listed without a
  readable id is refused saying so);
* ``location`` and ``exclude_areas`` values must be a location of the filter set, in any
  case; the filter set's spelling is what is sent.

Unknown names raise :class:`~icoframes.errors.InvalidParameter` with a "did you mean" before
any list or profile request. Lists are sorted and de-duplicated, so the same filters in another
order are one cache entry.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .api.params import (
    ID_LIST_PARAMS,
    LIST_PARAMS,
    STATUSES,
    closest,
    pasted_id,
    refuse_misreading,
    validate_list_params,
)
from .currencyfilter import tickers
from .errors import (
    InvalidParameter,
    NoMatchWarning,
    NotCached,
    check_flags,
    checked_keywords,
    keywords_of,
    quoted,
    warn,
)
from .joinedlists import joined_parts, list_hint, near_the_whole
from .numerals import (
    INT64_MAX,
    as_integer,
    bounds,
    did_you_mean_flag,
    did_you_mean_number,
    number_text,
    python_number,
)
from .parse.names import COUNTRY_NAMES, PLATFORM_FAMILIES, same_name
from .parse.text import clean_surrogates

__all__ = ["DATED_KEYS", "PLACE_PARAMS", "build_queries", "check_keywords",
           "check_load_arguments", "checked_keywords", "combined_sort", "keywords_of", "read_once",
           "sort_rows", "warn_if_nothing_matched"]


#: Parameters whose values are country names, checked against the filter set's locations.
PLACE_PARAMS = ("location", "exclude_areas")
#: Sort keys only profiles carry (a list summary has id and name).
DATED_KEYS = ("start_datetime", "end_datetime")

# other names of a filter's values, for the suggestion when one is not the filter set's
_OTHER_NAMES = {"platform": PLATFORM_FAMILIES, "location": COUNTRY_NAMES,
                "exclude_areas": COUNTRY_NAMES}


def build_queries(status: str | None, filters: Mapping[str, Any],
                  filter_set: Callable[[], pd.DataFrame], *,
                  keywords: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The wire parameters of each list query a loader call sends, one per status.

    Parameters
    ----------
    status : str, optional
        ``"ongoing"``, ``"upcoming"`` or ``"past"`` in any case; ``None`` makes
        one query per status.
    filters : mapping
        The other list parameters of spec 4.2, by name (``page`` excluded:
        loaders fetch every page).
    filter_set : callable
        Returns the filter set (columns filter, id, name), for example a
        cached :func:`icoframes.load_filters`. Called at most once, and only
        when a platform, category or type (by id or name) or a place
        (``location``, ``exclude_areas``) is given.
    keywords : sequence of str, optional
        The loader's own keyword arguments: a misspelled one
        (``refesh=True``) is refused with "did you mean 'refresh'?" rather
        than as an unknown list parameter.

    Returns
    -------
    list of dict
        Validated wire parameters, one dict per status, list values sorted.

    Raises
    ------
    InvalidParameter
        A parameter, value or name the service would not take, with a
        suggestion when one is close.
    NotCached
        A name needs the filter set, the load is offline and none is cached.

    Examples
    --------
    >>> places = lambda: pd.DataFrame({"filter": ["location", "location"], "id": [None, None],
    ...                                "name": ["Singapore", "USA"]})
    >>> build_queries("Past", {"location": ["usa", "singapore"]}, places)
    [{'location': ['Singapore', 'USA'], 'status': 'past'}]
    >>> try:
    ...     build_queries(None, {"exclude_areas": "Singapur"}, places)
    ... except InvalidParameter as exc:
    ...     print(str(exc).split(" (")[0])
    unknown exclude_areas 'Singapur'; did you mean 'Singapore'?
    """
    filters = read_once(filters)
    check_keywords(filters, keywords)  # page too
    params = {**filters, "status": status}
    if params.get("accepted_currencies") is not None:
        params["accepted_currencies"] = tickers(params["accepted_currencies"],
                                                _values(params["accepted_currencies"]))
    for key in ID_LIST_PARAMS:  # an empty name would cost the filter set to be refused
        if params.get(key) is not None and any(isinstance(v, str) and not v.strip()
                                               for v in _values(params[key])):
            raise InvalidParameter(f"invalid list parameter {key}={quoted(params[key])}: "
                                   "must be ids or names, not an empty string")
        for v in _values(params.get(key)):  # "1, 2": ids pasted as one, no name to look up
            if params.get(key) is not None and (v is None or pd.isna(v) is True):  # a gap
                raise InvalidParameter(  # in a column read as a list: ["Finance", nan]
                    f"invalid list parameter {key}={quoted(params[key])}: {quoted(v)} is a "
                    f"missing value, no {key} (an id or a name); drop it (.dropna())")
            if hint := list_hint(v, lambda part: None if _is_name(part) else pasted_id(part),
                                 spaces=True):  # (an id out of range: no hint)
                raise InvalidParameter(f"invalid list parameter {key}={quoted(params[key])}: "
                                       f"{quoted(v)} is no id nor name{hint}")
    # Check everything that can be checked without the filter set first,
    # standing in a valid id for names, so a typo costs no request.
    placeholder = {k: [1 if _is_name(x) else x for x in _values(v)]
                   for k, v in params.items()
                   if k in ID_LIST_PARAMS and v is not None and _has_names(v)}
    wire = validate_list_params({**params, **placeholder})  # once: names are looked up below
    if _needs_filter_set(params):
        try:
            known = _read(filter_set, params)
        except NotCached:
            if any(params.get(k) is not None for k in PLACE_PARAMS) or any(
                    _has_names(params[k]) for k in ID_LIST_PARAMS if params.get(k) is not None):
                raise
            known = None  # ids alone, offline with no filter set: the cache answers or says so
        if known is not None:
            resolved = _resolve_names(params, known)
            for key in PLACE_PARAMS:  # the filter set's spelling of each place
                if key in wire:
                    wire[key] = [place for found in resolved[key] for place in found]
            for key in placeholder:  # each name's ids (all of them) in the placeholder's place
                wire[key] = [i for given, found, checked in zip(
                    _values(params[key]), resolved[key], wire[key], strict=True)
                    for i in (found if _is_name(given) else [checked])]
    if "status" not in wire:  # the combined frame is sorted locally (combined_sort): the
        wire.pop("sort_asc", None)  # queries are those of the unsorted load, one cache
        wire.pop("sort_desc", None)  # entry each, answered from the cache when it has them
    statuses = [wire.pop("status")] if "status" in wire else list(STATUSES)
    queries = []
    for s in statuses:
        query = {**wire, "status": s}
        for key, value in query.items():
            if isinstance(value, list):  # order and repeats don't change the answer:
                query[key] = sorted(set(value), key=str)  # one cache entry per query
        queries.append(query)
    return queries


def combined_sort(status: str | None, filters: Mapping[str, Any], *,
                  dates: bool = True) -> tuple[str, bool] | None:
    """How a loader sorts its combined frame: ``(key, descending)``; None with a status.

    With a status the service sorts the one list. Without one a loader sends a
    query per status, unsorted (:func:`build_queries`), and sorts the combined
    rows itself with :func:`sort_rows`. ``dates=False`` (list summaries, which
    have no dates) refuses a sort by date without a status.

    Examples
    --------
    >>> combined_sort(None, {"sort_desc": "name"}), combined_sort("past", {"sort_asc": "id"})
    (('name', True), None)
    """
    if status is not None:
        return None
    for name, descending in (("sort_asc", False), ("sort_desc", True)):
        key = filters.get(name)
        if key is None:
            continue
        if isinstance(key, str) and key in DATED_KEYS and not dates:  # pd.NA: no truth value
            raise InvalidParameter(
                f"{name}={quoted(key)} without a status: list summaries carry no dates, so the "
                f"three statuses cannot be sorted together by {key}; give a status (the "
                "service sorts its list) or sort load_icos()")
        return key, descending
    return None


def sort_rows(frame: pd.DataFrame, sort: tuple[str, bool] | None,
              dated: Callable[[], pd.DataFrame] | None = None) -> pd.DataFrame:
    """``frame`` (columns id and name) in the order ``sort`` asks, its attrs kept.

    Names compare case-insensitively; ties go by id, in the sort's direction;
    rows without the value (no name, no date) come last either way. Dates are
    read by id from what ``dated`` returns (columns id and the key: the
    ``icos`` table), called only for a sort by date. ``sort=None``: ``frame``.

    Examples
    --------
    >>> rows = pd.DataFrame({"id": [3, 1, 2], "name": ["b", "B", "a"]})
    >>> sort_rows(rows, ("name", False))["id"].tolist()
    [2, 1, 3]
    >>> sort_rows(rows, ("id", True))["id"].tolist()
    [3, 2, 1]
    """
    if sort is None or frame.empty:
        return frame
    key, descending = sort
    if key in DATED_KEYS:
        if dated is None:
            raise ValueError(f"sorting by {key} needs the rows' dates")
        icos = dated()
        values = frame["id"].map(pd.Series(icos[key].to_numpy(), index=icos["id"].to_numpy()))
    elif key == "name":
        values = frame["name"].astype(object).map(
            lambda n: n.casefold() if isinstance(n, str) else None)
    else:
        values = frame["id"]
    keys = pd.DataFrame({"key": values.to_numpy(), "id": frame["id"].to_numpy()})
    order = keys.sort_values(["key", "id"], ascending=not descending, na_position="last")
    out = frame.iloc[order.index.to_numpy()].reset_index(drop=True)
    out.attrs = dict(frame.attrs)
    return out


# ``export --refresh``'s words, typed to a loader
_CLI_REFRESH = {"changed": "; did you mean True (re-page, re-fetch what changed: the CLI's "
                           "--refresh changed)?",
                "none": "; did you mean False (the CLI's --refresh none)?"}


def check_load_arguments(*, refresh: Any = False, budget: Any = None, offline: Any = False,
                         progress: Any = None) -> int | None:
    """The loaders' own arguments that are not list parameters: InvalidParameter when unusable.

    ``offline`` and ``progress`` are True or False (``progress`` also None), never
    another truthy value: ``offline="no"`` would otherwise mean offline. Returns
    ``budget`` as a Python int (a NumPy integer is one: ``np.uint8`` would wrap).
    """
    check_flags(offline=offline)
    check_flags(progress=progress, none_means="by the terminal")
    if not (isinstance(refresh, bool | np.bool_) or (isinstance(refresh, str)
                                                      and refresh == "all")):  # not 1, "yes"
        word = refresh.strip().casefold() if isinstance(refresh, str) else None
        hint = ("; did you mean 'all'?" if word == "all" else _CLI_REFRESH.get(word or "")
                or did_you_mean_flag(refresh))  # the CLI's --refresh words too
        raise InvalidParameter(f"refresh must be False, True or 'all', got {quoted(refresh)}{hint}")
    if budget is None:
        return None
    number = as_integer(budget)  # np.int64(5) counts (configure, top=); no timedelta
    if number is None or not 0 <= number <= INT64_MAX:  # a count of requests: a quota's int64
        raise InvalidParameter(f"budget must be a whole number{bounds(0, INT64_MAX)}, got "
                               f"{quoted(budget)}"  # "5", 5.0: 5
                               + did_you_mean_number(budget, low=0, high=INT64_MAX))
    return number


def warn_if_nothing_matched(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``, with a :class:`NoMatchWarning` naming the query when a whole answer has no row.

    A result that lacks rows for another reason (a failed page, missing
    profiles) says so with an IncompleteWarning instead.
    """
    summary = frame.attrs.get("icoframes") or {}
    queries = summary.get("queries") or []
    if len(frame) or not summary.get("complete") or any(q.get("rows") for q in queries):
        return frame
    asked = [q["params"] for q in queries if isinstance(q.get("params"), dict)]
    if not asked:
        return frame
    statuses = [p.get("status") for p in asked]
    shared = {k: v for k, v in asked[0].items() if k != "status"}
    where = ", ".join(f"{k}={v!r}" for k, v in shared.items()) or "no filter"
    status = f"status={statuses[0]!r}" if len(statuses) == 1 else f"statuses {statuses}"
    warn(f"no ICO matches the query ({where}; {status}): the result is the typed empty "
         "frame, every column present", NoMatchWarning)
    return frame


def read_once(filters: Mapping[str, Any]) -> dict[str, Any]:
    """``filters`` with the values of each iterator (a generator) read into a list: every
    check reads a filter's values again (the second saw none: "must not be an empty list"),
    and an export records them as given (it wrote the generator's repr)."""
    return {k: list(v) if isinstance(v, Iterator) else v for k, v in filters.items()}


#: Keywords a user may give for a number of profiles to fetch: ``budget`` is the loaders'
_COUNTS = frozenset(f"{p}{w}" for p in ("", "max_", "n_", "num_") for w in ("profiles", "requests"))
#: ... and for a number of ICOs (rows): no loader has one
_ROWS = frozenset({"limit", "top", "head", "nrows", *(f"{p}{w}" for p in ("max_", "n_", "num_")
                                                      for w in ("icos", "rows", "results"))})


def check_keywords(filters: Mapping[str, Any], keywords: Sequence[str],
                   elsewhere: Mapping[str, str] | None = None) -> None:
    """A keyword neither the loader's nor a list parameter is refused with its suggestion, as
    is ``page``; needs no settings (a loader checks it first: a typo named before keys).
    ``elsewhere``: keywords of other loaders, refused with what is said of each (the loader's
    closest keyword may mean another thing: ``load_list(profile_max_age=)``, ``max_age``)."""
    if "page" in filters:
        raise InvalidParameter("page is not a loader parameter: loaders fetch every page")
    own = [k for k in keywords if k != "status"]  # status is a list parameter as well
    elsewhere = elsewhere or {}
    for key, value in filters.items():
        if key in elsewhere:  # never the value: it may be a key under a wrong name
            raise InvalidParameter(elsewhere[key])
        refuse_misreading(key, value)  # a dict of values; allow_incomplete (not allow_empty)
        if key in LIST_PARAMS:
            continue
        if key.casefold() in _ROWS:  # max_icos=3: not 'max_workers' (a number of threads)
            raise InvalidParameter(
                f"{key} is no keyword of the loader: it loads every ICO the filters match, "
                "whatever their number; keep the first rows of the result (.head(n))"
                + ("; budget=n caps the profile requests" if "budget" in own else ""))
        close = closest(key, (*LIST_PARAMS, *own, *elsewhere))
        if counted := key.casefold() in _COUNTS and "budget" in (*own, *elsewhere):
            close = ["budget"]  # profiles=3: a count, not 'progress' nor 'profile_max_age'
        if close and close[0] in elsewhere:  # budgett: another loader's, said as it is
            raise InvalidParameter(f"{key}: did you mean {close[0]!r}? {elsewhere[close[0]]}")
        close = [c for c in close if c not in elsewhere]  # only this loader's, suggested
        if any(c in own for c in close):  # never the value: it may be a key under a wrong name
            said = " or ".join(map(repr, close))
            raise InvalidParameter(
                f"{key} is neither a keyword of the loader nor a list parameter of "
                f"spec 4.2; did you mean {said}"
                + (" (at most this many profile requests)?" if counted else "?"))
        validate_list_params({key: value})  # not a list parameter: its did-you-mean


def _needs_filter_set(params: Mapping[str, Any]) -> bool:
    return any(params.get(key) is not None for key in (*PLACE_PARAMS, *ID_LIST_PARAMS))


def _read(filter_set: Callable[[], pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    try:
        return filter_set()
    except NotCached as exc:
        named = ", ".join(f"{k}={params[k]!r}" for k in (*ID_LIST_PARAMS, *PLACE_PARAMS)
                          if params.get(k) is not None)
        raise NotCached(f"checking {named} needs the filter set: {exc}") from None


def _resolve_names(params: Mapping[str, Any], filter_set: pd.DataFrame) -> dict[str, Any]:
    """Per value given, a list: a name's ids (platform, category, type: every entry of that
    name, a directory may list one twice), a place's spellings, an id itself."""
    out = dict(params)
    for key in (*ID_LIST_PARAMS, *PLACE_PARAMS):
        value = out.get(key)
        if value is None:
            continue
        place = key in PLACE_PARAMS
        rows = filter_set[filter_set["filter"] == ("location" if place else key)]
        names = [str(n) for n in rows["name"]]
        # a place stands for itself; a name for its id (None: listed, its id unreadable)
        ids = [] if place else [None if pd.isna(i) else int(i) for i in rows["id"]]
        targets: list[Any] = names if place else ids
        known: dict[str, list[Any]] = {}
        for name, target in zip(names, targets, strict=True):
            known.setdefault(name.strip().casefold(), []).append(target)
        out[key] = [_lookup(key, v, known, names) if _is_name(v) or place else
                    [_known_id(key, v, {i for i in ids if i is not None})] for v in _values(value)]
    return out


def _known_id(key: str, value: Any, ids: set[int]) -> Any:
    """An id the filter set lists, as given; an unknown one is refused naming the known range."""
    if int(value) in ids:
        return value
    listed = f"ids {min(ids)} to {max(ids)}, {len(ids)} in all" if ids else "no ids"
    shown = repr(value) if isinstance(value, str) else int(value)
    raise InvalidParameter(f"unknown {key} id {shown}: the {key} rows of "
                           f"icoframes.load_filters() list {listed}")


def _lookup(key: str, value: str, known: Mapping[str, list[Any]], names: list[str]) -> list[Any]:
    # a lone surrogate as the filter set holds it, and shows it: U+FFFD ("Eth\ud800": 'Eth\ufffd')
    listed = known.get(clean_surrogates(value).strip().casefold(), [])
    if found := [target for target in listed if target is not None]:
        return found  # (beside it, an entry of that name whose id is unreadable: left out)
    if listed:  # a row of load_filters() shows it, but there is no id to ask with
        raise InvalidParameter(f"the {key} name {quoted(value)} is in the filter set, but its id "
                               "could not be read (icoframes.load_filters(): its row has no id)")
    # another name of it (ERC20: Ethereum; United Kingdom: UK), else a near spelling, in one
    # case, shown in the filter set's spelling; never one listed without an id (then refused)
    names = [n for n in names if any(t is not None for t in known[n.strip().casefold()])]
    groups = _OTHER_NAMES.get(key)
    suggestions = same_name(value, names, groups) if groups else []
    spelled = {n.strip().casefold(): n for n in names}
    if not suggestions:
        suggestions = [spelled[c] for c in closest(value.strip().casefold(), spelled)]
        # "Singapore, Atlantis": never a part alone; but a near name of the whole text, with
        # a comma ("Korea, Republic of") or none ("Bosnia/Herzegovina"), if one
        suggestions = [n for n in suggestions if near_the_whole(value, n)]
    place = key in PLACE_PARAMS
    # "Singapore, USA": the list pasted as one value, before any near name of the whole, which
    # would drop names that are all known ("Malta, USA" is no 'Malaysia')
    as_list = list_hint(value, lambda part: spelled.get(part.casefold()) if place else (
        pasted_id(part) if not _is_name(part) else spelled.get(part.casefold())))
    # yet a near name that holds a comma itself is what the value writes when it has as many
    # parts ("finance,banking": 'Finance, Banking'); one with fewer parts would drop the rest
    # ("Finance, Banking, Platform": the three names), one that holds none is hinted only
    # when no list reads ("New/Zealand")
    if as_list:
        parts = len(joined_parts(value))
        suggestions = [name for name in suggestions if len(joined_parts(name)) == parts]
    hint = f"; did you mean {' or '.join(map(repr, suggestions))}?" if suggestions else as_list
    raise InvalidParameter(f"unknown {key if place else key + ' name'} {quoted(value)}{hint} (see "
                           f"the {'location' if place else key} rows of icoframes.load_filters())")


def _values(value: Any) -> list[Any]:
    """A filter value as a list: scalars (str, int, numpy ints) become one-item lists."""
    if isinstance(value, str | numbers.Number):
        return [value]
    try:
        return list(value)
    except TypeError:
        return [value]


def _is_name(value: Any) -> bool:
    """Text that writes no number (icoframes.numerals) is a name: "7" is the id 7, "1.0",
    "٣" or "1_000" refused as ids (with "did you mean"), never looked up; "²" is a name."""
    return isinstance(value, str) and number_text(value) is None and python_number(value) is None


def _has_names(value: Any) -> bool:
    return any(_is_name(v) for v in _values(value))
