"""Freshness: a daily ``refresh=True`` against a daily re-crawl, over simulated days.

A sandbox of 6,000 ICOs (5,500 past, 200 ongoing, 300 upcoming: issue 11) is
loaded cold on day 0, then refreshed at the same hour each day, the clock moved
with ``time_machine``, after the directory shifted as a real one does: ICOs
past their dates change status, a few ongoing end early, ``raised`` grows
(a median sale raises $15.07M over 39.5 days, ``/work/shared/notes/ico-figures.md``;
the share reporting each day is an assumption), a few are rescored, a few new
ones are listed. Every day is checked (one row per listed ICO, each change
visible, no profile past its ``profile_max_age``, exactly the profiles the
policy calls for fetched), so a wrong result raises instead of giving numbers.
Then the clock jumps to day 91, when the cold load's past profiles expire
together. Run alone with ``python -m benchmarks --only freshness``.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import StaleWarning
from icoframes.fetch.policy import PROFILE_MAX_AGE, due_after
from icoframes.sandbox import PAGE_SIZE, REFERENCE_DATE, Directory
from icoframes.sandbox.generate import generate_records
from icoframes.store.cache import Cache

from .common import Target, fresh_cache, log, requests_by_endpoint, spent_since, table, timed
from .projection import project, projected, projection_text

__all__ = ["FULL", "QUICK", "Config", "build_directory", "markdown", "notes", "run", "targets"]

DAILY_QUOTA = 5000
STATUSES = ("ongoing", "upcoming", "past")
# The daily run starts at this hour (UTC); day 0 is the sandbox's reference date.
_DAY_ZERO = REFERENCE_DATE.replace(hour=6, tzinfo=dt.UTC)
# A median sale raises $15.07M over 39.5 days (figures): the median day's inflow.
_DAILY_INFLOW_USD = 15.07e6 / 39.5
# A profile this close to its age limit when the day's load starts may go either way
# (the crawl reads the clock a moment later); outside it the policy's choice is certain.
_EDGE = dt.timedelta(minutes=1)


@dataclass(frozen=True)
class Config:
    n_past: int = 5500
    n_ongoing: int = 200
    n_upcoming: int = 300
    days: int = 30
    seed: int = 11
    raised_share: float = 0.3  # ongoing ICOs that report a new amount raised on a given day
    ended_early: int = 1  # ongoing ICOs a day that end before their end date
    rescored: int = 3  # ongoing or upcoming ICOs a day whose score changes
    new_icos: tuple[tuple[str, int], ...] = (("upcoming", 2), ("ongoing", 1))  # a day
    cliff_day: int | None = 91  # the day after the past profiles' 90-day limit; None: skip
    # fetch the cliff day's profiles too (about a cold load's time), after reading what the
    # policy calls for with budget=0; the quick run does, to check the two agree
    cliff_fetch: bool = False


# 8 days cross the upcoming profiles' 7-day limit once (the worst day of a 30-day run
# too); a day costs 5-10 s of client CPU at this size, so 30 days take about 5 minutes
FULL = Config(days=8)
QUICK = Config(n_past=250, n_ongoing=20, n_upcoming=30, days=3, cliff_fetch=True)


def build_directory(config: Config) -> Directory:
    """A directory with exactly the configured number of ICOs per status.

    ``generate_directory`` draws statuses at fixed shares (75% past, 10%
    ongoing, 15% upcoming); this draws enough records with the same seeded
    generator and keeps the first ones of each status, so every record is as
    generated (dates, messy shapes) and ICOs added later continue the draws.
    """
    wanted = {"past": config.n_past, "ongoing": config.n_ongoing,
              "upcoming": config.n_upcoming}
    n = math.ceil(sum(wanted.values()) * 1.25)  # enough for the usual mix in one draw
    while True:
        records, new_record = generate_records(n, config.seed)
        counts = Counter(r.status for r in records)
        if all(counts[s] >= k for s, k in wanted.items()):
            break
        n = math.ceil(n * 1.25)
    kept, taken = [], Counter()
    for record in records:
        if taken[record.status] < wanted[record.status]:
            taken[record.status] += 1
            kept.append(record)
    return Directory(kept, new_record=new_record)


def _recrawl_cost(directory: Directory) -> dict[str, int]:
    """Requests of ``refresh="all"`` over every status: all list pages, all profiles."""
    sizes = [len(directory.ids(s)) for s in STATUSES]
    return {"icos": sum(math.ceil(n / PAGE_SIZE) for n in sizes), "ico": sum(sizes)}


def _shift(sb: sandbox.Sandbox, rng: random.Random, config: Config
           ) -> tuple[dict[int, dict[str, Any]], Counter]:
    """One day's changes to the directory: what each changed ICO should now show, and counts."""
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)  # naive, as records
    expected: dict[int, dict[str, Any]] = {}
    counts: Counter = Counter()

    def change(ico_id: int, kind: str, **values: Any) -> None:
        sb.update_ico(ico_id, **values)
        expected.setdefault(ico_id, {}).update(values)
        counts[kind] += 1

    for record in sb.directory.records("ongoing"):
        if record.end is not None and record.end <= now:
            change(record.id, "ended", status="past")
    for record in sb.directory.records("upcoming"):
        if record.start is not None and record.start <= now:
            change(record.id, "started", status="ongoing")
    ongoing = [r for r in sb.directory.records("ongoing") if r.id not in expected]
    for record in rng.sample(ongoing, min(config.ended_early, len(ongoing))):
        change(record.id, "ended early", status="past", end=now)
    for record in sb.directory.records("ongoing"):
        if rng.random() < config.raised_share:
            inflow = round(_DAILY_INFLOW_USD * rng.lognormvariate(0.0, 0.8), -3)
            change(record.id, "raised grew", raised=int((record.raised or 0) + max(inflow, 1000)))
    open_icos = sb.directory.records("ongoing") + sb.directory.records("upcoming")
    for record in rng.sample(open_icos, min(config.rescored, len(open_icos))):
        old = record.score if record.score is not None else 2.9  # the median score
        step = rng.choice((0.1, 0.2, 0.3))
        new = round(old + step, 1) if old + step <= 5.0 else round(old - step, 1)
        change(record.id, "rescored", ico_score=new)
    for status, k in config.new_icos:
        for _ in range(k):
            ico_id = sb.add_ico(status)
            expected[ico_id] = {"status": status, "new": True}
            counts["new"] += 1
    return expected, counts


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(f"freshness benchmark: {message}")


