"""changes() of an amount compares it with its unit (the column the schema names for it):
100 ETH -> 100 USD is a change, and each value is written with its unit."""

from __future__ import annotations

import pandas as pd
import pytest

import icoframes
from icoframes import schema
from icoframes.errors import InvalidParameter

_DAYS = pd.to_datetime(["2026-11-01"] * 3 + ["2026-11-02"] * 3,
                       format="%Y-%m-%d").astype("datetime64[ms]")
_FETCHED = pd.to_datetime(["2026-11-01"] * 3 + ["2026-11-02"] * 3, format="%Y-%m-%d",
                          utc=True).astype("datetime64[ms, UTC]")
#: An amount -> its unit column, as the schema's unit of each says.
AMOUNTS = {"hard_cap": "caps_unit", "soft_cap": "caps_unit", "token_price": "token_price_unit",
           "min_purchase": "purchase_unit", "max_purchase": "purchase_unit"}


def _snapshots(amount: str, unit: str, values: list[object], units: list[object]) -> pd.DataFrame:
    """Three ICOs on two days (each profile fetched again), ``amount`` in ``unit``."""
    return pd.DataFrame({"snapshot_date": _DAYS, "id": [1, 2, 3] * 2,
                         "status": ["past"] * 6, "fetched_at": _FETCHED,
                         amount: pd.array(values, dtype="float64"),
                         unit: pd.array(units, dtype=schema.TEXT_DTYPE)})


def test_the_schema_names_the_unit_column_of_each_amount():
    units = {c.name: c.unit for c in schema.ICOS.columns}
    assert {a: units[a].split()[0] for a in AMOUNTS} == AMOUNTS


@pytest.mark.parametrize(("amount", "unit"), AMOUNTS.items())
def test_an_amount_is_compared_and_written_with_its_unit(amount, unit):
    # ICO 1: 100 ETH -> 100 USD (was no event); 2: 100 ETH -> 200 USD (was '100' -> '200');
    # 3: 5 USD -> 5 USD, unchanged
    frame = _snapshots(amount, unit, [100, 100, 5, 100, 200, 5],
                       ["ETH", "ETH", "USD", "USD", "USD", "USD"])
    events = icoframes.changes(frame, kinds=[amount])
    got = [(e.ico_id, e.kind, e.old, e.new) for e in events.itertuples()]
    assert got == [(1, amount, "100 ETH", "100 USD"), (2, amount, "100 ETH", "200 USD")]


def test_a_missing_amount_or_unit_reads_as_before():
    # a cap going missing is a change (written without a unit); a unit changing under a
    # missing cap is none (nothing to compare); a cap with no unit is its number alone
    frame = _snapshots("hard_cap", "caps_unit", [100, None, 7, None, None, 8],
                       ["ETH", "ETH", None, "ETH", "USD", None])
    events = icoframes.changes(frame, kinds=["hard_cap"])
    got = [(e.ico_id, e.old, e.new) for e in events.fillna("-").itertuples()]
    assert got == [(1, "100 ETH", "-"), (3, "7", "8")]


def test_raised_is_in_usd_always_and_keeps_its_number():
    frame = _snapshots("raised", "caps_unit", [100, 100, 5, 200, 100, 5], ["ETH"] * 3 + ["USD"] * 3)
    events = icoframes.changes(frame, kinds=["raised"])
    assert [(e.ico_id, e.old, e.new) for e in events.itertuples()] == [(1, "100", "200")]


def test_the_unit_column_alone_is_still_a_kind():
    frame = _snapshots("hard_cap", "caps_unit", [100] * 6, ["ETH"] * 3 + ["USD"] * 3)
    events = icoframes.changes(frame, kinds=["caps_unit", "hard_cap"])
    assert [(e.ico_id, e.kind, e.old, e.new) for e in events.itertuples() if e.ico_id == 1] == [
        (1, "caps_unit", "ETH", "USD"), (1, "hard_cap", "100 ETH", "100 USD")]


def test_an_amount_without_its_unit_column_is_refused():
    frame = _snapshots("hard_cap", "caps_unit", [100] * 6, ["ETH"] * 6).drop(columns="caps_unit")
    with pytest.raises(InvalidParameter, match="cannot compare 'hard_cap' without its unit: "
                                               "the snapshots have no column 'caps_unit'"):
        icoframes.changes(frame, kinds=["hard_cap"])


@pytest.mark.parametrize("dtype", [schema.TEXT_DTYPE, object, "category"])
def test_a_blank_unit_is_none_and_units_are_compared_stripped(dtype):
    # ICO 1: a blank unit against a missing one, 2: 'ETH' against 'ETH ': no event (it read
    # '100' -> '100' and '100 ETH' -> '100 ETH '); 3: a moved amount is written stripped
    frame = _snapshots("hard_cap", "caps_unit", [100, 100, 100, 100, 100, 200],
                       ["", "ETH", " ETH", None, "ETH ", "ETH"]).astype({"caps_unit": dtype})
    events = icoframes.changes(frame, kinds=["hard_cap"])
    assert [(e.ico_id, e.old, e.new) for e in events.itertuples()] == [(3, "100 ETH", "200 ETH")]


def test_an_amount_without_its_unit_column_is_no_did_you_mean():
    # the misspelled kind was offered 'hard_cap', which was then refused (without its unit)
    frame = _snapshots("hard_cap", "caps_unit", [100] * 6, ["ETH"] * 6).drop(columns="caps_unit")
    with pytest.raises(InvalidParameter) as refused:
        icoframes.changes(frame, kinds=["hard_cp"])
    assert "did you mean" not in str(refused.value)
    assert "'hard_cap'" in str(refused.value) and "without its unit" in str(refused.value)
    assert "no column 'caps_unit'" in str(refused.value)
    with pytest.raises(InvalidParameter, match="did you mean 'hard_cap'"):  # with its unit
        icoframes.changes(_snapshots("hard_cap", "caps_unit", [100] * 6, ["ETH"] * 6),
                          kinds=["hard_cp"])
