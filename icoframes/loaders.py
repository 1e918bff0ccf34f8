"""What users call: load_filters, load_list, load_icos, load_tables.

A load pages the list and fetches every profile it does not already hold,
concurrently (see :mod:`icoframes.fetch`), appending profiles to the cache in
batches as they arrive. The result is always read back from the cache, so a
warm call returns exactly what a cold one did.

Request economy, since the service allows 5,000 requests per key per day:

* a list query younger than ``max_age`` is served from the cache (no request);
* a profile is fetched only when it is not cached, or when its list summary
  (name, score, raised) changed since it was fetched; ``refresh="all"``
  re-fetches everything;
* error 485 stops the load at once; what was fetched is kept, and the next
  call fetches only the rest.
"""

from __future__ import annotations

import datetime as dt
import difflib
import numbers
from collections.abc import Mapping
from typing import Any, Literal

import pandas as pd

from .api.params import ID_LIST_PARAMS, STATUSES, validate_list_params
from .config import get_settings
from .errors import InvalidParameter
from .fetch import LoadContext, age_limit
from .parse.problems import problems_of_load
from .schema import ICOS, TABLES, empty_frame
from .store.cache import Cache
from .store.ledger import QuotaLedger
from .tables import Tables

__all__ = [
    "LoaderCall",
    "cache_info",
    "clear_cache",
    "load_filters",
    "load_icos",
    "load_list",
    "load_tables",
]

DEFAULT_MAX_AGE = dt.timedelta(days=1)

Refresh = bool | Literal["all"]
MaxAge = dt.timedelta | float | int | None


# -- the public functions -----------------------------------------------------


def load_filters(*, refresh: bool = False, max_age: MaxAge = DEFAULT_MAX_AGE,
                 offline: bool = False) -> pd.DataFrame:
    """The filter values the service offers (spec 2.1), one row per value.

    Parameters
    ----------
    refresh : bool, default False
        Ask the service again even if a cached copy is fresh.
    max_age : timedelta or seconds, default one day
        How old a cached copy may be; ``None`` means it never expires.
    offline : bool, default False
        Use the cache only; raise :class:`NotCached` when it has no copy.

    Returns
    -------
    DataFrame
        Columns ``filter`` (platform, category, type or location), ``id``
        (nullable Int64; missing for location) and ``name``.

    Examples
    --------
    >>> from icoframes import sandbox
    >>> import icoframes, tempfile
    >>> with sandbox.serve(n_icos=40) as sb:
    ...     _ = icoframes.configure(**sb.settings(), cache_dir=tempfile.mkdtemp())
    ...     filters = icoframes.load_filters()
    >>> sorted(filters["filter"].unique())
    ['category', 'location', 'platform', 'type']
    >>> icoframes.reset_configuration()
    """
    return LoaderCall(offline=offline).filters(refresh=bool(refresh), max_age=max_age)


def load_list(status: str | None = None, *, refresh: Refresh = False,
              max_age: MaxAge = DEFAULT_MAX_AGE, offline: bool = False,
              progress: bool | None = None, max_workers: int | None = None,
              **filters: Any) -> pd.DataFrame:
    """List summaries (spec 2.2) of every matching ICO; costs list pages only.

    Parameters are those of :func:`load_icos`.

    Returns
    -------
    DataFrame
        Columns id, name, logo, ico_score, url, raised, status: one row per ICO.
    """
    load = LoaderCall(offline=offline, progress=progress, max_workers=max_workers)
    return load.listing(status, filters, refresh=refresh, max_age=max_age)


