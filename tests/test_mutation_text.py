"""api/text.py: JSON text into values as the service sent them: a lone surrogate escape stays
one wherever it is (the parser reports it, the store escapes it), a pair is one character
(`make mutate MODULE=text`)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icoframes.api.text import loads_text


@pytest.mark.parametrize(("text", "value"), [
    (r'"a\ud800b"', "a\ud800b"),  # a high surrogate alone
    (r'"a\uDBFFb"', "a\udbffb"),  # in upper case, the last high one
    (r'"\udc00"', "\udc00"),  # a low one alone
    (r'"x\ud800\ud800y"', "x\ud800\ud800y"),  # two highs: two
    (r'"\ud83d\ude00"', "\U0001f600"),  # a pair: one character
    (r'["\ud800", {"k\udc01": ["\ud800", 1, null, true, 1.5]}]',
     ["\ud800", {"k\udc01": ["\ud800", 1, None, True, 1.5]}]),  # keys and nesting
    (r'"\u00e9"', "\u00e9"),
    ('{"a": [1, "b"]}', {"a": [1, "b"]}),  # nothing escaped
])
def test_loads_text(text, value):
    assert loads_text(text) == value


def test_loads_text_passes_json_options_on():
    plain = loads_text('{"raised": 0.1}', parse_float=Decimal)
    assert plain == {"raised": Decimal("0.1")} and type(plain["raised"]) is Decimal
    kept = loads_text(r'["\ud800", 0.1]', parse_float=Decimal)
    assert kept == ["\ud800", Decimal("0.1")] and type(kept[1]) is Decimal
