"""Smoke test of the benchmark suite: tiny runs, checked for structure and request counts.

Never for times: the numbers belong in benchmarks/RESULTS.md, not in assertions.
"""

from __future__ import annotations

import datetime as dt
import math
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from icoframes.errors import IcoframesWarning

# benchmarks/ is a top-level folder, not part of the installed package, and
# `pytest` (unlike `python -m pytest`) does not put the repository root on sys.path
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_crawl, bench_quota  # noqa: E402
from benchmarks.__main__ import Section, carried_over, render  # noqa: E402
from benchmarks.common import Target  # noqa: E402


def test_crawl_runs_every_plan_with_equal_request_counts():
    config = bench_crawl.Config(n_icos=30, seed=3, plans=(
        bench_crawl.Plan(0.0, (1, 4), repeats=2, baseline_repeats=1),
        bench_crawl.Plan(bench_crawl.TARGET_LATENCY, (8,), repeats=1, baseline_repeats=1),
    ))
    result = bench_crawl.run(config)
    rows = result["rows"]
    assert [(r["latency_s"], r["who"]) for r in rows] == [
        (0.0, "baseline"), (0.0, 1), (0.0, 4),
        (bench_crawl.TARGET_LATENCY, "baseline"), (bench_crawl.TARGET_LATENCY, 8)]
    assert [r["time"].n for r in rows] == [1, 2, 2, 1, 1]
    n_past = result["n_past"]
    # icoframes on a cold cache and the baseline send the same requests: pages + profiles
    assert {r["requests"] for r in rows} == {math.ceil(n_past / 20) + n_past}
    assert not any(r["requests_varied"] for r in rows)
    assert result["checked_equal"]
    [target] = bench_crawl.targets(result)
    assert isinstance(target.met, bool)
    assert "baseline (serial requests)" in bench_crawl.markdown(result)


def test_quota_counts_requests_of_each_step_exactly():
    result = bench_quota.run(bench_quota.Config(n_icos=50, seed=3, changed=2))
    steps = result["steps"]
    n, pages = steps[0]["rows"], steps[0]["list_pages"]
    spent = [s["icoframes"] for s in steps]
    assert spent == [
        {"filters": 0, "icos": pages, "ico": n},      # first load
        {"filters": 0, "icos": 0, "ico": 0},          # repeated load
        {"filters": 0, "icos": pages, "ico": 0},      # refresh, nothing changed
        {"filters": 0, "icos": pages, "ico": 2},      # refresh after 2 summaries changed
        {"filters": 0, "icos": math.ceil((n + 1) / 20), "ico": 1},  # one new ICO
        {"filters": 0, "icos": math.ceil((n + 1) / 20), "ico": n + 1},  # refresh="all"
    ]
    # the baseline re-crawls everything every time
    for s in steps:
        assert s["baseline"]["ico"] == s["rows"]
        assert s["baseline"]["icos"] == s["list_pages"]
    assert all(t.met for t in bench_quota.targets(result))


def test_results_page_has_machine_targets_sections_and_notes():
    section = Section("Example", "body text",
                      [Target("example", "be fast", "1.0 s", False)], ["a note"], 1.0,
                      "2026-11-29 06:00", (0.5, 0.75))
    text = render([section], quick=True, total_s=12.0, commit="abc1234")
    for part in ("## Machine", "## Targets", "## Example", "## Notes", "a note",
                 "One row per target",
                 "| benchmark | target | latest figure | measured (UTC), commit, load | met "
                 "| section |",
                 '| example | be fast | 1.0 s | 2026-11-29 06:00, abc1234, load 0.5–0.8 | **no** '
                 '| "Example" |', "Missed: be fast"):
        assert part in text