def load_icos(status: str | None = None, *, refresh: Refresh = False,
              max_age: MaxAge = DEFAULT_MAX_AGE, offline: bool = False,
              progress: bool | None = None, max_workers: int | None = None,
              **filters: Any) -> pd.DataFrame:
    """The ``icos`` table (one typed row per ICO) for every ICO matching the filters.

    Parameters
    ----------
    status : {"ongoing", "upcoming", "past"}, optional
        Only ICOs with this status; ``None`` loads all three, each row tagged
        with the status it was listed under.
    refresh : bool or "all", default False
        ``True`` re-pages the list and re-fetches the profiles that are new or
        whose summary (name, score, raised) changed; ``"all"`` re-fetches every
        profile.
    max_age : timedelta or seconds, default one day
        A cached list older than this is re-paged (as with ``refresh=True``).
        ``None`` means cached lists never expire.
    offline : bool, default False
        Use the cache only, spending no request; raises :class:`NotCached`
        naming what is missing.
    progress : bool, optional
        Show progress bars. By default they show in notebooks and terminals,
        and not when output is redirected (cron, CI).
    max_workers : int, optional
        Concurrent requests (default: the ``max_workers`` setting, 8).
    **filters
        Parameters of the list operation (spec 4.2) by name: ``platform``,
        ``category``, ``type`` (ids or names), ``location``, ``ico_score``,
        ``airdrop_program``, ``bounty_program``, ``investor_kyc``,
        ``investor_wl``, ``ico_kyc_passed`` (True), ``accepted_currencies``,
        ``exclude_areas``, ``sort_asc``, ``sort_desc``.

    Returns
    -------
    DataFrame
        The columns of ``icoframes.schema.TABLES["icos"]`` at their declared
        dtypes; zero rows (every column present) when nothing matches.

    Raises
    ------
    InvalidParameter
        A filter is unknown or has a value spec 4.2 does not allow (raised
        before any request is spent).
    QuotaExceeded
        The daily allowance ran out. Everything fetched is cached; call again
        after the reset to fetch only the rest.
    NotCached
        ``offline=True`` and the cache lacks the list or some profiles.
    ConfigError
        No service address or keys are configured.

    Examples
    --------
    >>> from icoframes import sandbox
    >>> import icoframes, tempfile
    >>> with sandbox.serve(n_icos=60) as sb:
    ...     _ = icoframes.configure(**sb.settings(), cache_dir=tempfile.mkdtemp())
    ...     icos = icoframes.load_icos(status="past", progress=False)
    >>> icos["id"].is_unique, str(icos["raised"].dtype)
    (True, 'float64')
    >>> icoframes.reset_configuration()
    """
    load = LoaderCall(offline=offline, progress=progress, max_workers=max_workers)
    return load.tables(status, filters, refresh=refresh, max_age=max_age, only_icos=True).icos


def load_tables(status: str | None = None, *, refresh: Refresh = False,
                max_age: MaxAge = DEFAULT_MAX_AGE, offline: bool = False,
                progress: bool | None = None, max_workers: int | None = None,
                **filters: Any) -> Tables:
    """Every table (icos, team, advisors, social, distribution, bonuses, roadmap).

    Parameters and errors are those of :func:`load_icos`; the child tables hold
    the rows of the loaded ICOs only and key into ``icos.id`` by ``ico_id``.

    Returns
    -------
    Tables
        ``tables.problems`` holds one row per raw value that could not be read,
        with the ``ico_id`` of its ICO: those of the loaded ICOs' profiles, and
        those of this query's list pages (an item whose id is unreadable has
        no ``ico_id``). ``tables.problem_summary()`` counts them per column.
    """
    load = LoaderCall(offline=offline, progress=progress, max_workers=max_workers)
    return load.tables(status, filters, refresh=refresh, max_age=max_age, only_icos=False)


def cache_info() -> dict[str, Any]:
    """Where the cache of the configured service lives and what it holds.

    Returns
    -------
    dict
        path, size_bytes, profiles, listed_without_profile (listed ICOs whose profile
        was not found), profile_parts, list_queries, oldest_profile,
        newest_profile, and requests_today for the configured public key.
    """
    settings = _settings_with_base_url()
    info = Cache(settings.cache_dir, settings.base_url).info()
    if settings.public_key:
        info["requests_today"] = QuotaLedger(
            settings.cache_dir, settings.public_key, settings.daily_quota,
            service=settings.base_url).used_today()
    return info


def clear_cache() -> None:
    """Delete everything cached for the configured service (the request ledger is kept)."""
    settings = _settings_with_base_url()
    Cache(settings.cache_dir, settings.base_url).clear()


# -- the machinery --------------------------------------------------------------


def _settings_with_base_url(**overrides: Any):
    settings = get_settings(**overrides)
    if not settings.base_url:
        settings.require_credentials()  # raises ConfigError with set-up help
    return settings


def _check_refresh(refresh: Any) -> None:
    if refresh not in (True, False, "all"):
        raise InvalidParameter(f"refresh must be False, True or 'all', got {refresh!r}")


