"""Benchmark :func:`icoframes.tidy` against the obvious pandas approach.

Run ``python -m benchmarks.bench_tidy`` (prints a markdown table) or call
:func:`run`. Input: the sandbox's seeded synthetic directory
(``generate_directory(n, seed=1).profiles()``), passed through a JSON round
trip so the dicts are exactly what the profile endpoint's ``data`` decodes to
(which is also how the cache feeds tidy).

The baseline, :func:`baseline_tidy`, is what a competent notebook user would
write: ``pd.json_normalize`` for the ICO rows, one ``pd.to_numeric`` /
``pd.to_datetime`` / vectorised ``.str`` call per column with a per-value
fallback only for what those reject, and Python loops building lists of
records for the child tables. It applies the same reading rules (the scalar
helpers of :mod:`icoframes.parse.rules`), and :func:`run` checks that it returns
exactly the same tables as tidy before timing anything.

Timed runs alternate project and baseline so that drifting machine load hits
both alike. Peak memory is measured in a fresh subprocess per size: Python and
NumPy allocations through ``tracemalloc`` plus the Arrow memory pool's peak,
both during the ``tidy`` call only (the input profiles are not counted).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from icoframes.parse.base import Bad
from icoframes.parse.dates import read_label
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import (
    DATETIME_FORMAT,
    MISSING_MARKERS,
    parse_amount,
    parse_datetime,
    parse_id,
)
from icoframes.parse.units import read_amount_group
from icoframes.schema import LONG_LISTS, TABLES, TEXT_DTYPE, TableSchema
from icoframes.tables import Tables

__all__ = ["baseline_tidy", "load_profiles", "run"]

_SECTION_NAMES = ("main", "links", "finance", "dates", "additional")


def load_profiles(n: int, seed: int = 1) -> list[dict[str, Any]]:
    """``n`` sandbox profiles, as decoded from the API's JSON."""
    from icoframes.sandbox.directory import generate_directory

    profiles = generate_directory(n, seed=seed).profiles()
    return json.loads(json.dumps(profiles))


# --------------------------------------------------------------------------- baseline


def _number(value: Any, percent: bool = False) -> float:
    parsed = parse_amount(value, percent=percent)
    return np.nan if parsed is None or isinstance(parsed, Bad) else parsed


def _when(value: Any) -> Any:
    parsed = parse_datetime(value)
    return pd.NaT if parsed is None or isinstance(parsed, Bad) else parsed


def _flag(value: Any) -> bool:
    if value is True:
        return True
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return type(value) in (int, float) and value == 1


def _item(value: Any) -> str | None:
    if isinstance(value, str):
        value = value.strip()
        return None if value.upper() in MISSING_MARKERS or not value else value
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        return str(value)
    return None


def _items(value: Any) -> list[str]:
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        value = [value]
    return [s for s in map(_item, value) if s is not None]


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _clean_text(column: pd.Series) -> pd.Series:
    text = column.astype(TEXT_DTYPE).str.strip()
    return text.mask(text.str.upper().isin(MISSING_MARKERS) | (text == ""))


