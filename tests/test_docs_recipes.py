"""The shell and Python recipes of the guides run as written.

The history guide's ``seen_since`` snippet runs in a fresh namespace (pasted alone, it
must import what it uses) on a snapshot tree the sandbox's exports wrote; the exports
guide's retention line runs under ``sh`` on a tree of 370 day folders, with nothing in it
but what POSIX tools and the BSDs' take too (no GNU-only ``head -n -N``).
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import test_days
from test_days import _run

from icoframes.cli import EXIT_OK

sb = test_days.sb  # a sandbox reached as cron's runs reach it

GUIDES = Path(__file__).resolve().parent.parent / "docs" / "guide"


def _block(guide: str, language: str, holding: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", (GUIDES / guide).read_text(), re.S)
    (block,) = [b for b in blocks if holding in b]
    return block


def test_the_seen_since_recipe_runs_pasted_alone(sb, tmp_path):
    out = tmp_path / "srv"
    day = dt.datetime(2026, 5, 10, 3, 15, tzinfo=dt.UTC)
    assert _run(day, "--out", str(out), "--snapshot") == EXIT_OK
    for ico_id in sb.directory.ids("ongoing")[:2]:
        sb.update_ico(ico_id, status="past")
    assert _run(day + dt.timedelta(days=1), "--out", str(out), "--snapshot") == EXIT_OK
    code = _block("history.md", "python", "seen_since").replace("/srv/ico", str(out))
    namespace: dict = {}
    exec(compile(code, "history.md", "exec"), namespace)  # a fresh namespace: its own imports
    events = namespace["events"]
    assert len(events) >= 2 and events["seen_since"].notna().all()


@pytest.mark.skipif(shutil.which("sh") is None, reason="a POSIX shell")
def test_the_retention_line_keeps_the_newest_365_days(tmp_path):
    line = _block("exports.md", "bash", "snapshot_date=").strip()
    assert "head -n -" not in line and "xargs -r" not in line  # GNU only
    tree = tmp_path / "ico"
    first = dt.date(2025, 1, 1)
    days = [f"snapshot_date={first + dt.timedelta(days=k)}" for k in range(370)]
    for name in days:
        (tree / name).mkdir(parents=True)
        (tree / name / "manifest.json").write_text("{}")
    (tree / ".icoframes-staging-x1").mkdir()  # an export's: not a day
    (tree / "snapshot_date=2099-01-01.txt").write_text("")  # a file: not a day folder
    subprocess.run(["sh", "-c", line.replace("/srv/ico", str(tree))], check=True)
    left = sorted(p.name for p in tree.iterdir())
    assert left == sorted([*days[5:], ".icoframes-staging-x1", "snapshot_date=2099-01-01.txt"])


def test_the_money_guide_rates_block_runs_pasted_alone(tmp_path):
    """The money guide's block of the rate forms runs as written in a fresh namespace (its
    own imports, rates it makes), against a configured sandbox: each form gives USD values."""
    import warnings

    import icoframes
    from icoframes import sandbox

    code = _block("money.md", "python", "to_usd(tables.icos, rates)")
    with sandbox.serve(n_icos=40, seed=5) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        try:
            namespace: dict = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a currency or day without a rate is said
                exec(compile(code, "money.md", "exec"), namespace)
        finally:
            icoframes.reset_configuration()
    assert namespace["icos_usd"]["hard_cap_usd"].notna().any()
