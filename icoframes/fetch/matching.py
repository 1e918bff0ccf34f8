"""Which cached rows a filter of spec 4.2 matches: decided or not.

Every filter of spec 4.2 reads a field of the profile (:data:`FIELDS`), so the
rows of a narrower query can be picked from cached rows without asking the
service (:mod:`icoframes.fetch.localquery`), but only where the stored fields
decide it under every reading spec 4.2 leaves open. So each filter gives each
row one of three values: in, out, or undecided. A row is in when every filter
says in, out when one says out, else undecided:

=====================  ====================================================================
filter                 decided from (a row is undecided when)
=====================  ====================================================================
platform, category,    the profile's name against the filter set's names of the asked ids
type                   (the profile names no value of the filter set, e.g. ``"ERC20"`` for
                       a platform; the name is shared by another id; it was unreadable)
location               the profile's country against the asked ones (a country the filter
                       set does not list; unreadable)
ico_score              score at least the value; no score is out (unreadable; the cached
                       list shows another score, or one where the profile has none)
yes-flags              ``true`` in the profile (a flag unreadable or read with a problem,
                       e.g. a qualified ``"Yes (until 11 Sep)"``)
accepted_currencies    the ticker among ``finance.accepting`` (another spelling of it:
                       ``"Fiat"``, ``"Ether"``; several tickers, and the row accepts some
                       but not all of them: any or all, spec 4.2 does not say)
exclude_areas          out when located or restricted there (else always: "restricted in
                       or tied to" goes beyond any stored field)
=====================  ====================================================================

A row without a profile (error 482) is undecided under every filter.

The order of the rows picked is :mod:`icoframes.fetch.ordering`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..api.params import PARAMS, YES_FLAGS
from ..parse.rules import is_missing_marker
from ..parse.units import canonical_unit
from ..schema import ICOS

__all__ = ["FIELDS", "FILTER_PARAMS", "IN", "OUT", "UNDECIDED", "Rows", "judge", "narrows",
           "residual", "sort_of", "within"]

OUT, UNDECIDED, IN = 0, 1, 2

#: The ``icos`` column(s) each filter of spec 4.2 reads (``status`` is the list's own).
FIELDS: Mapping[str, tuple[str, ...]] = {
    "platform": ("platform",), "category": ("category",), "type": ("type",),
    "location": ("location",), "ico_score": ("ico_score",),
    "airdrop_program": ("airdrop",), "bounty_program": ("bounty",), "investor_kyc": ("kyc",),
    "investor_wl": ("whitelist",), "ico_kyc_passed": ("kyc_passed",),
    "accepted_currencies": ("accepting",), "exclude_areas": ("location", "restricted_areas"),
}
#: The filters of spec 4.2 (the list parameters that narrow it, but the status).
FILTER_PARAMS = tuple(p.name for p in PARAMS if p.filter and p.name != "status")
if set(FIELDS) != set(FILTER_PARAMS):  # pragma: no cover
    raise ImportError("a filter of spec 4.2 without its stored field")
_NAMED = ("platform", "category", "type")


def within(name: str, narrow: Any, wide: Any) -> bool:
    """Whether every row the filter ``name`` matches with the value ``narrow`` it matches with
    ``wide`` too (wire values).

    Examples
    --------
    >>> within("ico_score", 4, 3), within("exclude_areas", ["USA"], ["UK", "USA"])
    (True, False)
    """
    if name == "ico_score":
        return bool(narrow >= wide)
    if name == "exclude_areas":
        return set(narrow) >= set(wide)
    if name == "accepted_currencies":  # any or all of them: spec 4.2 does not say
        return set(narrow) == set(wide)
    if name in YES_FLAGS:
        return True
    return set(narrow) <= set(wide)


def narrows(query: Mapping[str, Any], superset: Mapping[str, Any]) -> bool:
    """Whether every row ``query`` matches is a row of ``superset`` (wire parameters).

    Examples
    --------
    >>> narrows({"status": "past", "platform": [1], "bounty_program": "yes"},
    ...         {"status": "past", "platform": [1, 2]})
    True
    >>> narrows({"status": "past", "accepted_currencies": ["ETH"]},
    ...         {"status": "past", "accepted_currencies": ["BTC", "ETH"]})
    False
    """
    if query.get("status") != superset.get("status"):
        return False
    return all(superset.get(name) is None
               or (query.get(name) is not None and within(name, query[name], superset[name]))
               for name in FILTER_PARAMS)


def residual(query: Mapping[str, Any], listed: Mapping[str, Any]) -> dict[str, Any]:
    """The filters of ``query`` that the list of parameters ``listed`` does not imply: those a
    row of that list must still pass to be a row of ``query`` (any two lists of one status).

    Examples
    --------
    >>> residual({"status": "past", "ico_score": 4, "exclude_areas": ["UK", "USA"]},
    ...          {"status": "past", "exclude_areas": ["USA"]})
    {'ico_score': 4, 'exclude_areas': ['UK']}
    >>> residual({"status": "past", "ico_score": 2, "category": [3]},
    ...          {"status": "past", "ico_score": 3, "category": [2, 3]})
    {'category': [3]}
    """
    out: dict[str, Any] = {}
    for name in FILTER_PARAMS:
        narrow, wide = query.get(name), listed.get(name)
        if narrow is None or (wide is not None and within(name, wide, narrow)):
            continue
        if name == "exclude_areas" and wide is not None:
            narrow = [area for area in narrow if area not in set(wide)]
        out[name] = narrow
    return out


@dataclass(frozen=True)
class Rows:
    """What the filters read of some cached rows.

    ``icos`` holds one row per id of ``ids``, in that order, all missing where
    the id has no profile (``has_profile`` False); ``problems`` the values of
    those profiles that could not be read (columns ``ico_id``, ``table``,
    ``column``, as in :attr:`icoframes.tables.Tables.problems`); ``listed_score``
    the score the cached list shows for each (NaN: none; None: not known).
    ``kept`` holds what :func:`judge` read and found of these rows (columns, and the
    verdict per filter and value, for one filter set): a row's verdict reads that row
    alone, so a list checked against every list cached since it judges each filter once,
    not once per list (a load answered from the cache after many queries). ``named`` holds
    what :func:`judge` found of the filter set alone (each filter's names of its ids, for
    one filter set): rows judged apart (a load's pages) may share it, so that it is worked
    out once, not once per page.
    """

    ids: np.ndarray
    icos: pd.DataFrame
    has_profile: np.ndarray
    problems: pd.DataFrame
    listed_score: np.ndarray | None = None
    kept: dict[tuple[str, ...], Any] = field(default_factory=dict, compare=False, repr=False)
    named: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, ids: np.ndarray, icos: pd.DataFrame, problems: pd.DataFrame,
           listed_score: np.ndarray | None = None) -> Rows:
        """The rows of ``ids`` (in that order) from tidy ``icos`` and ``problems``."""
        return cls.indexed(ids, icos.set_index("id"), problems[problems["table"] == "icos"],
                           listed_score)

    @classmethod
    def indexed(cls, ids: np.ndarray, by_id: pd.DataFrame, problems: pd.DataFrame,
                listed_score: np.ndarray | None = None, *,
                named: dict[str, Any] | None = None) -> Rows:
        """:meth:`of` from ``icos`` indexed by id and the problems of ``icos`` alone, each
        made once where many rows are read (a load's pages); ``named`` shared by them."""
        return cls(ids, by_id.reindex(ids).reset_index(),
                   by_id.index.get_indexer(pd.Index(ids)) >= 0, problems,
                   None if listed_score is None else np.asarray(listed_score, dtype=float),
                   named={} if named is None else named)

    def take(self, positions: np.ndarray) -> Rows:
        """These rows at ``positions`` only."""
        return Rows(self.ids[positions], self.icos.iloc[positions].reset_index(drop=True),
                    self.has_profile[positions], self.problems,
                    None if self.listed_score is None else self.listed_score[positions],
                    named=self.named)

    def text(self, column: str) -> np.ndarray:
        """A text column as objects, None where missing (read once: do not change it)."""
        if ("text", column) not in self.kept:
            values = self.icos[column].astype(object)
            self.kept["text", column] = values.where(values.notna(), None).to_numpy()
        return self.kept["text", column]

    def unreadable(self, column: str) -> np.ndarray:
        """Rows whose ``column`` (or the whole section it is read from) could not be read
        (read once: do not change it)."""
        if ("unreadable", column) not in self.kept:
            bad = np.empty(0, dtype="int64")  # (none: no pandas lookup per column and page)
            if not self.problems.empty:
                source = ICOS.column(column).source
                names = [column, source[0]] if source else [column]
                found = self.problems.loc[self.problems["column"].isin(names), "ico_id"]
                bad = found.dropna().to_numpy(dtype="int64")
            self.kept["unreadable", column] = np.isin(self.ids, bad)
        return self.kept["unreadable", column]


def _codes(n: int, value: int) -> np.ndarray:
    return np.full(n, value, dtype=np.int8)


def _by_name(rows: Rows, column: str, wanted: set[str], known: Collection[str], *,
             shared: frozenset[str] | set[str] = frozenset(), unnamed: bool = False) -> np.ndarray:
    """In when the text is a wanted name, out when it is another known name or missing."""
    if ("distinct", column) not in rows.kept:  # one verdict per distinct text, not per row
        rows.kept["distinct", column] = pd.factorize(pd.Series(rows.text(column), dtype=object),
                                                     use_na_sentinel=True)
    inverse, distinct = rows.kept["distinct", column]
    verdicts = _codes(len(distinct) + 1, UNDECIDED)  # the last: None (-1)
    if not any(is_missing_marker(w) for w in wanted):  # '' or a marker; undecided only if a
        verdicts[-1] = OUT  # marker is a name asked for
    for i, value in enumerate(distinct):
        if value in wanted:
            verdicts[i] = UNDECIDED if value in shared else IN
        elif value in known and not unnamed:
            verdicts[i] = OUT
    codes = verdicts[inverse]
    codes[rows.unreadable(column)] = UNDECIDED
    return codes


def _names(rows: Rows, name: str, filter_set: pd.DataFrame
           ) -> tuple[dict[int, str], dict[str, set[int]]]:
    """The filter set's name of each id of the filter ``name`` (locations: by themselves),
    and the ids of each name; read once for these rows (and those sharing their ``named``)."""
    if (kept := rows.named.get(name)) is None or kept[0] is not filter_set:
        entries = filter_set[filter_set["filter"] == name]
        if name != "location":
            entries = entries[entries["id"].notna()]
            names = dict(zip(entries["id"].astype(int), entries["name"].astype(object),
                             strict=True))
        else:
            names = dict(enumerate(entries["name"].astype(object)))
        owners: dict[str, set[int]] = {}
        for ico_id, value in names.items():
            owners.setdefault(value, set()).add(ico_id)
        rows.named[name] = kept = (filter_set, names, owners)
    return kept[1], kept[2]


def _named(rows: Rows, name: str, ids: Sequence[int], filter_set: pd.DataFrame
           ) -> tuple[np.ndarray, str]:
    names, owners = _names(rows, name, filter_set)
    wanted = {names[i] for i in ids if i in names}
    shared = {v for v in wanted if owners[v] - set(ids)}
    codes = _by_name(rows, name, wanted, owners.keys(), shared=shared,
                     unnamed=any(i not in names for i in ids))
    return codes, f"{name}: the profile names a value the filter set does not map to an id"


def _location(rows: Rows, places: Sequence[str], filter_set: pd.DataFrame
              ) -> tuple[np.ndarray, str]:
    known = _names(rows, "location", filter_set)[1].keys()
    return (_by_name(rows, "location", set(places), known),
            "location: a country the filter set does not list, or unreadable")


def _score(rows: Rows, low: int) -> tuple[np.ndarray, str]:
    scores = rows.icos["ico_score"].to_numpy(dtype=float)
    codes = np.where(scores >= low, IN, OUT).astype(np.int8)  # no score: never "at least"
    codes[rows.unreadable("ico_score")] = UNDECIDED
    if rows.listed_score is not None:  # the service may filter by the score its list shows
        listed = rows.listed_score
        differs = ~((scores == listed) | (np.isnan(scores) & np.isnan(listed)))
        codes[differs] = UNDECIDED
    return codes, "ico_score: unreadable, or not the score the list shows"


def _flag(rows: Rows, column: str) -> tuple[np.ndarray, str]:
    values = (rows.icos[column].astype(object) == True).to_numpy(dtype=bool)  # noqa: E712
    codes = np.where(values, IN, OUT).astype(np.int8)
    # a value read with a problem (a qualified "Yes (until 11 Sep)") may be a yes or not
    codes[rows.unreadable(column)] = UNDECIDED
    return codes, f"{column}: unreadable, or read with a problem"


def _currencies(rows: Rows, tickers: Sequence[str]) -> tuple[np.ndarray, str]:
    bad = rows.unreadable("accepting")
    codes = _codes(len(rows.ids), UNDECIDED)
    for i, accepted in enumerate(rows.icos["accepting"].tolist()):
        if not isinstance(accepted, list):
            continue  # no profile
        per = []
        for ticker in tickers:
            if ticker in accepted:
                per.append(IN)
            elif bad[i] or any(a.upper() == ticker or canonical_unit(a) == ticker
                               for a in accepted):
                per.append(UNDECIDED)  # the service may or may not read it as the ticker
            else:
                per.append(OUT)
        if min(per) == max(per):  # any and all of them agree
            codes[i] = per[0]
    return codes, ("accepted_currencies: another spelling of a ticker, or some but not all "
                   "of several tickers (spec 4.2 does not say any or all)")


def _exclude(rows: Rows, areas: Sequence[str]) -> tuple[np.ndarray, str]:
    wanted = set(areas)
    located = np.array([v in wanted for v in rows.text("location")], dtype=bool)
    restricted = np.array([isinstance(r, list) and not wanted.isdisjoint(r)
                           for r in rows.icos["restricted_areas"].tolist()], dtype=bool)
    codes = np.where(located | restricted, OUT, UNDECIDED).astype(np.int8)
    return codes, ("exclude_areas: 'restricted in or tied to' goes beyond the stored "
                   "location and restricted areas")


def judge(filters: Mapping[str, Any], rows: Rows, filter_set: pd.DataFrame
          ) -> tuple[np.ndarray, dict[str, int]]:
    """In, out or undecided per row under every filter; undecided rows counted by reason."""
    codes = _codes(len(rows.ids), IN)
    reasons: dict[str, int] = {}
    for name, value in filters.items():
        verdict, why = _verdict(name, value, rows, filter_set)
        undecided = int(((verdict == UNDECIDED) & (codes != OUT)).sum())
        if undecided:
            reasons[why] = undecided
        codes = np.minimum(codes, verdict)  # a new array: the kept verdict is never changed
    missing = int((~rows.has_profile & (codes == UNDECIDED)).sum())
    if missing:
        reasons["no profile (error 482)"] = missing
    return codes, reasons


def _verdict(name: str, value: Any, rows: Rows, filter_set: pd.DataFrame
             ) -> tuple[np.ndarray, str]:
    """One filter's verdict per row (undecided without a profile), kept in ``rows.kept`` for
    this filter set."""
    key = ("verdict", name, repr(value))
    if (kept := rows.kept.get(key)) is not None and kept[0] is filter_set:
        return kept[1], kept[2]
    if name in _NAMED:
        verdict, why = _named(rows, name, value, filter_set)
    elif name == "location":
        verdict, why = _location(rows, value, filter_set)
    elif name == "ico_score":
        verdict, why = _score(rows, value)
    elif name in YES_FLAGS:
        verdict, why = _flag(rows, FIELDS[name][0])
    elif name == "accepted_currencies":
        verdict, why = _currencies(rows, value)
    else:
        verdict, why = _exclude(rows, value)
    verdict = np.where(rows.has_profile, verdict, UNDECIDED).astype(np.int8)
    rows.kept[key] = (filter_set, verdict, why)
    return verdict, why


def sort_of(params: Mapping[str, Any]) -> tuple[str, bool] | None:
    """``(key, descending)`` of a query's sort; None when it asks for none."""
    for name in ("sort_asc", "sort_desc"):
        if params.get(name):
            return params[name], name == "sort_desc"
    return None