def _clean(frame: pd.DataFrame, table: TableSchema,
           keys: Sequence[str] = (), percent: Sequence[str] = ()) -> pd.DataFrame:
    """Cast every column to its schema dtype, one vectorised call per column."""
    out = {}
    for column in table.columns:
        raw = frame[column.name] if column.name in frame else pd.Series(
            [None] * len(frame), dtype=object)
        raw = raw.reset_index(drop=True)
        if column.name in keys:
            out[column.name] = raw.astype(TEXT_DTYPE)
        elif column.kind == "float":
            is_percent = column.name in percent
            numbers = pd.to_numeric(raw.mask(raw.map(lambda v: isinstance(v, bool))),
                                    errors="coerce")
            retry = numbers.isna() & raw.notna() & (raw != "")
            if retry.any():
                numbers[retry] = raw[retry].map(lambda v, p=is_percent: _number(v, p))
            out[column.name] = numbers.astype("float64")
        elif column.kind == "datetime":
            when = pd.to_datetime(raw.where(raw.map(lambda v: isinstance(v, str))),
                                  format=DATETIME_FORMAT,
                                  errors="coerce")
            retry = when.isna() & raw.notna() & (raw != "")
            if retry.any():
                when = when.astype(object)
                when[retry] = raw[retry].map(_when)
                when = pd.to_datetime(when)
            out[column.name] = when.astype("datetime64[ms]")
        elif column.kind == "utc":  # recorded by icoframes (fetched_at), not sent by the service
            out[column.name] = pd.Series(pd.NaT, index=raw.index, dtype=column.dtype)
        elif column.kind == "bool":
            out[column.name] = raw.map(_flag).astype(bool)
        elif column.kind == "list":
            out[column.name] = raw.map(_items)
        elif column.kind == "text":
            out[column.name] = _clean_text(raw)
        elif column.kind == "Int":
            out[column.name] = raw.astype("Int64")
        else:
            out[column.name] = raw.astype("int64")
    return pd.DataFrame(out)


