"""A test session that leaves folders in the temp dir fails (tests/tempdirs.py).

Each case runs a small pytest session in a child process with this suite's conftest, alone
and under pytest-xdist, its basetemp in ``tmp_path``: nothing of it reaches this session's
temp dir.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from waiting import HANG_GUARD

TESTS = Path(__file__).resolve().parent

# The suite's conftest, loaded under another name (the child's own conftest is "conftest")
CONFTEST = f"""
import importlib.util, sys
sys.path.insert(0, {str(TESTS)!r})
spec = importlib.util.spec_from_file_location("suite_conftest", {str(TESTS / "conftest.py")!r})
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)
pytest_configure, temp_dir_left_empty = suite.pytest_configure, suite.temp_dir_left_empty
"""

LEAKS = '''
import os, subprocess, sys, tempfile

def test_clean(tmp_path):
    with tempfile.TemporaryDirectory() as kept_briefly:
        assert os.path.dirname(kept_briefly) == os.environ["TMPDIR"]

def test_leaks_a_folder():
    tempfile.mkdtemp(prefix="left-by-test-")

def test_a_child_leaks():  # a child process inherits the temp dir through $TMPDIR
    subprocess.run([sys.executable, "-c",
                    "import tempfile; tempfile.mkdtemp(prefix='left-by-child-')"], check=True)
'''

CLEAN = '''
import tempfile

def made():
    """
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()  # a doctest's temp dir is its own
    """

def test_clean():
    with tempfile.TemporaryDirectory():
        pass
'''


def _session(tmp_path: Path, tests: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A pytest session over ``tests`` in a child process; its output and exit status."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_them.py").write_text(textwrap.dedent(tests))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(tmp_path),
         "--basetemp", str(tmp_path / "basetemp"), "-p", "no:cacheprovider",
         "-p", "no:randomly", "--doctest-modules", *args, str(tmp_path / "test_them.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["alone", "xdist"])
def test_a_session_that_leaves_folders_in_the_temp_dir_fails(tmp_path, workers):
    ours = sorted(os.listdir(tempfile.gettempdir()))
    done = _session(tmp_path, LEAKS, *workers)
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())  # pytest wraps long lines
    assert "the tests left" in out and "A test removes what it makes there" in out
    assert "left-by-test-" in out and "test_them.py::test_leaks_a_folder)" in out
    assert "left-by-child-" in out and "test_them.py::test_a_child_leaks)" in out
    # the tests pass, the session fails: one error per process that found folders left
    assert re.search(r"3 passed, [12] errors? in", out), out
    # the leftovers are in the child's basetemp, not in this session's temp dir
    left = [p.name for p in (tmp_path / "basetemp").rglob("left-by-*")]
    assert sorted(name.rpartition("-")[0] for name in left) == ["left-by-child", "left-by-test"]
    assert sorted(os.listdir(tempfile.gettempdir())) == ours


def test_a_session_that_removes_its_folders_passes(tmp_path):
    done = _session(tmp_path, CLEAN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
