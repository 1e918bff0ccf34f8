"""The column converters (``parse/columns.py``, ``parse/items.py``), value by value.

What ``make mutate MODULE=parse:columns+items+base`` found no test pinning down: a lone
text spelling anything, a text that is no number whatever it spells, the per-value path
a column takes when pandas cannot read it at all (a JSON integer too big for a float),
and empty columns. Pure functions of decoded JSON: no server, no clock.
"""

from __future__ import annotations

import json
import math

import numpy as np

from icoframes.parse.columns import numbers_fast, to_bool, to_float, to_list, to_text

_HUGE = json.loads("1" + "0" * 400)  # an int float() cannot convert: pd.to_numeric raises


def test_a_lone_text_is_a_one_item_list_whatever_it_spells():
    values = ["XXXX", "x", " ETH ", "", None, "TBA"]
    out, unread = to_list(values)
    assert out.tolist() == [["XXXX"], ["x"], ["ETH"], [], [], []]
    assert unread == ([], [], [])


def test_a_text_that_is_no_number_is_reported_whatever_it_spells():
    numbers, unread = to_float(["XXXX", "", None, "x", 5])
    assert [None if math.isnan(n) else n for n in numbers.tolist()] == [None] * 4 + [5.0]
    assert unread == ([0, 3], ["XXXX", "x"], ["unreadable_number", "unreadable_number"])


def test_a_column_pandas_cannot_read_takes_the_per_value_rules_row_by_row():
    numbers, suspect = numbers_fast([1, _HUGE, "2", None])
    assert np.isnan(numbers).all() and numbers.dtype == np.float64
    assert suspect == [0, 1, 2, 3]
    numbers, unread = to_float([1, _HUGE, "2", None, "x"])
    assert numbers[[0, 2]].tolist() == [1.0, 2.0] and np.isnan(numbers[[1, 3, 4]]).all()
    assert unread == ([1, 4], [_HUGE, "x"], ["infinite", "unreadable_number"])


def test_empty_columns_give_empty_typed_arrays():
    for convert, dtype in ((to_float, np.float64), (to_bool, np.bool_)):
        out, unread = convert([])
        assert out.dtype == dtype and out.shape == (0,) and unread == ([], [], [])
    out, unread = to_float([], percent=True, bounds=(0.0, 100.0))
    assert out.dtype == np.float64 and out.shape == (0,) and unread == ([], [], [])
    texts, unread = to_text([])
    assert len(texts) == 0 and unread == ([], [], [])