def test_a_full_run_keeps_the_targets_history_and_the_sections_it_does_not_write():
    previous = "\n".join([
        "# Benchmark results", "", "## Machine", "", "| a | b |", "",
        "## Targets", "", "| benchmark | target |", "|:---|:---|", "| tidy | fast: 0.7 s |", "",
        "## Tidy: profiles", "", "old tidy body", "",
        "## Store: a quiet machine (2026-11-29, 06:00 UTC)", "", "measured by hand", "",
        "## Targets: history", "", "### tidy: fast", "", "0.8 s on 2026-11-22", "",
        "## Notes", "", "- an old note", ""])
    kept = carried_over(previous, {"Tidy: profiles"}, "2026-12-01 10:00")
    assert kept == [
        "## Store: a quiet machine (2026-11-29, 06:00 UTC)\n\nmeasured by hand",
        "## Targets: history\n\n### The Targets table replaced by the full run of "
        "2026-12-01 10:00\n\n| benchmark | target |\n|:---|:---|\n| tidy | fast: 0.7 s |\n"
        "\n### tidy: fast\n\n0.8 s on 2026-11-22"]
    section = Section("Tidy: profiles", "new tidy body", [Target("tidy", "fast", "0.6 s", True)])
    text = render([section], quick=False, total_s=1.0, kept=kept, commit="abc1234")
    assert text.count("## Targets: history") == 1 and "old tidy body" not in text
    assert (text.index("new tidy body") < text.index("measured by hand")
            < text.index("## Targets: history") < text.index("## Notes"))
    assert "an old note" not in text


def test_features_benchmark_checks_the_handwritten_columns_equal_and_can_tell_them_apart():
    from benchmarks import bench_features
    from benchmarks.bench_tidy import _statuses, load_profiles
    from icoframes import compute_features, tidy
    from icoframes.sandbox import rates as sandbox_rates

    result = bench_features.run(n=150, repeats=1)
    assert result["features"].n == result["handwritten"].n == 1
    assert result["shared"] == len(bench_features.SHARED) and result["columns"] > 30
    assert "hand-written pandas" in bench_features.markdown(result)
    assert bench_features.targets(result) == []  # the target is stated for 10,000 only
    profiles = load_profiles(150)
    tables = tidy(profiles, statuses=_statuses(profiles))
    rates = sandbox_rates()
    with pytest.warns(IcoframesWarning, match="amounts left without a USD value"):
        ours = compute_features(tables, rates=rates)
    theirs = bench_features.handwritten_features(tables, rates)
    bench_features.check_same(ours, theirs)
    assert ours["hard_cap_usd"].notna().sum() > 100  # the USD columns are really compared
    theirs.loc[0, "hard_cap_usd"] = theirs.loc[0, "hard_cap_usd"] * 2 + 1
    with pytest.raises(AssertionError, match="hard_cap_usd"):
        bench_features.check_same(ours, theirs)


def test_freshness_counts_each_day_against_a_recrawl_and_checks_every_row():
    from benchmarks import bench_freshness

    config = bench_freshness.Config(n_past=60, n_ongoing=10, n_upcoming=10, days=3, seed=5,
                                    new_icos=(("upcoming", 1), ("ongoing", 1)),
                                    cliff_fetch=True)
    result = bench_freshness.run(config)
    cold, days, cliff = result["cold"], result["days"], result["cliff"]
    assert cold["listed"] == {"past": 60, "ongoing": 10, "upcoming": 10}
    assert cold["spent"] == {"filters": 0, "icos": 3 + 1 + 1, "ico": 80}
    assert cold["total"] == cold["recrawl"] == 85
    for number, day in enumerate(days, start=1):
        listed = day["listed"]
        assert sum(listed.values()) == 80 + 2 * number  # two new ICOs a day, one row each
        pages = sum(math.ceil(n / 20) for n in listed.values())
        assert day["spent"]["icos"] == pages and day["spent"]["filters"] == 0
        assert day["recrawl"] == pages + sum(listed.values())
        assert sum(day["reasons"].values()) == day["spent"]["ico"]
        assert day["reasons"]["new"] == 2
        assert day["reasons"]["changed"] == day["changed"] > 0  # each changed ICO, once
        assert 0 < day["total"] < day["recrawl"]
        assert day["oldest"]["ongoing"] <= 1.0 and day["oldest"]["upcoming"] <= 7.0
    # an ongoing profile unchanged since day 0 is two days old on day 2
    assert days[1]["reasons"]["stale ongoing"] > 0
    # on day 91 the past profiles of day 0 are stale; a refresh=True fetched what budget=0
    # reported (but for profiles within a minute of their limit)
    assert cliff["spent"]["icos"] == days[-1]["spent"]["icos"]
    assert cliff["reasons"]["stale past"] >= 60
    fetched = cliff["fetched"]
    assert len(set(fetched["called_for"]) ^ set(cliff["called_for"])) == cliff["at_the_edge"]
    assert cliff["at_the_edge"] <= 3 < 60 <= fetched["reasons"]["stale past"]
    worst, mean, quota, projected = bench_freshness.targets(result)
    # one ongoing ICO in eight here (one in thirty at full size), each refreshed daily: the
    # worst day's share is above the full-size target, and the target says so
    heaviest = max(days, key=lambda d: d["total"] / d["recrawl"])
    assert worst.met == (heaviest["total"] / heaviest["recrawl"] < 0.2)
    assert f"{heaviest['total']:,} of {heaviest['recrawl']:,}" in worst.measured
    assert quota.met and projected.met and "over days 1–3" in mean.measured
    # projected daily runs: the past profiles fetched on day 0 come due spread over the
    # second half of their 90 days, never before, and not on one day
    per_day = result["projection"]["per_day"]
    assert list(per_day) == list(range(4, 101))
    past = {day: counts["past"] for day, counts in per_day.items() if counts["past"]}
    assert min(past) >= 44  # none before about half of 90 days
    # each came due once by day 93 (fetched by day 3, within 90 days), a handful a day
    assert sum(n for day, n in past.items() if day <= 93) >= 60
    assert max(past.values()) < 60 / 4
    ongoing = {counts["ongoing"] for counts in per_day.values()}
    assert len(ongoing) == 1 and ongoing.pop() > 0  # every ongoing profile, every day
    text = bench_freshness.markdown(result)
    assert "| day 3 |" in text and "day 91" in text and "re-crawl" in text