def _fetch_times(frame: pd.DataFrame, label: str) -> pd.Series:
    """When each listed ICO's profile was last fetched, as the policy reads it (UTC).

    From the cache's profile index; where the frame carries the ``fetched_at``
    column (issue 11), it must say the same.
    """
    settings = icoframes.get_settings()
    index = Cache(settings.cache_dir, settings.base_url).profile_index()
    fetched = pd.to_datetime(index["fetched_at"], utc=True).reindex(frame["id"])
    _require(bool(fetched.notna().all()), f"{label}: listed ICOs without a cached profile")
    if "fetched_at" in frame:
        column = pd.to_datetime(frame.set_index("id")["fetched_at"], utc=True)
        _require(bool((column == fetched).all()),
                 f"{label}: the fetched_at column disagrees with the cache")
    return fetched


def _check(frame: pd.DataFrame, sb: sandbox.Sandbox, expected: dict[int, dict[str, Any]],
           started: dt.datetime, fetched: pd.Series, label: str, *, within_age: bool = True
           ) -> dict[str, float]:
    """Raise unless ``frame`` is the directory now; the oldest profile per status, in days.

    ``within_age``: every profile is also at most its status's maximum age old.
    """
    truth = {r.id: r for r in sb.directory.records()}
    _require(frame["id"].is_unique and len(frame) == len(truth)
             and set(frame["id"]) == set(truth),
             f"{label}: {len(frame)} rows for {len(truth)} listed ICOs")
    info = frame.attrs["icoframes"]
    _require(info["complete"] and not info["missing"],
             f"{label}: the load says it is incomplete: {info['missing']}")
    rows = frame.set_index("id")
    listed = pd.Series({i: r.status for i, r in truth.items()})
    wrong = rows["status"].astype(object) != listed.reindex(rows.index)
    _require(not wrong.any(), f"{label}: {int(wrong.sum())} rows under an old status, e.g. "
             f"{list(rows.index[wrong][:3])}")
    for ico_id, values in expected.items():
        row = rows.loc[ico_id]
        for key, column in (("raised", "raised"), ("ico_score", "ico_score"),
                            ("end", "end_datetime")):
            if key in values:
                want = pd.Timestamp(values[key]) if key == "end" else values[key]
                _require(row[column] == want,
                         f"{label}: ICO {ico_id} {column} {row[column]}, expected {want}")
        _require(fetched[ico_id] >= pd.Timestamp(started),
                 f"{label}: changed ICO {ico_id} was not fetched again")
    # the crawl reads its clock after `started`: a profile it kept is at most its limit
    # old by its clock, so by `started` too
    age = pd.Timestamp(started) - fetched
    oldest = {}
    for status in STATUSES:
        of_status = age[(rows["status"] == status).to_numpy()]
        limit = PROFILE_MAX_AGE[status]
        _require(not within_age or bool((of_status <= limit).all()),
                 f"{label}: {status} profiles older than {limit}: {of_status.max()}")
        oldest[status] = max(of_status.max().total_seconds() / 86400, 0.0) if len(
            of_status) else 0.0
    return oldest


