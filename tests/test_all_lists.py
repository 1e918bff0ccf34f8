"""What each module exports, as its ``__all__`` says, and what the API reference documents.

Before: 42 imports of 24 names (``from .loaders import MaxAge``, ``from .schema import ICOS``,
``from .files import filelock``...) took a name its module's ``__all__`` did not list, so a
checker with mypy's ``implicit_reexport = false`` (``--strict``) saw no such export, and
``CacheError`` and ``NoMatchWarning``, in ``icoframes.__all__``, had no page in the API
reference. The rules: a name one module imports from another is in that module's
``__all__``; every ``__all__`` name exists; the reference (docs/reference/api.rst) documents
every class and function of ``icoframes.__all__`` and nothing that ``__all__`` leaves out.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import types
from pathlib import Path

import pytest

import icoframes

PACKAGE = Path(icoframes.__file__).resolve().parent
API_RST = PACKAGE.parent / "docs" / "reference" / "api.rst"
# __main__ runs the command line when imported
NAMES = sorted(m.name for m in pkgutil.walk_packages([str(PACKAGE)], "icoframes.")
               if not m.name.endswith("__main__"))


def _source(module: str) -> Path:
    path = PACKAGE.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _imported_from_siblings() -> dict[tuple[str, str], list[str]]:
    """(module, name) -> the modules that import ``name`` from ``module``."""
    found: dict[tuple[str, str], list[str]] = {}
    for importer in ["icoframes", *NAMES]:
        path = _source(importer)
        package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = f"{base}.{node.module}" if node.module else base
            for alias in node.names:
                if not alias.name.startswith("_"):
                    found.setdefault((source, alias.name), []).append(importer)
    return found


def test_the_scan_sees_the_package():
    imported = _imported_from_siblings()
    assert len(NAMES) > 100 and "icoframes.store.cache" in NAMES
    assert ("icoframes.loaders", "MaxAge") in imported  # export and manifest use it
    assert imported[("icoframes.files", "filelock")] == ["icoframes.staging"]


@pytest.mark.parametrize("name", ["icoframes", *NAMES])
def test_every_name_of_all_exists_once(name):
    module = importlib.import_module(name)
    listed = getattr(module, "__all__", None)
    if listed is None:
        pytest.skip(f"{name} has no __all__")
    assert len(listed) == len(set(listed)), name
    assert [n for n in listed if not hasattr(module, n)] == []


def test_what_a_module_imports_from_a_sibling_is_in_its_all():
    missing = []
    for (source, name), importers in sorted(_imported_from_siblings().items()):
        module = importlib.import_module(source)
        found = getattr(module, name)
        if isinstance(found, types.ModuleType) and found.__name__ == f"{source}.{name}":
            continue  # a submodule (from . import features), not an attribute
        if name not in getattr(module, "__all__", [name]):
            missing.append(f"{source}.{name} <- {', '.join(importers)}")
    assert missing == []


def _documented() -> list[str]:
    text = API_RST.read_text(encoding="utf-8")
    assert ".. currentmodule:: icoframes\n" in text
    return re.findall(r"^   ([\w.]+)$", text, flags=re.MULTILINE)


def test_the_api_reference_documents_what_icoframes_exports():
    documented = _documented()
    assert "load_icos" in documented and "sandbox.start" in documented
    for entry in documented:
        module_name, _, name = entry.rpartition(".")
        module = importlib.import_module(f"icoframes.{module_name}" if module_name
                                         else "icoframes")
        assert name in module.__all__, entry
    modules = [n for n in icoframes.__all__
               if isinstance(getattr(icoframes, n), types.ModuleType)]
    assert modules == ["features", "sandbox"]
    assert sorted(set(icoframes.__all__) - set(documented)) == ["__version__", *modules]