def _day(ids, statuses, **columns):
    frame = pd.DataFrame({"id": ids, "status": pd.Series(statuses, dtype="str"), **columns})
    frame.attrs["icoframes"] = {"complete": True, "missing": []}
    return frame


def test_freshness_refuses_profiles_the_policy_did_not_call_for():
    from benchmarks.bench_freshness import _fetched_by_reason

    started = dt.datetime(2026, 11, 3, 6, tzinfo=dt.UTC)
    before = pd.Series(pd.to_datetime([started - dt.timedelta(days=2),  # stale ongoing
                                       started - dt.timedelta(days=2),  # upcoming, fresh
                                       started - dt.timedelta(hours=1)], utc=True),
                       index=[1, 2, 3])
    frame = _day([1, 2, 3, 4], ["ongoing", "upcoming", "past", "upcoming"])
    expected = {3: {"raised": 5}, 4: {"status": "upcoming", "new": True}}
    reasons = _fetched_by_reason(before, frame, Counter({1: 1, 3: 1, 4: 1}), expected,
                                 started, "day 2")
    assert reasons == {"stale ongoing": 1, "changed": 1, "new": 1}
    with pytest.raises(AssertionError, match="without a reason: \\[2\\]"):
        _fetched_by_reason(before, frame, Counter({1: 1, 2: 1, 3: 1, 4: 1}), expected,
                           started, "day 2")
    with pytest.raises(AssertionError, match="not fetched: \\[1\\]"):
        _fetched_by_reason(before, frame, Counter({3: 1, 4: 1}), expected, started, "day 2")


def test_freshness_refuses_a_frame_that_misses_a_change_or_a_row():
    from benchmarks.bench_freshness import _check
    from icoframes.sandbox import generate_directory

    directory = generate_directory(5, seed=2)
    records = directory.records()
    sb = SimpleNamespace(directory=directory)
    started = dt.datetime(2026, 11, 3, 6, tzinfo=dt.UTC)
    ids = [r.id for r in records]
    fetched = pd.Series(pd.Timestamp(started), index=ids)
    frame = _day(ids, [r.status for r in records], raised=[1.0] * 5, ico_score=[2.0] * 5)
    expected = {ids[0]: {"raised": 1}}
    assert set(_check(frame, sb, expected, started, fetched, "day 1")) == {
        "ongoing", "upcoming", "past"}
    with pytest.raises(AssertionError, match=f"ICO {ids[0]} raised 1.0, expected 7"):
        _check(frame, sb, {ids[0]: {"raised": 7}}, started, fetched, "day 1")
    with pytest.raises(AssertionError, match="4 rows for 5 listed ICOs"):
        _check(frame.iloc[1:], sb, {}, started, fetched.iloc[1:], "day 1")
    old = fetched - pd.Timedelta(days=100)
    with pytest.raises(AssertionError, match="older than"):
        _check(frame, sb, {}, started, old, "day 1")


