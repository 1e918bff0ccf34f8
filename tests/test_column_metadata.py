"""Column descriptions travel with the data: Parquet field metadata, kept by read_export."""

from __future__ import annotations

import copy
import pickle

import pyarrow.parquet as pq
import pytest

import icoframes
from icoframes import sandbox, schema
from icoframes.metadata import ColumnInfo


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    with sandbox.serve(n_icos=40, seed=5) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
        try:
            icoframes.export_tables(out, progress=False)
        finally:
            icoframes.reset_configuration()
    return out


def _described(table: schema.TableSchema) -> dict[str, ColumnInfo]:
    return {c.name: ColumnInfo(c.doc, c.unit, c.source_text) for c in table.columns}


@pytest.mark.parametrize("table", [*schema.TABLES.values(), schema.PROBLEMS,
                                   schema.PROBLEM_SUMMARY], ids=lambda t: t.name)
def test_every_exported_column_carries_its_description_unit_and_source(export, table):
    fields = pq.read_schema(export / f"{table.name}.parquet")
    assert fields.names == table.names
    for column in table.columns:
        meta = fields.field(column.name).metadata
        assert meta[b"description"].decode() == column.doc != ""
        assert meta.get(b"unit", b"").decode() == column.unit
        assert meta.get(b"source", b"").decode() == column.source_text


def test_amounts_and_times_state_their_unit():
    icos = schema.ICOS
    assert icos.column("raised").unit == "USD"
    assert icos.column("hard_cap").unit == icos.column("soft_cap").unit == "caps_unit"
    assert icos.column("min_purchase").unit == "purchase_unit"
    assert icos.column("fetched_at").unit == "UTC"
    assert schema.DISTRIBUTION.column("percent").unit == "percent"
    # every float column (a number) says what it counts
    floats = [c.name for t in schema.TABLES.values() for c in t.columns
              if c.kind == "float" and not c.unit]
    assert floats == []


def test_read_export_keeps_the_descriptions_in_attrs(export):
    tables = icoframes.read_export(export)
    for name, frame in tables.items():
        assert dict(frame.attrs["columns"]) == _described(
            schema.PROBLEMS if name == "problems" else schema.TABLES[name]), name
    info = tables.icos.attrs["columns"]
    assert info["raised"] == ColumnInfo("raised funds in USD; NaN when unknown", "USD",
                                        "finance.raised")
    assert info.frame().loc["hard_cap", "unit"] == "caps_unit"
    # derived frames keep them; they cannot be changed by accident, and survive pickling
    past = tables.icos[tables.icos["status"] == "past"]
    assert past.attrs["columns"] is info and copy.deepcopy(info) is info
    with pytest.raises(TypeError, match="read-only"):
        info["raised"] = ColumnInfo("", "", "")
    assert pickle.loads(pickle.dumps(past)).attrs["columns"] == info


def test_descriptions_are_read_from_the_file_not_the_current_schema(export, tmp_path):
    path = export / "bonuses.parquet"
    table = pq.read_table(path)
    field = table.schema.field("terms").with_metadata({"description": "as written then"})
    table = table.cast(table.schema.set(table.schema.get_field_index("terms"), field))
    (tmp_path / "copy").mkdir()
    for other in export.iterdir():
        if other.is_file():
            (tmp_path / "copy" / other.name).write_bytes(other.read_bytes())
    pq.write_table(table, tmp_path / "copy" / "bonuses.parquet")
    info = icoframes.read_export(tmp_path / "copy").bonuses.attrs["columns"]
    assert info["terms"] == ColumnInfo("as written then", "", "")
