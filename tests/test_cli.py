"""The `icoframes` command: sandbox, demo, cache; both entry points."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd

from icoframes.api.client import Client
from icoframes.schema import TABLE_NAMES

SCRIPT = Path(sys.executable).parent / "icoframes"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update(extra)
    return env


def test_console_script_and_module_both_work():
    for command in ([str(SCRIPT), "--help"], [sys.executable, "-m", "icoframes", "--help"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0
        for sub in ("export", "sandbox", "demo", "cache"):
            assert sub in result.stdout


def test_sandbox_command_serves_until_interrupted():
    proc = subprocess.Popen(
        [str(SCRIPT), "sandbox", "--port", "0", "--n-icos", "50", "--public-key", "K",
         "--private-key", "S3cret", "--quota", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        first = proc.stdout.readline()
        assert "serving 50 ICOs at http://127.0.0.1:" in first
        base_url = first.rsplit(" ", 1)[-1].strip()
        with Client(base_url=base_url, public_key="K", private_key="S3cret") as client:
            assert int(client.list_page()["total_icos"]) == 50
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "S3cret" not in first + out + err


def test_demo_writes_tables_manifest_and_plots(tmp_path):
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, "-m", "icoframes", "demo", "--out", str(out), "--n-icos", "150"],
        capture_output=True, text=True, timeout=180, env=_env())
    assert result.returncode == 0, result.stderr
    assert "export again from the cache: 0 requests" in result.stdout
    for name in TABLE_NAMES:
        assert (out / f"{name}.parquet").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"]["icos"] == 150
    assert len(pd.read_parquet(out / "icos.parquet")) == 150
    for png in ("scores", "raised", "timeline"):
        data = (out / f"{png}.png").read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5_000


def test_cache_info_and_clear_commands(tmp_path):
    env = _env(ICOFRAMES_BASE_URL="http://127.0.0.1:9", ICOFRAMES_PUBLIC_KEY="p",
               ICOFRAMES_PRIVATE_KEY="s", ICOFRAMES_CACHE_DIR=str(tmp_path))
    info = subprocess.run([str(SCRIPT), "cache", "info"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert info.returncode == 0, info.stderr
    parsed = json.loads(info.stdout)
    assert parsed["path"].startswith(str(tmp_path)) and parsed["profiles"] == 0
    cleared = subprocess.run([str(SCRIPT), "cache", "clear"], capture_output=True, text=True,
                             timeout=60, env=env)
    assert cleared.returncode == 0 and "cleared" in cleared.stdout
