"""What a user's type checker sees of icoframes: ``mypy --strict`` on a user's script.

Run as a user runs it, outside the tree, finding icoframes where pip installed it (an
editable install too: ``make install``'s strict mode). A cold run, its cache under tmp_path:
about 10 s of CPU, mostly reading pandas-stubs and matplotlib.
"""

from __future__ import annotations

import subprocess
import sys

from waiting import HANG_GUARD

# A user's script, checked by mypy --strict as a user runs it: outside the tree, finding
# icoframes where pip installed it. Never run: every line is for the type checker.
USER_SCRIPT = '''
from typing import assert_type

import pandas as pd
from matplotlib.axes import Axes

import icoframes
from icoframes import CacheDirInfo, CacheInfo, LoadReport, Tables


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
'''


def test_a_users_mypy_strict_sees_the_api_and_a_misspelled_filter(tmp_path):
    """``mypy --strict`` on a user's script, from outside the tree (as after ``make install``
    or a wheel): the lazily imported plot helpers, format_usd and sandbox have their types,
    ``cache_info()`` is a CacheInfo, ``load_tables(...).report`` a LoadReport, and the one
    error is the misspelled filter. Its cache is under tmp_path (a cold run)."""
    (tmp_path / "user.py").write_text(USER_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-pretty", "--show-error-codes",
         "--cache-dir", str(tmp_path / "mypy-cache"), "user.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD)
    misspelled = 1 + USER_SCRIPT.splitlines().index(
        '    icoframes.load_icos(stauts="past")  # MISSPELLED')
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == [f'user.py:{misspelled}: error: Unexpected keyword argument "stauts" for '
                      f'"load_icos"; did you mean "status"?  [call-arg]'], done.stdout
    assert done.returncode == 1, done.stdout + done.stderr  # 1: errors found, not a crash
