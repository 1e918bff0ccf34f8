"""The main job, end to end on the embedded sandbox (what ``make demo`` runs).

Starts the sandbox, exports every table to ``out/`` through the loaders and
the cache, exports again to show that a warm cache spends no request, and draws
the three plots to PNG files beside the tables.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

__all__ = ["run_demo"]


def run_demo(*, out: Path = Path("data/demo"), n_icos: int = 1000, seed: int = 0) -> list[Path]:
    """Run the demo and return the files it wrote.

    Parameters
    ----------
    out : path-like
        Where to write ``<table>.parquet``, ``manifest.json`` and the PNG plots.
    n_icos, seed : int
        Size and seed of the sandbox's synthetic directory.

    Raises
    ------
    InvalidParameter
        If ``out`` names no folder: a file, or one on its way (as
        :func:`icoframes.export_tables` says; ``icoframes demo`` exits 2).
    ConfigError
        If ``out`` cannot be made (``icoframes demo`` exits 2), or written (as
        :func:`icoframes.export_tables` says).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import sandbox
    from .config import configure, reset_configuration
    from .errors import ConfigError
    from .export import MANIFEST, export_tables
    from .loaders import load_icos
    from .paths import folder_path
    from .plotting import plot_raised, plot_scores, plot_timeline
    from .tablefiles import check_out

    out = folder_path(out, "out")  # ~ as export_tables expands it: Path(out) kept "~/d" literal
    check_out(out)  # a file there: named as export_tables names it (mkdir: "File exists")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a setting to fix, as export_tables says of its out (exit 2)
        raise ConfigError(f"the demo folder {out} cannot be made ({exc.strerror or exc}); "
                          "choose a folder the user running the demo can create and write "
                          "(--out)") from None
    with sandbox.start(n_icos=n_icos, seed=seed) as sb, \
            tempfile.TemporaryDirectory(prefix="icoframes-demo-cache-") as cache_dir:
        print(f"sandbox: {len(sb.directory)} synthetic ICOs at {sb.base_url}")
        configure(**sb.settings(), cache_dir=cache_dir)
        try:
            first = export_tables(out)
            print(f"export: {first.rows['icos']} ICOs, {first.requests_total} requests "
                  f"({first.requests_spent})")
            second = export_tables(out)
            print(f"export again from the cache: {second.requests_total} requests")
            icos = load_icos(offline=True, progress=False)
        finally:
            reset_configuration()

    written = [*sorted(out.glob("*.parquet")), out / MANIFEST]
    for name, draw in (("scores", lambda ax: plot_scores(icos, by="status", ax=ax)),
                       ("raised", lambda ax: plot_raised(icos, ax=ax)),
                       # past ICOs only: the upcoming ones would stretch the axis to 2027
                       ("timeline", lambda ax: plot_timeline(icos[icos["status"] == "past"],
                                                             ax=ax))):
        fig, ax = plt.subplots(figsize=(9, 5), layout="constrained")
        draw(ax)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    print(f"wrote {len(written)} files to {out}/:")
    width = max(len(path.name) for path in written)
    for path in written:
        print(f"  {path.name:<{width}} {path.stat().st_size / 1024:8.1f} KiB")
    return written