def baseline_tidy(profiles: list[dict[str, Any]],
                  statuses: Mapping[int, str] | None = None) -> dict[str, pd.DataFrame]:
    """The obvious implementation: json_normalize, per-column casts, loops for child rows.

    Handles the shapes the sandbox sends (not every shape :func:`tidy` accepts).
    """
    flat = pd.json_normalize(profiles, max_level=1)
    flat["id"] = pd.to_numeric(flat["id"], errors="coerce")
    flat = flat[flat["id"].notna()].drop_duplicates("id", keep="last")
    flat["id"] = flat["id"].astype("int64")
    flat = flat.rename(columns=lambda name: name.split(".", 1)[-1])
    flat["status"] = flat["id"].map(statuses or {})
    flat["fetched_status"] = flat["status"]  # tidy's rows are of the fetch: the same status
    icos = _clean(flat, TABLES["icos"])
    # Amounts and their unit column read together (the same rules as tidy's).
    for unit, amounts in (("caps_unit", ("soft_cap", "hard_cap")),
                          ("purchase_unit", ("min_purchase", "max_purchase")),
                          ("token_price_unit", ("token_price",))):
        numbers, codes, _ = read_amount_group(
            {name: flat[name].tolist() for name in amounts},
            icos[unit].astype(object).where(icos[unit].notna(), None).tolist(),
            exchange=("token_price",) if unit == "token_price_unit" else ())
        for name in amounts:
            icos[name] = numbers[name]
        icos[unit] = pd.Series(codes, dtype=TEXT_DTYPE)

    wanted = set(icos["id"].tolist())
    team, advisors, social, distribution, bonuses, roadmap = [], [], [], [], [], []
    seen: dict[int, dict] = {}
    for profile in profiles:  # keep the last profile of each id
        pid = parse_id(profile.get("id"))
        if pid in wanted:
            seen.pop(pid, None)
            seen[pid] = profile
    order = {pid: i for i, pid in enumerate(icos["id"].tolist())}
    for pid, profile in sorted(seen.items(), key=lambda kv: order[kv[0]]):
        sections = {name: _mapping(profile.get(name)) for name in _SECTION_NAMES}
        for network, url in _mapping(sections["links"].get("social")).items():
            social.append({"ico_id": pid, "owner": "ico", "position": None,
                           "network": network, "url": url})
        for key, owner, rows in (("team", "team", team), ("advisors", "advisor", advisors)):
            people = profile.get(key)
            for position, person in enumerate(people if isinstance(people, list) else []):
                if not isinstance(person, dict):
                    continue
                rows.append({"ico_id": pid, "position": position, "name": person.get("name"),
                             "role": person.get("role"), "photo": person.get("photo")})
                for network, url in _mapping(person.get("social")).items():
                    social.append({"ico_id": pid, "owner": owner, "position": position,
                                   "network": network, "url": url})
        for part, percent in _mapping(sections["finance"].get("distribution")).items():
            distribution.append({"ico_id": pid, "part": part, "percent": percent})
        for name, terms in _mapping(sections["additional"].get("bonuses")).items():
            bonuses.append({"ico_id": pid, "name": name, "terms": terms})
        for label, description in _mapping(profile.get("roadmap")).items():
            roadmap.append({"ico_id": pid, "label": label, "description": description})

    def frame(rows: list[dict], name: str) -> pd.DataFrame:
        return pd.DataFrame(rows, columns=[c for c in TABLES[name].names
                                           if c not in ("date", "precision")])

    social_frame = _clean(frame(social, "social"), TABLES["social"], keys=("network",))
    roadmap_frame = frame(roadmap, "roadmap")
    dates = pd.to_datetime(roadmap_frame["label"], format="%d-%m-%Y", errors="coerce")
    precision = pd.Series("day", index=roadmap_frame.index, dtype=object)
    retry = dates.isna()
    if retry.any():
        dates = dates.astype(object)
        labels = roadmap_frame["label"][retry].map(read_label)
        dates[retry] = labels.map(lambda read: read[0] or pd.NaT)
        precision[retry] = labels.map(lambda read: read[1])
        dates = pd.to_datetime(dates)
    roadmap_frame = _clean(roadmap_frame, TABLES["roadmap"], keys=("label",))
    roadmap_frame["date"] = dates.astype("datetime64[ms]")
    roadmap_frame["precision"] = precision.astype(TEXT_DTYPE)
    long = {}
    for name in LONG_LISTS:  # one row per value of the list column, in order
        exploded = icos[["id", name]].explode(name).dropna(subset=[name])
        exploded = exploded.rename(columns={"id": "ico_id", name: "value"})
        exploded.insert(1, "position", exploded.groupby("ico_id").cumcount())
        long[name] = exploded.reset_index(drop=True).astype(TABLES[name].dtypes)
    return {
        **long,
        "icos": icos,
        "team": _clean(frame(team, "team"), TABLES["team"]),
        "advisors": _clean(frame(advisors, "advisors"), TABLES["advisors"]),
        "social": social_frame[social_frame["url"].notna()].reset_index(drop=True),
        "distribution": _clean(frame(distribution, "distribution"), TABLES["distribution"],
                               keys=("part",), percent=("percent",)),
        "bonuses": _clean(frame(bonuses, "bonuses"), TABLES["bonuses"], keys=("name",)),
        "roadmap": roadmap_frame,
    }


def check_same(tables: Tables, expected: Mapping[str, pd.DataFrame]) -> None:
    """Raise AssertionError unless tidy's tables equal the baseline's, value for value."""
    for name in TABLES:  # the schema's tables, without problems
        frame = tables[name]
        pd.testing.assert_frame_equal(frame, expected[name], check_exact=True, obj=name)


# --------------------------------------------------------------------------- measuring


