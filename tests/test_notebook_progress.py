"""Without ipywidgets, a saved notebook holds one final progress line per load (issue 19 part 7).

A real kernel (nbclient) in which ``import ipywidgets`` fails: a ``sitecustomize``
on the kernel's own ``PYTHONPATH`` puts ``None`` in ``sys.modules["ipywidgets"]``,
which is what an environment without the package looks like to ``import`` and to
``importlib.util.find_spec``. This process is not touched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from test_notebook import run_in_kernel

ROOT = Path(__file__).resolve().parent.parent
BAR = re.compile(r"^(profiles|list pages): ")

CELLS = [
    # the kernel really has no ipywidgets, and its loads show progress (progress=None)
    """import importlib.util
assert importlib.util.find_spec("ipywidgets") is None
try:
    import ipywidgets
except ImportError:
    print("no ipywidgets")
import icoframes
sb = icoframes.sandbox.start(n_icos=40, seed=4)
_ = icoframes.configure(**sb.settings())""",
    'past = icoframes.load_icos(status="past")\nprint(len(past), "past")',
    'upcoming = icoframes.load_icos(status="upcoming")\nprint(len(upcoming), "upcoming")',
    'again = icoframes.load_icos(status="past")  # all cached: no bar\nprint(len(again), "past")',
    "sb.stop()",
]


def _run(tmp_path: Path) -> nbformat.NotebookNode:
    """Execute the notebook in a fresh kernel in ``tmp_path``, save it, read it back."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    run_in_kernel(nb, tmp_path)
    saved = tmp_path / "saved.ipynb"
    nbformat.write(nb, saved)
    return nbformat.read(saved, as_version=4)


def _stderr(cell: nbformat.NotebookNode) -> str:
    return "".join(o["text"] for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


@pytest.mark.slow
def test_without_ipywidgets_a_saved_notebook_holds_one_final_progress_line_per_load(
        tmp_path, monkeypatch):
    shim = tmp_path / "no-ipywidgets"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text('import sys\nsys.modules["ipywidgets"] = None\n')
    for name in list(os.environ):
        if name.startswith("ICOFRAMES_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [
        str(shim), str(ROOT), os.environ.get("PYTHONPATH")])))  # this tree's icoframes
    nb = _run(tmp_path)
    for cell in nb.cells:
        assert all(o.get("output_type") != "error" for o in cell.get("outputs", [])), cell
    setup, past, upcoming, again, _ = nb.cells
    assert "no ipywidgets" in "".join(o.get("text", "") for o in setup.outputs)
    everything = "".join(_stderr(c) for c in nb.cells)
    assert "\r" not in everything and "\x1b" not in everything  # no live-bar redraws
    assert "IProgress" not in everything and "TqdmWarning" not in everything
    for cell in (past, upcoming):  # cold loads: exactly one line each, the final state
        lines = [line for line in _stderr(cell).splitlines() if BAR.match(line)]
        assert len(lines) == 1, _stderr(cell)
        done = re.search(r"\| *(\d+)/(\d+) ", lines[0])
        assert lines[0].startswith("profiles: 100%|") and done, lines[0]
        assert done.group(1) == done.group(2)
        rows = "".join(o["text"] for o in cell.outputs if o.get("name") == "stdout")
        assert int(done.group(2)) == int(rows.split()[0])  # one count per ICO loaded
    assert not [line for line in _stderr(again).splitlines() if BAR.match(line)]
