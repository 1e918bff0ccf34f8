"""The exploration notebook runs top to bottom against the embedded sandbox."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import sqlite3
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from waiting import HANG_GUARD

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "explore.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# tqdm's text for a bar without a total: "0ICO [00:00, ?ICO/s]", "0it [...]", "0/0 [...]"
NO_TOTAL = re.compile(r"(^|[\s:|])\d+(ICO|it|page) \[|(^|\D)0/0 \[|\?ICO/s\]")
# The kernel's clock: real time moved so that the test begins at this noon (UTC). The
# request ledger counts per UTC day: a run across the real midnight counted its requests on
# two days (the first run's count, and "spent by the second call" = after - before, broke).
NOON = dt.datetime(2026, 6, 15, 12, tzinfo=dt.UTC)


def _bars(cell) -> list:
    """The progress bars a cell left: widget views, or text bars on stderr."""
    return [o for o in cell.get("outputs", [])
            if WIDGET_VIEW in o.get("data", {})
            or (o.get("name") == "stderr" and re.search(r"(profiles|list pages):", o["text"]))]


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count")
               for c in nb.cells if c.cell_type == "code")


def run_in_kernel(nb: nbformat.NotebookNode, workdir: Path) -> None:
    """Execute ``nb`` in place in a fresh python3 kernel started in ``workdir``."""
    imported = set(sys.modules)
    # The kernel's channels are Unix sockets in ``workdir``, not TCP ports: jupyter_client
    # picks free ports and closes them before the kernel binds them, and another xdist
    # worker's server could take one meanwhile (the kernel then died at start with "Address
    # already in use", and nbclient waited its whole startup_timeout for it)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(workdir / "kernel"))
    try:
        # nbclient's other clocks are hang guards too: a kernel starts within 60 s and a
        # cell's output comes within 4 s of its reply by default, or is dropped unsaid
        NotebookClient(nb, km=km, timeout=HANG_GUARD, startup_timeout=HANG_GUARD,
                       iopub_timeout=HANG_GUARD, raise_on_iopub_timeout=True,
                       kernel_name="python3",
                       resources={"metadata": {"path": str(workdir)}}).execute(cleanup_kc=True)
        # given a kernel manager, nbclient leaves its kernel running and its client's zmq
        # sockets open unless told to clean up: the sockets were collected during a later
        # test of this worker (PytestUnraisableExceptionWarning, seen under pandas 2.2)
        assert not km.is_alive()
    finally:
        # Starting a kernel imports ipykernel.kernelspec into this process, and icoframes
        # takes an imported ipykernel for a notebook (progress bars on): drop it so that
        # later tests in this process are not mistaken for a notebook.
        for name in set(sys.modules) - imported:
            if name == "ipykernel" or name.startswith("ipykernel."):
                del sys.modules[name]


def _execute(workdir: Path, shift: float):
    """Run the notebook top to bottom in a kernel started in ``workdir``, its clock ``shift``
    seconds from the real one (ticking); the executed notebook."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(  # before anything: a fixed ledger day
        "import datetime, time_machine\n"
        "time_machine.travel(datetime.datetime.now(datetime.UTC)"
        f" + datetime.timedelta(seconds={shift!r}), tick=True).start()"))
    run_in_kernel(nb, workdir)
    return nb


def _texts(nb) -> str:
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", output
            texts.append(str(output.get("text", "")) + str(output.get("data", "")))
    return "\n".join(texts)


def _ledgers(cache: Path) -> dict[str, tuple[str, int]]:
    """Every request ledger of the cache dir: key -> (day, requests sent)."""
    with contextlib.closing(sqlite3.connect(cache / "quota" / "ledger.sqlite3")) as conn:
        return {key: (day, sent) for key, day, sent in
                conn.execute("SELECT key, day, sent FROM ledgers")}