def _time(function: Any, *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - start


def _statuses(profiles: list[dict[str, Any]]) -> dict[int, str]:
    cycle = ("past", "ongoing", "upcoming")
    return {pid: cycle[i % 3] for i, p in enumerate(profiles)
            if (pid := parse_id(p.get("id"))) is not None}


def _memory(n: int) -> dict[str, float]:
    """Peak memory of one tidy call on n profiles, measured in this (fresh) process."""
    import pyarrow as pa

    profiles = load_profiles(n)
    statuses = _statuses(profiles)
    pool = pa.default_memory_pool()
    arrow_before = pool.max_memory() or 0
    tracemalloc.start()
    tables = tidy(profiles, statuses=statuses)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arrow_peak = max((pool.max_memory() or 0) - arrow_before, 0)
    del tables
    return {"python_mb": python_peak / 2**20, "arrow_mb": arrow_peak / 2**20,
            "peak_mb": (python_peak + arrow_peak) / 2**20}


def _memory_in_subprocess(n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_tidy", "--memory", str(n)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(sizes: Sequence[int] = (1000, 10000, 50000), repeats: int = 5,
        baseline_up_to: int | None = None) -> list[dict]:
    """Time tidy and the baseline on sandbox profiles; measure tidy's peak memory.

    Parameters
    ----------
    sizes : sequence of int
        Numbers of profiles.
    repeats : int
        Timed runs of each implementation per size (alternating, after one
        untimed warm-up run of each, which also checks both give equal tables).
    baseline_up_to : int, optional
        Run the baseline only for sizes up to this (it takes about a second per
        1,000 profiles); larger sizes time tidy alone, to show how it grows.

    Returns
    -------
    list of dict
        Per size: ``n``, ``tidy_s`` and ``baseline_s`` (medians), ``tidy_min_s``,
        ``tidy_max_s``, ``baseline_min_s``, ``baseline_max_s``, ``speedup``
        (baseline median / tidy median), ``rows`` (total rows of all tables) and
        ``peak_mb``, ``python_mb``, ``arrow_mb`` (tidy's peak memory).

    Raises
    ------
    AssertionError
        If the baseline and tidy disagree on the benchmark input.

    Examples
    --------
    >>> rows = run(sizes=(200,), repeats=1)  # doctest: +SKIP
    >>> rows[0]["speedup"] > 1  # doctest: +SKIP
    True
    """
    results = []
    for n in sizes:
        profiles = load_profiles(n)
        statuses = _statuses(profiles)
        tables = tidy(profiles, statuses=statuses)
        with_baseline = baseline_up_to is None or n <= baseline_up_to
        if with_baseline:
            check_same(tables, baseline_tidy(profiles, statuses))
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(_time(tidy, profiles, statuses=statuses))
            if with_baseline:
                theirs.append(_time(baseline_tidy, profiles, statuses))
        memory = _memory_in_subprocess(n)
        nan = float("nan")
        results.append({
            "n": n,
            "tidy_s": statistics.median(ours),
            "tidy_min_s": min(ours),
            "tidy_max_s": max(ours),
            "baseline_s": statistics.median(theirs) if theirs else nan,
            "baseline_min_s": min(theirs) if theirs else nan,
            "baseline_max_s": max(theirs) if theirs else nan,
            "speedup": statistics.median(theirs) / statistics.median(ours) if theirs else nan,
            "rows": sum(len(tables[name]) for name in TABLES),
            "problems": len(tables.problems),
            **memory,
        })
    return results


def markdown(results: list[dict]) -> str:
    """The results as a markdown table."""
    lines = [
        "| profiles | rows out | tidy median (min–max) | baseline median (min–max) "
        "| speedup | tidy peak memory |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ran = r["baseline_s"] == r["baseline_s"]  # NaN when the baseline was not run
        baseline = (f"{r['baseline_s']:.2f} s ({r['baseline_min_s']:.2f}–"
                    f"{r['baseline_max_s']:.2f})" if ran else "not run (too slow)")
        lines.append(
            f"| {r['n']:,} | {r['rows']:,} "
            f"| {r['tidy_s']:.3f} s ({r['tidy_min_s']:.3f}–{r['tidy_max_s']:.3f}) "
            f"| {baseline} "
            f"| {format(r['speedup'], '.1f') + '×' if ran else '—'} "
            f"| {r['peak_mb']:.0f} MB ({r['python_mb']:.0f} Python/NumPy + "
            f"{r['arrow_mb']:.0f} Arrow) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_tidy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--memory", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory:
        print(json.dumps(_memory(args.memory)))
        return 0
    print(markdown(run(args.sizes, args.repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
