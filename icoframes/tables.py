"""The :class:`Tables` bundle: one typed DataFrame per table of :mod:`icoframes.schema`."""

from __future__ import annotations

import copy
import html
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from .errors import InvalidParameter, UnknownName, checked_methods, did_you_mean, quoted
from .files import atomic_write_table, concurrently, not_a_folder
from .frames import check_frame, frame_from_arrow
from .paths import folder_path
from .reporting import LoadReport, report
from .reportview import leading
from .schema import PROBLEM_SUMMARY, PROBLEMS, TABLE_NAMES, TABLES, TableSchema, empty_frame
from .subsets import kept_ids
from .tablefiles import make_folder, problems_of, read_table, table_files

__all__ = ["Tables", "frame_from_arrow", "problem_summary", "read_table", "table_names"]

# What a bundle's report is: Tables[LoadReport] is a loader's. Covariant: it is read-only.
if TYPE_CHECKING:  # a default (a bare Tables is Tables[LoadReport | None]) needs Python 3.13
    from typing_extensions import TypeVar
    _Report = TypeVar("_Report", bound=LoadReport | None, covariant=True, default=LoadReport | None)
else:
    from typing import TypeVar
    _Report = TypeVar("_Report", bound="LoadReport | None", covariant=True)
_Other = TypeVar("_Other", bound="LoadReport | None")

#: Distinct values shown per column by :func:`problem_summary`.
EXAMPLES = 3


#: The keys of a :class:`Tables`, in order: the schema's tables, then ``problems``.
NAMES: tuple[str, ...] = (*TABLE_NAMES, PROBLEMS.name)


