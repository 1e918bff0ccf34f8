"""The local query engine: narrower queries answered from a cached superset, each filter of spec
4.2 and each sort compared with what the sandbox returns for the same query over loopback.

An answer is either exactly the service's (the same ids in the same order) or declined with a
reason; a declined query's certain rows are among the sandbox's, and the sandbox's among the
certain and the undecided ones (the engine is never wrong, only unsure).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.fetch import Load
from icoframes.fetch.localquery import (
    ORDER_UNSTATED,
    PARTIAL,
    CachedList,
    LocalAnswer,
    answer_from_cache,
)
from icoframes.fetch.policy import PROFILE_MAX_AGE
from icoframes.files import utcnow
from icoframes.parse.lists import summary_keys
from icoframes.parse.profiles import tidy
from icoframes.queries import build_queries

DAY = dt.timedelta(days=1)


class Cached:
    """One cold load of the sandbox's past ICOs, and what the engine reads of the cache."""

    def __init__(self, sb) -> None:
        self.sb = sb
        self.tables = icoframes.load_tables(status="past", progress=False)
        self.filters = icoframes.load_filters()
        self.index = Load().cache.profile_index()
        self.past = self.cached_list({"status": "past"})

    def cached_list(self, params, *, fetched_at=None, complete=True) -> CachedList:
        listing = icoframes.load_list(progress=False, **params)
        return CachedList(params, listing, fetched_at or utcnow(), complete)

    def read_rows(self, ids):
        return self.tables.icos, self.tables.problems

    def answer(self, query, lists=None, *, index=None, ages=PROFILE_MAX_AGE, now=None
               ) -> LocalAnswer:
        return answer_from_cache(query, [self.past] if lists is None else lists,
                                 read_rows=self.read_rows, filter_set=self.filters,
                                 profile_index=self.index if index is None else index,
                                 now=now or utcnow(), max_age=DAY, ages=ages)

    def service(self, query) -> list[int]:
        """What the sandbox lists for ``query``, in its order, over loopback."""
        return icoframes.load_list(progress=False, **query)["id"].tolist()


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    with sandbox.serve(n_icos=300, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
        try:
            yield Cached(sb)
        finally:
            icoframes.reset_configuration()


def query_of(cached: Cached, **filters) -> dict:
    (query,) = build_queries("past", filters, lambda: cached.filters)
    return query


def assert_never_wrong(answer: LocalAnswer, service: list[int]) -> None:
    if answer.answered:
        assert answer.listing["id"].tolist() == service
    else:
        assert set(answer.matched) <= set(service) <= set(answer.matched) | set(answer.undecided)


# --- each filter of spec 4.2 --------------------------------------------------------------

ANSWERED = [
    {"category": "Finance"}, {"category": ["Gaming", "Banking"]}, {"type": "IEO"},
    {"type": ["ICO", "STO"]}, {"location": "Singapore"}, {"location": ["UK", "Unknown"]},
    {"ico_score": 3}, {"ico_score": 4}, {"airdrop_program": True}, {"bounty_program": True},
    {"investor_kyc": True}, {"investor_wl": True}, {"ico_kyc_passed": True},
    {"accepted_currencies": "ETH"}, {"accepted_currencies": "ltc"},
    {"category": "Finance", "investor_kyc": True, "ico_score": 2},
]


@pytest.mark.parametrize("filters", ANSWERED, ids=str)
def test_a_filter_the_stored_fields_decide_is_answered_as_the_service_does(cached, filters):
    query = query_of(cached, **filters, sort_desc="id")  # (unsorted: declined, see below)
    answer = cached.answer(query)
    assert answer.answered, answer.reasons
    assert answer.source is cached.past and answer.order == "sorted locally by id"
    assert answer.listing["id"].tolist() == cached.service(query)
    assert list(answer.listing.columns) == list(cached.past.listing.columns)


DECLINED = [
    ({"platform": "Ethereum"}, "platform: the profile names a value the filter set does not"),
    ({"platform": "Stellar"}, "platform: the profile names a value the filter set does not"),
    ({"accepted_currencies": "FIAT"}, "accepted_currencies: another spelling of a ticker"),
    ({"accepted_currencies": ["BTC", "ETH"]}, "some but not all of several tickers"),
    ({"exclude_areas": "USA"}, "'restricted in or tied to' goes beyond the stored"),
    ({"exclude_areas": ["China", "UK"], "category": "Finance"}, "'restricted in or tied to'"),
]


@pytest.mark.parametrize(("filters", "why"), DECLINED, ids=lambda v: str(v)[:40])
def test_a_filter_the_stored_fields_cannot_decide_goes_to_the_service(cached, filters, why):
    query = query_of(cached, **filters)
    answer = cached.answer(query)
    assert not answer.answered
    assert answer.undecided and any(why in reason for reason in answer.reasons), answer.reasons
    assert_never_wrong(answer, cached.service(query))


def test_the_premises_of_the_declined_filters_hold_in_the_cached_profiles(cached):
    icos = cached.tables.icos
    assert (icos["platform"] == "ERC20").any()  # listed under platform 1, named otherwise
    assert icos["accepting"].map(lambda a: "Fiat" in a).any()  # sent upper-cased: FIAT


# --- sorting ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sort", [{"sort_asc": "id"}, {"sort_desc": "id"}], ids=str)
def test_sorting_by_id_is_done_locally(cached, sort):
    for filters in ({}, {"category": "Finance"}, {"bounty_program": True}):
        query = query_of(cached, **filters, **sort)
        answer = cached.answer(query)
        assert answer.answered and answer.order == "sorted locally by id"
        assert answer.listing["id"].tolist() == cached.service(query)


@pytest.mark.parametrize("sort", [{"sort_asc": key} for key in
                                  ("name", "start_datetime", "end_datetime")]
                         + [{"sort_desc": key} for key in
                            ("name", "start_datetime", "end_datetime")], ids=str)
def test_sorting_by_name_or_date_is_local_where_certain_and_always_as_the_service(cached, sort):
    """Over the whole list the order is not certain (lower-case names; missing and equal dates);
    in small groups it often is: each group answered has the sandbox's order."""
    whole = cached.answer(query_of(cached, **sort))
    assert not whole.answered and len(whole.matched) == len(cached.past.listing)
    answered = 0
    for name in cached.filters.loc[cached.filters["filter"].isin(["category", "type"]), "name"]:
        kind = cached.filters.loc[cached.filters["name"] == name, "filter"].iloc[0]
        query = query_of(cached, **{kind: name}, **sort)
        answer = cached.answer(query)
        assert_never_wrong(answer, cached.service(query))
        if answer.answered:
            answered += 1
            assert answer.order == f"sorted locally by {next(iter(sort.values()))}"
        else:
            assert len(answer.reasons) == 1 and "not stated" in answer.reasons[0]
    assert answered >= 1


def test_a_list_sorted_the_same_way_keeps_its_order(cached):
    """Its order, for the rows kept: the service's comparison orders a subset as the whole, so
    the narrower list's order is the list's but among rows that tie on the date or lack it
    (the sandbox lists those last), which keep the list's order, said with how many."""
    by_start = cached.cached_list({"status": "past", "sort_asc": "start_datetime"})
    said = 0
    for name in cached.filters.loc[cached.filters["filter"] == "category", "name"]:
        query = query_of(cached, category=name, sort_asc="start_datetime")
        answer = cached.answer(query, [by_start])
        kept = cached.tables.icos.set_index("id").loc[list(answer.matched), "start_datetime"]
        assert answer.answered and answer.order == "the cached list's order"
        assert answer.listing["id"].tolist() == cached.service(query)  # the sandbox ties by id
        counts = kept.value_counts(dropna=False)  # rows without the date: one group
        if (counts > 1).any():
            said += 1
            assert answer.unstated == (
                f"the cached list's order among the {counts[counts > 1].sum()} rows that tie "
                f"on start_datetime ({(counts > 1).sum()} group(s) of the same one, or without "
                "one): spec 4.2 states no order among rows that tie, so a narrower list may "
                "have them in another")
        else:
            assert answer.unstated is None
    assert said
    unsorted = cached.answer(query_of(cached, category="Finance"), [by_start])
    assert unsorted.answered and unsorted.order == ORDER_UNSTATED  # said, in the list's order
    finance = set(cached.service(query_of(cached, category="Finance")))
    assert unsorted.listing["id"].tolist() == [i for i in by_start.listing["id"] if i in finance]


# --- which cached list may answer -------------------------------------------------------------


def test_a_filtered_list_answers_narrower_queries_and_the_smallest_is_used(cached):
    scored = cached.cached_list({"status": "past", "ico_score": 3})
    query = query_of(cached, ico_score=4, bounty_program=True, sort_asc="id")
    answer = cached.answer(query, [cached.past, scored])
    assert answer.answered and answer.source is scored
    assert answer.listing["id"].tolist() == cached.service(query)
    wider = cached.answer(query_of(cached, ico_score=2), [scored])
    assert not wider.answered and "no complete cached list" in wider.reasons[0]


def test_only_a_complete_fresh_list_of_the_same_status_answers(cached):
    query = query_of(cached, category="Finance")
    old = CachedList(cached.past.params, cached.past.listing, utcnow() - 2 * DAY, True)
    partial = CachedList(cached.past.params, cached.past.listing, utcnow(), False)
    future = CachedList(cached.past.params, cached.past.listing, utcnow() + DAY, True)
    for stale in (old, partial, future):
        answer = cached.answer(query, [stale])
        assert not answer.answered
        assert answer.reasons[0] == (  # a list dated after now is not said to be old
            "no complete cached list of this status younger than max_age holds it"
            if stale is not future else answer.reasons[0])
        if stale is future:
            assert answer.reasons[0].startswith("the cached list {'status': 'past'} is dated "
                                                "after now: paged at ")
        assert answer.reasons[1:] == ([f"the cached list {{'status': 'past'}}: {PARTIAL}"]
                                      if stale is partial else [])
    other_status = {**query, "status": "ongoing"}
    assert not cached.answer(other_status).answered


def test_profiles_must_be_cached_unchanged_and_within_profile_max_age(cached):
    query = query_of(cached, category="Finance", sort_asc="id")
    first = int(cached.past.listing["id"].iloc[0])
    lacking = cached.answer(query, index=cached.index.drop(first))
    assert not lacking.answered and f"id {first}: new" in lacking.reasons[0]
    changed = cached.index.copy()
    changed.loc[first, "summary"] = '["another name", null, null]'
    assert f"id {first}: changed" in cached.answer(query, index=changed).reasons[0]
    # a refetch failed since the copy (waiting out its backoff or not): the copy is out of date
    failing = cached.index.copy()
    failing.loc[first, "attempts"] = 2
    assert f"id {first}: failed since its copy" in cached.answer(query, index=failing).reasons[0]
    moved = cached.index.copy()
    moved.loc[first, "status"] = "ongoing"
    assert f"id {first}: status" in cached.answer(query, index=moved).reasons[0]
    young = {status: dt.timedelta(seconds=1) for status in PROFILE_MAX_AGE}
    later = cached.answer(query, ages=young, now=utcnow() + dt.timedelta(minutes=1))
    assert not later.answered and "older than profile_max_age" in later.reasons[0]
    assert cached.answer(query, ages=None).answered  # offline: no age limit


# --- edge cases on hand-made profiles (the real parser, no server needed) -------------------

FILTER_SET = pd.DataFrame({
    "filter": ["platform", "platform", "platform", "location", "location"],
    "id": pd.array([1, 2, 3, None, None], dtype="Int64"),
    "name": ["Ethereum", "Waves", "Waves", "USA", "Malta"],
})


def hand_made(*profiles, listing_names=None) -> tuple[CachedList, Callable]:
    tables = tidy(list(profiles), statuses={p["id"]: "past" for p in profiles})
    ids = [p["id"] for p in profiles]
    names = listing_names or [p.get("main", {}).get("name", f"n{p['id']}") for p in profiles]
    scores = [_score(p) for p in profiles]  # the list shows the profile's score
    listing = pd.DataFrame({"id": ids, "name": names, "ico_score": scores,
                            "raised": float("nan"), "status": "past"})
    return (CachedList({"status": "past"}, listing, utcnow(), True),
            lambda _ids: (tables.icos, tables.problems))


def _score(profile) -> float:
    score = profile.get("main", {}).get("ico_score")
    return float(score) if isinstance(score, (int, float)) else float("nan")


def local(query, profiles, **kwargs) -> LocalAnswer:
    superset, read_rows = hand_made(*profiles, **kwargs)
    ids = superset.listing["id"]
    index = pd.DataFrame({"status": "past", "state": "fetched", "fetched_at": utcnow(),
                          "summary": summary_keys(superset.listing)},
                         index=pd.Index(ids, name="id"))
    return answer_from_cache({"status": "past", **query}, [superset], read_rows=read_rows,
                             profile_index=index, filter_set=FILTER_SET, now=utcnow(),
                             max_age=DAY, ages=None)


def test_names_are_matched_exactly_and_shared_or_unknown_names_are_undecided():
    profiles = [{"id": 1, "main": {"platform": "Ethereum"}}, {"id": 2, "main": {"platform": ""}},
                {"id": 3, "main": {"platform": "ethereum"}}]
    answer = local({"platform": [1]}, profiles)
    assert answer.matched == (1,) and answer.undecided == (3,)
    assert local({"platform": [1]}, profiles[:2]).listing["id"].tolist() == [1]
    waves = [{"id": 4, "main": {"platform": "Waves"}}, {"id": 5, "main": {"platform": "Ethereum"}}]
    assert local({"platform": [2]}, waves).undecided == (4,)  # Waves is also id 3
    assert local({"platform": [2, 3]}, waves).listing["id"].tolist() == [4]
    assert local({"platform": [9]}, waves).undecided == (4, 5)  # an id without a name


def test_unreadable_values_are_undecided_and_missing_ones_are_out():
    profiles = [{"id": 1, "main": {"kyc": "maybe", "ico_score": "high", "location": ["x"]}},
                {"id": 2, "main": {"kyc": True, "ico_score": 4, "location": "Malta"}},
                {"id": 3, "main": {"kyc": "", "ico_score": "", "location": "TBA"}}]
    for query in ({"investor_kyc": "yes"}, {"ico_score": 3}, {"location": ["Malta"]}):
        answer = local(query, profiles)
        assert (answer.matched, answer.undecided) == ((2,), (1,)), query
        assert local(query, profiles[1:]).listing["id"].tolist() == [2]


def test_currency_spellings_and_several_tickers():
    profiles = [{"id": 1, "finance": {"accepting": ["ETH", "BTC"]}},
                {"id": 2, "finance": {"accepting": ["Ether"]}},
                {"id": 3, "finance": {"accepting": ["eth", "LTC"]}},
                {"id": 4, "finance": {"accepting": "BTC"}},
                {"id": 5, "finance": {"accepting": ""}}]
    assert local({"accepted_currencies": ["ETH"]}, profiles).undecided == (2, 3)
    both = local({"accepted_currencies": ["BTC", "ETH"]}, [profiles[0], profiles[3], profiles[4]])
    assert both.matched == (1,) and both.undecided == (4,)  # any or all: 4 accepts BTC only
    assert local({"accepted_currencies": ["BTC"], "sort_asc": "id"},
                 [profiles[0], profiles[3], profiles[4]]).listing["id"].tolist() == [1, 4]


def test_exclude_areas_decides_only_what_is_certainly_excluded():
    profiles = [{"id": 1, "main": {"location": "USA"}},
                {"id": 2, "finance": {"restricted_areas": ["Malta", "USA"]}}]
    answer = local({"exclude_areas": ["USA"]}, profiles)
    assert answer.answered and answer.listing.empty  # both certainly excluded
    assert local({"exclude_areas": ["Malta"]}, profiles).undecided == (1,)


def test_name_order_is_local_only_when_no_collation_could_change_it():
    profiles = [{"id": i, "main": {"name": n}} for i, n in
                enumerate(["Beta", "alpha", "Gamma"], start=1)]
    case = local({"sort_asc": "name"}, profiles)
    assert not case.answered and "collation" in case.reasons[0]
    plain = local({"sort_desc": "name"}, [{"id": 1, "main": {"name": "Beta"}},
                                          {"id": 2, "main": {"name": "Alpha"}}])
    assert plain.listing["id"].tolist() == [1, 2]
    accents = [{"id": 1, "main": {"name": "Éclair"}}, {"id": 2, "main": {"name": "Eclipse"}}]
    assert not local({"sort_asc": "name"}, accents).answered
    ties = [{"id": 1, "main": {"name": "Same"}}, {"id": 2, "main": {"name": "same"}}]
    assert not local({"sort_asc": "name"}, ties).answered


def test_equal_names_and_dates_sorted_locally_keep_the_cached_order_said():
    """Rows that truly tie (the same name, equal under every collation; the same date) keep
    the cached list's order in both directions, said; a row without the date is declined."""
    names = [{"id": i, "main": {"name": n}} for i, n in
             enumerate(["Beta", "Alpha", "Beta", "Gamma"], start=1)]
    for sort, ids in (("sort_asc", [2, 1, 3, 4]), ("sort_desc", [4, 1, 3, 2])):
        answer = local({sort: "name"}, names)
        assert answer.listing["id"].tolist() == ids and answer.order == "sorted locally by name"
        assert answer.unstated.startswith("the cached list's order among the 2 rows that tie "
                                          "on name (1 group(s) of the same one)")
    assert local({"sort_asc": "name"}, names[1:2] + names[3:]).unstated is None
    dates = [{"id": i, "dates": {"end_datetime": d}} for i, d in
             enumerate(["02.05.2018 10:00:00", "01.05.2018 10:00:00", "02.05.2018 10:00:00",
                        "01.05.2018 10:00:00", "03.05.2018 10:00:00"], start=1)]
    for sort, ids in (("sort_asc", [2, 4, 1, 3, 5]), ("sort_desc", [5, 1, 3, 2, 4])):
        answer = local({sort: "end_datetime"}, dates)
        assert answer.listing["id"].tolist() == ids
        assert answer.unstated.startswith("the cached list's order among the 4 rows that tie "
                                          "on end_datetime (2 group(s) of the same one)")
    undated = local({"sort_asc": "end_datetime"}, [*dates, {"id": 6, "dates": {}}])
    assert not undated.answered and "end_datetime: a row without it" in undated.reasons[0]


@pytest.mark.parametrize("names", [["Block chain", "Blockade"],  # glibc en_US: spaces ignored
                                   ["Ico_a", "Icob"],  # MySQL general_ci: '_' after letters
                                   ["Zeta 9", "Zeta 10"],  # ICU numeric: 9 before 10
                                   ["Block-chain", "Blockchain"]], ids=str)  # tie, spaces aside
def test_name_order_is_local_only_when_every_collation_agrees(names):
    profiles = [{"id": i, "main": {"name": n}} for i, n in enumerate(names, start=1)]
    for sort in ({"sort_asc": "name"}, {"sort_desc": "name"}):
        answer = local(sort, profiles)
        assert not answer.answered and "collation is not stated" in answer.reasons[0]
    plain = [{"id": 1, "main": {"name": "Zeta 1"}}, {"id": 2, "main": {"name": "Alpha 2"}},
             {"id": 3, "main": {"name": "Beta"}}]
    assert local({"sort_asc": "name"}, plain).listing["id"].tolist() == [2, 3, 1]


def test_a_score_the_list_does_not_show_and_a_qualified_flag_are_undecided():
    """The service may filter by the score its list shows: a profile scoring otherwise (or
    "NA") is undecided; a yes-flag read with a problem ("Yes (until 11 Sep)") too."""
    profiles = [{"id": 1, "main": {"ico_score": "NA"}}, {"id": 2, "main": {"ico_score": 4.0}}]
    superset, read_rows = hand_made(*profiles)
    shown = superset.listing.assign(ico_score=[4.0, 4.0])  # the list shows 4.0 for both
    index = pd.DataFrame({"status": "past", "state": "fetched", "fetched_at": utcnow(),
                          "summary": summary_keys(shown)}, index=pd.Index([1, 2], name="id"))
    answer = answer_from_cache({"status": "past", "ico_score": 3},
                               [CachedList(superset.params, shown, utcnow(), True)],
                               read_rows=read_rows, profile_index=index, filter_set=FILTER_SET,
                               now=utcnow(), max_age=DAY, ages=None)
    assert (answer.answered, answer.matched, answer.undecided) == (False, (2,), (1,))
    assert "not the score the list shows" in answer.reasons[0]
    assert local({"ico_score": 3}, profiles).listing["id"].tolist() == [2]  # the list agrees
    flags = [{"id": 1, "main": {"kyc": "Yes (until 11 Sep)"}}, {"id": 2, "main": {"kyc": True}}]
    qualified = local({"investor_kyc": "yes"}, flags)
    assert (qualified.matched, qualified.undecided) == ((2,), (1,))
    assert "read with a problem" in qualified.reasons[0]


def test_the_filter_set_of_a_cache_without_one_is_a_new_empty_frame_each_time(tmp_path):
    """One helper reads "the cached filter set, or an empty one" (READ-M L5): the dispute
    check, the narrower answer and the stale-copy check each wrote it, one as a shared
    functools.cache of a mutable frame, which a caller changing it changed for every other."""
    from icoframes.fetch.stalecopies import filter_frame
    from icoframes.schema import FILTERS
    from icoframes.store.cache import Cache

    cache = Cache(tmp_path, "http://127.0.0.1:9")
    first, second = filter_frame(cache), filter_frame(cache)
    assert first.empty and list(first.columns) == FILTERS.names
    assert first is not second
    first["name"] = "changed"  # (a caller's own frame: the next is still empty, unchanged)
    assert filter_frame(cache).empty and "changed" not in filter_frame(cache).to_string()