class LoaderCall:
    """One loader call: the user's arguments -> validated queries -> results.

    The public loaders and :func:`icoframes.export_tables` each make one; the
    fetching itself happens in its :class:`~icoframes.fetch.LoadContext`
    (``.context``), and ``requests_spent()`` says what this call cost.
    """

    def __init__(self, *, offline: bool = False, progress: bool | None = None,
                 max_workers: int | None = None, cache_dir: Any = None) -> None:
        settings = _settings_with_base_url(max_workers=max_workers, cache_dir=cache_dir)
        self.context = LoadContext(settings, offline=offline, progress=progress)
        self._filters: pd.DataFrame | None = None

    def requests_spent(self) -> dict[str, int]:
        """Requests this load sent per endpoint, retries included."""
        return self.context.requests_spent()

    def filters(self, *, refresh: bool, max_age: MaxAge) -> pd.DataFrame:
        return self.context.filters(refresh=refresh, max_age=max_age)

    def _resolve_names(self, params: dict[str, Any]) -> dict[str, Any]:
        """Turn platform/category/type names into ids, through the filter set."""
        out = dict(params)
        for key in ID_LIST_PARAMS:
            value = out.get(key)
            if value is None:
                continue
            values = _values(value)
            if not any(_is_name(v) for v in values):
                continue
            if self._filters is None:
                self._filters = self.filters(refresh=False, max_age=DEFAULT_MAX_AGE)
            known = self._filters[self._filters["filter"] == key]
            by_name = {str(n).strip().casefold(): int(i)
                       for n, i in zip(known["name"], known["id"], strict=True)}
            resolved = []
            for v in values:
                if _is_name(v):
                    found = by_name.get(v.strip().casefold())
                    if found is None:
                        close = difflib.get_close_matches(
                            v, [str(n) for n in known["name"]], n=3, cutoff=0.5)
                        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
                        raise InvalidParameter(
                            f"unknown {key} name {v!r}{hint} (see icoframes.load_filters())")
                    resolved.append(found)
                else:
                    resolved.append(v)
            out[key] = resolved
        return out

    def _query_params(self, status: str | None, filters: Mapping[str, Any]) -> list[dict]:
        if "page" in filters:
            raise InvalidParameter("page is not a loader parameter: loaders fetch every page")
        params = {**filters, "status": status}
        # Check everything that can be checked without the filter set first,
        # standing in a valid id for names, so a typo costs no request.
        placeholder = {k: [1 if _is_name(x) else x for x in _values(v)]
                       for k, v in params.items()
                       if k in ID_LIST_PARAMS and v is not None and _has_names(v)}
        validate_list_params({**params, **placeholder})
        wire = validate_list_params(self._resolve_names(params))
        statuses = [wire.pop("status")] if "status" in wire else list(STATUSES)
        queries = []
        for s in statuses:
            query = {**wire, "status": s}
            for key, value in query.items():
                if isinstance(value, list):  # order and repeats don't change the answer:
                    query[key] = sorted(set(value), key=str)  # one cache entry per query
            queries.append(query)
        return queries

    # lists and profiles -------------------------------------------------------

    def _crawl(self, status: str | None, filters: Mapping[str, Any], *, refresh: Refresh,
               max_age: MaxAge, profiles: bool) -> pd.DataFrame:
        """Page the lists (or use fresh cached ones) and fetch missing profiles; the listing."""
        _check_refresh(refresh)
        limit = age_limit(max_age)
        queries = self._query_params(status, filters)
        return self.context.crawl(queries, refresh=refresh, limit=limit, profiles=profiles)

    def listing(self, status: str | None, filters: Mapping[str, Any], *, refresh: Refresh,
                max_age: MaxAge) -> pd.DataFrame:
        return self._crawl(status, filters, refresh=refresh, max_age=max_age, profiles=False)

    def tables(self, status: str | None, filters: Mapping[str, Any], *, refresh: Refresh,
               max_age: MaxAge, only_icos: bool) -> Tables:
        listing = self._crawl(status, filters, refresh=refresh, max_age=max_age, profiles=True)
        tables = Tables.empty() if listing.empty else self._assemble(listing, only_icos=only_icos)
        # what the rows answer (queries, fetch times, values lost in lists, requests spent)
        tables.icos.attrs["icoframes"] = listing.attrs.get("icoframes", {})
        return tables

    def _assemble(self, listing: pd.DataFrame, *, only_icos: bool) -> Tables:
        derived = self.context.derived
        everything = None if only_icos else derived.tables()
        icos = derived.table("icos") if everything is None else everything.icos
        positions = pd.Index(icos["id"]).get_indexer(listing["id"].to_numpy())
        icos = icos.take(positions[positions >= 0]).reset_index(drop=True)
        status = pd.Series(listing["status"].to_numpy(), index=listing["id"].to_numpy())
        icos = icos.assign(status=icos["id"].map(status).astype(ICOS.column("status").dtype))
        if everything is None:
            return Tables(icos=icos, **{name: empty_frame(TABLES[name])
                                        for name in TABLES if name != "icos"})
        keep = icos["id"].to_numpy()
        children = {name: frame[frame["ico_id"].isin(keep)].reset_index(drop=True)
                    for name, frame in everything if name != "icos"}
        # the cache's problems (over every cached profile) of these ICOs, and the lists'
        queries = listing.attrs.get("icoframes", {}).get("queries") or []
        return Tables(icos=icos, **children,
                      problems=problems_of_load(everything.problems, keep, queries))


def _values(value: Any) -> list[Any]:
    """A filter value as a list: scalars (str, int, numpy ints) become one-item lists."""
    if isinstance(value, str | numbers.Number):
        return [value]
    try:
        return list(value)
    except TypeError:
        return [value]


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and not value.strip().isdigit()


def _has_names(value: Any) -> bool:
    return any(_is_name(v) for v in _values(value))