def _due(before: pd.Series | None, status: pd.Series, expected: dict[int, dict[str, Any]],
         started: dt.datetime) -> tuple[set[int], set[int]]:
    """The profiles a load starting at ``started`` must fetch, and those it may fetch.

    New and changed ICOs, and profiles past the age at which the policy has them
    fall due (:func:`~icoframes.fetch.policy.due_after`: between half and all of
    their status's limit) by more than :data:`_EDGE`, must be; those within
    :data:`_EDGE` of it may be.
    """
    if before is None:  # a cold load: every profile is new
        return set(status.index), set(status.index)
    age = pd.Timestamp(started) - before
    limit = pd.to_timedelta(status.reindex(age.index).map(dict(PROFILE_MAX_AGE)))
    kept = limit.notna()
    age, limit = age[kept], limit[kept]
    # the policy's own point per id (between half and all of the limit, less some slack)
    due = pd.to_timedelta(due_after(age.index.to_numpy(dtype="int64"),
                                    limit.dt.total_seconds().to_numpy()), unit="s")
    due = pd.Series(due, index=age.index)
    return (set(expected) | set(age.index[age > due + _EDGE]),
            set(expected) | set(age.index[age > due - _EDGE]))


def _fetched_by_reason(before: pd.Series | None, frame: pd.DataFrame,
                       hits: Counter, expected: dict[int, dict[str, Any]],
                       started: dt.datetime, label: str) -> Counter:
    """Why each profile request of the day was made; raises for one the policy did not call for.

    Every profile of a new or changed ICO must be fetched, and every profile
    past its due age (``before``: the fetch times before the
    load); no other. A profile within a minute of its limit may go either way
    (the crawl reads the clock a moment after ``started``).
    """
    fetched = {i for i, n in hits.items() if n}
    _require(all(n == 1 for n in hits.values() if n),
             f"{label}: a profile was fetched twice in one load")
    status = frame.set_index("id")["status"].astype(object)
    must, due = _due(before, status, expected, started)
    _require(must <= fetched, f"{label}: due profiles not fetched: {sorted(must - fetched)[:5]}")
    _require(fetched <= due, f"{label}: profiles fetched without a reason: "
             f"{sorted(fetched - due)[:5]}")
    reasons: Counter = Counter()
    for ico_id in fetched:
        if expected.get(ico_id, {}).get("new"):
            reasons["new"] += 1
        elif ico_id in expected:
            reasons["changed"] += 1
        else:
            reasons[f"stale {status[ico_id]}"] += 1
    return reasons


