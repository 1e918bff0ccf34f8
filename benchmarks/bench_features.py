"""Benchmark :func:`icoframes.features` against the pandas a user writes for the same columns.

Run ``python -m benchmarks.bench_features`` (prints a markdown table) or call
:func:`run`. Input: ``tidy`` of the sandbox's seeded synthetic directory
(the same profiles as ``bench_tidy``), with the sandbox's synthetic daily
rates (:func:`icoframes.sandbox.rates`, long form) so the USD columns are
computed too.

The baseline, :func:`handwritten_features`, is what a competent notebook
user writes for the columns both compute: ``groupby().size()`` mapped back
and ``fillna(0)`` for counts, a crosstab for social flags, ``str.contains``
over distribution parts, an alias dict for platforms, ``merge_asof`` for the
rates. :func:`run` checks that both give the same values for every shared
column before timing anything; timed runs alternate the two.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from icoframes.features import CAP_TOLERANCE, PLATFORM_FAMILIES, compute_features
from icoframes.parse.profiles import tidy
from icoframes.tables import Tables

from .bench_tidy import _statuses, load_profiles
from .common import Summary, Target, alternate, table, timed

__all__ = ["SHARED", "handwritten_features", "markdown", "run", "targets"]

#: A fixed moment for ``status_disagrees_with_dates``, so runs are comparable.
AS_OF = pd.Timestamp("2024-01-01")
TARGET_S = 0.5

#: The columns the hand-written version computes too (compared value for value).
SHARED: tuple[str, ...] = (
    "ico_id", "duration_days", "start_year", "start_quarter", "team_size", "advisor_count",
    "has_whitepaper", "has_video", "has_twitter", "has_telegram", "has_github",
    "n_social_links", "platform_family", "is_ethereum", "n_restricted_areas", "has_bonus",
    "roadmap_items", "team_token_share", "sale_token_share", "log_raised", "hard_cap_usd",
    "soft_cap_usd", "raised_to_hard_cap", "reached_soft_cap", "reached_hard_cap",
    "soft_cap_above_hard_cap", "ends_before_starts",
)

_TEAM = r"(?i)\b(?:team|founders?|founding team|employees?|management|staff)\b"
_SALE = (r"(?i)\b(?:sale|crowd ?sale|pre-?sale|ico|ieo|ido|sto|public|private|investors?"
         r"|contributors?)\b")


def handwritten_features(tables: Tables, rates: pd.DataFrame) -> pd.DataFrame:
    """The shared columns, written the way a pandas user would."""
    icos = tables.icos
    ids = icos["id"]
    out = pd.DataFrame({"ico_id": ids})
    start, end = icos["start_datetime"], icos["end_datetime"]
    days = (end - start).dt.total_seconds() / 86400
    out["duration_days"] = days.where(days >= 0)
    out["start_year"] = start.dt.year
    out["start_quarter"] = start.dt.quarter
    for column, child in (("team_size", tables.team), ("advisor_count", tables.advisors),
                          ("roadmap_items", tables.roadmap)):
        out[column] = ids.map(child.groupby("ico_id").size()).fillna(0).astype(int)
    out["has_whitepaper"] = icos["whitepaper"].notna()
    out["has_video"] = icos["video"].notna()
    own = tables.social[tables.social["owner"] == "ico"]
    own = own.assign(network=own["network"].str.strip().str.lower())
    present = pd.crosstab(own["ico_id"], own["network"]) > 0
    for network in ("twitter", "telegram", "github"):
        out[f"has_{network}"] = present[network].reindex(ids, fill_value=False).to_numpy()
    out["n_social_links"] = ids.map(own.groupby("ico_id")["network"].nunique()).fillna(0)
    out["n_social_links"] = out["n_social_links"].astype(int)
    aliases = {s: family for family, spellings in PLATFORM_FAMILIES.items() for s in spellings}
    cleaned = icos["platform"].str.split().str.join(" ")
    family = cleaned.str.lower().map(aliases).fillna(cleaned)
    out["platform_family"] = family
    out["is_ethereum"] = (family == "Ethereum").where(family.notna())
    out["n_restricted_areas"] = icos["restricted_areas"].str.len()
    out["has_bonus"] = ids.isin(tables.bonuses["ico_id"])
    dist = tables.distribution[tables.distribution["percent"].notna()]
    for column, pattern in (("team_token_share", _TEAM), ("sale_token_share", _SALE)):
        hit = dist[dist["part"].str.contains(pattern, regex=True, na=False)]
        share = ids.map(hit.groupby("ico_id")["percent"].sum()).fillna(0.0)
        out[column] = share.where(ids.isin(dist["ico_id"]))
    raised = icos["raised"]
    out["log_raised"] = np.log(raised.where(raised > 0))
    # USD at the end of the sale (else its start), last rate up to 7 days before
    when = end.fillna(start).astype("datetime64[ns]")
    left = pd.DataFrame({"row": np.arange(len(icos)), "date": when,
                         "currency": icos["caps_unit"].astype(object)})
    left = left.dropna().sort_values("date")
    right = rates.assign(date=rates["date"].astype("datetime64[ns]"),
                         currency=rates["currency"].astype(object)).sort_values("date")
    joined = pd.merge_asof(left, right, on="date", by="currency",
                           tolerance=pd.Timedelta("7D"))
    rate = np.full(len(icos), np.nan)
    rate[joined["row"].to_numpy()] = joined["usd_per_unit"].to_numpy()
    rate[icos["caps_unit"].eq("USD").fillna(False).to_numpy(dtype=bool)] = 1.0
    hard_usd = icos["hard_cap"] * rate
    soft_usd = icos["soft_cap"] * rate
    out["hard_cap_usd"] = hard_usd
    out["soft_cap_usd"] = soft_usd
    out["raised_to_hard_cap"] = (raised / hard_usd).where(hard_usd > 0)
    for column, cap in (("reached_soft_cap", soft_usd), ("reached_hard_cap", hard_usd)):
        out[column] = (raised >= cap * (1 - CAP_TOLERANCE)).where(raised.notna() & cap.notna())
    soft, hard = icos["soft_cap"], icos["hard_cap"]
    out["soft_cap_above_hard_cap"] = (soft > hard).where(soft.notna() & hard.notna())
    out["ends_before_starts"] = (end < start).where(start.notna() & end.notna())
    return out


def check_same(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    """Raise AssertionError unless every shared column holds the same values."""
    for column in SHARED:
        a, b = ours[column], theirs[column]
        if column == "platform_family":
            assert a.isna().tolist() == b.isna().tolist(), column
            assert a.dropna().tolist() == b.dropna().tolist(), column
            continue
        np.testing.assert_allclose(a.to_numpy(dtype=np.float64, na_value=np.nan),
                                   b.astype("float64").to_numpy(), rtol=1e-12,
                                   equal_nan=True, err_msg=column)


def run(n: int = 10_000, repeats: int = 5) -> dict[str, Any]:
    """Time ``features`` and the hand-written version on ``n`` sandbox ICOs with rates.

    Returns
    -------
    dict
        ``n``, ``columns`` (of ``features``), ``shared`` (compared columns),
        ``features`` and ``handwritten`` (:class:`~benchmarks.common.Summary`),
        ``speedup`` (handwritten median / features median).

    Examples
    --------
    >>> result = run(n=200, repeats=1)  # doctest: +SKIP
    >>> result["features"].n  # doctest: +SKIP
    1
    """
    from icoframes.sandbox import rates as sandbox_rates

    profiles = load_profiles(n)
    tables = tidy(profiles, statuses=_statuses(profiles))
    rates = sandbox_rates()

    def ours() -> pd.DataFrame:
        with warnings.catch_warnings():  # the missing-rate report, once per run
            warnings.simplefilter("ignore")
            return compute_features(tables, rates=rates, as_of=AS_OF)

    def theirs() -> pd.DataFrame:
        return handwritten_features(tables, rates)

    result = ours()
    check_same(result, theirs())
    samples: dict[str, list[float]] = {"features": [], "handwritten": []}
    jobs = {"features": ours, "handwritten": theirs}
    for rep in range(repeats):
        for name in alternate(list(jobs), rep):
            samples[name].append(timed(jobs[name])[0])
    mine, hand = Summary.of(samples["features"]), Summary.of(samples["handwritten"])
    return {"n": n, "columns": result.shape[1], "shared": len(SHARED), "features": mine,
            "handwritten": hand, "speedup": hand.median / mine.median}


def markdown(result: dict[str, Any]) -> str:
    """The result as a markdown table and a sentence on what was compared."""
    rows = [
        ["`icoframes.features`", result["columns"], result["features"].text(3)],
        ["hand-written pandas", result["shared"], result["handwritten"].text(3)],
    ]
    return (f"`features(tables, rates=sandbox.rates())` of {result['n']:,} sandbox ICOs "
            f"against the hand-written pandas for the {result['shared']} columns both "
            "compute (`bench_features.handwritten_features`: groupby/map/fillna counts, a "
            "crosstab of social networks, `str.contains` over distribution parts, "
            "`merge_asof` for the rates), checked equal value for value first; median "
            f"(min–max) of {result['features'].n} alternating runs.\n\n"
            + table(["", "columns", "time"], rows))


def targets(result: dict[str, Any]) -> list[Target]:
    """The issue's target: 10,000 ICOs with rates in under 0.5 s."""
    if result["n"] != 10_000:
        return []
    median = result["features"].median
    return [Target("features", f"10,000 ICOs with rates in < {TARGET_S} s",
                   f"{median:.3f} s (median)", median < TARGET_S)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(markdown(run(args.n, args.repeats)))


if __name__ == "__main__":
    main()
