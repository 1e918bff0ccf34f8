"""What a user's type checker sees of icoframes: ``mypy --strict`` on a user's script.

Run as a user runs it, outside the tree. mypy finds a wheel's icoframes where pip installed
it, but not an editable install of setuptools' default mode (an import hook it cannot
follow): as the development guide says, a user of ``make install`` points ``MYPYPATH`` at
the tree and keeps mypy's ``--strict`` to their own code (``--follow-imports=silent``), as
this test does. A cold run, its cache under tmp_path: about 10 s of CPU,
mostly reading pandas-stubs and matplotlib.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from waiting import HANG_GUARD

import icoframes

# A user's script, checked by mypy --strict as a user runs it: outside the tree, finding
# icoframes where pip installed it. Never run: every line is for the type checker.
USER_SCRIPT = '''
from typing import assert_type

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

import icoframes
from icoframes import CacheDirInfo, CacheInfo, ListFilters, LoadReport, SortKey, Tables
from icoframes.api.params import SORT_KEYS


def a_user() -> None:
    sb = icoframes.sandbox.start()
    assert_type(sb.base_url, str)  # Any if the sandbox were
    icoframes.configure(**sb.settings())
    icos = icoframes.load_icos(status="past", platform="Ethereum", investor_kyc=True,
                               sort_asc="name", accepted_currencies=["ETH", "BTC"])
    assert_type(icos, pd.DataFrame)
    tables = icoframes.load_tables(status="past", ico_score=7, exclude_areas="USA")
    assert_type(tables, Tables[LoadReport])
    assert_type(tables.report.complete, bool)
    info = icoframes.cache_info()
    assert_type(info, CacheInfo)
    assert_type(icoframes.cache_info(all=True), CacheDirInfo)
    if info.requests_today is not None:  # None only without a public key
        print(info.requests_today - 1)
    assert_type(icoframes.plot_raised(icos), Axes)
    assert_type(icoframes.format_usd(1.5e6), str)
    icoframes.load_icos(stauts="past")  # MISSPELLED


def values_the_runtime_takes(frame: pd.DataFrame, need_kyc: bool) -> None:
    ids = frame["id"]  # ids out of a frame: numpy integers
    icoframes.load_icos(status="past", platform=np.int64(5), ico_score=np.int64(5))
    icoframes.load_icos(status="past", category=ids.to_numpy(), type=ids.tolist())
    icoframes.load_icos(status="past", platform=[np.int64(5), "Ethereum"])
    flag = True  # a bool to mypy, not Literal[True]
    icoframes.load_icos(status="past", investor_kyc=flag, ico_kyc_passed=need_kyc,
                        bounty_program=np.bool_(True), investor_wl="yes")
    for key in SORT_KEYS:
        icoframes.load_list("past", sort_desc=key)
    chosen: SortKey = "end_datetime"
    icoframes.export_tables("out", status="past", sort_asc=chosen)
    kept: ListFilters = {"platform": "Ethereum", "ico_score": 7}
    icoframes.load_icos(status="past", **kept)
    later: ListFilters = {"paltform": "Ethereum"}  # NOT A FILTER (no Any from __getattr__)
    icoframes.load_icos(status="past", sort_asc="nmae")  # NO SORT KEY
'''


def test_a_users_mypy_strict_sees_the_api_and_a_misspelled_filter(tmp_path):
    """``mypy --strict`` on a user's script, from outside the tree (as after ``make install``
    or a wheel): the lazily imported plot helpers, format_usd and sandbox have their types,
    ``cache_info()`` is a CacheInfo, ``load_tables(...).report`` a LoadReport; the filters
    take what the runtime takes (numpy integers, a bool variable as a yes-flag, a
    ``SortKey`` variable), and the errors are the misspelled filter, a key that is no
    filter in a ``ListFilters`` imported from ``icoframes`` (the module's ``__getattr__``
    made a name it lacks ``Any``), and the sort key that is none. Its cache is under
    tmp_path (a cold run)."""
    (tmp_path / "user.py").write_text(USER_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-pretty",
         "--show-error-codes",
         "--cache-dir", str(tmp_path / "mypy-cache"), "user.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD,
        env={**os.environ, "MYPYPATH": str(Path(icoframes.__file__).resolve().parents[1])})
    lines = USER_SCRIPT.splitlines()
    misspelled = 1 + lines.index('    icoframes.load_icos(stauts="past")  # MISSPELLED')
    no_key = 1 + next(i for i, line in enumerate(lines) if line.endswith("# NO SORT KEY"))
    not_one = 1 + next(i for i, line in enumerate(lines) if "# NOT A FILTER" in line)
    keys = ", ".join(f"'{key}'" for key in ("name", "id", "start_datetime", "end_datetime"))
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == [f'user.py:{misspelled}: error: Unexpected keyword argument "stauts" for '
                      f'"load_icos"; did you mean "status"?  [call-arg]',
                      f'user.py:{not_one}: error: Extra key "paltform" for TypedDict '
                      '"ListFilters"  [typeddict-unknown-key]',
                      f'user.py:{no_key}: error: Argument "sort_asc" to "load_icos" has '
                      f'incompatible type "Literal[\'nmae\']"; expected "Literal[{keys}] | None"'
                      '  [arg-type]'], done.stdout
    assert done.returncode == 1, done.stdout + done.stderr  # 1: errors found, not a crash
