"""One notebook, one answer under pandas 2.2 and pandas 3 (``make compat`` runs these on 2.2).

Text columns have pandas 3's ``str`` semantics on both (NaN as the missing value, plain bool
comparisons); an export's text is read by plain ``pd.read_parquet`` at the reader's own text
dtype, whoever wrote it; ``Tables.subset`` takes a mask with missing values as pandas'
own indexing does; a date text outside pandas 2.2's nanosecond range reads as on pandas 3.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from messy_profiles import clean_profile, people_profile

import icoframes
from icoframes.errors import InvalidParameter
from icoframes.moments import as_naive_utc
from icoframes.schema import TABLES, TEXT_DTYPE
from icoframes.tables import Tables


def _three() -> Tables:
    """Three ICOs: caps in USD, in ETH, and without a unit."""
    return icoframes.tidy([{"id": 1, "finance": {"caps_unit": "USD"}},
                           {"id": 2, "finance": {"caps_unit": "ETH"}},
                           {"id": 3, "finance": {"caps_unit": None}}])


def test_a_missing_text_is_nan_and_compares_as_pandas_3_str_does():
    icos = _three().icos
    units = icos["caps_unit"]
    assert units.dtype == TEXT_DTYPE
    missing = units.iloc[2]
    assert isinstance(missing, float) and math.isnan(missing)  # not pd.NA
    # pd.NA made `!=` missing (the row dropped) and `==` a nullable boolean that np.where,
    # astype(int) and `if` refuse
    assert icos[units != "USD"]["id"].tolist() == [2, 3]
    assert icos[~(units == "USD")]["id"].tolist() == [2, 3]
    assert (units == "USD").dtype == np.dtype(bool)
    assert np.where(units == "USD", 1, 0).tolist() == [1, 0, 0]
    assert (units == "USD").astype(int).tolist() == [1, 0, 0]
    assert int(units.isin([np.nan]).sum()) == 1 == int(units.isna().sum())
    # (isin([None]) finds NaN under pandas 3 only: 2.2's object text matches None by identity)
    assert [x for x in units if x == "ETH"] == ["ETH"]


def test_replace_after_a_missing_text_recodes_the_rows_it_names(tmp_path):
    # pandas 2.2's StringDtype("pyarrow_numpy") shifted replace's matches by the missing
    # values before them (pandas-dev/pandas#59499): the wrong rows, silently
    units = ["USD", None, "ETH", "USD", "BTC"]
    tables = icoframes.tidy([{"id": i + 1, "finance": {"caps_unit": u}}
                             for i, u in enumerate(units)])
    tables.to_parquet(tmp_path)
    for back in (tables, Tables.read_parquet(tmp_path)):
        icos = back.icos.sort_values("id", ignore_index=True)
        c = icos["caps_unit"]
        want = ["usd", None, "ETH", "usd", "BTC"]
        assert _listed(c.replace({"USD": "usd"})) == want
        assert _listed(c.replace(["USD", "ETH"], ["usd", "eth"])) == ["usd", None, "eth", "usd",
                                                                      "BTC"]
        assert _listed(c.replace(["USD", "BTC"], "x")) == ["x", None, "ETH", "x", "x"]
        assert _listed(icos.replace({"caps_unit": {"USD": "usd"}})["caps_unit"]) == want
        kept = c.copy()
        kept.replace({"BTC": "btc"}, inplace=True)
        assert _listed(kept) == ["USD", None, "ETH", "USD", "btc"]


def _listed(column: pd.Series) -> list[object]:
    return [None if pd.isna(v) else v for v in column]


def test_empty_tables_and_read_back_files_have_the_one_text_dtype(tmp_path):
    empty = Tables.empty()
    assert all(empty[name][c.name].dtype == TEXT_DTYPE
               for name, table in TABLES.items() for c in table.columns if c.kind == "text")
    _three().to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path).icos["caps_unit"]
    assert back.dtype == TEXT_DTYPE and back.isna().tolist() == [False, False, True]
    assert not any(v is pd.NA for v in back)


def test_plain_read_parquet_of_an_export_gives_the_readers_own_text_dtype(tmp_path):
    tables = icoframes.tidy([clean_profile(1), people_profile(2)])
    tables = tables.subset(tables.icos["id"])  # the same rows: a bundle as users hold one
    tables.icos.loc[1, "caps_unit"] = None
    tables.to_parquet(tmp_path)
    path = tmp_path / "icos.parquet"
    # the file's pandas metadata names no writer's text dtype ('str' on pandas 3, 'string'
    # on 2.2, which pd.read_parquet then gave the reader): text as an object column
    meta = json.loads(pq.read_schema(path).metadata[b"pandas"])["columns"]
    text = {c.name for c in TABLES["icos"].columns if c.kind == "text"}
    assert {m["numpy_type"] for m in meta if m["field_name"] in text} == {"object"}
    # the Arrow schema (field metadata too) is that of the frame written as it is
    pq.write_table(pa.Table.from_pandas(tables.icos, schema=TABLES["icos"].arrow_schema(),
                                        preserve_index=False), tmp_path / "as_is.parquet")
    assert pq.read_schema(path).remove_metadata().equals(
        pq.read_schema(tmp_path / "as_is.parquet").remove_metadata(), check_metadata=True)
    plain = pd.read_parquet(path)
    own = pd.Series(["x", None]).dtype  # what this pandas makes of text: str on 3, object on 2.2
    assert plain["caps_unit"].dtype == own
    assert plain["caps_unit"].isna().tolist() == [False, True]
    # what the metadata keeps for other columns still holds
    assert pd.read_parquet(tmp_path / "social.parquet")["position"].dtype == "Int64"


def test_subset_by_a_comparison_of_text_with_a_missing_value_keeps_what_icos_mask_keeps():
    tables = _three()
    units = tables.icos["caps_unit"]
    assert tables.subset(units == "ETH").icos["id"].tolist() == [2]
    assert tables.subset(units != "USD").icos["id"].tolist() == [2, 3]
    # on pandas 2.2 .str predicates give an object Series holding NaN: not kept, as pandas 3's
    # bool False there
    assert tables.subset(units.str.startswith("E")).icos["id"].tolist() == [2]


@pytest.mark.parametrize("mask", [
    pd.Series(pd.array([True, None, False], dtype="boolean")),
    pd.array([True, None, False], dtype="boolean"),
    pd.Series([True, np.nan, False], dtype=object),
    [True, None, False],
], ids=["boolean Series", "boolean array", "object Series", "list"])
def test_a_missing_value_in_a_mask_keeps_no_ico(mask):
    # a boolean Series with a missing value was refused as "ids must be whole numbers"
    tables = _three()
    kept = tables.subset(mask)
    assert kept.icos["id"].tolist() == [1]
    assert kept.icos["id"].tolist() == tables.icos[pd.array(mask, dtype="boolean")
                                                   ]["id"].tolist()


@pytest.mark.parametrize("bad, message", [
    ([1, None], r"ids must be whole numbers, got a missing value \(None\)"),
    ([1, np.nan], r"ids must be whole numbers, got a missing value \(nan\)"),
    ([1, 2.5], r"ids must be whole numbers, got 2\.5"),
    # review REV-CL F3: 2.0 is a whole number (ids turn into floats beside a NaN)
    ([1, 2.0], r"^subset: ids are integers, not floats, got 2\.0; did you mean 2 "
               r"\(ids\.astype\('int64'\)\)\?$"),
    (pd.Series([1336.0, 1.0]), r"got 1336\.0; did you mean 1336 "),
    ([True, 2, False], "ids and True/False mixed"),
    (pd.array([True, None], dtype="boolean"), "a boolean mask of 2 values for 3 ICOs"),
])
def test_subset_says_what_is_wrong_with_ids(bad, message):
    with pytest.raises(InvalidParameter, match=message):
        _three().subset(bad)


@pytest.mark.parametrize(("text", "moment"), [
    ("2300-01-01", dt.datetime(2300, 1, 1)),
    ("1600-01-01T12:00+02:00", dt.datetime(1600, 1, 1, 10)),
    ("9999-12-31 23:59:59.5", dt.datetime(9999, 12, 31, 23, 59, 59, 500000)),
    ("0001-01-01", dt.datetime(1, 1, 1)),
])
def test_a_date_text_outside_1677_to_2262_is_read_as_its_datetime_is(text, moment):
    # pandas 2.2 reads text in nanoseconds: such a text was refused as "no date", the same
    # moment as a datetime accepted
    assert as_naive_utc(text, "as_of") == as_naive_utc(moment, "as_of") == pd.Timestamp(moment)
    features = icoframes.compute_features(_three(), as_of=text)
    assert features.equals(icoframes.compute_features(_three(), as_of=moment))



@pytest.fixture
def inferring_text():
    """pandas 2.2 with ``future.infer_string`` (pandas' advice to prepare for 3); pandas 3
    infers text already (its option is deprecated there)."""
    if int(pd.__version__.split(".")[0]) >= 3:
        yield
        return
    with pd.option_context("future.infer_string", True):
        yield


def test_changes_and_status_flow_warn_of_nothing_when_pandas_infers_text(inferring_text):
    # concatenating the event parts (text and empty ones) and fillna on object statuses gave
    # pandas FutureWarnings from icoframes' own lines (pyproject makes them errors)
    import matplotlib.pyplot as plt

    days = pd.to_datetime(["2026-11-01"] * 3 + ["2026-11-02"] * 3 + ["2026-11-03"] * 2,
                          format="%Y-%m-%d")
    snaps = pd.DataFrame({"snapshot_date": days, "id": [1, 2, 3, 1, 2, 4, 1, 4],
                          "status": ["upcoming", None, "past", "ongoing", "past", "upcoming",
                                     None, "ongoing"],
                          "name": ["A", "B", "C", "A", "B2", "D", "A", None]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)  # no manifests: said
        warnings.simplefilter("error", FutureWarning)
        events = icoframes.changes(snaps)
        moves = icoframes.plot_status_flow(snaps)
        from_events = icoframes.plot_status_flow(events)
    plt.close("all")
    assert {"status", "new", "removed", "name"} <= set(events["kind"])
    assert events["kind"].dtype == TEXT_DTYPE and len(moves.patches) and len(from_events.patches)


def test_tables_build_and_read_back_when_pandas_infers_text(inferring_text, tmp_path):
    # on pandas 2.2 the option makes every text pandas is given its string[pyarrow_numpy]:
    # the bundle takes it (the user's choice) rather than refusing its own frames
    tables = _three()
    tables.to_parquet(tmp_path)
    back = Tables.read_parquet(tmp_path)
    for icos in (tables.icos, back.icos):
        assert icos[icos["caps_unit"] != "USD"]["id"].tolist() == [2, 3]


def test_a_rate_that_is_no_number_is_named_in_the_same_words_under_both_versions():
    # the message quoted pandas' own, whose quotes differ between versions
    rates = pd.DataFrame({"date": ["2018-01-01"] * 2, "currency": ["ETH"] * 2, "usd": ["1", "x"]})
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(_three().icos, rates)
    assert str(caught.value) == "rates: values must be numbers, got 'x' at position 1"
