"""What ``icoframes sandbox`` prints for a client in another shell, and the docs' recipes.

A client without ``ICOFRAMES_SERVICE_NAME`` names its cache by host and port: a sandbox
restarted on the same port with another seed was answered from the first one's cache, and the
export said it was complete. The banner gives a line to paste that sets it, and the README's
and the sandbox guide's shell recipes set it."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from waiting import HANG_GUARD

from icoframes.sandbox.server import service_name

ROOT = Path(__file__).resolve().parent.parent


def _banner(env: dict[str, str], *options: str) -> list[str]:
    """The lines the sandbox prints, read up to the line to paste, then it is stopped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "icoframes", "sandbox", "--port", "0", *options],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        lines = [proc.stdout.readline()]
        while lines[-1] and "export " not in lines[-1]:  # the banner's line to paste
            lines.append(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)  # what follows that line was written with it
        proc.wait(timeout=HANG_GUARD)  # a hang guard, not a measure
        lines += proc.stdout.read().splitlines(keepends=True)
    finally:
        proc.kill()
        proc.wait()
    return lines


def _clean_env(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]), **variables)
    return env


def _pasted(lines: list[str]) -> dict[str, str]:
    (pasted,) = [line for line in lines if line.strip().startswith("export ")]
    words = shlex.split(pasted)  # a shell reads it as it is: no "<placeholder>" redirection
    assert words[0] == "export" and all("=" in word for word in words[1:]), pasted
    return dict(word.split("=", 1) for word in words[1:])


def test_the_sandbox_banner_gives_a_line_to_paste_that_names_the_service():
    lines = _banner(_clean_env(ICOFRAMES_PRIVATE_KEY="S3cret"),
                    "--n-icos", "20", "--seed", "7", "--public-key", "K")
    base_url = lines[0].rsplit(" ", 1)[-1].strip()
    assert _pasted(lines) == {
        "ICOFRAMES_BASE_URL": base_url, "ICOFRAMES_PUBLIC_KEY": "K",
        "ICOFRAMES_SERVICE_NAME": service_name(20, 7)}
    said = "".join(lines)
    assert "S3cret" not in said
    assert all(word in said for word in ("ICOFRAMES_PRIVATE_KEY", "cache", "--seed")), said


def test_the_line_to_paste_from_a_sandbox_without_keys_is_enough_for_an_export(tmp_path):
    """The missing-keys advice says: run the sandbox and set the variables it prints. With its
    built-in keys (public: ``--help`` shows them) the line sets the private key too; without
    it, the export that follows stopped again at "missing private_key"."""
    env = _clean_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "icoframes", "sandbox", "--port", "0", "--n-icos", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        lines = [proc.stdout.readline()]
        while lines[-1] and "export " not in lines[-1]:
            lines.append(proc.stdout.readline())
        client = _clean_env(ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), **_pasted(lines))
        done = subprocess.run(
            [sys.executable, "-m", "icoframes", "export", "--out", str(tmp_path / "out")],
            capture_output=True, text=True, env=client, timeout=HANG_GUARD)
    finally:
        proc.kill()
        proc.wait()
    assert done.returncode == 0, done.stderr
    assert client["ICOFRAMES_PRIVATE_KEY"] == "sandbox-private"


def _shell_blocks(path: Path) -> list[str]:
    return re.findall(r"```(?:bash|sh|console)\n(.*?)```", path.read_text(), flags=re.S)


def test_the_docs_shell_recipes_for_the_sandbox_set_the_service_name():
    for path in (ROOT / "README.md", ROOT / "docs" / "guide" / "sandbox.md"):
        recipes = [b for b in _shell_blocks(path) if "icoframes sandbox" in b]
        assert recipes, path
        for block in recipes:
            assert "ICOFRAMES_SERVICE_NAME" in block, (path, block)
