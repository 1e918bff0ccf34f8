"""The wheel smoke test (``make wheel-smoke``): run by a clean venv outside the tree.

The wheel is installed with its dependencies only (no dev tools, no source
tree on the path), then this script imports it, serves the sandbox, loads,
exports, reads the export back and draws a plot. It fails loudly on the first
thing that is not as the release promises.
"""

from __future__ import annotations

import re
import sys
import tempfile
from importlib.metadata import distribution
from pathlib import Path

#: A Markdown link (or image) to a path, not a URL: a package index shows the README, the
#: wheel's long description, without the repository, so such a link leads nowhere there.
_RELATIVE = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)|^ {0,3}\[[^\]]+\]:[ \t]*"
                       r"(?![a-z][a-z0-9+.-]*:|#)(\S+)", re.MULTILINE)


def relative_links(markdown: str) -> list[str]:
    """The targets of the links of ``markdown`` that are paths, not URLs."""
    return [inline or reference for inline, reference in _RELATIVE.findall(markdown)]


def main(expected_version: str) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import icoframes

    where = Path(icoframes.__file__).resolve()
    assert "site-packages" in where.parts, f"icoframes imported from {where}, not the wheel"
    assert icoframes.__version__ == expected_version, (icoframes.__version__, expected_version)
    files = {str(f) for f in distribution("icoframes").files or []}
    assert any(f.endswith("LICENSE") for f in files), "LICENSE is not in the wheel"
    assert "icoframes/py.typed" in files, "py.typed is not in the wheel (PEP 561)"
    metadata = distribution("icoframes").metadata  # the README, as a package index shows it
    description = metadata["Description"] or str(metadata.get_payload())
    assert "icoframes" in description and not relative_links(description), (
        f"the long description links to paths of the repository: {relative_links(description)}")

    work = Path(tempfile.mkdtemp(prefix="icoframes-smoke-"))
    with icoframes.sandbox.serve(n_icos=60, seed=2) as sb:
        icoframes.configure(**sb.settings(), cache_dir=work / "cache")
        tables = icoframes.load_tables(status="past", progress=False)
        assert len(tables.icos) == len(sb.directory.ids("past")) > 0
        result = icoframes.export_tables(work / "out", progress=False)
        again = icoframes.read_export(work / "out")
        assert again.icos.attrs["columns"]["raised"].unit == "USD"
        ax = icoframes.plot_raised(tables.icos)
        ax.figure.savefig(work / "raised.png")
        assert (work / "raised.png").read_bytes().startswith(b"\x89PNG")
    print(f"wheel smoke test passed: icoframes {icoframes.__version__} from {where.parent}, "
          f"{len(tables.icos)} ICOs loaded, {result.requests_total} requests exported, "
          "a plot drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
