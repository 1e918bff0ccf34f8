"""Resolve a cross-reference to where its object is documented, not where it is defined.

A docstring names what it means by its own module's path (``icoframes.snapshots.read_snapshots``,
``Tables.to_parquet`` from ``icoframes.tables``); the API reference documents it once, where a
user imports it (``icoframes.read_snapshots``). When Sphinx finds no target, this looks for a
documented name of the same last part that is the very same object, and links there; a bare
name, to the one documented object of that name and kind (none when two are).
"""

from __future__ import annotations

import importlib
from typing import Any


def _lookup(path: str) -> Any:
    """The object ``path`` names (a module, then attributes), or None."""
    parts = path.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            found = getattr(found, name, None)
            if found is None:
                return None
        return found
    return None


def _documented(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target = node["reftarget"].lstrip("~.")
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    wanted = [target, *([f"{module}.{cls}.{target}"] if module and cls else []),
              *([f"{module}.{target}"] if module else [])]
    for path in wanted:
        if (obj := _same(_lookup(path))) is None:
            continue
        last = path.rsplit(".", 1)[-1]
        for name in list(domain.objects):
            if name != path and name.rsplit(".", 1)[-1] == last and _same(_lookup(name)) is obj:
                return _resolve(app, env, node, contnode, name)
    # a bare name (``FEATURES`` in a docstring documented as ``icoframes.compute_features``):
    # the one documented object of that name and of the role's kind, if there is exactly one
    kinds = domain.objtypes_for_role(node["reftype"]) or ()
    named = [name for name, entry in domain.objects.items()
             if name.rsplit(".", 1)[-1] == target and entry.objtype in kinds]
    return _resolve(app, env, node, contnode, named[0]) if len(named) == 1 else None


def _same(obj: Any) -> Any:
    """``obj``, or the function of a bound method (a classmethod is bound anew each time)."""
    return getattr(obj, "__func__", obj)


def _resolve(app: Any, env: Any, node: Any, contnode: Any, name: str) -> Any:
    return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                             name, node, contnode)


def setup(app: Any) -> dict[str, Any]:
    app.connect("missing-reference", _documented)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
