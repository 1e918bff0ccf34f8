"""Parameters of the list operation (spec 4.2), declared once and checked locally.

:data:`PARAMS` is the one declaration: :func:`validate_list_params` checks
against it (rejecting a bad parameter before a request is spent), the sandbox
applies it on the server side, and the command line's filter options are made
from it. :data:`STATUSES` is the one list of statuses.

Statuses are accepted in any case (``"Past"`` is sent as ``"past"``); a
misspelled parameter or value gets a "did you mean". Currencies are checked by
shape (a ticker, sent upper-cased; :mod:`icoframes.queries` turns currency
names into tickers first); yes-flags take True only. Whether a country name
exists needs the filter set, and is checked by :mod:`icoframes.queries`.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypedDict, cast, get_args

import numpy as np

from ..errors import InvalidParameter, closest
from ..joinedlists import list_hint
from ..numerals import (
    INT64_MAX,
    as_integer,
    did_you_mean_flag,
    did_you_mean_number,
    meant_flag,
)
from ..quoting import quoted

__all__ = [
    "EVERY_STATUS",
    "FILTER_KEYS",
    "ID_LIST_PARAMS",
    "LIST_PARAMS",
    "LOADER_FILTERS",
    "MAX_ID",
    "NOTHING_WORDS",
    "OTHER_MEANINGS",
    "PAGE_SIZE",
    "PARAMS",
    "SORT_KEYS",
    "STATUSES",
    "STATUS_WORDS",
    "STRING_LIST_PARAMS",
    "TICKER",
    "YES_FLAGS",
    "IdFilter",
    "ListFilters",
    "Param",
    "SortKey",
    "Status",
    "YesFlag",
    "closest",
    "pasted_id",
    "read_ico_id",
    "read_status",
    "refuse_misreading",
    "status_hint",
    "status_option_hint",
    "validate_list_params",
]

Kind = Literal["sort", "int", "ids", "strings", "status", "yes-flag"]

#: A status of the list operation, the type of ``status`` (``load_list``, ``load_icos``,
#: ``load_tables``, ``export_tables``): a type checker refuses ``"pats"``, and a plain
#: ``str`` too. The runtime takes any case (``"Past"``, sent as ``"past"``) and refuses a
#: misspelling with a "did you mean". A status held in a ``str`` variable (argparse, a
#: config file, an environment variable) is annotated ``Status`` or passed as
#: ``typing.cast(icoframes.Status, value)``: the runtime still checks it.
Status = Literal["ongoing", "upcoming", "past"]
STATUSES: tuple[Status, ...] = get_args(Status)
#: Words a user may type for a status, for the refusal's "did you mean" only: never taken (a
#: status has one spelling, the service's, so that a query, its cache and exports have one).
STATUS_WORDS: dict[str, str] = (
    dict.fromkeys(("finished", "ended", "closed", "completed", "over", "done"), "past")
    | dict.fromkeys(("active", "live", "current", "open", "running", "started"), "ongoing")
    | dict.fromkeys(("future", "planned", "soon", "coming", "scheduled", "next"), "upcoming"))
#: Words for every status, or a list of statuses: a load asks for one, or for all three when
#: ``status`` is left out.
EVERY_STATUS = ("all", "any", "every", "both", "*")
_ALL_STATUSES = "leave {} all three, each row tagged with its status"
#: What separates the statuses of a list pasted as one text ("past,ongoing", "past ongoing").
_LISTED = re.compile(r"[\s,;/|+&]+")

#: ICOs per list page (spec 4.2 and 8): the most the service returns per page.
PAGE_SIZE = 20
#: A sort key of ``sort_asc`` and ``sort_desc``: the only four strings the runtime takes.
SortKey = Literal["name", "id", "start_datetime", "end_datetime"]
SORT_KEYS: tuple[SortKey, ...] = get_args(SortKey)
#: The largest id, of an ICO or a platform, category or type: ids are int64 columns (a
#: larger one was sent, or its JSON failed: 10**5000 has more digits than str() writes).
MAX_ID = INT64_MAX

#: Texts that spell nothing (str(None), str(NaN) or str(NaT) of a pandas-read config, JSON's
#: null, Ruby's nil, undefined): as tickers (NONE, NAN, ...) a list filtered to no ICO, never
#: what a list hint suggests.
NOTHING_WORDS: Final = frozenset({"none", "null", "nan", "nat", "nil", "undefined"})
#: What a currency ticker looks like ("ETH", "usdt", "Fiat"): 2 to 10 letters or digits.
TICKER = re.compile(r"[A-Za-z0-9]{2,10}")


@dataclass(frozen=True)
class Param:
    """One list parameter of spec 4.2.

    ``kind`` says how a value is read: ``sort`` and ``status`` are one of
    ``allowed``; ``int`` is an integer from ``low`` to ``high``; ``ids`` and
    ``strings`` are lists (a scalar is wrapped); ``yes-flag`` takes True only
    and is sent as ``"yes"`` (the service cannot select the ICOs without).
    ``filter`` is False for parameters that do not narrow the result (sorting,
    paging); ``value`` names what one value is.
    ``tickers`` marks strings that must look like a :data:`TICKER`; they are
    sent upper-cased, so ``"eth"`` and ``"ETH"`` are one query.
    """

    name: str
    kind: Kind
    doc: str
    allowed: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    value: str = ""
    filter: bool = True
    tickers: bool = False


PARAMS: tuple[Param, ...] = (
    Param("sort_asc", "sort", "sort ascending by this value", SORT_KEYS, filter=False),
    Param("sort_desc", "sort", "sort descending by this value", SORT_KEYS, filter=False),
    Param("page", "int", "page to return (20 ICOs a page)", low=1, high=INT64_MAX, value="N",
          filter=False),
    Param("platform", "ids", "only ICOs on these platforms, by id or name",
          value="ID_OR_NAME"),
    Param("category", "ids", "only ICOs in these categories, by id or name",
          value="ID_OR_NAME"),
    Param("type", "ids", "only ICOs of these types, by id or name", value="ID_OR_NAME"),
    Param("location", "strings", "only ICOs located in these countries", value="COUNTRY"),
    Param("status", "status", "only ICOs with this status, in any case", STATUSES),
    Param("ico_score", "int", "only ICOs whose score is at least N", low=1, high=10,
          value="N"),
    Param("airdrop_program", "yes-flag", "only ICOs with an airdrop program"),
    Param("bounty_program", "yes-flag", "only ICOs with a bounty program"),
    Param("investor_kyc", "yes-flag", "only ICOs that conduct KYC"),
    Param("investor_wl", "yes-flag", "only ICOs that conduct whitelisting"),
    Param("ico_kyc_passed", "yes-flag", "only ICOs whose team passed KYC"),
    Param("accepted_currencies", "strings", "only ICOs accepting any of these currencies",
          value="TICKER", tickers=True),
    Param("exclude_areas", "strings",
          "exclude ICOs restricted in or tied to these countries", value="COUNTRY"),
)
"""Every list parameter of spec 4.2, in the spec's order."""

