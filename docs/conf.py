"""Sphinx configuration of the icoframes documentation site (``make docs``).

Why Sphinx: the docstrings are numpydoc already (numpydoc renders them as the
API reference), sphinx-gallery runs each example script at build time and
shows the figures it draws (the gallery of plot helpers, as matplotlib and
FastF1 do), myst-parser lets the guides stay Markdown like the README they came
from, and a small local extension (``_ext/declared.py``) writes the data
dictionary, the settings and the features tables from their declarations. The build
is offline: no intersphinx, no remote assets (pydata-sphinx-theme ships its own),
warnings are errors.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

from sphinx.application import Sphinx

import icoframes

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

# The gallery's scripts run here, at build time, against the sandbox: give them a
# cache of their own and a backend without a display, so a build never touches the
# builder's real cache and needs no screen. The cache, and every temporary folder a
# script makes (plot_status_flow exports into tempfile.mkdtemp()), live in one scratch
# folder removed when the build ends: a build leaves nothing in the builder's temp dir
# (the cache alone is ~3 MB a build).
_SCRATCH = tempfile.mkdtemp(prefix="icoframes-docs-")
_TEMPDIR, _TMPDIR = tempfile.tempdir, os.environ.get("TMPDIR")
tempfile.tempdir = os.environ["TMPDIR"] = _SCRATCH
os.environ["ICOFRAMES_CACHE_DIR"] = os.path.join(_SCRATCH, "cache")
os.environ["MPLBACKEND"] = "Agg"
for name in list(os.environ):
    if name.startswith("ICOFRAMES_") and name != "ICOFRAMES_CACHE_DIR":
        del os.environ[name]  # the examples configure the sandbox themselves

project = "icoframes"
author = "the icoframes authors"
copyright = "2026, the icoframes authors"
release = icoframes.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "declared",
]

# Every cross-reference must resolve (nitpicky, and `make docs` fails on a warning): a link
# that goes nowhere fails the build. A docstring names a public object by its public path
# (``icoframes.read_snapshots``, not the module that defines it). What has no page, each
# with why:
nitpicky = True
nitpick_ignore = [
    # the build is offline (no intersphinx): the standard library has no pages here
    ("py:class", "collections.abc.Mapping"),
    # Mapping's own docstrings, which Tables inherits (get, items, keys, values)
    ("py:class", "D[k] if k in D, else d.  d defaults to None."),
    ("py:class", "a set-like object providing a view on D's items"),
    ("py:class", "a set-like object providing a view on D's keys"),
    ("py:class", "an object providing a view on D's values"),
]
# internal modules and helpers a docstring names for a reader of the source: no API page
nitpick_ignore_regex = [
    ("py:mod", r"icoframes\.(schema|vocabulary|placenames|parse\.units|parse\.prices|api\.control"
               r"|cachedir\.housekeeping)|\.?command"),
    ("py:(func|meth|class|data)", r"(normalize_rates|price_dates|check_magnitudes|NAMES"
                                  r"|AMOUNT_UNITS|MAX_DATE_LABELS|icoframes\.api\.client\.Client"
                                  r"|\.?directory\.Directory\.\w+|generate_directory"
                                  r"|icoframes\.moments\.as_naive_utc)"),
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "examples/README.rst", "examples/*.py"]
templates_path = ["_templates"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "reset_modules": ("matplotlib", "seaborn"),
    "capture_repr": ("_repr_html_", "__repr__"),
}

html_theme = "pydata_sphinx_theme"
html_title = f"icoframes {release}"
html_static_path = ["_static"]
html_css_files = ["icoframes.css"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["sidebar-nav-bs"], "index": [], "reference/data-dictionary": []}


def _remove_scratch(*_: object) -> None:
    """Give the temp dir back and delete the build's scratch folder (idempotent)."""
    if tempfile.tempdir == _SCRATCH:
        tempfile.tempdir = _TEMPDIR
        if _TMPDIR is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = _TMPDIR
    shutil.rmtree(_SCRATCH, ignore_errors=True)


# build-finished comes however the build ended (Sphinx emits it with the exception, if
# any); atexit covers a build that failed before Sphinx set its events up
atexit.register(_remove_scratch)


def _declared_comment(app: Sphinx, what: str, name: str, obj: object, options: object,
                      lines: list[str]) -> None:
    """The ``#:`` comment of a type alias re-exported by ``icoframes`` (``Status``,
    ``SortKey``), read where it is declared: autodoc looks for it in ``icoframes``
    itself, where the name is only imported, and its page said "alias of" alone (or, for a
    union such as ``Age``, the docstring of ``types.UnionType``)."""
    own = [line.strip() for line in lines if line.strip()]
    typed = [line for line in (type(obj).__doc__ or "").splitlines() if line.strip()]
    if what != "data" or (own and own != [line.strip() for line in typed]) or \
            not name.startswith("icoframes."):
        return
    from sphinx.pycode import ModuleAnalyzer

    short = name.rpartition(".")[2]
    for modname, module in sorted(sys.modules.items()):
        if modname.startswith("icoframes.") and getattr(module, short, None) is obj:
            comment = ModuleAnalyzer.for_module(modname).find_attr_docs().get(("", short))
            if comment:
                lines[:] = [*comment, ""]
                return


def setup(app: Sphinx) -> None:
    """Remove the scratch folder when the build ends; give re-exported aliases their
    comments."""
    app.connect("build-finished", _remove_scratch)
    # before numpydoc's handler (priority 500), which reads the lines as a docstring
    app.connect("autodoc-process-docstring", _declared_comment, priority=400)