def test_load_measures_a_refresh_of_a_tenth_and_every_narrower_query():
    from benchmarks import bench_load

    result = bench_load.measure(300, 1)
    refresh = result["refresh"]
    assert refresh["changed"] == math.ceil(result["n_past"] / 10)
    assert refresh["requests"] >= refresh["changed"]  # the list pages, and each changed profile
    assert refresh["rows"] == result["n_past"] and refresh["derived_s"] > 0
    assert [q["filters"] for q in result["narrower"]] == list(bench_load.NARROWER)
    assert all(q["rows"] > 0 for q in result["narrower"])
    text = bench_load.markdown(["before", "after"], {"before": [result], "after": [result]}, 300)
    assert text.count("\n| `") == len(bench_load.NARROWER)


def test_store_benchmark_measures_processes_on_one_cache_and_peak_memory():
    from benchmarks import bench_store

    both = bench_store.measure_processes(ROOT, 60, 2)
    n_past = both["n_past"]
    pages_and_profiles = math.ceil(n_past / 20) + n_past
    assert both["1"]["rows"] == [n_past] and both["2"]["rows"] == [n_past, n_past]
    assert both["1"]["requests"] == pages_and_profiles
    # two processes loading one query into one cache page it and fetch each profile once
    assert both["2"]["requests"] == pages_and_profiles
    assert both["2"]["total_s"] >= max(both["2"]["each_s"]) > 0
    memory = bench_store.measure_memory(ROOT, 40)
    # every ICO once, and the list pages of each status (at most two of 20 here)
    assert memory["rows"] == 40 and 40 + 3 <= memory["requests"] <= 40 + 6
    assert memory["peak_mib"] > 10


def test_store_benchmark_crawls_a_sandbox_served_from_a_process_of_its_own():
    from benchmarks import bench_store
    from icoframes import sandbox

    apart = bench_store.measure_crawl_apart(ROOT, 40, 2)
    n_past = len(sandbox.generate_directory(40, seed=bench_store.SEED).ids("past"))
    assert apart["n_past"] == n_past > 0  # both loads read every past ICO of that sandbox
    assert [len(apart[who]["times"]) for who in ("icoframes", "baseline")] == [2, 2]
    assert min(apart["icoframes"]["times"] + apart["baseline"]["times"]) > 0
    # and at 50 ms, icoframes alone: page 1, then the other requests, 50 ms each at least
    assert len(apart["50 ms"]["icoframes"]["times"]) == 2
    assert min(apart["50 ms"]["icoframes"]["times"]) >= 2 * 0.05


def test_cached_lists_benchmark_times_the_load_after_each_step_of_cached_lists():
    from benchmarks import bench_cached_lists

    result = bench_cached_lists.measure(120, (0, 3), 1)
    steps = result["steps"]
    assert [s["lists"] for s in steps] == [0, 3] and all(len(s["seconds"]) == 1 for s in steps)
    # answered from the cached superset (measure refuses a paged one): the same rows after
    # the narrower lists were cached as before
    assert steps[0]["rows"] > 0 and steps[0]["answer"] == steps[1]["answer"]
    size = {"n_icos": 120, "repeats": 1, "n_past": result["n_past"],
            "runs": {"before": result, "this tree": result}}
    text = bench_cached_lists.markdown({"commit": "before", "sizes": [size]})
    assert text.count("\n| 120 (") == 2 and "| 1.0× |" in text


def test_attrs_benchmark_times_each_case_with_and_without_the_report():
    from benchmarks import bench_attrs

    rows = bench_attrs.run(n_icos=120, budget=10, days=(3,), repeats=1, rounds=2,
                           change_rounds=1)
    assert [(r["case"], r["size"]) for r in rows] == [
        ("head+select+filter (ms)", "110 missing"), ("changes (s)", "3 days")]
    assert all(float(r["as read"]) > 0 and float(r["attrs dropped"]) > 0 for r in rows)
    found = bench_attrs.targets(rows)
    assert [t.benchmark for t in found] == ["attrs", "attrs"]
    assert all("within 1.5×" in t.target and t.measured.endswith(")") for t in found)
    assert "| changes (s) | 3 days |" in bench_attrs.markdown(rows)
