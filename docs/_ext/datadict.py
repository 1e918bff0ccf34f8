"""The ``icoframes-data-dictionary`` directive: every table and column of the schema.

Reads :mod:`icoframes.schema` at build time, so the page is the declaration:
one section per table (its meaning and key), one row per column (pandas dtype,
Parquet type, unit, source field, meaning, what an unreadable value becomes).
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from icoframes import schema
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


class DataDictionary(SphinxDirective):
    """Render every table of the schema as a section with a table of its columns."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        lines: list[str] = []
        for title, tables in _GROUPS:
            lines += [title, "-" * len(title), ""]
            for table in tables:
                lines += _table_rst(table)
        container = nodes.section()
        self.state.nested_parse(StringList(lines, source="icoframes.schema"),
                                self.content_offset, container, match_titles=True)
        return container.children


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("icoframes-data-dictionary", DataDictionary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
