"""A signal held back during an export's swap: what is said once it stops the export, and the
handlers set back after the swap.

A signal that came during the swap is acted on once the swap is whole: the export is written.
The command still exits 130/143, but its log said "terminated; everything fetched so far is
cached" as if nothing were written; it names what was written, complete or not. The handlers
the swap set aside were set back one at a time: a Ctrl-C right after SIGINT's was back
raised mid-way, leaving SIGTERM's and SIGHUP's on the throw-away one (later ones swallowed).
The signals are real ones, sent by a child process to itself at the instant named.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_swap_signals import _export
from waiting import HANG_GUARD

from icoframes import sandbox, staging
from icoframes.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED

ROOT = Path(__file__).resolve().parents[1]


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


# a Ctrl-C right after SIGINT's handler is set back by uninterrupted(), the first it sets
# back: what it raised, and what a SIGTERM then does (the handler before the swap runs)
_RESTORE = """
import json, os, signal
from icoframes import swaps
terms = []
def on_term(signum, frame):
    terms.append(signal.Signals(signum).name)
for sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, on_term)
signal.signal(signal.SIGINT, signal.default_int_handler)
real = signal.signal
def set_back(sig, handler):
    old = real(sig, handler)
    if sig == signal.SIGINT and handler is signal.default_int_handler:
        signal.signal = real
        os.kill(os.getpid(), signal.SIGINT)
    return old
try:
    with swaps.uninterrupted("written"):
        signal.signal = set_back
    raised = None
except KeyboardInterrupt as exc:
    raised = ["KeyboardInterrupt", getattr(exc, "__notes__", [])]
signal.signal = real
os.kill(os.getpid(), signal.SIGTERM)
os.kill(os.getpid(), signal.SIGHUP)
print(json.dumps({"raised": raised, "terms": terms,
                  "set back": [signal.getsignal(s) is on_term
                               for s in (signal.SIGTERM, signal.SIGHUP)]}))
"""


def test_a_ctrl_c_while_the_handlers_are_set_back_leaves_none_on_the_throw_away_one():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT),
                                                         os.environ.get("PYTHONPATH", "")])}
    child = subprocess.run([sys.executable, "-c", _RESTORE], env=env, capture_output=True,
                           text=True, timeout=HANG_GUARD)
    assert child.returncode == 0, child.stderr
    assert json.loads(child.stdout) == {"raised": ["KeyboardInterrupt", ["written"]],
                                        "terms": ["SIGTERM", "SIGHUP"],
                                        "set back": [True, True]}
