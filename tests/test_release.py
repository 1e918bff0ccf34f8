"""The release shell: one version everywhere, the license shipped, the changelog kept, the
lowest versions of what the client sends through allowed only where its calls exist."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

from packaging.version import Version
from requests.adapters import HTTPAdapter

import icoframes
from icoframes import _version

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_declared_once_and_everything_reports_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "icoframes._version.__version__"}
    assert icoframes.__version__ == _version.__version__ == version("icoframes")
    out = subprocess.run([sys.executable, "-m", "icoframes", "--version"], check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == f"icoframes {icoframes.__version__}"


def test_license_urls_and_classifiers_are_in_the_metadata():
    meta = metadata("icoframes")
    assert meta["License-Expression"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert {"Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Typing :: Typed" in classifiers


def test_the_changelog_has_an_unreleased_section_first():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = [line for line in text.splitlines() if line.startswith("## ")]
    assert versions[0] == "## Unreleased"


def test_the_lowest_requests_and_urllib3_allowed_have_what_the_client_calls():
    """icoframes.api.direct asks the adapter for its pool with
    ``get_connection_with_tls_context``, which requests has from 2.32.2 (with 2.31.0, Ubuntu
    24.04's, every request failed with AttributeError); urllib3 2.6 inflates a streamed body
    in bounded steps (the gate's byte cap). ``make compat`` runs the suite on these floors."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    floors = {name: Version(low) for need in project["project"]["dependencies"]
              for name, _, low in [need.partition(">=")] if name in ("requests", "urllib3")}
    assert floors == {"requests": Version("2.32.2"), "urllib3": Version("2.6")}
    assert callable(HTTPAdapter.get_connection_with_tls_context)
