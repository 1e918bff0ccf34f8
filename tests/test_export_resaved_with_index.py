"""read_export of a table re-saved by pandas with its index (after sort_values): refused
naming the one column in the way and how to save it, not two lists of fifty columns and
"written by another version"."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest
from made_exports import cut_export

import icoframes


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "out"
    cut_export(out, tmp_path_factory.mktemp("cache"), n_icos=12, seed=4)
    return out


def test_a_pandas_index_saved_as_a_column_is_named_with_the_way_to_save(export):
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        whole.sort_values("name").to_parquet(path)  # an everyday pandas step
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        assert str(refused.value) == (
            f"{path}: the icos table with a pandas index saved as a column "
            "(__index_level_0__); save the frame with to_parquet(path, index=False)")
        whole.sort_values("name").to_parquet(path, index=False)  # as it says: read
        assert sorted(icoframes.read_export(export).icos["id"]) == sorted(whole["id"])
    finally:
        whole.to_parquet(path, index=False)


def test_other_columns_are_named_first_and_short(export):
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        whole.drop(columns="name").assign(extra=1).to_parquet(path, index=False)
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        said = str(refused.value)
        assert said == (f"{path}: its {len(whole.columns)} columns differ from the icos schema "
                        "(not in it: ['extra']; missing: ['name']); the file was written by "
                        "another version, or changed since")
    finally:
        whole.to_parquet(path, index=False)


@pytest.mark.parametrize("resave", ["set_index", "rename_axis"])
def test_a_named_pandas_index_is_named_as_one(export, resave):
    # set_index("id") said "(in another order)", and an index named k "not in it: ['k']"
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        frame = (whole.set_index("id") if resave == "set_index"
                 else whole.sort_values("name").rename_axis("k"))
        frame.to_parquet(path)
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        said = str(refused.value)
        name, undo = ("id", "frame.reset_index()") if resave == "set_index" else ("k", "the frame")
        assert f"pandas index saved as a column ({name})" in said
        assert said.endswith(f"save {undo} with to_parquet(path, index=False)")
        (frame.reset_index() if resave == "set_index" else frame).to_parquet(path, index=False)
        assert sorted(icoframes.read_export(export).icos["id"]) == sorted(whole["id"])  # as said
    finally:
        whole.to_parquet(path, index=False)


def test_extra_columns_are_listed_five_at_most_as_missing_ones(export):
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        for frame in (whole.assign(**{f"feature_{i}": 1.0 for i in range(20)}),
                      whole.drop(columns=list(whole.columns[-12:]))):
            frame.to_parquet(path, index=False)
            with pytest.raises(ValueError) as refused:
                icoframes.read_export(export)
            said = str(refused.value)
            assert ("not in it: ['feature_0'" in said and "'feature_4'] and 15 more" in said
                    and "feature_5" not in said) if len(frame.columns) > len(whole.columns) \
                else f"missing: {list(whole.columns[-12:-7])} and 7 more" in said
            assert len(said) - len(str(path)) < 250
    finally:
        whole.to_parquet(path, index=False)


@pytest.mark.parametrize("index", [["name"], ["id", "name"]])
def test_an_index_of_columns_not_leading_the_table_is_saved_back_in_its_order(export, index):
    # reset_index() puts them first: "save frame.reset_index()" alone was refused again
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        frame = whole.set_index(index)
        frame.to_parquet(path)
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        said = str(refused.value)
        assert f"pandas index saved as a column ({', '.join(index)})" in said
        assert said.endswith("save frame.reset_index()[columns], columns in the icos table's "
                             "order (as read_export gives them), with to_parquet(path, "
                             "index=False)")
        frame.reset_index()[list(whole.columns)].to_parquet(path, index=False)  # as it says
        assert sorted(icoframes.read_export(export).icos["id"]) == sorted(whole["id"])
    finally:
        whole.to_parquet(path, index=False)


def test_a_column_named_as_pandas_names_an_index_is_a_column_when_no_index_was_saved(export):
    # pandas' metadata says which columns hold an index: a column of the frame called
    # __index_level_0__, saved with index=False, was said to be "a saved pandas index"
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        whole.assign(__index_level_0__=1).to_parquet(path, index=False)
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        said = str(refused.value)
        assert said == (f"{path}: its {len(whole.columns) + 1} columns differ from the icos "
                        "schema (not in it: ['__index_level_0__']); the file was written by "
                        "another version, or changed since")
        assert "index" not in said.replace("__index_level_0__", "")
    finally:
        whole.to_parquet(path, index=False)


def test_a_pandas_index_in_a_file_without_pandas_metadata_is_named_by_its_name(export):
    # pyarrow without its metadata, Polars or DuckDB keep the column a pandas index was saved
    # as and drop pandas' metadata: only its name tells it, and the way to save still helps
    path = export / "icos.parquet"
    whole = pd.read_parquet(path)
    try:
        whole.sort_values("name").to_parquet(path)
        pq.write_table(pq.read_table(path).replace_schema_metadata(None), path)
        assert b"pandas" not in (pq.read_schema(path).metadata or {})
        with pytest.raises(ValueError) as refused:
            icoframes.read_export(export)
        assert str(refused.value) == (
            f"{path}: the icos table with a pandas index saved as a column "
            "(__index_level_0__); save the frame with to_parquet(path, index=False)")
    finally:
        whole.to_parquet(path, index=False)
