"""What a load says of its order, of a clock behind its cache, of lists declined offline, and
of ages: each where the user looks (the printed report, a warning), not only in attributes.

- A frame sorted by a date whose rows show dates out of that order (a copy older than the
  list just paged) warns, and its report's views show the order it has.
- An unsorted answer from the cache shows its order (the cached list's) in the views.
- A clock stepped back after a load: the lists it cached are dated after now. They are
  paged again (as copies dated after now are fetched again), said as such, with a warning.
- An offline load without a status whose other statuses' cached lists were declined says
  why, not "not in the cache".
- The ages in decline reasons print in one style however they were given.

Real sandbox over loopback; the clock stopped and moved by hand (time-machine); requests
are the sandbox's counts.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pytest
import time_machine

import icoframes
from icoframes import sandbox

T0 = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)
PAST = {"status": "past", "progress": False}


@pytest.fixture
def sb(tmp_path):
    with sandbox.serve(n_icos=150, seed=2) as own:  # mutated below: not shared
        icoframes.configure(**own.settings(), cache_dir=tmp_path / "cache")
        yield own
    icoframes.reset_configuration()


def _spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("icos", "ico")}


def test_a_frame_not_sorted_by_the_dates_it_shows_says_so_in_its_views(sb):
    """The service moves the earliest end after the past profiles were cached; the sorted
    list paged then puts it last while its copy shows the old end first. The frame warns
    says it (order_unstated, naming refresh='all'; no warning) and both views show the order;
    the rows are not re-sorted (the service's order stands). Main: no warning, "complete"
    and nothing about order in either view."""
    with time_machine.travel(T0, tick=False) as clock:
        icos = icoframes.load_icos(**PAST)
        first = int(icos.dropna(subset=["end_datetime"]).sort_values("end_datetime")["id"].iloc[0])
        sb.update_ico(first, end=dt.datetime(2026, 1, 1))
        clock.shift(dt.timedelta(minutes=5))
        before = _spent(sb)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tables = icoframes.load_tables(**PAST, sort_asc="end_datetime")
    assert not [w for w in caught if isinstance(w.message, icoframes.StaleWarning)]  # said only
    assert "refresh='all'" in str(tables.report.queries[0].order_unstated)
    assert _spent(sb)["ico"] == before["ico"]  # the stale copy is kept, as the policy says
    assert _spent(sb)["icos"] > before["icos"]  # the sorted list was paged
    assert not tables.icos["end_datetime"].dropna().is_monotonic_increasing  # not re-sorted
    assert "not sorted by the end_datetime they show" in str(tables.report.queries[0]
                                                             .order_unstated)
    text, page = repr(tables), tables._repr_html_()
    # what it means and what to do, within the line's width
    assert ("    order: the rows are not sorted by the end_datetime they show: a date moved "
            "since the list or a copy was fetched (refresh='all' fetches both again)") in text
    assert "order of sort_asc=end_datetime, status=past: the rows are not sorted" in page
    assert "order: the rows are not sorted" in repr(tables.report)


def test_an_unsorted_answer_from_the_cache_shows_its_order_in_the_view(sb):
    """After the past superset, a narrower unsorted query is answered at 0 requests in the
    cached list's order: the report's views say so (main: only the attribute did)."""
    with time_machine.travel(T0, tick=False):
        icos = icoframes.load_icos(**PAST)
        icoframes.load_filters()
        before = _spent(sb)
        tables = icoframes.load_tables(**PAST, category=str(icos["category"].dropna().iloc[0])
                                       .split(",")[0].strip())
    assert _spent(sb) == before
    assert tables.report.queries[0].answered_from
    assert "    order: the cached list's order: the service's default order is not stated" \
        in repr(tables)
    assert "order of " in tables._repr_html_()


def test_a_clock_stepped_back_is_said_and_warned_not_taken_for_an_old_list(sb):
    """The past superset cached at T0, the clock stepped back an hour: the narrower query
    is paged (a list dated after now never pins an old one), its reason says the list is
    dated after now, and a CacheWarning says so. Main: silent, "younger than max_age"."""
    with time_machine.travel(T0, tick=False) as clock:
        icos = icoframes.load_icos(**PAST)
        score = int(icos["ico_score"].dropna().iloc[0])
        clock.move_to(T0 - dt.timedelta(hours=1))
        before = _spent(sb)
        with pytest.warns(icoframes.CacheWarning, match=r"is paged again: the cached list "
                          r"\{'status': 'past'\} is dated after now: paged at 2026-11-02T12:00"
                          r".*0 days 01:00:00 after this machine's clock"):
            narrower = icoframes.load_icos(**PAST, ico_score=score)
    assert _spent(sb)["icos"] > before["icos"]
    declined = icoframes.report(narrower).queries[0].cache_declined
    assert any("dated after now" in why for why in declined)
    assert not any("younger than max_age" in why for why in declined)


def test_an_offline_load_without_a_status_says_why_a_cached_list_was_declined(sb):
    """Every status cached, then the past query with exclude_areas paged: offline without a
    status, the past rows come from its own list and the other statuses' cached lists are
    declined (exclude_areas is never judged locally). The warning says why (main: "not in
    the cache", though they are)."""
    with time_machine.travel(T0, tick=False):
        icos = icoframes.load_icos(progress=False)
        area = str(icos["location"].dropna().iloc[0])
        icoframes.load_icos(**PAST, exclude_areas=area)
        before = _spent(sb)
        with pytest.warns(icoframes.IncompleteWarning) as caught:
            icoframes.load_icos(exclude_areas=area, offline=True, progress=False)
    assert _spent(sb) == before
    said = " ".join(str(w.message) for w in caught)
    assert "'status': 'ongoing'} not answered from the cache: the cached list " in said
    assert "not in the cache" not in said


def test_ages_in_decline_reasons_print_in_one_style(sb):
    """The default profile_max_age (a datetime.timedelta) and one given as text (a pandas
    Timedelta) print alike: "90 days 00:00:00", "0 days 01:00:00" (main: "90 days, 0:00:00")."""
    with time_machine.travel(T0, tick=False) as clock:
        icos = icoframes.load_icos(**PAST)
        scores = icos["ico_score"].dropna().astype(int).value_counts().index[:2].tolist()
        clock.move_to(T0 + dt.timedelta(hours=2))
        given = icoframes.load_icos(**PAST, ico_score=scores[1], profile_max_age="1h")
        clock.move_to(T0 + dt.timedelta(days=91))
        default = icoframes.load_icos(**PAST, ico_score=scores[0], max_age=None)
    reasons = [" ".join(icoframes.report(df).queries[0].cache_declined)
               for df in (default, given)]
    assert "older than profile_max_age (90 days 00:00:00 for past)" in reasons[0]
    assert "older than profile_max_age (0 days 01:00:00 for past)" in reasons[1]


def _profiles_show(sb, monkeypatch, shown: dict[int, str]) -> None:
    """The profiles of ``shown``'s ids write their end as given (the list sorts by its own)."""
    profile = sb.directory.profile

    def showing(ico_id: int) -> dict:
        data = profile(ico_id)
        return ({**data, "dates": {**data["dates"], "end_datetime": shown[ico_id]}}
                if ico_id in shown else data)

    monkeypatch.setattr(sb.directory, "profile", showing)


def _ongoing_by_end(sb) -> list:
    return sorted((r for r in sb.directory.records("ongoing") if r.end is not None),
                  key=lambda r: (r.end, r.id))


ONGOING = {"status": "ongoing", "sort_asc": "end_datetime", "progress": False}


def test_an_end_written_as_a_date_only_is_said_not_warned(sb, monkeypatch):
    """Two sales end the same day, 09:00 and 18:00; the 18:00 one's profile writes its end as
    a date only (read 00:00). Nothing moved: a cold load and refresh='all' give no
    StaleWarning (warnings as errors, the frame comes back), and the order is said: the
    service sorts by a date the profiles show less exactly. Before: every call warned,
    the cold one too, and advised refresh='all'."""
    ongoing = _ongoing_by_end(sb)
    late, early = ongoing[3].id, ongoing[4].id
    day = dt.datetime(2027, 3, 15)
    sb.update_ico(late, end=day + dt.timedelta(hours=18))
    sb.update_ico(early, end=day + dt.timedelta(hours=9))
    _profiles_show(sb, monkeypatch, {late: "15.03.2027"})
    with time_machine.travel(T0, tick=False), warnings.catch_warnings():
        warnings.simplefilter("error", icoframes.IcoframesWarning)
        cold = icoframes.load_icos(**ONGOING)
        again = icoframes.load_icos(**ONGOING, refresh="all")
    for frame in (cold, again):
        assert not frame["end_datetime"].dropna().is_monotonic_increasing  # not re-sorted
        said = icoframes.report(frame).queries[0].order_unstated
        assert "the service sorts by a date the profiles do not show" in str(said)
        assert "refresh='all'" not in str(said)


def test_a_list_sorted_by_another_end_than_shown_is_said_not_warned(sb, monkeypatch):
    """The earliest-ending sale's profile shows its stage's end, after a sale listed later
    (the service sorts by another end): a cold load and refresh='all' give the frame under
    warnings as errors, the order said. Before: a StaleWarning on each, advising refresh='all'
    (which brought the same)."""
    ongoing = _ongoing_by_end(sb)
    stage_end = ongoing[len(ongoing) // 2].end + dt.timedelta(days=1)
    _profiles_show(sb, monkeypatch, {ongoing[0].id: stage_end.strftime("%d.%m.%Y %H:%M:%S")})
    with time_machine.travel(T0, tick=False), warnings.catch_warnings():
        warnings.simplefilter("error", icoframes.IcoframesWarning)
        frames = [icoframes.load_icos(**ONGOING), icoframes.load_icos(**ONGOING, refresh="all")]
    assert all("the service sorts by a date" in str(icoframes.report(f).queries[0].order_unstated)
               for f in frames)


def test_a_clock_stepped_back_warns_once_per_load_and_promises_only_what_is_true(sb):
    """Every status cached at T0, the clock stepped back an hour: a load without a status
    pages its three lists and warns once, naming them; the text says profile copies may be
    fetched again and does not tell a right clock to be set right (the host that paged may
    have run ahead). Before: three CacheWarnings, "are fetched again", "set this machine's
    clock right"."""
    with time_machine.travel(T0, tick=False) as clock:
        icoframes.load_icos(progress=False)
        clock.move_to(T0 - dt.timedelta(hours=1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            icoframes.load_icos(progress=False)
    said = [str(w.message) for w in caught if isinstance(w.message, icoframes.CacheWarning)]
    assert len(said) == 1, said
    assert all(f"'status': '{status}'" in said[0] for status in ("past", "ongoing", "upcoming"))
    assert "may be fetched again" in said[0] and "are fetched again" not in said[0]
    assert "set this machine's clock right" not in said[0]
    assert "the host that paged it ran ahead" in said[0]


def test_the_warning_tree_says_the_new_meanings():
    """The tree atop icoframes.errors says what a CacheWarning and a StaleWarning now mean."""
    tree = icoframes.errors.__doc__ or ""
    assert "or a cached list dated after now (a clock stepped back): paged again" in tree


def test_a_list_paged_under_a_second_ahead_is_paged_again_unwarned():
    """Two processes of one host read their clocks apart by milliseconds (a test's moved
    clock in a child): a list a peer paged 2 ms "after now" is declined as before, with a
    reason that says so, and no CacheWarning (it is not a clock stepped back)."""
    from icoframes.fetch.listclock import AFTER_NOW, after_now, warn_after_now

    now = dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC)
    near = after_now("the cached list {'status': 'past'}", now + dt.timedelta(milliseconds=2), now)
    far = after_now("the cached list {'status': 'past'}", now + dt.timedelta(seconds=2), now)
    assert AFTER_NOW not in near and "clocks read apart by under a second" in near
    assert AFTER_NOW in far
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_after_now([({"status": "past"}, [near])])  # nothing said
    with pytest.warns(icoframes.CacheWarning, match="dated after now"):
        warn_after_now([({"status": "past"}, [far])])
