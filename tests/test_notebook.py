"""The exploration notebook runs top to bottom against the embedded sandbox."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "explore.ipynb"


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") and not c.get("execution_count")
               for c in nb.cells if c.cell_type == "code")


@pytest.mark.slow
def test_notebook_executes_against_the_sandbox(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("ICOFRAMES_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws inline PNGs
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", output
            texts.append(str(output.get("text", "")) + str(output.get("data", "")))
    everything = "\n".join(texts)
    assert "started the embedded sandbox" in everything
    assert "InvalidParameter" in everything
    assert "requests spent by the second call: 0" in everything
    assert "image/png" in everything  # the plots were drawn
    from icoframes.sandbox import serve

    with serve(n_icos=1) as probe:  # the default sandbox key must not leak into outputs
        assert probe.private_key not in everything
