"""A service folder's ``.lock`` this user may not open, in a folder it may write to (a job run
as another user filled the cache dir: its files are that user's), is a CacheError naming the
file and the fix, not a bare PermissionError (review REVJ L2: ``offline=True``, which the
refusal to write such a cache suggests, raised ``PermissionError [Errno 13] ... .lock``).

Mode 000: root opens it anyway, so the load runs as root without the capabilities that
override file modes (setpriv), or as the user running the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import icoframes
from icoframes import sandbox
from icoframes.config import SETTINGS

_OFFLINE = """
import warnings
import icoframes
warnings.simplefilter("ignore")
try:
    icoframes.load_icos(status="past", progress=False, offline=True)
except Exception as exc:
    print(type(exc).__name__, exc, sep=": ")
else:
    print("loaded")
"""


def test_a_lock_file_this_user_may_not_open_is_a_cache_error_naming_it(tmp_path, monkeypatch):
    dropped: list[str] = []  # the prefix of a command run without overriding file modes
    if os.geteuid() == 0:
        if (setpriv := shutil.which("setpriv")) is None:
            pytest.skip("running as root without setpriv: a file cannot be made unopenable")
        dropped = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        env = {f"ICOFRAMES_{k.upper()}": str(v) for k, v in sb.settings().items()}
        env["ICOFRAMES_CACHE_DIR"] = str(tmp_path / "cache")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        icoframes.reset_configuration()
        try:
            filled = icoframes.load_icos(status="past", progress=False)
        finally:
            icoframes.reset_configuration()
        folder = tmp_path / "cache" / sb.settings()["service_name"]
        lock = folder / ".lock"
        assert len(filled) == len(sb.directory.ids("past")) and lock.is_file()
        sb.stats.reset()
        lock.chmod(0)
        try:
            # root lacking CAP_SETPCAP (a container's) cannot drop the others: setpriv runs
            # its command with them, silently, and the file opens (REVO L4: failed, not skipped)
            if subprocess.run([*dropped, "test", "-r", str(lock)]).returncode == 0:
                pytest.skip("the lock file stays readable at mode 000 here (root whose "
                            "dac_override setpriv cannot drop: no CAP_SETPCAP)")
            done = subprocess.run([*dropped, sys.executable, "-c", _OFFLINE],
                                  capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        finally:
            lock.chmod(0o644)
        assert sum(sb.stats.requests.values()) == 0  # offline
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"CacheError: the cache's lock file {lock} cannot be opened (Permission denied): give "
        "this user read and write access to it, or use a cache_dir of this user's own"]