_BY_NAME = {p.name: p for p in PARAMS}
LIST_PARAMS = tuple(_BY_NAME)
#: What a loader takes as ``**filters``: every list parameter but ``page`` (a loader fetches
#: every page) and ``status`` (the loader's own argument).
LOADER_FILTERS = tuple(name for name in LIST_PARAMS if name not in ("page", "status"))


#: One id filter's value: an id (a numpy integer too, as out of a frame) or a name, or a list.
IdFilter: TypeAlias = int | np.integer[Any] | str | Iterable[int | np.integer[Any] | str]
#: A yes-flag's value: True (a bool, or numpy's, held in a variable too) or "yes".
YesFlag: TypeAlias = bool | np.bool_ | Literal["yes"]


class ListFilters(TypedDict, total=False):
    """The types of a loader's ``**filters`` (``icoframes.api.params.LOADER_FILTERS``, from
    ``PARAMS`` there), for type checkers: a misspelled filter (``load_icos(stauts="past")``)
    is a type error.

    Each value may be None (left out, as at runtime); ``tests/test_typed_filters.py`` checks
    that the keys are ``LOADER_FILTERS``, so that adding a parameter to ``PARAMS`` without a
    key here fails a test, and that each value's type takes every form of value a loader
    reads and no other kind of value. Values are checked at runtime as ``PARAMS`` says;
    the types take the kinds of value the runtime takes: numpy integers (ids out of a
    frame), any ``bool`` for a yes-flag (a flag held in a variable; ``False`` is refused when
    called, with why), and a sort key as a :data:`SortKey` (the runtime takes those four
    strings only: annotate a variable ``key: SortKey``). A value of a right kind may still be
    refused when called: an id or score out of range, and ``True`` where an integer is typed
    (``ico_score=True``, ``platform=True``), as a type checker takes a ``bool`` for an ``int``.
    """

    sort_asc: SortKey | None
    sort_desc: SortKey | None
    platform: IdFilter | None
    category: IdFilter | None
    type: IdFilter | None
    location: str | Iterable[str] | None
    ico_score: int | np.integer[Any] | None
    airdrop_program: YesFlag | None
    bounty_program: YesFlag | None
    investor_kyc: YesFlag | None
    investor_wl: YesFlag | None
    ico_kyc_passed: YesFlag | None
    accepted_currencies: str | Iterable[str] | None
    exclude_areas: str | Iterable[str] | None

