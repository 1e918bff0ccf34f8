"""Raw ICO profiles (spec 2.3) -> typed, related DataFrames, by walking the schema's sources.

Every column says where its values live in a profile (``Column.source`` in
:mod:`icoframes.schema`): the ``icos`` columns are read at their paths by
:func:`icoframes.parse.sources.gather`, the child tables from the maps and
lists their sources name. Two phases: gathering reads every value once into
plain Python sequences, one per column (maps flattened in one pass, ids and
positions of child rows are NumPy arrays built by ``repeat``); converting
turns each column into its typed array with the vectorised, lenient converter
of its kind (:mod:`icoframes.parse.columns`). So adding a sourced column to
``schema.ICOS`` is all it takes for tidy to fill it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache, partial
from itertools import chain, compress
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa

from ..errors import InvalidParameter, checked_keywords, quoted
from ..schema import (
    EACH,
    KEY,
    LONG_LISTS,
    TABLES,
    Source,
    TableSchema,
    empty_frame,
)
from ..tables import Tables, table_names
from ..textdtype import text_from_arrow
from ..vocabulary import SPLIT_LISTS, SPLIT_URLS
from . import columns as converters
from . import rules
from .amounts import read_icos_amounts
from .columns import split_column, to_datetime
from .dayorder import order_ids
from .items import holds_lone_surrogate, says_none, with_latin_tickers
from .people import People, people_key
from .problems import Problems
from .shares import bonus_rows, refused_shares
from .sources import convert, field_paths, flatten, gather, select

__all__ = ["tidy"]

# social.owner values, in the order social rows of one ICO are listed.
_OWNERS: Final = ("ico", "team", "advisor")
# The id of a profile, and of its child rows (``ico_id``).
_ID: Final[Source] = ("id",)
# Dates of a profile read by its order of day and month (parse/dayorder.py).
_DATES: Final = ("start_datetime", "end_datetime")
# Columns of tickers: look-alike letters and zero-width characters are made plain.
_TICKERS: Final = ("ticker", "accepting")


@checked_keywords
def tidy(profiles: Iterable[Mapping[str, Any]], *, statuses: Mapping[Any, str] | None = None,
         tables: Iterable[str] | None = None) -> Tables:
    """Turn raw ICO profiles into typed, related tables.

    Pure: no I/O. Any shape of profile is accepted without error; whatever
    cannot be read is left missing and reported in ``Tables.problems``, one
    row per value with the id of its ICO.

    Parameters
    ----------
    profiles : iterable of dict
        Profiles exactly as the profile endpoint's ``data`` decodes from JSON
        (spec 2.3), in any order. When an id occurs more than once the last
        occurrence is kept, and each earlier copy that differs from it is a
        problem of ``icos.id`` (reason ``duplicate_id``, its ``value`` the
        dropped copy as JSON); copies equal to the kept one lose nothing and are
        not reported. A profile whose ``id`` is not an integer (or numeric
        string) is skipped and reported as a problem of ``icos.id`` (without
        an ``ico_id``: it has none that can be read).
    statuses : mapping, optional
        ICO id (int or numeric string) -> status (``ongoing``, ``upcoming``,
        ``past``), e.g. the list status each profile was loaded under. ICOs not
        in it get a missing status.
    tables : str or iterable of str, optional
        Only these tables, and those they are built from (``icos`` for its list
        tables, ``team`` and ``advisors`` for ``social``); the others are empty and
        ``problems`` holds the problems of those built. Default (or ``"problems"``
        among them): every table. The cache builds only the tables a loader reads.

    Raises
    ------
    InvalidParameter
        If ``profiles`` is one profile (a dict or other mapping: did you mean
        ``tidy([profile])``?), text (str or bytes) or a DataFrame (did you mean
        ``tidy(frame.to_dict("records"))``?), not an iterable of profiles:
        iterating them would read their keys, characters or column names as profiles;
        if it is no iterable at all (``None``); or if ``tables`` names a table the
        bundle does not have.

    Returns
    -------
    Tables
        ``icos`` (one row per ICO), ``team``, ``advisors``, ``social``,
        ``distribution``, ``bonuses``, ``roadmap``, and ``markets``,
        ``restricted_areas`` and ``accepting`` (the list columns of ``icos``,
        one value per row), each with exactly the
        columns and dtypes of :mod:`icoframes.schema`, plus ``problems``.

    Notes
    -----
    How values are read:

    Every value is read through the words of :mod:`icoframes.vocabulary`, after
    Unicode NFKC and without zero-width characters (text kept as data, such as
    names, is not normalised).

    * **Numbers** (float64): JSON numbers or numeric strings, also ``'$2,000,000'``,
      ``'1,500,000'``, ``'15M'``, ``'250K'``, ``'1.2B'``, ``'5 mln.'``, ``'2000000 USD'``,
      ``'1.5e8'``, decimal commas where they cannot group thousands (``'0,003'``,
      ``'1,5'``), dot groups (``'1.500.000'``, ``'1.500,50'``); percentages
      ``'60%'``/``'60 %'`` only in ``distribution.percent`` (0-100). Ranges, stages,
      several amounts, ambiguous groups, a ``%`` elsewhere, negative amounts and
      shares outside 0-100 are missing *and* problems, never one number; so is a
      distribution written as fractions of 1 (``0.6``, ``0.25``, ``0.15``: reason
      ``fraction``, never multiplied by 100).
    * **Amounts and units** (:mod:`icoframes.parse.units`): ``*_unit`` columns hold
      canonical codes (``'US Dollar'`` -> ``'USD'``, ``'Etherum'`` -> ``'ETH'``,
      unknown units upper-cased); a unit written in a value (a currency, or a
      ticker: ``'500 BFC'``) must agree with its unit column (``caps_unit`` for
      the caps, ``purchase_unit`` for the purchase limits, ``token_price_unit``) or
      fills it when empty; a value that contradicts it is missing and a problem.
      ``raised`` is read so under the unit ``USD`` (``'5000 ETH'`` is a
      ``unit_conflict``), and one rule of scale words holds in every amount
      (``'1.2B'`` is 1.2 billion in ``raised`` and under a ``caps_unit`` ``USD``).
      ``token_price`` written as an exchange (``'1 KBX = 0.00011 ETH'``,
      ``'$1 = 6820 KIN'``, ``'1 ETH = 3,000 XYZ'``) is read with the ICO's ticker
      naming the token side (:mod:`icoframes.parse.prices`).
    * **Missing**: ``None``, ``''`` and the markers ``NA``, ``N/A``, ``—``, ``-``,
      ``NOT SET``, ``Pending``, ``TBA``, ``TBD`` (any case) are missing and are
      not problems. Anything else unreadable (``'1 ETH = 3640-3367 IML'``) is missing
      *and* counted in ``problems``.
    * **Booleans**: the API sends ``''`` both for "does not hold" and for
      "unknown", so a flag is True only where the value says so (``true``, ``1``,
      ``'Yes'``, ``'Available'``, ``'✓'``...) and False otherwise; False does not
      distinguish "no" from "unknown". A qualified flag (``'YES (UNTIL 11 SEP)'``)
      reads as its word and is also a problem, which keeps its text.
    * **Dates** ``DD.MM.YYYY HH:MM:SS`` -> naive datetime64[ms], also ISO 8601 and the day
      forms roadmap keys read (``'1 March 2018'``, ``'2018/03/01'``); a value that writes
      its offset (``Z``, ``UTC``, ``+08:00``) is converted to UTC, a zone name without one
      (``PST``) is a problem, never a guessed shift. Impossible dates
      (``31.02.2018 00:00:00``, ``00.00.0000 00:00:00``), dates outside the years
      1990-2100, dates without a year and US-order dates are NaT and problems. One ICO's
      dates share one order: where its start, end or a roadmap key is month-first
      (``'01.15.2018'``), its dates whose day and month could swap (``'03.04.2018'``) are
      NaT and problems (``ambiguous_order``), as is a slashed start or end date that could
      swap (``'03/04/2018'``) unless the ICO writes a slashed date day first.
    * **Text** is stripped; ``''`` and the markers become missing; a lone surrogate
      becomes U+FFFD and a problem. Map keys (``social.network``,
      ``distribution.part``, ``bonuses.name``, ``roadmap.label``) are kept exactly
      as sent because they identify rows. Tickers (``ticker``, ``accepting``) are
      read with Latin letters for look-alikes (``'ЕТН'`` -> ``'ETH'``), around a lone
      surrogate too.
    * **Lists** (``markets``, ``restricted_areas``, ``accepting``) are always a
      list of str: ``''`` gives ``[]``, a list whose only item says "none"
      (``'No'``, ``'Not'``) too; a lone string a one-item list, except in
      ``restricted_areas`` and ``accepting``, where it is split at commas and
      semicolons, as is each item of an ``accepting`` list (``['BTC, ETH']``: no ticker
      holds a comma). A bonus saying none (``'NO'``, blank, ``'0%'`` with no tier above) is no row.
    * **Roadmap** dates come from the keys: ``DD-MM-YYYY``, quarters (``'Q3 2018'``,
      ``'3Q 2018'``), halves (``'H2 2019'``, ``'2H 2019'``), months (``'March 2019'``,
      ``'03.2019'``) and years, as the first day of the period, with its ``precision``; a
      key naming no date is kept as a label, NaT, and a problem (``roadmap``/``date``).
    * **People** keep their 0-based ``position`` in the profile's list, so a
      skipped non-dict entry leaves a gap. Social links with an empty url are
      not rows.
    * **Row order** follows the input: ``icos`` in the order of each id's last
      occurrence; child rows grouped by ICO in that order, then as listed in
      the profile (``social``: the ICO's own links, then the team's, then the
      advisors').
    * Wrong shapes (a section that is a string or a non-empty list, a person
      that is not a dict, a map that is not a dict) are counted in ``problems``
      under the source field (e.g. ``icos``/``main``, ``team``/``team``,
      ``social``/``team.social``); ``''``, ``[]`` and ``None`` are just empty.

    The garbage collector is paused during the call (tidy creates no
    reference cycles; walking the input's millions of objects would cost a
    third of the run time) and restored afterwards.

    Examples
    --------
    >>> t = tidy([{"id": "7", "main": {"name": " Foo ", "kyc": True, "ico_score": "3.5"},
    ...            "finance": {"raised": "$1,000", "accepting": "ETH"},
    ...            "team": [{"name": "Ann", "social": {"twitter": "https://t/ann"}}]}],
    ...           statuses={7: "past"})
    >>> t.icos.loc[0, ["id", "status", "name", "kyc", "ico_score", "raised"]].astype(str).tolist()
    ['7', 'past', 'Foo', 'True', '3.5', '1000.0']
    >>> t.icos.loc[0, "accepting"], t.social[["owner", "position", "network"]].values.tolist()
    (['ETH'], [['team', 0, 'twitter']])
    """
    _check_profiles(profiles)
    return _tidy(profiles, statuses, None if tables is None else table_names(
        tables, who="tidy(tables=)"))


def _check_profiles(profiles: object) -> None:
    """Refuse one profile, or text, given where an iterable of profiles is expected."""
    if isinstance(profiles, Mapping):
        raise InvalidParameter(
            "tidy() takes an iterable of profiles, got one profile (a "
            f"{type(profiles).__name__}); did you mean tidy([profile])?")
    if isinstance(profiles, pd.DataFrame):  # iterating it gives its column names
        raise InvalidParameter(
            "tidy() takes an iterable of profiles (decoded JSON), got a DataFrame; did you "
            "mean tidy(frame.to_dict('records')), one profile per row?")
    if isinstance(profiles, str | bytes | bytearray):
        raise InvalidParameter(
            "tidy() takes an iterable of profiles (decoded JSON), got "
            f"{type(profiles).__name__}; did you mean tidy(json.loads(text))?")
    if not isinstance(profiles, Iterable):  # None, 5: Python's bare "not iterable"
        raise InvalidParameter("tidy() takes an iterable of profiles (decoded JSON), got "
                               f"{quoted(profiles)}")


@contextmanager
def _gc_paused() -> Iterator[None]:
    # the cyclic collector would walk the input's millions of objects again and again
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_gc_paused()
def _tidy(profiles: Iterable[Mapping[str, Any]], statuses: Mapping[Any, str] | None,
          wanted: frozenset[str] | None) -> Tables:
    log = Problems()
    items = profiles if isinstance(profiles, list | tuple) else list(profiles)
    kept, ids = select(items, log, "icos")  # (reports each dropped copy that differs)
    built = {name for name, needs in _NEEDS.items()  # (in tidy's order: so are its problems)
             if kept and (wanted is None or "problems" in wanted or not wanted.isdisjoint(needs))}
    icos = TABLES["icos"]
    maps = {name: _MapSource.of(TABLES[name]) for name in _READERS if name in built}
    fields = {name: path for name, path in field_paths(icos).items() if path != _ID}
    paths = [*(fields.values() if "icos" in built else ()), *(m.path for m in maps.values()),
             *((people_key(TABLES[n]),) for n in ("team", "advisors") if n in built)]
    values = gather(kept, paths, log, icos.name, ids) if built else {}
    # one order of day and month per profile: its start, end and roadmap read together
    order = order_ids(kept, ids) if built & {"icos", "roadmap"} else None
    team, advisors = (People.gather(TABLES[n], values, ids, log) if n in built else None
                      for n in ("team", "advisors"))
    frames = ({"icos": _icos(icos, fields, values, ids, statuses, log, order)}
              if "icos" in built else {})
    frames.update((p.table.name, p.frame(log)) for p in (team, advisors) if p is not None)
    for name, source in maps.items():  # (social: the people's links too)
        people = (team, advisors) if name == "social" else ()
        reader = partial(_roadmap, order=order) if name == "roadmap" else _READERS[name]
        frames[name] = reader(source, values, ids, *people, log)
    if "icos" in built:
        frames.update((name, _long(TABLES[name], frames["icos"])) for name in LONG_LISTS)
    return Tables(**{name: frames[name] if name in frames else _empty(name).copy()
                     for name in TABLES}, problems=log.frame())


def _long(table: TableSchema, icos: pd.DataFrame) -> pd.DataFrame:
    """The icos list column of the same name, one value per row: exactly its values, in order.

    Built from the converted column (not from the raw values again) so that the
    long table and the list column cannot disagree.
    """
    lists = icos[table.name].tolist()
    counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    values = list(chain.from_iterable(lists))
    ico_id = np.repeat(icos["id"].to_numpy(), counts)
    position = np.arange(len(values), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts,
                                                                  counts)
    text = text_from_arrow(pa.array(values, type=pa.string()))
    return pd.DataFrame({"ico_id": ico_id, "position": position, "value": text}, copy=False)


# --------------------------------------------------------------------------- icos


def _icos(table: TableSchema, fields: dict[str, Source], values: dict[Source, Sequence],
          ids: np.ndarray, statuses: Mapping[Any, str] | None, log: Problems,
          order: tuple[np.ndarray, np.ndarray] | None = None) -> pd.DataFrame:
    data: dict[str, Any] = {name: values[path] for name, path in fields.items()}
    for column in table.columns:
        if column.source == _ID:
            data[column.name] = ids
    data["status"] = _statuses(ids, statuses)
    data["fetched_status"] = data["status"]  # (a later list's status replaces status alone)
    for column in table.columns:  # known outside the profile (fetched_at: the store fills it)
        if column.source is None:
            dtype: Any = column.dtype  # pandas-stubs' pd.array takes no general Dtype
            data.setdefault(column.name, pd.array([None] * len(ids), dtype=dtype))
    for name in sorted(SPLIT_LISTS | SPLIT_URLS):  # a part kept whole in doubt is a row
        data[name], doubts = split_column(name, data[name])
        log.add_unread("icos", name, doubts, ids)
    sent = {name: data[name] for name in _TICKERS}
    for name in _TICKERS:
        data[name] = with_latin_tickers(data[name])
    read_icos_amounts(data, ids, log)  # caps, limits, price, tokens_for_sale, raised: one rule
    readers = None if order is None else dict.fromkeys(_DATES, partial(
        to_datetime, month_first=np.isin(ids, order[0]), day_first=np.isin(ids, order[1])))
    # a lone surrogate is reported with the text as sent (the converter reports what it is
    # given), the column holding the text made plain
    redo = [name for name in _TICKERS
            if data[name] is not sent[name] and holds_lone_surrogate(sent[name])]
    frame = convert(table, {**data, **{name: sent[name] for name in redo}}, log,
                    readers=readers)
    for name in redo:
        plain: Any = converters.CONVERTERS[table.column(name).kind](data[name])[0]
        frame[name] = plain
    return frame


def _statuses(ids: np.ndarray, statuses: Mapping[Any, str] | None) -> list:
    if not statuses:
        return [None] * len(ids)
    by_id = {pid: status for key, status in statuses.items()
             if (pid := rules.parse_id(key)) is not None}
    return list(map(by_id.get, ids.tolist()))


# --------------------------------------------------------------------------- maps


class _MapSource:
    """A child table read from a map of the profile: where the map is, which columns get what."""

    __slots__ = ("key", "path", "table", "value")

    def __init__(self, table: TableSchema, path: Source, key: str, value: str) -> None:
        self.table, self.path, self.key, self.value = table, path, key, value

    @classmethod
    def of(cls, table: TableSchema) -> _MapSource:
        """From the columns sourced ``(*path, '<key>')`` and ``(*path, '*')``."""
        keys = [c for c in table.columns if c.source and c.source[-1] == KEY]
        if len(keys) != 1:
            raise ValueError(f"{table.name}: expected one column of map keys, got {keys}")
        path = keys[0].source[:-1]  # type: ignore[index]
        value = [c.name for c in table.columns if c.source == (*path, EACH)]
        if len(value) != 1:
            raise ValueError(f"{table.name}: expected one column of map values, got {value}")
        return cls(table, path, keys[0].name, value[0])

    def entries(self, values: dict[Source, Sequence], ids: np.ndarray,
                log: Problems) -> tuple[dict[str, Any], list, list]:
        """``ico_id`` and the key column of every entry, and the raw keys and values."""
        counts, keys, raw = flatten(values[self.path], log, (self.table.name, ".".join(self.path)),
                                    ids)
        ico_id = np.repeat(ids, counts)
        data = {"ico_id": ico_id, self.key: _key_text(keys, self.table.name, self.key, log, ico_id)}
        return data, keys, raw


def _key_text(keys: list, table: str, column: str, log: Problems, row_ids: np.ndarray) -> Any:
    values, unread = converters.to_key_text(keys)
    log.add_unread(table, column, unread, row_ids)
    return values


def _social(source: _MapSource, values: dict[Source, Sequence], ids: np.ndarray,
            team: People, advisors: People, log: Problems) -> pd.DataFrame:
    table = source.table
    counts, ico_keys, ico_values = flatten(values[source.path], log,
                                           (table.name, ".".join(source.path)), ids)
    team_ids, team_pos, team_keys, team_values = team.social(log)
    adv_ids, adv_pos, adv_keys, adv_values = advisors.social(log)
    ico_id = np.concatenate([np.repeat(ids, counts), team_ids, adv_ids])
    sizes = [int(counts.sum()), len(team_ids), len(adv_ids)]
    owner = np.repeat(np.arange(len(_OWNERS)), sizes)
    position = np.concatenate([np.full(sizes[0], -1, dtype=np.int64), team_pos, adv_pos])
    urls, url_bad = converters.to_text(ico_values + team_values + adv_values)
    log.add_unread(table.name, source.value, url_bad, ico_id)
    networks = _key_text(ico_keys + team_keys + adv_keys, table.name, source.key, log, ico_id)

    # One ICO's links together, in input order: its own, its team's, its advisors'.
    row = pd.Index(ids).get_indexer(ico_id)
    order = np.argsort(row, kind="stable")
    # Links with an empty url are not rows.
    order = order[~np.asarray(pd.isna(urls))[order]]
    position = position[order]
    data: dict[str, Any] = {
        "ico_id": ico_id[order],
        "owner": text_from_arrow(
            pa.array(_OWNERS, type=pa.string()).take(pa.array(owner[order], type=pa.int64()))),
        "position": pd.arrays.IntegerArray(position, position < 0),
        source.key: networks.take(order),
        source.value: urls.take(order),
    }
    return convert(table, data, log)


def _distribution(source: _MapSource, values: dict[Source, Sequence], ids: np.ndarray,
                  log: Problems) -> pd.DataFrame:
    data, _, raw = source.entries(values, ids, log)
    percent, percent_bad = converters.to_float(  # '60%' is a share, of 0-100
        raw, percent=True, bounds=source.table.column(source.value).bounds)
    log.add_unread(source.table.name, source.value, percent_bad, data["ico_id"])
    for rows, reason in refused_shares(raw, percent, data["ico_id"], percent_bad):
        if len(rows):  # 0.6/0.25/0.15: not 1% in all; 90% x 3: no shares of one whole
            log.add(source.table.name, source.value, [raw[i] for i in rows.tolist()],
                    data["ico_id"][rows], reason=reason)
            percent[rows] = np.nan
    data[source.value] = percent
    return convert(source.table, data, log)


def _bonuses(source: _MapSource, values: dict[Source, Sequence], ids: np.ndarray,
             log: Problems) -> pd.DataFrame:
    data, _, raw = source.entries(values, ids, log)
    data[source.value] = raw
    # {"Bonus": "NO"} and {"Bonus": " "} say there is none, as 0% does when no term gives more
    keep = bonus_rows(raw, data["ico_id"], says_none)
    if not all(keep):
        mask = np.array(keep, dtype=bool)
        data = {name: (column[mask] if not isinstance(column, list) else
                       list(compress(column, keep)))
                for name, column in data.items()}
    return convert(source.table, data, log)


def _roadmap(source: _MapSource, values: dict[Source, Sequence], ids: np.ndarray,
             log: Problems, order: tuple[np.ndarray, np.ndarray] | None = None) -> pd.DataFrame:
    data, labels, raw = source.entries(values, ids, log)
    data[source.value] = raw
    # derived from the label; a label naming no date is kept, and reported under date
    month_first = np.isin(data["ico_id"], order[0]) if order is not None else None
    data["date"], data["precision"], unread = converters.to_label_date(labels,
                                                                       month_first=month_first)
    log.add_unread(source.table.name, "date", unread, data["ico_id"])
    return convert(source.table, data, log)


#: The tables read from maps (social: with the people's links), built in this order.
_READERS: Final[Mapping[str, Callable[..., pd.DataFrame]]] = {
    "social": _social, "distribution": _distribution, "bonuses": _bonuses, "roadmap": _roadmap}
_empty = cache(lambda name: empty_frame(TABLES[name]))  # (a Series per column: about 1 ms)
#: Each step of tidy, and the tables that need it.
_NEEDS: Final = {"icos": ("icos", *LONG_LISTS), "team": ("team", "social"),
                 "advisors": ("advisors", "social"), **{name: (name,) for name in _READERS}}
