"""Quota: requests spent by first, repeated and refreshing loads, against re-crawling.

The service allows 5,000 requests per key per day, so requests are what a
load really costs. The sandbox counts every request it receives, per
endpoint; the baseline (:mod:`benchmarks.baseline`) has no cache, so each of
its loads is a full re-crawl. Request counts are exact and repeatable; the
times (at 0 ms latency) are single runs, shown only for scale.

Run alone with ``python -m benchmarks --only quota``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import icoframes
from icoframes import sandbox
from icoframes.sandbox import PAGE_SIZE

from . import baseline
from .common import Target, fresh_cache, log, requests_by_endpoint, spent_since, table, timed

__all__ = ["FULL", "QUICK", "Config", "markdown", "run", "targets"]




@dataclass(frozen=True)
class Config:
    n_icos: int = 300
    seed: int = 7
    changed: int = 5


FULL = Config()
QUICK = Config(n_icos=60, changed=3)


def run(config: Config = FULL) -> dict[str, Any]:
    """Each step once for icoframes (one cache dir throughout) and once for the baseline."""
    steps: list[dict[str, Any]] = []
    with sandbox.serve(n_icos=config.n_icos, seed=config.seed, quota=None) as sb, \
            fresh_cache(sb):

        def step(name: str, **kwargs: Any) -> None:
            before = requests_by_endpoint(sb)
            seconds, icos = timed(icoframes.load_icos, status="past", progress=False, **kwargs)
            ours = spent_since(sb, before)
            before = requests_by_endpoint(sb)
            base_seconds, frames = timed(baseline.load, sb.settings(), "past")
            theirs = spent_since(sb, before)
            n_past = len(sb.directory.ids("past"))
            if len(icos) != n_past or len(frames["icos"]) != n_past:
                raise AssertionError(f"{name}: {len(icos)} and {len(frames['icos'])} rows, "
                                     f"expected {n_past}")
            steps.append({"step": name, "icoframes": ours, "baseline": theirs,
                          "icoframes_s": seconds, "baseline_s": base_seconds,
                          "list_pages": math.ceil(n_past / PAGE_SIZE), "rows": n_past})
            log(f"quota {name}: icoframes {sum(ours.values())} requests, "
                f"baseline {sum(theirs.values())}")

        step("first load (empty cache)")
        step("repeated load")
        step("refresh=True, nothing changed", refresh=True)
        past = sb.directory.ids("past")[: config.changed]
        for i, ico_id in enumerate(past):
            # a raised figure no generated ICO has, so every summary really changes
            sb.update_ico(ico_id, raised=987_654_321 + i)
        step(f"refresh=True after {len(past)} ICOs' raised changed", refresh=True)
        sb.add_ico("past")
        step("refresh=True after 1 new past ICO", refresh=True)
        step('refresh="all"', refresh="all")
    return {"steps": steps, "n_icos": config.n_icos, "changed": len(past)}


def _by_name(result: dict[str, Any], prefix: str) -> dict[str, Any]:
    return next(s for s in result["steps"] if s["step"].startswith(prefix))


def markdown(result: dict[str, Any]) -> str:
    rows = []
    for s in result["steps"]:
        ours, theirs = s["icoframes"], s["baseline"]
        total, base_total = sum(ours.values()), sum(theirs.values())
        share = f"1/{base_total / total:.1f}" if total else "0"
        rows.append([s["step"], f"{ours['icos']} + {ours['ico']}", total,
                     f"{theirs['icos']} + {theirs['ico']}", base_total, share,
                     f"{s['icoframes_s']:.2f} s", f"{s['baseline_s']:.2f} s"])
    first = result["steps"][0]
    intro = (f"Sandbox of {result['n_icos']} ICOs; every step loads the "
             f"{first['rows']} past ICOs ({first['list_pages']} list pages of 20) with "
             "`load_icos(status=\"past\")` on one cache dir, and with the baseline. Requests "
             "are counted by the sandbox (list pages + profiles); times are single runs at "
             "0 ms latency, for scale only.")
    return intro + "\n\n" + table(
        ["step", "icoframes: pages + profiles", "icoframes total",
         "baseline: pages + profiles", "baseline total", "icoframes ÷ baseline",
         "icoframes time", "baseline time"], rows)


def targets(result: dict[str, Any]) -> list[Target]:
    repeated = _by_name(result, "repeated")
    unchanged = _by_name(result, "refresh=True, nothing")
    changed = _by_name(result, "refresh=True after") if result["changed"] else None
    spent = sum(unchanged["icoframes"].values())
    recrawl = sum(unchanged["baseline"].values())
    out = [
        Target("quota", "repeated load spends no request",
               f"{sum(repeated['icoframes'].values())} requests",
               sum(repeated["icoframes"].values()) == 0),
        Target("quota", "refresh=True with nothing changed costs only the list pages "
               "(≈ 1/20 of a re-crawl)",
               f"{spent} requests = {unchanged['icoframes']['icos']} pages + "
               f"{unchanged['icoframes']['ico']} profiles; re-crawl {recrawl} "
               f"(1/{recrawl / max(spent, 1):.1f})",
               unchanged["icoframes"]["ico"] == 0
               and unchanged["icoframes"]["icos"] == unchanged["list_pages"]),
    ]
    if changed is not None:
        out.append(Target(
            "quota", f"refresh=True after {result['changed']} changed summaries: list pages "
            f"+ {result['changed']} profiles",
            f"{changed['icoframes']['icos']} pages + {changed['icoframes']['ico']} profiles",
            changed["icoframes"] == {"filters": 0, "icos": changed["list_pages"],
                                     "ico": result["changed"]}))
    return out