def _load(sb: sandbox.Sandbox, label: str, before: pd.Series | None,
          expected: dict[int, dict[str, Any]], *, demand_only: bool = False, **kwargs: Any
          ) -> tuple[pd.Series, dict[str, Any]]:
    """One ``load_icos`` call, checked; the fetch times after it, and the day's figures.

    ``demand_only``: load with ``budget=0`` and count the profiles the policy
    calls for (``attrs["icoframes"]["not_refreshed"]``) as if fetched.
    """
    recrawl = _recrawl_cost(sb.directory)
    hits_before = sb.stats.profile_hits
    counts = requests_by_endpoint(sb)
    started = dt.datetime.now(dt.UTC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if demand_only else "error", StaleWarning)
        seconds, frame = timed(icoframes.load_icos, progress=False,
                               budget=0 if demand_only else None, **kwargs)
    spent = spent_since(sb, counts)
    hits = sb.stats.profile_hits
    hits.subtract(hits_before)
    said = frame.attrs["icoframes"]["requests"]
    _require(all(said.get(k, 0) == n for k, n in spent.items()),
             f"{label}: attrs['icoframes']['requests'] {said} disagrees with the sandbox "
             f"{spent}")
    _require(spent["icos"] == recrawl["icos"],
             f"{label}: {spent['icos']} list pages, expected {recrawl['icos']}")
    if demand_only:
        _require(spent["ico"] == 0, f"{label}: budget=0 fetched {spent['ico']} profiles")
        hits = Counter(frame.attrs["icoframes"]["not_refreshed"])
        spent = {**spent, "ico": len(hits)}
    fetched = _fetch_times(frame, label)
    oldest = _check(frame, sb, expected, started, fetched, label, within_age=not demand_only)
    reasons = _fetched_by_reason(before, frame, hits, expected, started, label)
    total = sum(spent.values())
    day = {"label": label, "date": started.date(), "listed": dict(Counter(frame["status"])),
           "spent": spent, "total": total, "recrawl": sum(recrawl.values()),
           "reasons": reasons, "oldest": oldest, "seconds": seconds,
           "called_for": sorted(hits.elements()), "demand_only": demand_only}
    log(f"freshness {label}: {total} requests ({spent['icos']} pages + {spent['ico']} "
        f"profiles), re-crawl {day['recrawl']}")
    return fetched, day


def run(config: Config = FULL) -> dict[str, Any]:
    """Day 0 cold, ``config.days`` daily refreshes, then the day the past profiles expire."""
    rng = random.Random(config.seed)
    days: list[dict[str, Any]] = []
    directory = build_directory(config)
    n_icos = len(directory)
    with sandbox.serve(directory=directory, quota=None) as sb, \
            fresh_cache(sb, daily_quota=10 * n_icos):
        # daily_quota: the cold load of day 0 alone is over 5,000; the sandbox has no limit
        with time_machine.travel(_DAY_ZERO, tick=True):
            fetched, cold = _load(sb, "day 0 (cold)", None, {})
            _require(cold["spent"]["ico"] == n_icos, "the cold load did not fetch every profile")
        for number in range(1, config.days + 1):
            with time_machine.travel(_DAY_ZERO + dt.timedelta(days=number), tick=True):
                expected, counts = _shift(sb, rng, config)
                fetched, day = _load(sb, f"day {number}", fetched, expected, refresh=True)
            day["changes"] = counts
            day["changed"] = sum(1 for values in expected.values() if not values.get("new"))
            days.append(day)
        status = pd.Series({r.id: r.status for r in sb.directory.records()})
        last = (config.cliff_day or 91) + 9
        projection = project(fetched, status, _DAY_ZERO, range(config.days + 1, last + 1))
        cliff = None
        if config.cliff_day is not None:
            with time_machine.travel(_DAY_ZERO + dt.timedelta(days=config.cliff_day),
                                     tick=True):
                label = f"day {config.cliff_day}"
                _, cliff = _load(sb, label, fetched, {}, demand_only=True, refresh=True)
            if config.cliff_fetch:
                _check_cliff_fetch(sb, config, fetched, cliff)
    return {"config": config, "cold": cold, "days": days, "cliff": cliff,
            "n_icos": n_icos, "projection": projection}


def _check_cliff_fetch(sb: sandbox.Sandbox, config: Config, before: pd.Series,
                       cliff: dict[str, Any]) -> None:
    """Fetch what ``budget=0`` said the cliff day calls for; raise unless the two agree.

    Both loads start at the same instant of the travelled clock; only profiles
    within :data:`_EDGE` of their limit may differ, as the crawl reads its clock
    a moment after the load starts.
    """
    assert config.cliff_day is not None
    label = f"day {config.cliff_day}"
    with time_machine.travel(_DAY_ZERO + dt.timedelta(days=config.cliff_day), tick=True):
        started = dt.datetime.now(dt.UTC)
        _, done = _load(sb, f"{label}, fetched", before, {}, refresh=True)
    status = pd.Series({r.id: r.status for r in sb.directory.records()})
    must, due = _due(before, status, {}, started)
    differ = set(done["called_for"]) ^ set(cliff["called_for"])
    _require(differ <= due - must,
             f"{label}: refresh=True fetched {done['spent']['ico']} profiles, budget=0 "
             f"called for {cliff['spent']['ico']}; {sorted(differ)[:5]} differ")
    cliff["fetched"], cliff["at_the_edge"] = done, len(differ)