ID_LIST_PARAMS = tuple(p.name for p in PARAMS if p.kind == "ids")
#: The keys of the filter set (spec 2.1): the id-list parameters, and location (no id).
FILTER_KEYS: Final = (*ID_LIST_PARAMS, "location")
STRING_LIST_PARAMS = tuple(p.name for p in PARAMS if p.kind == "strings")
YES_FLAGS = tuple(p.name for p in PARAMS if p.kind == "yes-flag")


def validate_list_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Check list parameters against spec 4.2 and return them in wire form.

    ``None`` values are dropped; list-typed filters given as a scalar are
    wrapped in a list; yes-flags accept ``True``/``"yes"`` only (``False`` is
    refused: the API can only ask for "yes", so the ICOs without are a filter
    of the frame); a status is accepted in any case.

    Raises
    ------
    InvalidParameter
        Naming the parameter and what is allowed, with a suggestion for a
        misspelled name or value.

    Examples
    --------
    >>> validate_list_params({"status": "Past", "platform": 3, "bounty_program": True})
    {'status': 'past', 'platform': [3], 'bounty_program': 'yes'}
    >>> validate_list_params({"accepted_currencies": ["eth", " Fiat"]})
    {'accepted_currencies': ['ETH', 'FIAT']}
    >>> try:
    ...     validate_list_params({"staus": "past"})
    ... except InvalidParameter as exc:
    ...     print(exc)
    staus is not a list parameter of spec 4.2; did you mean 'status'?
    """
    out: dict[str, Any] = {}
    for name, value in params.items():
        if value is None:
            continue
        param = _BY_NAME.get(name)
        if param is None:
            raise InvalidParameter(  # never the value: it may be a secret given under a wrong name
                f"{name} is not a list parameter of spec 4.2"
                + _suggest(name, LIST_PARAMS, or_else="icoframes.api.params.PARAMS"))
        wire = _READERS[param.kind](param, value)
        if wire is not None:
            out[name] = wire
    if "sort_asc" in out and "sort_desc" in out:
        raise InvalidParameter(
            "give sort_asc or sort_desc, not both "
            f"(got sort_asc={out['sort_asc']!r}, sort_desc={out['sort_desc']!r})"
        )
    return out


def read_status(value: Any, *, one: str = "") -> Status:
    """A status as the loaders take it (any case, stripped), else InvalidParameter naming the
    argument, with the status meant (the sandbox's ``add_ico`` and ``update_ico`` read theirs
    so, ``one`` saying what a status is there: :func:`status_hint`).

    Examples
    --------
    >>> read_status(" Past")
    'past'
    """
    return cast(Status, _one_of(_BY_NAME["status"], value, kind="argument", one=one))


def _one_of(param: Param, value: Any, kind: str = "list parameter", one: str = "") -> str:
    if isinstance(value, str):
        if value in param.allowed:
            return value
        if param.kind == "status" and value.strip().casefold() in param.allowed:
            return value.strip().casefold()
    guess = _suggest(value.strip().casefold(), param.allowed) if isinstance(value, str) else ""
    if param.kind == "status":
        guess = status_hint(value, one=one) or guess
    raise _invalid(param.name, value, f"must be one of {', '.join(param.allowed)}" + guess, kind)


def status_hint(value: Any, *, leave: str = "status out (None) to load", one: str = "") -> str:
    """What a status word (:data:`STATUS_WORDS`), a word for every status or a list of
    statuses (a list pasted as one text too: ``"past,ongoing"``, ``"past and ongoing"``)
    means, said: the value itself is refused all the same. ``leave``: how to ask for every
    status, and the verb (``status_hint("ALL")``: "; leave status out (None) to load all
    three, ..."); ``one``: said instead, where a status is of one ICO (the sandbox's)."""
    every = one or _ALL_STATUSES.format(leave)
    several = f"one status per call: {every}" + ("" if one else ", then keep the rows wanted")
    if isinstance(value, str):
        word = value.strip().casefold()
        named = dict.fromkeys(STATUS_WORDS.get(p, p) for p in _LISTED.split(word)
                              if p and p not in ("and", "or"))  # "past and ongoing"
        if len(named) > 1 and set(named) <= set(STATUSES):  # past,ongoing: not one of them
            return f"; {', '.join(map(repr, named))} as one text: {several}"
        if word in STATUS_WORDS:
            return f"; did you mean {STATUS_WORDS[word]!r}?"
        return f"; {every}" if word in EVERY_STATUS else ""
    if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
        return f"; {several}"
    return ""


def status_option_hint(value: Any) -> str:
    """:func:`status_hint` of ``icoframes export --status``: "leave --status out to export"."""
    return status_hint(value, leave="--status out to export")


def _int(param: Param, value: Any) -> int:
    return _int_in(param.name, value, param.low or 1, param.high or INT64_MAX)  # int64: a page too


def _ids(param: Param, value: Any) -> list[int]:
    items = _as_list(param.name, value)
    for item in items:  # "1, 2": a list pasted as one value
        if hint := list_hint(item, pasted_id, spaces=True):
            raise _invalid(param.name, value, f"must be ids (positive integers){hint}")
    return [_int_in(param.name, v, 1, MAX_ID, what="ids (positive integers)") for v in items]


def pasted_id(part: str) -> int | None:
    """The id a part of a pasted list (``"1, 2"``) writes, if it writes one (1 to
    :data:`MAX_ID`, as an id given alone must be: a list hint suggests no refused id)."""
    number = as_integer(part)
    return number if number is not None and 1 <= number <= MAX_ID else None


def _strings(param: Param, value: Any) -> list[str]:
    items = _as_list(param.name, value)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise _invalid(param.name, value, "must be a non-empty string or a list of them")
    if not param.tickers:
        return list(items)
    for item in items:
        if not TICKER.fullmatch(item.strip()):  # "ETH,BTC": a list pasted as one value
            hint = list_hint(item, lambda part: part.upper() if TICKER.fullmatch(part)
                             and part.casefold() not in NOTHING_WORDS else None)
            raise _invalid(param.name, value, "takes currency tickers (2 to 10 letters or "
                           f"digits, like 'ETH' or 'USDT'); {quoted(item)} is not one{hint}")
    return [item.strip().upper() for item in items]


def _yes(param: Param, value: Any) -> str:
    # a str compared only: pd.NA == "yes" is NA, whose truth is a TypeError
    if value is True or (isinstance(value, np.bool_) and value) or (
            isinstance(value, str) and value == "yes"):
        return "yes"
    meant = meant_flag(value)  # "false", "no", 0: False; "true", "YES", 1: True
    if value is False or (isinstance(value, np.bool_) and not value) or meant is False:
        raise _invalid(param.name, value, "takes True only: the service selects the ICOs "
                       f"{param.doc.removeprefix('only ICOs ')}, never those without; to get "
                       f"those, load without {param.name} and filter the frame instead")
    raise _invalid(param.name, value, f"takes True (or 'yes') only{did_you_mean_flag(value)}")


_READERS: dict[str, Callable[[Param, Any], Any]] = {
    "sort": _one_of, "status": _one_of, "int": _int, "ids": _ids, "strings": _strings,
    "yes-flag": _yes}
assert set(_READERS) == set(Kind.__args__)  # type: ignore[attr-defined]  # a reader per kind


def _as_list(name: str, value: Any) -> list[Any]:
    if isinstance(value, str | numbers.Number) and not isinstance(value, bool):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, Mapping | bytes | bytearray):
        items = list(value)
        if not items:
            raise _invalid(name, value, "must not be an empty list")
        return items
    raise _invalid(name, value, "must be a value or a list of values")


