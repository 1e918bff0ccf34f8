"""Pages made from the package's own declarations at build time, so they cannot drift.

- ``icoframes-data-dictionary``: every table and column of :mod:`icoframes.schema`:
  one section per table (its meaning and key), one row per column (pandas dtype,
  Parquet type, unit, source field, meaning, what an unreadable value becomes);
- ``icoframes-settings``: every setting of :data:`icoframes.config.SETTINGS`;
- ``icoframes-features``: every column of :func:`icoframes.compute_features`
  (:func:`icoframes.describe_features`);
- ``icoframes-vocabulary``: the words of :mod:`icoframes.vocabulary`, per kind of field;
- ``icoframes-reasons``: every reason code of :data:`icoframes.reasons.REASONS` (the
  ``reason`` column of ``problems``) and what it means.
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from icoframes import describe_features, placenames, reasons, schema, vocabulary
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


def _words(words: object) -> str:
    return ", ".join(f"``{w}``" if w.strip() else "(blank)" for w in sorted(words))  # type: ignore[attr-defined]


class Vocabulary(_Declared):
    """The declared words of each kind of field, and the aliases of units, platforms, networks."""

    source = "icoframes.vocabulary"

    def rst(self) -> list[str]:
        v = vocabulary
        kinds = [
            ["missing (any column)", "missing, not a problem", _words(v.MISSING_MARKERS)],
            ["flag: true", "True", _words(v.TRUE_WORDS)],
            ["flag: false", "False", _words(v.FALSE_WORDS)],
            ["flag: unknown", "False (a bool cannot say unknown), not a problem",
             _words(v.UNKNOWN_WORDS)],
            ["flag + qualifier (``YES (UNTIL 11 SEP)``)",
             "the word's flag, and the whole text a row of ``problems``", "any flag word, "
             "then ``(``, ``[``, ``,``, ``:``, ``;`` or a spaced dash, then text"],
            ["none (lone list item, whole map, bonus terms)", "no items / no rows",
             _words(v.NONE_WORDS) + ", and the missing words"],
            ["lone string in a list of names", "split at ``,`` ``;`` (full-width, "
             "ideographic too) ``|`` ``•`` and line breaks outside brackets, then at ``/`` "
             "``+`` ``&`` ``and`` where no name is cut (in doubt: one item and a row)",
             ", ".join(f"``{name}``" for name in sorted(v.SPLIT_LISTS))
             + "; a part that is " + _words(placenames.CONTINUATIONS)
             + " stays with the one before, "
             "and so do two parts making " + _words(placenames.COMMA_NAMES) + "; never split: "
             + _words(placenames.AND_NAMES)],
            ["lone string in a list of URLs", "split between URLs",
             ", ".join(f"``{name}``" for name in sorted(v.SPLIT_URLS))],
            ["item of a list of tickers", "split at ``,`` and ``;``, as a lone string",
             ", ".join(f"``{name}``" for name in sorted(v.SPLIT_ITEMS))],
            ["government currency", "``accepts_fiat``", _words(v.FIAT_CODES)
             + ", and every ISO 4217 code (``INR``, ``PLN``; " + _words(v.CAPITALS_ONLY
                                                               & v.ISO_CURRENCY_CODES)
             + " only in capitals; " + _words(v.ACCEPTING_WORDS)
             + " in an accepting list are words, never fiat)"],
            ["no unit after an amount (``500 tokens``)", "unreadable, a problem",
             _words(v.NOT_UNITS)],
            ["accepting item of such words (``and others``, ``any ERC20 token``)",
             "no currency counted (``n_accepted_currencies``)",
             _words(v.NOT_CURRENCY_WORDS - v.NOT_UNITS) + ", and the words above; one "
             "of them in capitals that is a code is that code (``ETC``, not ``etc``)"],
        ]
        lines = ["Words by kind of field", "-" * 22, "",
                 "Matched case-insensitively, stripped, inner spaces collapsed, after Unicode "
                 "NFKC and without zero-width characters.", ""]
        lines += _list_table(["kind", "reads as", "words"], kinds, "22 26 52")
        tables = (v.UNIT_ALIASES, v.TOKEN_NAMES, v.DATA_UNIT_SPELLINGS)
        units = {code: tuple(s for table in tables for s in table.get(code, ()))
                 for code in {k: None for table in tables for k in table}}
        for title, table in (("Units", units), ("Platforms", v.PLATFORM_FAMILIES),
                             ("Social networks", v.SOCIAL_ALIASES)):
            lines += [title, "-" * len(title), ""]
            lines += _list_table(["canonical", "spellings"],
                                 [[f"``{name}``", _words(spellings)]
                                  for name, spellings in table.items()], "20 80")
        lookalikes = ", ".join(f"{a}→{b}" for a, b in v.LOOKALIKES.items())
        return [*lines, "Look-alike letters read as Latin in tickers and units "
                "(when every non-Latin letter has a twin): " + lookalikes + ".", ""]


class Reasons(_Declared):
    """Every reason code of problems.reason and its meaning."""

    source = "icoframes.reasons.REASONS"

    def rst(self) -> list[str]:
        rows = [[f"``{code}``", meaning] for code, meaning in reasons.REASONS.items()]
        return _list_table(["reason", "meaning (example)"], rows, "20 80")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("icoframes-reasons", Reasons)
    app.add_directive("icoframes-vocabulary", Vocabulary)
    app.add_directive("icoframes-data-dictionary", DataDictionary)
    app.add_directive("icoframes-settings", Settings)
    app.add_directive("icoframes-features", Features)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