def _ratio(day: dict[str, Any]) -> float:
    return day["total"] / day["recrawl"]


def _share(value: float) -> str:
    return f"1/{1 / value:.1f}" if value else "0"


def _mean_ratio(days: list[dict[str, Any]]) -> float:
    return sum(d["total"] for d in days) / sum(d["recrawl"] for d in days)


def _reasons(day: dict[str, Any]) -> str:
    r = day["reasons"]
    parts = [f"{r[k]} {k}" for k in ("new", "changed", "stale ongoing", "stale upcoming",
                                      "stale past") if r.get(k)]
    return ", ".join(parts) or "none"


def _day_row(day: dict[str, Any], label: str | None = None) -> list[Any]:
    counts = day.get("changes", Counter())
    changed = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "—"
    oldest = ("— (stale rows kept)" if day["demand_only"]
              else " / ".join(f"{day['oldest'][s]:.1f}" for s in STATUSES))
    return [label or day["label"], changed, day["spent"]["icos"], day["spent"]["ico"],
            _reasons(day), f"{day['total']:,}", f"{day['recrawl']:,}",
            _share(_ratio(day)), oldest, f"{day['seconds']:.1f} s"]


def markdown(result: dict[str, Any]) -> str:
    config, cold, days, cliff = (result["config"], result["cold"], result["days"],
                                 result["cliff"])
    listed = cold["listed"]
    intro = (
        f"A sandbox of {result['n_icos']:,} ICOs ({listed.get('past', 0):,} past, "
        f"{listed.get('ongoing', 0)} ongoing, {listed.get('upcoming', 0)} upcoming), loaded "
        f"cold with `load_icos()` on day 0 ({cold['date']} 06:00 UTC, the sandbox's "
        f"reference date), then with `load_icos(refresh=True)` at 06:00 on days 1–"
        f"{config.days} (clock moved by `time_machine`), each after the day's changes: "
        "ICOs past their end or start date listed as past or ongoing, "
        f"{config.ended_early} ongoing ending early, `raised` growing for "
        f"{config.raised_share:.0%} of the ongoing, {config.rescored} rescored, "
        f"{sum(k for _, k in config.new_icos)} new. Requests are counted by the sandbox "
        "(equal to `attrs[\"icoframes\"][\"requests\"]`); **re-crawl** is what "
        "`refresh=\"all\"` costs that day (every list page and profile, as on day 0). "
        "Each day is checked before it is reported: one row per listed ICO under its listed "
        "status, each change visible, no profile older than its status's `profile_max_age` "
        "(1 / 7 / 90 days), exactly the profiles the policy calls for fetched. Load times "
        "are single runs at 0 ms latency, for scale only.")
    rows = [[cold["label"], "—", cold["spent"]["icos"], cold["spent"]["ico"], "all (new)",
             f"{cold['total']:,}", f"{cold['recrawl']:,}", _share(_ratio(cold)), "—",
             f"{cold['seconds']:.1f} s"]]
    rows += [_day_row(day) for day in days]
    if cliff is not None:
        rows.append(_day_row(cliff, f"{cliff['label']}, called for (see below)"))
    totals = [d["total"] for d in days]
    summary = [
        ["requests a day: mean (min–max)",
         f"{sum(totals) / len(totals):,.0f} ({min(totals):,}–{max(totals):,})"],
        ["of which list pages: mean", f"{sum(d['spent']['icos'] for d in days) / len(days):,.0f}"],
        ["re-crawl a day: mean", f"{sum(d['recrawl'] for d in days) / len(days):,.0f}"],
        ["all days ÷ re-crawl", _share(_mean_ratio(days))],
        ["worst day ÷ re-crawl", _share(max(_ratio(d) for d in days))],
    ]
    text = (intro + "\n\n" + table(
        ["day", "changes", "list pages", "profiles", "profiles: why", "total", "re-crawl",
         "total ÷ re-crawl", "oldest profile (days): ongoing / upcoming / past", "load time"],
        rows, align=["l", "l", "r", "r", "l", "r", "r", "r", "r", "r"])
        + f"\n\nDays 1–{config.days}:\n\n" + table(["", "value"], summary, align=["l", "r"]))
    text += "\n\n" + projection_text(result)
    if cliff is None:
        return text
    text += (f"\n\n**{cliff['label']}**: the clock jumps there from day {config.days}, no "
             "load between; the cold load's past profiles are 90 days old. The row is what "
             "`refresh=True` calls for, from a `load_icos(refresh=True, budget=0)`: its list "
             "pages, and the stale profiles it leaves in `attrs[\"icoframes\"]"
             "[\"not_refreshed\"]`")
    if "fetched" not in cliff:
        return text + ("; the quick run (`--quick`) also fetches them, and checks that a "
                       "`refresh=True` fetches the profiles `budget=0` reports.")
    done, edge = cliff["fetched"], cliff["at_the_edge"]
    return text + (f"; a `refresh=True` at the same instant then fetched "
                   f"{done['spent']['ico']:,} profiles ({done['total']:,} requests), the "
                   "same ones" + (f" but for {edge} within a minute of its age limit"
                                  if edge else "") + ".")


