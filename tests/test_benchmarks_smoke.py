"""Smoke test of the benchmark suite: tiny runs, checked for structure and request counts.

Never for times: the numbers belong in benchmarks/RESULTS.md, not in assertions.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

# benchmarks/ is a top-level folder, not part of the installed package, and
# `pytest` (unlike `python -m pytest`) does not put the repository root on sys.path
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_crawl, bench_quota  # noqa: E402
from benchmarks.__main__ import Section, render  # noqa: E402
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
                      [Target("example", "be fast", "1.0 s", False)], ["a note"], 1.0)
    text = render([section], quick=True, total_s=12.0)
    for part in ("## Machine", "## Targets", "## Example", "## Notes", "a note",
                 "| example | be fast | 1.0 s | **no** |", "Missed: be fast"):
        assert part in text


def test_features_benchmark_checks_the_handwritten_columns_equal_and_can_tell_them_apart():
    from benchmarks import bench_features
    from benchmarks.bench_tidy import _statuses, load_profiles
    from icoframes import features, tidy
    from icoframes.sandbox import rates as sandbox_rates

    result = bench_features.run(n=150, repeats=1)
    assert result["features"].n == result["handwritten"].n == 1
    assert result["shared"] == len(bench_features.SHARED) and result["columns"] > 30
    assert "hand-written pandas" in bench_features.markdown(result)
    assert bench_features.targets(result) == []  # the target is stated for 10,000 only
    profiles = load_profiles(150)
    tables = tidy(profiles, statuses=_statuses(profiles))
    rates = sandbox_rates()
    ours = features(tables, rates=rates)
    theirs = bench_features.handwritten_features(tables, rates)
    bench_features.check_same(ours, theirs)
    assert ours["hard_cap_usd"].notna().sum() > 100  # the USD columns are really compared
    theirs.loc[0, "hard_cap_usd"] = theirs.loc[0, "hard_cap_usd"] * 2 + 1
    with pytest.raises(AssertionError, match="hard_cap_usd"):
        bench_features.check_same(ours, theirs)
