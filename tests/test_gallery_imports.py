"""The gallery's examples import nothing beyond icoframes, its dependencies and the
standard library (REV-SH S1): ``plot_status_flow.py`` imported ``time_machine``, a dev-only
package, so the docs did not build with the ``[docs]`` extra and a reader could not run it;
and they echo no ``<Axes ...>`` on their pages (S2)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.py"))


def _runtime_modules() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = project["dependencies"] + project["optional-dependencies"]["docs"]
    return {"icoframes", *(re.split(r"[<>=!~\[; ]", name, maxsplit=1)[0].replace("-", "_").lower()
                          for name in names)}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_an_example_runs_with_what_the_docs_extra_installs(example):
    tree = ast.parse(example.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    assert imported - set(sys.stdlib_module_names) - _runtime_modules() == set()


def test_the_examples_are_there():
    assert {path.name for path in EXAMPLES} >= {"plot_status_flow.py", "plot_raised_vs_cap.py"}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_an_example_echoes_no_axes(example):
    # sphinx-gallery prints the repr of a block's last expression: "<Axes: title={...".
    # A plot helper returns its Axes, so its call is assigned (``ax = ...``).
    bare = [node.lineno for node in ast.parse(example.read_text(encoding="utf-8")).body
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func).startswith("icoframes.plot_")]
    assert bare == []
