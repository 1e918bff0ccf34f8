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

import os
from collections.abc import Mapping
from typing import Any, Literal, Unpack, overload

import pandas as pd

from .ages import Age
from .api.params import ListFilters, Status
from .cachedir.housekeeping import (
    CacheDirInfo,
    CacheInfo,
    CacheReport,
    clear_all,
    describe,
    forget_count,
    info,
    key_of_count,
    only_ledgers,
    prune,
    remove_folder,
)
from .config import get_settings
from .errors import InvalidParameter, check_flags
from .fetch import Load
from .fetch.policy import DEFAULT_MAX_AGE
from .queries import (
    check_keywords,
    check_load_arguments,
    checked_keywords,
    keywords_of,
    warn_if_nothing_matched,
)
from .reporting import LoadReport
from .store.cache import Cache
from .store.ledger import QuotaLedger
from .tables import Tables

__all__ = ["DEFAULT_MAX_AGE", "ListFilters", "MaxAge", "ProfileMaxAge", "Refresh", "cache_info",
           "clear_cache", "load_filters", "load_icos", "load_list", "load_tables", "prune_cache"]


Refresh = bool | Literal["all"]
MaxAge = Age | None
ProfileMaxAge = Age | Mapping[str, Age] | None


# -- the public functions -----------------------------------------------------