def read_ico_id(value: Any) -> int:
    """An ICO id (:meth:`~icoframes.api.client.Client.profile`'s) by the rule of a list's ids.

    Examples
    --------
    >>> read_ico_id(7), read_ico_id(" 7")
    (7, 7)
    >>> try:
    ...     read_ico_id("٣")
    ... except InvalidParameter as exc:
    ...     print(str(exc).split(": ")[0], "...", str(exc).split("; ")[-1])
    invalid argument ico_id='٣' ... did you mean 3?
    """
    return _int_in("ico_id", value, 1, MAX_ID, what="a positive integer", kind="argument")


def _int_in(name: str, value: Any, low: int, high: int, *, what: str | None = None,
            kind: str = "list parameter") -> int:
    # numpy integers count: ids often come straight out of a DataFrame; text is an integer
    # in ASCII digits only (icoframes.numerals): "٣" and 1.0 get a "did you mean 3?"
    number = as_integer(value)  # np.timedelta64(5, "ns") is no id 5
    if number is not None and low <= number <= high:
        return number
    if number is not None and what and number > high:  # an id past int64: none
        raise _invalid(name, value, f"must be {what} up to {high}", kind)
    allowed = what or f"an integer from {low} to {high}"
    hint = did_you_mean_number(value, low=low, high=high)  # an int out of range: none
    raise _invalid(name, value, f"must be {allowed}{hint}", kind)


