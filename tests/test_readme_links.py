"""The README is the wheel's long description: a package index shows it without the
repository, so its links are URLs (``make wheel-smoke`` checks the built wheel's metadata
the same way)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from wheel_smoke import relative_links

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_of_the_wheel_links_to_urls_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["readme"] == "README.md"  # the long description, as it is
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](https://github.com/icoframes/icoframes" in readme
    assert relative_links(readme) == []
    assert project["urls"]["Source"] == "https://github.com/icoframes/icoframes"


def test_a_path_is_told_from_a_url():
    text = ("[a](docs/guide/x.md) [b](https://x.org/y) [c](#two-commands) ![d](img.png)\n"
            "[e]: LICENSE\n[f]: mailto:someone@example.org\n")
    assert relative_links(text) == ["docs/guide/x.md", "img.png", "LICENSE"]