def targets(result: dict[str, Any]) -> list[Target]:
    days = result["days"]
    worst = max(days, key=_ratio)
    heaviest = max(days, key=lambda d: d["total"])
    span = f"days 1–{len(days)}"
    out = [
        Target("freshness", "daily refresh=True < 1/5 of a daily re-crawl (worst day)",
               f"{_share(_ratio(worst))} ({worst['total']:,} of {worst['recrawl']:,} "
               f"requests, {worst['label']})", _ratio(worst) < 0.2),
        Target("freshness", "daily refresh=True < 1/5 of a daily re-crawl (mean)",
               f"{_share(_mean_ratio(days))} over {span}", _mean_ratio(days) < 0.2),
        Target("freshness", f"worst day within the {DAILY_QUOTA:,} daily quota",
               f"{heaviest['total']:,} requests ({heaviest['label']})",
               heaviest["total"] <= DAILY_QUOTA),
    ]
    pages, (day, profiles), span = projected(result)
    out.append(Target(
        "freshness", f"daily runs until the past profiles' 90 days are over ({span}, "
        f"projected for age alone): worst day within the {DAILY_QUOTA:,} daily quota",
        f"{pages + profiles:,} requests (day {day}: {profiles:,} profiles + about "
        f"{pages:,} list pages)", pages + profiles <= DAILY_QUOTA))
    return out


def notes(result: dict[str, Any]) -> list[str]:
    days, cold, cliff = result["days"], result["cold"], result["cliff"]
    out = []
    if cold["total"] > DAILY_QUOTA:
        out.append(f"Freshness: the cold load of day 0 takes {cold['total']:,} requests, "
                   f"over the {DAILY_QUOTA:,} daily quota: a first load of this directory "
                   "spans two quota days (the benchmark raises `daily_quota`).")
    upcoming = [d for d in days
                if d["reasons"].get("stale upcoming", 0) > d["listed"].get("upcoming", 0) / 2]
    if upcoming:
        out.append(
            "Freshness: the cold load's upcoming profiles went stale together, on "
            f"{upcoming[0]['label']} (not day 7, for the same reason): "
            f"{upcoming[0]['reasons']['stale upcoming']:,} profiles that day.")
    if cliff is not None and cliff["total"] > DAILY_QUOTA:
        out.append(
            f"Freshness: a `refresh=True` that comes only on {cliff['label']}, with no run "
            "since the cold load's past profiles were fetched, calls for every one of them: "
            f"{cliff['total']:,} requests, over the {DAILY_QUOTA:,} daily quota; under it the "
            "load stops with QuotaExceeded (what it fetched is cached, the next day resumes) "
            "unless given a `budget=`. Daily runs spread the same profiles over the days "
            "from half their limit on (projection above).")
    return out