@checked_keywords
def load_filters(*, refresh: bool = False, max_age: MaxAge = DEFAULT_MAX_AGE,
                 offline: bool = False) -> pd.DataFrame:
    """The filter values the service offers (spec 2.1), one row per value.

    Parameters
    ----------
    refresh : bool, default False
        Ask the service again even if a cached copy is fresh.
    max_age : timedelta, str or seconds, default one day
        How old a cached copy may be (``"12h"``, 3600: ``icoframes.ages``); ``None``
        means it never expires.
    offline : bool, default False
        Use the cache only; raise :class:`NotCached` when it has no copy.
        Refused (:class:`InvalidParameter`) with ``refresh=True`` or a ``max_age``
        given (other than ``None``): they ask the service again.

    Returns
    -------
    DataFrame
        Columns ``filter`` (platform, category, type or location), ``id``
        (nullable Int64; missing for location) and ``name``.
        ``icoframes.report(filters)`` says when it was fetched and what it cost.

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
    try:  # its own rule first: the loaders' check offers "all", which it refuses
        check_flags(refresh=refresh)
    except InvalidParameter as exc:
        if not (isinstance(refresh, str) and refresh.strip().casefold() == "all"):
            raise
        raise InvalidParameter(f"{exc}: 'all' re-fetches the profiles of load_icos and "
                               "load_tables, and the filter set has none; True asks for it "
                               "again") from None
    check_load_arguments(offline=offline)
    return Load(offline=offline).filters(refresh=bool(refresh), max_age=max_age)


@checked_keywords  # names of filters: by check_keywords; twice given: refused
def load_list(status: Status | None = None, *, refresh: Refresh = False,
              max_age: MaxAge = DEFAULT_MAX_AGE, offline: bool = False,
              progress: bool | None = None, max_workers: int | None = None,
              **filters: Unpack[ListFilters]) -> pd.DataFrame:
    """List summaries (spec 2.2) of every matching ICO; costs list pages only.

    Parameters are those of :func:`load_icos`, but for ``profile_max_age`` and ``budget``:
    a list asks no profile.

    Returns
    -------
    DataFrame
        Columns id, name, logo, ico_score, url, raised, status: one row per ICO.
        ``icoframes.report(listing)`` says what it answers and lacks, as for
        :func:`load_icos`.
    """
    check_keywords(filters, keywords_of(load_list), _NOT_LIST)  # named before any setting
    load = Load(offline=offline, progress=progress, max_workers=max_workers)
    return warn_if_nothing_matched(load.listing(status, filters, refresh=refresh,
                                                max_age=max_age, keywords=keywords_of(load_list)))


@checked_keywords
def load_icos(status: Status | None = None, *, refresh: Refresh = False,
              max_age: MaxAge = DEFAULT_MAX_AGE, profile_max_age: ProfileMaxAge = None,
              budget: int | None = None, offline: bool = False,
              progress: bool | None = None, max_workers: int | None = None,
              **filters: Unpack[ListFilters]) -> pd.DataFrame:
    """The ``icos`` table (one typed row per ICO) for every ICO matching the filters.

    Parameters
    ----------
    status : {"ongoing", "upcoming", "past"}, optional
        Only ICOs with this status; ``None`` loads all three, each row tagged
        with the status it was listed under.
    refresh : bool or "all", default False
        ``False``: a cached list younger than ``max_age`` is used as it is, and
        only profiles never fetched (or whose last fetch failed) are requested.
        ``True`` re-pages the list (one request per 20 ICOs) and re-fetches the
        profiles that are new, whose summary (name, score, raised) or listed
        status changed, or that have fallen due (see ``profile_max_age``; one
        request each). ``"all"`` re-fetches every profile (one request per ICO).
    max_age : timedelta, str or seconds, default one day
        A cached list older than this is re-paged, as with ``refresh=True``
        (``None``: cached lists never expire). A duration (``"7D"``, ``"12h"``,
        ``pd.Timedelta``, ``timedelta``) or seconds (3600, as text too): every age
        argument reads one so (``icoframes.ages``). A list that came back partial is
        re-paged by the next call whatever its age.
    profile_max_age : timedelta, str, seconds or mapping by status, optional
        How old a profile may be when its list is re-paged. Default: ongoing
        1 day, upcoming 7 days, past 90 days
        (``icoframes.fetch.policy.PROFILE_MAX_AGE``); a mapping overrides the
        statuses it names. A profile falls due between half and all of it (a point
        fixed per ICO, less 5% slack: profiles fetched together do not expire
        together), never later.
    budget : int, optional
        At most this many profile requests in this call, the most stale first
        (never fetched, then changed, then oldest for their status), equally
        stale ones in the order of the lists (the first list's page 1 first,
        its rows in order): the same call on the same lists picks the same
        profiles, whatever order their pages arrive in. What is left is
        reported in a warning and in the report (``not_refreshed``).
    offline : bool, default False
        Use the cache only, spending no request; raises :class:`NotCached`
        naming what is missing. Refused with ``refresh``, a ``max_age`` given
        (other than ``None``) or a ``profile_max_age`` (they ask the service again
        for what is older).
    progress : bool, optional
        Show progress bars. By default they show in notebooks and terminals,
        and not when output is redirected (cron, CI).
    max_workers : int, optional
        Concurrent requests (default: the ``max_workers`` setting, 8).
    **filters
        Parameters of the list operation (spec 4.2) by name: ``platform``,
        ``category``, ``type`` (ids or names), ``location``, ``ico_score``,
        ``airdrop_program``, ``bounty_program``, ``investor_kyc``,
        ``investor_wl``, ``ico_kyc_passed`` (True only: False is refused),
        ``accepted_currencies``, ``exclude_areas``, ``sort_asc``, ``sort_desc``.
        All are checked before any list or profile request: keywords and
        statuses (in any case) with a "did you mean"; currencies as tickers
        (``"eth"``, sent upper-cased) or names (``"Ether"``, sent as ``ETH``);
        platform, category and type ids and names, ``location`` and
        ``exclude_areas`` against the filter set (:func:`load_filters`; in any
        case, sent in its spelling; ``"ERC20"`` suggests ``Ethereum``). Text
        that writes a number is an id, never a name: ``"7"`` is the id 7, and
        ``"1.0"``, ``"-1"`` or ``"٣"`` are refused as ids with the id meant
        ("did you mean 1?"), before any request. Checking costs at most one
        request, for the filter set, and none while it is cached (a day).

    Returns
    -------
    DataFrame
        The columns of ``icoframes.schema.TABLES["icos"]`` at their declared
        dtypes; zero rows (every column present) when nothing matches.
        ``icoframes.report(icos)`` says what the rows answer and lack, as a
        :class:`~icoframes.LoadReport`: ``queries`` (params, complete,
        from_cache, rows, total_icos, missing, fetched_at, values lost),
        ``complete``, ``missing`` (listed ids without a row, with their state:
        failed, gone or not_fetched, and why), ``not_refreshed`` and
        ``requests`` (what this call spent, per endpoint). It reads
        ``attrs["icoframes"]``, the dict of 0.1 (read-only, shared by every frame
        derived from this one), which pandas drops in ``merge`` and ``concat``:
        take it first.

    Warns
    -----
    IncompleteWarning
        A list came back short or listed ICOs have no row (see ``missing``).
    StaleWarning
        ``budget`` ran out before every stale profile was fetched again.

    Raises
    ------
    InvalidParameter
        A filter is unknown, has a value spec 4.2 does not allow, or names a
        platform, category, type or country the filter set does not list
        (raised before any list or profile request). ``offline=True`` with an
        argument that asks the service again.
    QuotaExceeded
        The daily allowance ran out. Everything fetched is cached; call again
        after the reset to fetch only the rest.
    ServiceUnavailable
        The service looks down: many different requests failed with no
        success between, or connections were refused (the circuit breaker,
        :mod:`icoframes.api.control`), or the probe after an error 485 got no
        answer: ``last_failure`` names the cause. Everything fetched is cached.
    NotCached
        ``offline=True`` and nothing of the query is cached (when only some
        profiles are missing, the cached rows are returned with an
        :class:`IncompleteWarning`).
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
    check_keywords(filters, keywords_of(load_icos))  # a typo named before any setting
    load = Load(offline=offline, progress=progress, max_workers=max_workers)
    return warn_if_nothing_matched(load.tables(
        status, filters, refresh=refresh, max_age=max_age, profile_max_age=profile_max_age,
        budget=budget, only_icos=True, keywords=keywords_of(load_tables)).icos)


