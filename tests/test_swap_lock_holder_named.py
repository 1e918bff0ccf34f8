"""The swap lock is a flock on ``--out`` itself, which any process that may read the folder can
take: an export held off by one says which process holds it (it blamed "another export" that
did not exist, leaving the operator to look for it). Another process holds it here, shared
(``flock -s OUT``), as a user who can only read the tree can."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox, swaps
from icoframes.cli import EXIT_ERROR, EXIT_OK, main

pytestmark = pytest.mark.usefixtures("clean_settings")

_HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH)
print("held", flush=True)
sys.stdin.read()
"""


def test_an_export_held_off_names_the_process_holding_its_swap_lock(tmp_path, monkeypatch,
                                                                    caplog):
    out = tmp_path / "out"
    with sandbox.serve(n_icos=20, seed=2) as sb:
        for name, value in sb.settings().items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
        monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
        icoframes.reset_configuration()
        assert main(["export", "--out", str(out), "--status", "past"]) == EXIT_OK
        monkeypatch.setattr(swaps, "SWAP_PATIENCE", 0.3)
        holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            caplog.set_level(logging.INFO, logger="icoframes")
            assert main(["export", "--out", str(out), "--status", "past"]) == EXIT_ERROR
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=HANG_GUARD)
        icoframes.reset_configuration()
    [said] = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert said.startswith(f"process {holder.pid} (")
    assert f"has held the swap lock of {out} for over 0.3 s" in said
    assert "any process that may read the folder" in said