#: Names a user may type for a list parameter, or a sort key, that no spelling is close to.
NAME_WORDS = {"kyc": ("investor_kyc", "ico_kyc_passed"), "whitelist": ("investor_wl",),
              "accepting": ("accepted_currencies",), "currency": ("accepted_currencies",),
              "currencies": ("accepted_currencies",), "country": ("location",),
              "countries": ("location",), "restricted_areas": ("exclude_areas",),
              "restricted": ("exclude_areas",), "start": ("start_datetime",),
              "end": ("end_datetime",)}

#: Keywords of the command line (or of habit) whose closest spelling means something else:
#: what they would mean, said instead of a "did you mean" of that other keyword.
OTHER_MEANINGS = {
    "allow_incomplete": "an incomplete load or export is returned, never raised (the CLI's "
                        "--allow-incomplete only makes `icoframes export` exit 0 for one): "
                        "check ExportResult.complete, or a frame's "
                        "attrs['icoframes']['complete']; allow_empty is another matter (an "
                        "export that matches no ICO writes empty tables)"}


def refuse_misreading(name: str, value: Any) -> None:
    """InvalidParameter for a keyword ``name`` of :data:`OTHER_MEANINGS` (what it would mean,
    no "did you mean"), or a mapping given as a list parameter's values: read as a list it
    gives its keys (``category={"Finance": 1}`` was the category Finance), maybe not meant."""
    if name in OTHER_MEANINGS:
        raise InvalidParameter(f"{name} is not a keyword of icoframes' loads and exports: "
                               f"{OTHER_MEANINGS[name]}")
    if name in _BY_NAME and isinstance(value, Mapping):
        if _BY_NAME[name].kind == "sort":  # one key: neither the keys nor the values would do
            raise _invalid(name, value, f"must be one of {', '.join(_BY_NAME[name].allowed)}, "
                           "not a mapping")
        raise _invalid(name, value, "must be a value or a list of values, not a mapping: give "
                       "list(d) for its keys or list(d.values()) for its values")


def _suggest(word: str, choices: Iterable[str], *, or_else: str = "") -> str:
    choices = list(choices)
    close = ([w for w in NAME_WORDS.get(word.strip().casefold(), ()) if w in choices]
             or closest(word, choices))
    if close:
        return f"; did you mean {' or '.join(map(repr, close))}?"
    return f" (see {or_else})" if or_else else ""


def _invalid(name: str, value: Any, rule: str, kind: str = "list parameter") -> InvalidParameter:
    # the name is said once, with the value: "invalid argument ico_id=0: must be ..."
    return InvalidParameter(f"invalid {kind} {name}={quoted(value)}: {rule}")
