"""The table files of a folder of tables: one ``<table>.parquet`` per table of
:mod:`icoframes.schema`, and ``problems.parquet``, as
:meth:`~icoframes.tables.Tables.to_parquet` and :func:`icoframes.export_tables` write them.

Each file is read typed by the schema (:func:`read_table`), an older version's shape
with what it lacks missing; never through a symbolic link nor waited on as a FIFO
(:func:`~icoframes.files.read_parquet_table`: damage, named).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .files import read_parquet_table
from .frames import frame_from_arrow, with_added_columns
from .metadata import describe_columns
from .schema import PROBLEM_SUMMARY, PROBLEMS, TABLES, TableSchema

__all__ = ["read_problems", "read_table"]


def read_table(directory: str | os.PathLike[str], name: str) -> pd.DataFrame:
    """One table of a directory written by :meth:`Tables.to_parquet`, typed by the schema.

    Cheaper than :meth:`Tables.read_parquet` when one table is all that is needed.

    Raises
    ------
    KeyError
        If ``name`` is not a table of ``schema.TABLES`` (or ``"problems"``).
    FileNotFoundError, ValueError
        As for :meth:`Tables.read_parquet`.
    """
    if name == PROBLEMS.name:
        return read_problems(Path(directory) / f"{name}.parquet")
    return _read(TABLES[name], Path(directory) / f"{name}.parquet")


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


def _read(table: TableSchema, path: Path) -> pd.DataFrame:
    arrow = with_added_columns(table, read_parquet_table(path))  # an older export's file
    return describe_columns(frame_from_arrow(table, arrow, source=str(path)), arrow.schema)
