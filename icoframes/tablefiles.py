"""The table files of a folder of tables: one ``<table>.parquet`` per table of
:mod:`icoframes.schema`, and ``problems.parquet``, as
:meth:`~icoframes.tables.Tables.to_parquet` and :func:`icoframes.export_tables` write them.

Each file is read typed by the schema (:func:`read_table`), an older version's shape
with what it lacks missing; never through a symbolic link nor waited on as a FIFO
(:func:`~icoframes.files.read_parquet_table`: damage, named).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa

from .errors import ExportNotFound, InvalidParameter
from .files import not_a_folder, nothing_at, read_parquet_columns, read_parquet_table
from .frames import frame_from_arrow, with_added_columns
from .metadata import describe_columns
from .schema import PROBLEM_SUMMARY, PROBLEMS, TABLES, TableSchema, empty_frame

__all__ = ["check_out", "in_the_way", "make_folder", "problems_of", "read_problems", "read_table",
           "table_files"]


def read_table(directory: str | os.PathLike[str], name: str,
               columns: list[str] | None = None) -> pd.DataFrame:
    """One table of a directory written by :meth:`Tables.to_parquet`, typed by the schema.

    Cheaper than :meth:`Tables.read_parquet` when one table is all that is needed.
    ``columns``: those of the table alone, in the schema's order (None: all); the file's
    every column is still checked against the schema, but only those asked are decoded.

    Raises
    ------
    KeyError
        If ``name`` is not a table of ``schema.TABLES`` (or ``"problems"``).
    ExportNotFound, ExportMismatch
        As for :meth:`Tables.read_parquet` (a ``FileNotFoundError`` and a ``ValueError``).
    """
    if name == PROBLEMS.name:
        return _picked(read_problems(Path(directory) / f"{name}.parquet"), columns)
    return _read(TABLES[name], Path(directory) / f"{name}.parquet", columns)


def read_problems(path: Path) -> pd.DataFrame:
    """``problems.parquet``; older shapes with what they lack missing: rows without a reason
    (before reasons), the per-column shape as rows without ids or reasons."""
    table = with_added_columns(PROBLEMS, read_parquet_table(path))  # before reasons: none
    if table.schema.names != PROBLEM_SUMMARY.names:
        return describe_columns(frame_from_arrow(PROBLEMS, table, source=str(path)),
                                table.schema)
    old = frame_from_arrow(PROBLEM_SUMMARY, table, source=str(path))
    values = [v for n, shown in zip(old["count"], old["examples"], strict=True)
              for v in [*shown[:n], *[None] * (n - len(shown[:n]))]]
    rows = old.loc[old.index.repeat(old["count"]), ["table", "column"]]
    return rows.assign(ico_id=None, value=values, reason=None)[PROBLEMS.names].astype(
        PROBLEMS.dtypes).reset_index(drop=True)


def problems_of(directory: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """``directory``'s problems (``columns`` as :func:`read_table` takes them): none when
    nothing is at ``problems.parquet`` (a folder written before problems were); anything
    there is read as any table file is, so a symbolic link, one to nothing too, is damage,
    named (it read as no problems: a file lost, unsaid)."""
    path = directory / f"{PROBLEMS.name}.parquet"
    return _picked(read_problems(path) if os.path.lexists(path) else empty_frame(PROBLEMS),
                   columns)


def _picked(frame: pd.DataFrame, columns: list[str] | None) -> pd.DataFrame:
    return frame if columns is None else frame[[c for c in frame.columns if c in columns]]


def table_files(directory: Path) -> None:
    """:class:`~icoframes.errors.ExportNotFound` when ``directory`` is not there (a broken
    link named) or holds none of the table files (an empty folder was pyarrow's bare "No such
    file or directory" for ``icos.parquet``): what it holds, and the files a folder of
    tables has."""
    if not directory.exists():  # pyarrow's error named one file
        raise ExportNotFound(f"{directory}: {nothing_at(directory)} (no folder of tables)")
    names = [f"{name}.parquet" for name in TABLES]
    if any(os.path.lexists(directory / name) for name in names):
        return  # one missing among others: the OS's error names it
    with os.scandir(directory) as entries:
        held = "none is there" if next(entries, None) else "it is empty"
    raise ExportNotFound(f"{directory} holds no tables (no export): {held}; a folder "
                         "written by Tables.to_parquet or export_tables holds one file per "
                         f"table ({', '.join(names)})")


#: What mkdir says when something is in the way (which :func:`in_the_way` names).
_IN_THE_WAY = frozenset({errno.EEXIST, errno.ENOTDIR, errno.ELOOP})


def in_the_way(path: Path) -> str | None:
    """What keeps a folder from being at ``path`` or made there, links followed (a file, a
    FIFO, one on its way: :func:`~icoframes.files.not_a_folder`), or a symbolic link to
    nothing, ``path`` or one on its way (:func:`~icoframes.files.nothing_at`: mkdir said
    only "File exists" of it); None when nothing is in the way.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "gone").symlink_to("nowhere")
    >>> in_the_way(root / "gone" / "x").removeprefix(str(root))
    "/gone on its way is a symbolic link to 'nowhere', which names nothing"
    >>> in_the_way(root / "new" / "x"), in_the_way(root), in_the_way(Path("/dev/null/x"))
    (None, None, '/dev/null on its way is a device')
    """
    if (why := not_a_folder(path)) is not None or path.exists():
        return why
    return None if (why := nothing_at(path)) == "nothing is there" else why


def check_out(folder: Path) -> None:
    """Refuse an ``out`` argument (``--out``) that names no folder: a file, a FIFO, a link
    to nothing, here or on its way (:func:`in_the_way`), which mkdir called "File exists".
    The one check of ``export_tables`` and ``run_demo``, before anything is sent or written."""
    if (why := in_the_way(folder)) is not None:
        raise InvalidParameter(f"out={folder} names no folder: {why}. Nothing was "
                               "sent or written; give out (--out) a folder, made if missing")


def make_folder(directory: Path) -> None:
    """Make ``directory`` (with parents) when missing. What is in the way, a file, a FIFO, a
    symbolic link to nothing (here or on the way), is named (:func:`in_the_way`): it was the
    OS's bare "File exists" (the same error type, an OSError, is raised)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # "File exists", "Not a directory", "Too many levels of links"
        if error.errno not in _IN_THE_WAY or (why := in_the_way(directory)) is None:
            raise  # (nothing in the way now, or another error: the OS says what)
        # the OS's error (type, errno) with what is in the way in words: "[Errno 17] ..."
        raise type(error)(error.errno, f"no folder can be made at {directory}: {why}") from None


def _read(table: TableSchema, path: Path, columns: list[str] | None = None) -> pd.DataFrame:
    if columns is None:
        arrow = with_added_columns(table, read_parquet_table(path))  # an older export's file
        return describe_columns(frame_from_arrow(table, arrow, source=str(path)), arrow.schema)
    whole, arrow = read_parquet_columns(path, columns)
    # the file checked whole (its names and types), as a read of every column checks it
    frame_from_arrow(table, with_added_columns(table, whole.empty_table()), source=str(path))
    part = TableSchema(table.name, tuple(c for c in table.columns if c.name in columns),
                       table.key)
    fields = part.arrow_schema()
    for name in part.names:  # only a column added since the file was written is absent
        if name not in arrow.schema.names:
            arrow = arrow.append_column(fields.field(name),
                                        pa.nulls(len(arrow), fields.field(name).type))
    arrow = arrow.select(part.names)
    return describe_columns(frame_from_arrow(part, arrow, source=str(path)), arrow.schema)
