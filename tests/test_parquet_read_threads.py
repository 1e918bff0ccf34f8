"""A Parquet file read by icoframes leaves no work on Arrow's thread pool.

A decode task on that pool holds the file's bytes (a Python object) and may let them go after
the read returned; when that happens as the interpreter exits, the C++ destructor takes the
GIL, Python ends the thread, and the process aborts ("terminate called without an active
exception", exit -6). Counted in a fresh process (the pool's threads start with its first
task and never end): the threads of the process before and after a read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from waiting import HANG_GUARD

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc")

_READ = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    import pyarrow as pa
    from icoframes.files import read_parquet_columns, read_parquet_table
    pa.allocate_buffer(1 << 24)  # the allocator's own threads started first (no pool task)
    before = len(os.listdir("/proc/self/task"))
    read_parquet_table(Path(sys.argv[1]))
    read_parquet_columns(Path(sys.argv[1]), ["b", "c"])
    print(before, len(os.listdir("/proc/self/task")))
""")


def test_a_parquet_read_starts_no_arrow_thread(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    columns = {name: [f"{name}{i}" for i in range(5000)] for name in "abcdef"}
    pq.write_table(pa.table(columns), path, row_group_size=1000)  # several columns and groups
    done = subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True,
                          text=True, timeout=HANG_GUARD, check=True)
    before, after = done.stdout.split()
    assert after == before, done.stderr