@checked_methods  # every public method, the mapping's own too: a keyword it lacks, refused
@dataclass(frozen=True, eq=False, repr=False)
class Tables(Mapping[str, pd.DataFrame], Generic[_Report]):
    """Typed, related DataFrames of ICO profiles: a read-only mapping of name to frame.

    Every frame has exactly the columns and dtypes declared in
    :mod:`icoframes.schema`, a default ``RangeIndex``, and child tables key into
    ``icos.id`` through ``ico_id``. Build one with :func:`icoframes.tidy`,
    :meth:`empty` or :meth:`read_parquet`; take some of its ICOs with
    :meth:`subset`.

    A read-only :class:`collections.abc.Mapping` like a ``dict``: keys are
    ``schema.TABLE_NAMES`` then ``"problems"`` (:data:`NAMES`), ``len`` is the
    number of tables (11; ICOs: ``len(tables.icos)``), and
    ``Tables(**dict(t)).with_report(t.report)`` rebuilds it. Every table is an
    attribute too. Bundles are equal only when they are the same object.

    Parameters
    ----------
    icos, team, advisors, social, distribution, bonuses, roadmap : pandas.DataFrame
        One frame per table of ``schema.TABLE_NAMES``.
    markets, restricted_areas, accepting : pandas.DataFrame
        The list columns of ``icos`` of the same names, one value per row
        (``ico_id``, ``position``, ``value``): the same values in the same order.
    problems : pandas.DataFrame, optional
        Raw values that could not be read, one row per value: ``ico_id``
        (nullable Int64, missing when the id itself was unreadable),
        ``table``, ``column`` and ``value`` (the raw value as text). Empty
        when nothing was lost; :meth:`problem_summary` counts them per column.

    Attributes
    ----------
    report : LoadReport or None
        What the load answers and lacks (:class:`icoframes.LoadReport`), set by
        :func:`icoframes.load_tables`; None for a bundle built otherwise. To a type
        checker, ``load_tables`` returns a ``Tables[LoadReport]``, whose ``report`` is
        a LoadReport (a bare ``Tables`` is ``Tables[LoadReport | None]``). Not a
        table, so neither a key nor an argument: ``dict(t)`` holds the frames only, so
        ``Tables(**dict(t))`` and ``dataclasses.replace(t, ...)`` give a bundle without
        one (a type checker still reads ``replace``'s as a ``Tables[LoadReport]``: follow
        it by ``.with_report(t.report)``); :meth:`with_report` puts it back, and
        :meth:`subset` keeps it.

    Raises
    ------
    InvalidParameter
        A ``ValueError``: a frame's columns or dtypes differ from the schema (WrongType: no frame).

    Examples
    --------
    >>> t = Tables.empty()
    >>> list(t)  # doctest: +NORMALIZE_WHITESPACE
    ['icos', 'team', 'advisors', 'social', 'distribution', 'bonuses', 'roadmap',
     'markets', 'restricted_areas', 'accepting', 'problems']
    >>> len(t), "team" in t, t["team"].columns.tolist()
    (11, True, ['ico_id', 'position', 'name', 'role', 'photo'])
    >>> t.get("accepting").columns.tolist(), t.get("nothing")
    (['ico_id', 'position', 'value'], None)
    >>> sizes = {name: len(frame) for name, frame in t.items()}
    """

    icos: pd.DataFrame
    team: pd.DataFrame
    advisors: pd.DataFrame
    social: pd.DataFrame
    distribution: pd.DataFrame
    bonuses: pd.DataFrame
    roadmap: pd.DataFrame
    markets: pd.DataFrame
    restricted_areas: pd.DataFrame
    accepting: pd.DataFrame
    problems: pd.DataFrame = field(default_factory=lambda: empty_frame(PROBLEMS))
    report: _Report = field(default=None, init=False)  # type: ignore[assignment]  # set later

    def __post_init__(self) -> None:
        for table in (*TABLES.values(), PROBLEMS):
            check_frame(table, getattr(self, table.name))

    # ------------------------------------------------------------------ the mapping

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self:  # a KeyError still (get() and `in` as a Mapping's), said short
            raise UnknownName(f"{quoted(name)} is not a table of the bundle ({', '.join(self)})"
                              + did_you_mean(name, self))
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        """The table names in schema order, then ``"problems"``."""
        return iter(NAMES)

    def __len__(self) -> int:
        """The number of tables (``problems`` included), whatever their rows."""
        return len(NAMES)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in NAMES

    # identity: DataFrame == is element-wise, a bundle has no useful value equality
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def subset(self, ids_or_mask: Any) -> Tables[_Report]:
        """The bundle of some of its ICOs: every table, ``problems`` too, filtered to them.

        Parameters
        ----------
        ids_or_mask : ids or boolean mask
            ICO ids (an iterable of ints, e.g. ``feats.loc[feats.kyc, "id"]``),
            each of which must be in ``icos.id``; or a boolean mask over the
            rows of ``icos`` (a list or array of its length, or a bool Series
            with its index, e.g. ``tables.icos["raised"] > 1e6``); an array of a
            boolean dtype is a mask whatever its length, an empty list no ids; a
            missing value in a mask keeps no ICO (as ``icos[mask]``).

        Returns
        -------
        Tables
            ``icos`` rows in their order in this bundle (not in the order of
            the ids), each child table's rows whose ``ico_id`` is kept, and the
            problems of those ICOs (problems without an ``ico_id`` belong to no
            ICO and are left out). Indexes restart at 0; ``attrs`` and :attr:`report` kept.

        Raises
        ------
        InvalidParameter
            An id not in ``icos.id``, a missing id, a mask of another length or
            index, or something that is neither.

        Examples
        --------
        >>> t = Tables.empty()
        >>> len(t.subset([]).icos), len(t.subset(t.icos["raised"] > 0).team)
        (0, 0)
        """
        keep = kept_ids(self.icos, ids_or_mask)
        frames = {name: _rows_of(frame, frame["ico_id"].isin(keep))
                  for name, frame in self.items() if name != "icos"}
        subset = type(self)(icos=_rows_of(self.icos, self.icos["id"].isin(keep)), **frames)
        return subset.with_report(self.report)

    def with_report(self, report: _Other) -> Tables[_Other]:
        """The same frames with ``report`` (a LoadReport or None) as :attr:`report`: a new
        bundle. ``Tables(**dict(t)).with_report(t.report)`` rebuilds ``t`` whole."""
        if not isinstance(report, LoadReport | None):
            raise InvalidParameter(f"with_report takes a LoadReport or None, got "
                                   f"{type(report).__name__} (a dict: LoadReport.from_dict(d))")
        out = type(self)(**dict(self))
        object.__setattr__(out, "report", report)  # frozen; not an __init__ argument
        return cast("Tables[_Other]", out)

    @classmethod
    def empty(cls) -> Tables:
        """Every table with zero rows and its declared dtypes, and no problems.

        Returns
        -------
        Tables

        Examples
        --------
        >>> Tables.empty().icos.dtypes["start_datetime"]
        dtype('<M8[ms]')
        """
        return cls(**{name: empty_frame(table) for name, table in TABLES.items()})

    def problem_summary(self) -> pd.DataFrame:
        """The problems per ``(table, column)``: how many values, and a few examples.

        See :func:`problem_summary`.

        Examples
        --------
        >>> Tables.empty().problem_summary().columns.tolist()
        ['table', 'column', 'count', 'examples']
        """
        return problem_summary(self.problems)

    def _shown_report(self) -> tuple[LoadReport | None, dict[str, Any]]:
        """The report the views lead with: :attr:`report`, or of an export read back its
        manifest's (:func:`icoframes.report`); and how to say it (what it reports on, the
        rows' fetch times, the manifest)."""
        try:
            shown = report(self)
        except InvalidParameter:  # built by tidy, or its attrs dropped: nothing to say
            return None, {}
        carried = self.icos.attrs.get("icoframes")
        manifest = carried.get("manifest") if isinstance(carried, Mapping) else None
        stamps = self.icos["fetched_at"].dropna()
        rows = None if stamps.empty else (stamps.min().to_pydatetime(),
                                          stamps.max().to_pydatetime())
        return shown, {"what": "load" if self.report is not None or manifest is None
                       else "export", "rows": rows,
                       "manifest": manifest if isinstance(manifest, Mapping) else None}

    def _leading(self, view: str) -> tuple[list[str], list[str]]:
        """What a ``view`` (text or html) says of the report first, and its queries last
        (:func:`~icoframes.reportview.leading`: a view never raises)."""
        carried = self.icos.attrs.get("icoframes")
        manifest = carried.get("manifest") if isinstance(carried, Mapping) else None
        return leading(self._shown_report, view,
                       manifest if isinstance(manifest, Mapping) else None)

    def __repr__(self) -> str:
        width = max(len(name) for name in TABLE_NAMES)
        first, *said = self._leading("text")[0] or [""]  # first: complete or not, and why
        lines = [f"Tables({len(self.icos):,} ICOs)" + (f": {first}" if first else ""), *said]
        lines += [f"  {name:<{width}}  {len(self[name]):>10,} rows" for name in TABLE_NAMES]
        if len(self.problems):
            summary = self.problem_summary()
            where = ", ".join(
                f"{row.table}.{row.column} {row.count:,}"
                for row in summary.sort_values("count", ascending=False, kind="stable")
                .head(5)
                .itertuples()
            )
            more = len(summary) - 5
            tail = f", and {more} more" if more > 0 else ""
            lines.append(
                f"  problems: {len(self.problems):,} unreadable values in {len(summary)} "
                f"columns ({where}{tail}); see .problems"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The notebook view: complete or not, rows and columns of each table, problems,
        and what was queried.

        It leads with the load's completeness (how many listed ICOs have no row, counted
        by reason, partial lists, rows not refreshed, why it stopped) and how old it is.
        The queries come from :attr:`report`, which the loaders set (each query's
        parameters, completeness, rows listed and without a row, source and fetch time,
        and the requests the load spent); of an export read back, from its manifest
        (:func:`icoframes.report`); a bundle built otherwise has none to show.

        Examples
        --------
        >>> "<td>icos</td><td>0</td>" in Tables.empty()._repr_html_()
        True
        """
        esc = html.escape
        lead, queries = self._leading("html")
        out = [f"<div><strong>Tables</strong>: {len(self.icos):,} ICOs", *lead,
               "<table><thead><tr><th>table</th><th>rows</th><th>columns</th></tr></thead>"
               "<tbody>"]
        out += [f"<tr><td>{esc(name)}</td><td>{len(frame):,}</td>"
                f"<td>{esc(', '.join(map(str, frame.columns)))}</td></tr>"
                for name, frame in self.items() if name in TABLES]
        out.append("</tbody></table>")
        count = len(self.problems)
        columns = len(self.problem_summary()) if count else 0
        out.append(f"<p>problems: {count:,} unreadable values in {columns} "
                   "columns" + ("; see <code>.problems</code>" if count else "") + "</p>")
        out += queries
        out.append("</div>")
        return "\n".join(out)

    # ------------------------------------------------------------------ Parquet

    def to_parquet(self, directory: str | os.PathLike[str]) -> Path:
        """Write one ``<table>.parquet`` file per table (and ``problems.parquet``).

        Files use the schema's Arrow types (int64, float64, bool, string,
        timestamp[ms], list<string>), so DuckDB, Polars and Arrow read them with
        the right types. Each file is written to a temporary file in the same
        directory and then moved into place, so a reader never sees half a file.

        Parameters
        ----------
        directory : path-like
            Created (with parents) when missing; existing table files are replaced.

        Returns
        -------
        pathlib.Path
            The directory.

        Raises
        ------
        OSError
            If the directory or a file cannot be written; what is in the way of the
            directory (a file, a symbolic link to nothing) is named.

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     _ = Tables.empty().to_parquet(d)
        ...     Tables.read_parquet(d).icos.shape
        (0, 43)
        """
        directory = folder_path(directory, "directory")  # "" is no place to write to
        make_folder(directory)  # a link to nothing in the way is named, not "File exists"

        def write(table: TableSchema) -> None:
            frame = getattr(self, table.name)
            arrow = pa.Table.from_pandas(frame, schema=table.arrow_schema(), preserve_index=False)
            atomic_write_table(arrow, directory / f"{table.name}.parquet")

        concurrently(write, (*TABLES.values(), PROBLEMS))
        return directory

    @classmethod
    def read_parquet(cls, directory: str | os.PathLike[str]) -> Tables:
        """Read what :meth:`to_parquet` wrote, with exactly the same columns, dtypes and values.

        Parameters
        ----------
        directory : path-like
            A directory written by :meth:`to_parquet`. Nothing at
            ``problems.parquet`` reads as no problems (a symbolic link there, one to
            nothing too, is damage: ValueError); one written by an older
            version (a count per column) reads as that many values without
            an id, its examples first.

        Returns
        -------
        Tables

        Raises
        ------
        FileNotFoundError
            If ``directory`` or a table file is missing (a folder holding none: said so).
        InvalidParameter
            If ``directory`` is no folder (a file, a FIFO, one under a file), or an
            export tree of snapshots (:func:`icoframes.read_snapshots` reads those).
        ExportNotFound
            ``directory`` is not there, or holds no table file (a ``FileNotFoundError`` too).
        ExportMismatch
            A ``ValueError`` too: a table file is no regular file (a FIFO, a symbolic link),
            or its columns differ from the schema (a cache of an older version: rebuild it).

        Examples
        --------
        See :meth:`to_parquet`.
        """
        directory = folder_path(directory, "directory", reading=True)  # "": not the current one
        if (why := not_a_folder(directory)) is not None:  # was the OS's bare NotADirectoryError
            raise InvalidParameter(f"{directory} names no folder of tables written by "
                                   f"to_parquet: {why}")
        if days := sorted(p.name for p in directory.glob("snapshot_date=*")):
            raise InvalidParameter(f"{directory} is an export tree of {len(days)} snapshots, "
                                   "not one folder of tables: read_snapshots(path, table) "
                                   f"stacks them, read_export(path / {days[-1]!r}) the latest")
        table_files(directory)  # none there, or an empty folder: what it holds and lacks
        frames = {name: read_table(directory, name) for name in TABLES}
        return cls(**frames, problems=problems_of(directory))


def _rows_of(frame: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """The rows of ``frame`` where ``keep`` holds (missing ids: not kept), index from 0."""
    out = frame[keep.fillna(False).to_numpy(dtype=bool)].reset_index(drop=True)
    out.attrs = copy.deepcopy(frame.attrs)
    return out


def table_names(names: object, *, who: str) -> frozenset[str]:
    """``names`` (one table's name, or an iterable of them) as names of a bundle's tables:
    :class:`UnknownName` for one that names none (with a "did you mean"),
    :class:`InvalidParameter` for what holds no names; ``who`` begins the message.

    >>> sorted(table_names(["icos", "team"], who="tidy(tables=)")), table_names("icos", who="")
    (['icos', 'team'], frozenset({'icos'}))
    """
    try:
        given = [names] if isinstance(names, str) else list(names)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidParameter(f"{who}: {quoted(names)} names no tables (give names such as "
                               "'icos')") from None
    for name in given:
        if name not in NAMES:
            raise UnknownName(f"{who}: {quoted(name)} is not a table ({', '.join(NAMES)})"
                              + did_you_mean(name, NAMES))
    return frozenset(given)


def problem_summary(problems: pd.DataFrame) -> pd.DataFrame:
    """Problems (one row per value, e.g. ``tables.problems``) per ``(table, column)``.

    Returns a frame of the ``PROBLEM_SUMMARY`` schema: ``table``, ``column``,
    ``count`` (int64) and ``examples`` (the first three distinct values), in
    the order the columns first appear in ``problems``.

    Examples
    --------
    >>> problems = pd.DataFrame({"ico_id": [1, 2, None], "table": ["icos", "icos", "list"],
    ...                          "column": ["kyc", "kyc", "id"], "value": ["no", "no", "x"],
    ...                          "reason": ["unknown_flag", "unknown_flag", "unreadable_id"]})
    >>> problem_summary(problems.astype(PROBLEMS.dtypes)).astype(object).values.tolist()
    [['icos', 'kyc', 2, ['no']], ['list', 'id', 1, ['x']]]
    """
    if problems.empty:
        return empty_frame(PROBLEM_SUMMARY)
    keys = ["table", "column"]
    counts = problems.groupby(keys, sort=False).size().rename("count").reset_index()
    shown = problems.dropna(subset=["value"]).drop_duplicates([*keys, "value"])
    shown = shown.groupby(keys, sort=False).head(EXAMPLES)
    listed = shown.groupby(keys, sort=False)["value"].agg(lambda v: list(map(str, v)))
    examples = np.empty(len(counts), dtype=object)
    for i, key in enumerate(zip(counts["table"], counts["column"], strict=True)):
        examples[i] = listed.get(key, [])
    return counts.assign(examples=examples).astype(PROBLEM_SUMMARY.dtypes)


if tuple(f.name for f in fields(Tables))[:-1] != NAMES:  # pragma: no cover
    raise ImportError("Tables fields are out of step with schema.TABLE_NAMES")