@pytest.mark.slow
def test_notebook_executes_against_the_sandbox(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("ICOFRAMES_"):
            monkeypatch.delenv(name)
    cache = tmp_path / "cache"
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(cache))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline PNGs
    # the kernel runs in tmp_path: make it import this tree's icoframes, not an installed one
    root = str(NOTEBOOK.parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root,
                                                                    os.environ.get("PYTHONPATH")])))
    shift = (NOON - dt.datetime.now(dt.UTC)).total_seconds()  # one ledger day, whatever the date
    nb = _execute(tmp_path, shift)
    everything = _texts(nb)
    assert "started the embedded sandbox" in everything
    assert "InvalidParameter" in everything
    assert "requests spent by the second call: 0" in everything
    assert "image/png" in everything  # the plots were drawn
    _inspect_outputs(nb, everything)
    from icoframes.sandbox import serve

    with serve(n_icos=1) as probe:  # the default sandbox key must not leak into outputs
        assert probe.private_key not in everything

    # Run again against the same cache dir: its sandbox gets another port, yet it finds
    # its cache (named by the sandbox's content), spends nothing and adds no folder.
    folders = sorted(p.name for p in cache.iterdir())
    assert len(folders) == 2 and folders[0] == "quota" and folders[1].startswith("sandbox-0-")
    ledgers = _ledgers(cache)
    assert {day for day, _ in ledgers.values()} == {NOON.date().isoformat()}
    assert sum(sent for _, sent in ledgers.values()) > 700  # the first run's requests
    again = _execute(tmp_path, shift)
    assert "requests spent by the second call: 0" in _texts(again)
    assert sorted(p.name for p in cache.iterdir()) == folders
    assert _ledgers(cache) == ledgers  # not one request booked
    first = next(c for c in again.cells if 'load_icos(status="past")' in c.source)
    assert _bars(first) == []  # all cached: no progress bar


def _inspect_outputs(nb, everything: str) -> None:
    """What a reader sees: no tqdm warnings, no bar without a total, none for a cached call."""
    assert "IProgress" not in everything and "TqdmWarning" not in everything
    assert not NO_TOTAL.search(everything), NO_TOTAL.search(everything)
    states = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    models = list(states.get("state", {}).values())
    # tqdm's widget text uses figure spaces (U+2007) where the text bar has spaces
    shown = " | ".join(str(m["state"].get("value", "")) for m in models).replace("\u2007", " ")
    assert not NO_TOTAL.search(shown), shown
    for model in models:
        if model.get("model_name") == "FloatProgressModel":
            assert model["state"].get("max", 0) > 0, model
    code = [c for c in nb.cells if c.cell_type == "code"]
    cached = [c for c in code if "requests spent by the second call: 0"
              in "".join(str(o.get("text", "")) for o in c.get("outputs", []))]
    assert len(cached) == 1 and _bars(cached[0]) == []
    first = next(c for c in code if 'load_icos(status="past")' in c.source)
    assert _bars(first), "the first load fetched profiles: it should show a bar"
    shown = [c for c in code for o in c.get("outputs", [])
             if "<strong>Tables</strong>" in o.get("data", {}).get("text/html", "")]
    assert shown, "the notebook should show a Tables object (a cell ending in `tables`)"
    assert _bars(shown[0]) == []  # load_tables after load_icos of the same ICOs: all cached


def _distribution(requirement: str) -> str:
    """The normalized distribution name of a requirement such as ``"pandas>=2.2"``."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def test_notebook_imports_only_what_the_notebook_extra_installs():
    # getting-started sets a reader up with `pip install '.[notebook]'`: a cell importing a
    # dev-only package (time_machine, pytest...) fails there with ModuleNotFoundError
    import ast
    import importlib.metadata
    import tomllib

    project = tomllib.loads((NOTEBOOK.parent.parent / "pyproject.toml").read_text())["project"]
    allowed = {_distribution(r) for r in
               [*project["dependencies"], *project["optional-dependencies"]["notebook"]]}
    providers = importlib.metadata.packages_distributions()
    imported = set()
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if cell.cell_type == "code":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.partition(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.partition(".")[0])
    assert {"icoframes", "pandas", "matplotlib"} <= imported  # the walk found the imports
    outside = {module: providers.get(module) for module in imported - {"icoframes"}
               if module not in sys.stdlib_module_names
               and not {_distribution(d) for d in providers.get(module, [])} & allowed}
    assert not outside, f"imports the notebook extra does not install: {outside}"
