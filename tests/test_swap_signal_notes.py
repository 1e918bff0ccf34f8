"""A signal held back during an export's swap: what is said once it stops the export.

A signal that came during the swap is acted on once the swap is whole: the export is written.
The command still exits 130/143, but its log said "terminated; everything fetched so far is
cached" as if nothing were written; it names what was written, complete or not. The signals
are real ones, sent by a child process to itself at the instant named.
"""

from __future__ import annotations

import json
import signal

import pytest
from test_swap_signals import _export

from icoframes import sandbox, staging
from icoframes.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


@pytest.mark.parametrize(("sig", "code", "said"), [
    (signal.SIGTERM, EXIT_TERMINATED, "terminated (SIGTERM)"),
    (signal.SIGINT, EXIT_INTERRUPTED, "interrupted")])
def test_a_signal_during_a_snapshot_swap_says_the_day_was_written(sb, tmp_path, sig, code, said):
    out = tmp_path / "tree"
    assert _export(sb, tmp_path, "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    before = json.loads((day / "manifest.json").read_text())
    again = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                    sig=sig, after=f"{out}/{staging.STAGING_PREFIX}*/previous-{day.name}")
    assert again.returncode == code, again.stderr
    now = json.loads((day / "manifest.json").read_text())
    assert now["exported_at"] > before["exported_at"] and now["complete"] is True
    assert (f"{said}; {day} was written (complete); everything fetched so far is cached"
            in again.stderr)


def test_a_sigterm_during_a_plain_swap_says_it_was_written_incomplete(sb, tmp_path):
    out = tmp_path / "plain"
    again = _export(sb, tmp_path, "--out", str(out), "--budget", "1",
                    sig=signal.SIGTERM, after=f"{out}/accepting.parquet")  # the 1st table in
    assert again.returncode == EXIT_TERMINATED, again.stderr
    assert json.loads((out / "manifest.json").read_text())["complete"] is False
    assert (f"terminated (SIGTERM); {out} was written (incomplete); everything fetched so far "
            "is cached") in again.stderr


def test_a_signal_before_the_swap_says_nothing_was_written(sb, tmp_path):
    out = tmp_path / "tree"
    assert _export(sb, tmp_path, "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    before = (day / "manifest.json").read_bytes()
    again = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                    sig=signal.SIGTERM, after=f"{out}/{staging.STAGING_PREFIX}*/manifest.json")
    assert again.returncode == EXIT_TERMINATED, again.stderr
    assert "terminated (SIGTERM); everything fetched so far is cached" in again.stderr
    assert "was written" not in again.stderr
    assert (day / "manifest.json").read_bytes() == before

