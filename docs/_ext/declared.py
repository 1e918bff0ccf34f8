"""Pages made from the package's own declarations at build time, so they cannot drift.

- ``icoframes-data-dictionary``: every table and column of :mod:`icoframes.schema`:
  one section per table (its meaning and key), one row per column (pandas dtype,
  Parquet type, unit, source field, meaning, what an unreadable value becomes);
- ``icoframes-settings``: every setting of :data:`icoframes.config.SETTINGS`;
- ``icoframes-features``: every column of :func:`icoframes.compute_features`
  (:func:`icoframes.describe_features`).
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from icoframes import describe_features, schema
from icoframes.config import SETTINGS
from icoframes.metadata import unreadable

#: The tables in the order a reader meets them: the data, then what describes it.
_GROUPS = (
    ("Tables of a load or an export", tuple(schema.TABLES.values())),
    ("What could not be read", (schema.PROBLEMS, schema.PROBLEM_SUMMARY)),
    ("Lists and the filter set", (schema.LIST, schema.FILTERS)),
)


def _literal(text: str) -> str:
    return f"``{text}``" if text else ""


def _cell(text: str) -> str:
    """One list-table cell: a blank cell needs a visible character."""
    return text.replace("\n", " ") if text else "\u2014"


def _table_rst(table: schema.TableSchema) -> list[str]:
    lines = [
        table.name,
        "~" * len(table.name),
        "",
        f"{table.doc[:1].upper()}{table.doc[1:]}. Key: "
        + ", ".join(f"``{k}``" for k in table.key) + ".",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 13 13 11 15 28 20",
        "   :class: icoframes-datadict",
        "",
        "   * - column",
        "     - type",
        "     - unit",
        "     - source",
        "     - meaning",
        "     - when unreadable",
    ]
    for column in table.columns:
        dtype = f"{_literal(str(column.dtype))} / {_literal(str(column.arrow_type))}"
        cells = [
            f"``{column.name}``",
            dtype,
            column.unit,
            _literal(column.source_text),
            column.doc,
            unreadable(column),
        ]
        lines.append(f"   * - {_cell(cells[0])}")
        lines.extend(f"     - {_cell(c)}" for c in cells[1:])
    return [*lines, ""]


def _list_table(header: list[str], rows: list[list[str]], widths: str) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        lines.append(f"   * - {_cell(row[0])}")
        lines.extend(f"     - {_cell(c)}" for c in row[1:])
    return [*lines, ""]


class _Declared(SphinxDirective):
    """A directive whose body is reST made from a declaration."""

    has_content = False
    source = ""

    def rst(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        container = nodes.section()
        self.state.nested_parse(StringList(self.rst(), source=self.source),
                                self.content_offset, container, match_titles=True)
        return container.children


class DataDictionary(_Declared):
    """Every table of the schema as a section with a table of its columns."""

    source = "icoframes.schema"

    def rst(self) -> list[str]:
        lines: list[str] = []
        for title, tables in _GROUPS:
            lines += [title, "-" * len(title), ""]
            for table in tables:
                lines += _table_rst(table)
        return lines


class Settings(_Declared):
    """Every setting: name, environment variable, default and meaning."""

    source = "icoframes.config.SETTINGS"

    def rst(self) -> list[str]:
        rows = [[f"``{s.name}``", f"``{s.env}``", s.shown, s.doc] for s in SETTINGS]
        return _list_table(["setting", "environment variable", "default", "meaning"], rows,
                           "16 24 16 44")


class Features(_Declared):
    """Every column of compute_features(): name, dtype and definition."""

    source = "icoframes.describe_features()"

    def rst(self) -> list[str]:
        rows = [[f"``{f.name}``", f"``{f.dtype}``",
                 f.definition.replace("*", r"\*") + (" (with rates)" if f.needs_rates else "")]
                for f in describe_features().itertuples()]
        return _list_table(["column", "dtype", "definition"], rows, "22 12 66")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("icoframes-data-dictionary", DataDictionary)
    app.add_directive("icoframes-settings", Settings)
    app.add_directive("icoframes-features", Features)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