@checked_keywords
def load_tables(status: Status | None = None, *, refresh: Refresh = False,
                max_age: MaxAge = DEFAULT_MAX_AGE, profile_max_age: ProfileMaxAge = None,
                budget: int | None = None, offline: bool = False,
                progress: bool | None = None, max_workers: int | None = None,
                **filters: Unpack[ListFilters]) -> Tables[LoadReport]:
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
        ``tables.report`` is the :class:`~icoframes.LoadReport` of the load
        (``tables.icos.attrs["icoframes"]`` holds it as a read-only dict too).
    """
    check_keywords(filters, keywords_of(load_tables))  # a typo named before any setting
    load = Load(offline=offline, progress=progress, max_workers=max_workers)
    tables = load.tables(status, filters, refresh=refresh, max_age=max_age,
                         profile_max_age=profile_max_age, budget=budget, only_icos=False,
                         keywords=keywords_of(load_tables))
    warn_if_nothing_matched(tables.icos)
    return tables


#: load_icos' keywords that load_list lacks, said as such: its own closest keyword means
#: another thing (``max_age`` is the list's age, not the profiles')
_NOT_LIST = {k: f"load_list fetches no profiles: {k} is a keyword of load_icos, load_tables "
                "and export_tables"
             for k in keywords_of(load_icos) if k not in keywords_of(load_list)}


# to a type checker, all=False (the default) gives a CacheInfo and all=True a CacheDirInfo
@overload
def cache_info(*, all: Literal[False] = False,
               cache_dir: str | os.PathLike[str] | None = None) -> CacheInfo: ...
@overload
def cache_info(*, all: Literal[True],
               cache_dir: str | os.PathLike[str] | None = None) -> CacheDirInfo: ...
@overload
def cache_info(*, all: bool,
               cache_dir: str | os.PathLike[str] | None = None) -> CacheInfo | CacheDirInfo: ...


@checked_keywords
def cache_info(*, all: bool = False,
               cache_dir: str | os.PathLike[str] | None = None) -> CacheInfo | CacheDirInfo:
    """What the cache of the configured service holds; with ``all=True``, every service's.

    Parameters
    ----------
    all : bool, default False
        Every service folder of the cache dir, not only the configured service's.
    cache_dir : path-like, optional
        Overrides the configured cache dir (as ``export_tables(cache_dir=...)``).

    Returns
    -------
    CacheInfo
        ``path``, ``size_bytes``, ``profiles`` (fetched), ``listed_without_profile``
        (listed ICOs whose profile was not found: error 482), ``list_queries``,
        ``oldest_profile``, ``newest_profile``, ``states`` (profiles per fetch
        state: fetched, gone, failed, and not_fetched for listed ICOs with no
        outcome yet), ``requests_today`` (sent today with the configured public key,
        by every process using the cache dir; None when the count is a later day's,
        ``quota.ahead_day``) and ``quota`` (the ledger: day, sent, limit, remaining,
        when the service last refused with error 485 and after how many requests).
        Both are None without a public key. ``cache_dir_exists`` is False when
        the cache dir does not exist (a typo in ``cache_dir``?): nothing is cached.
    CacheDirInfo
        With ``all=True`` (no service needs to be configured): ``path`` and
        ``size_bytes`` of the cache dir, ``services`` (per service folder, most
        recently used first: name, path, size_bytes, last_used, age,
        configured), ``ledgers`` (keys with a request count), ``other``
        (entries that are not the cache's, left alone) and ``exists``.

    Both are dataclasses; ``info["profiles"]`` still works in this version with
    a ``FutureWarning``, and goes in the next (use ``info.profiles``, or
    ``info.as_dict()`` for a plain dict).

    Examples
    --------
    >>> import icoframes, tempfile
    >>> _ = icoframes.configure(base_url="http://127.0.0.1:9", cache_dir=tempfile.mkdtemp())
    >>> icoframes.cache_info().states
    {'fetched': 0, 'gone': 0, 'failed': 0, 'not_fetched': 0}
    >>> icoframes.reset_configuration()
    """
    check_flags(all=all)
    if all:
        settings = get_settings(cache_dir=cache_dir)
        service = settings.service_id if settings.base_url else None
        configured = Cache(settings.cache_dir, service).dir if service else None
        return describe(settings.cache_dir, configured=configured)
    settings = _settings_with_base_url(cache_dir)
    ledger = QuotaLedger(settings.cache_dir, settings.public_key, settings.daily_quota,
                         service=settings.service_id,
                         reset=settings.quota_reset) if settings.public_key else None
    return info(Cache(settings.cache_dir, settings.service_id), ledger)


@checked_keywords
def clear_cache(*, all: bool = False, ledgers: bool | Literal["only"] = False,
                cache_dir: str | os.PathLike[str] | None = None) -> CacheReport:
    """Delete what is cached for the configured service; with ``all=True``, for every service.

    Each folder goes under its lock; symlinks are never followed (a link goes as a link, a
    linked service folder stays) and what is not the cache's is left alone
    (:mod:`icoframes.cachedir.housekeeping`).

    Parameters
    ----------
    all : bool, default False
        Every service folder of the cache dir, not only the configured service's.
    ledgers : bool or "only", default False
        False: the request ledgers (today's count, which ``daily_quota`` needs) are kept.
        True: this key's count for this service goes too (with ``all=True``, every key's).
        ``"only"``: that count alone goes, every cached profile and list stays (the way out
        of a count stored days ahead of a right clock). A count forgotten costs what it
        held: those requests may have been sent today (the service may refuse with 485).
    cache_dir : path-like, optional
        Overrides the configured cache dir (as ``export_tables(cache_dir=...)``).

    Returns
    -------
    CacheReport
        ``removed`` (a count as ``<ledger>#<key>``), ``freed_bytes``, ``skipped`` (path and
        reason), ``missing`` (the cache dir if it does not exist) and ``notes``.

    Raises
    ------
    ConfigError
        ``ledgers`` True or ``"only"`` and no public key configured: nothing is deleted."""
    check_flags(all=all)  # all="no" would clear every service, ledgers too
    only = only_ledgers(ledgers, all=all)
    if all:
        return clear_all(get_settings(cache_dir=cache_dir).cache_dir, ledgers=bool(ledgers))
    settings = _settings_with_base_url(cache_dir)
    folder = Cache(settings.cache_dir, settings.service_id).dir
    if not ledgers:
        return remove_folder(folder)
    ledger = QuotaLedger(settings.cache_dir, key_of_count(settings.public_key, only=only),
                         service=settings.service_id)
    return forget_count(ledger, folder.name) if only else remove_folder(folder, ledger=ledger)


@checked_keywords
def prune_cache(older_than: Age, *, ledgers: bool = False,
                cache_dir: str | os.PathLike[str] | None = None) -> CacheReport:
    """Delete what no load used for longer than ``older_than`` (a timedelta, ``"30D"``, seconds).

    Service folders of the cache dir unused for longer go whole; in the others, list
    results fetched before then (the next load re-pages them, even with ``max_age=None``),
    ``*.corrupt`` and leftover temporary files (at least an hour old). With ``ledgers=True``,
    the request counts of keys that sent nothing for as long (and at least since yesterday)
    go too. The rules and report of :func:`clear_cache`; InvalidParameter for a negative
    ``older_than``, or seconds under a day but 0 (``30``: "did you mean '30D'?", as
    ``--older-than 30``). ``cache_dir`` overrides the configured cache dir.

    Examples
    --------
    >>> import datetime as dt, icoframes, tempfile
    >>> _ = icoframes.configure(cache_dir=tempfile.mkdtemp())
    >>> icoframes.prune_cache(dt.timedelta(days=30)).removed
    []
    >>> icoframes.reset_configuration()
    """
    check_flags(ledgers=ledgers)
    return prune(get_settings(cache_dir=cache_dir).cache_dir, older_than, ledgers=ledgers)


# -- the machinery --------------------------------------------------------------


def _settings_with_base_url(cache_dir: Any = None):
    # cache_dir None: the configured one; ConfigError with set-up help without a base_url
    return get_settings(cache_dir=cache_dir).require_base_url()
