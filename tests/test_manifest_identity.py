"""An export's manifest names the code that read its tables (FIXP item 4, review REVU L8).

``icoframes --version`` and ``package_version`` say 0.1.0 from one release to the next (the
CHANGELOG's *Unreleased* lists what changed since), while the parser's rules change in
between: on 9516946 two exports whose tables were read by parser versions 26 and 27 said the
same. The manifest now says ``parser_version`` and ``parser_fingerprint`` too.
"""

from __future__ import annotations

import json
import subprocess
import sys

import icoframes
from icoframes import sandbox
from icoframes.parse.rules import PARSER_VERSION
from icoframes.store.derived import parser_fingerprint


def test_an_export_manifest_names_the_parser_that_read_its_tables(tmp_path):
    with sandbox.serve(n_icos=20, seed=2) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            result = icoframes.export_tables(tmp_path / "out", status="past", progress=False,
                                             allow_empty=True)
        finally:
            icoframes.reset_configuration()
    manifest = json.loads((result.path / "manifest.json").read_text())
    assert manifest["package_version"] == icoframes.__version__
    assert manifest["parser_version"] == PARSER_VERSION >= 29  # (a pin would break at each bump)
    assert manifest["parser_fingerprint"] == parser_fingerprint()
    assert len(manifest["parser_fingerprint"]) == 16
    # the cache's derived tables are keyed by the same fingerprint: one identity of the rules
    states = [json.loads(p.read_text()) for p in (tmp_path / "cache").rglob("*.json")
              if "fingerprint" in p.read_text()]
    assert states and {s["fingerprint"] for s in states} == {manifest["parser_fingerprint"]}


def test_the_command_says_the_package_version_the_manifest_says():
    done = subprocess.run([sys.executable, "-m", "icoframes", "--version"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"icoframes {icoframes.__version__}"
