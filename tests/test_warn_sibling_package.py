"""A warning is attributed to the first caller outside the icoframes package, a sibling
package whose name starts with ``icoframes`` (``icoframes_contrib``, a plugin) included.

The package test compared paths as text with no separator, so a frame of
``site-packages/icoframes_contrib/__init__.py`` counted as inside icoframes: the warning
went to the plugin's caller, past the plugin, and its ``filterwarnings(module=...)`` did not
match. The code is compiled under the sibling's file name (nothing is written there): the
frames are real, only their file is named.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import icoframes
from icoframes.errors import warn

PACKAGE = Path(icoframes.__file__).resolve().parent


@pytest.mark.parametrize("name", ["icoframes_contrib", "icoframes-extra", "contrib_other"])
def test_a_sibling_package_is_outside_whatever_its_name(name):
    plugin = str(PACKAGE.parent / name / "__init__.py")
    code = compile("def latest():\n    warn('nothing matched')\n", plugin, "exec")
    space = {"warn": warn}
    exec(code, space)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        space["latest"]()
    (one,) = said
    assert (one.filename, one.lineno) == (plugin, 2)
    assert one.category is icoframes.IcoframesWarning
