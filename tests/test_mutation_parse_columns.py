"""The column converters (``parse/columns.py``, ``parse/items.py``), value by value.

What ``make mutate MODULE=parse:columns+items+base`` found no test pinning down. Pure
functions of decoded JSON: no server, no clock.
"""

from __future__ import annotations

from icoframes.parse.columns import to_list


def test_a_lone_text_is_a_one_item_list_whatever_it_spells():
    values = ["XXXX", "x", " ETH ", "", None, "TBA"]
    out, unread = to_list(values)
    assert out.tolist() == [["XXXX"], ["x"], ["ETH"], [], [], []]
    assert unread == ([], [], [])
