"""api/text.py: JSON text into values every writer can keep: a lone surrogate escape becomes
U+FFFD wherever it is, a pair stays one character (`make mutate MODULE=text`)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icoframes.api.text import loads_text


@pytest.mark.parametrize(("text", "value"), [
    (r'"a\ud800b"', "a\ufffdb"),  # a high surrogate alone
    (r'"a\uDBFFb"', "a\ufffdb"),  # in upper case, the last high one
    (r'"\udc00"', "\ufffd"),  # a low one alone
    (r'"\uDFFF"', "\ufffd"),
    (r'"x\ud800\ud800y"', "x\ufffd\ufffdy"),  # two highs: two replacements
    (r'"\ud83d\ude00"', "\U0001f600"),  # a pair: one character, kept
    (r'["\ud800", {"k\udc01": ["\ud800", 1, null, true, 1.5]}]',
     ["\ufffd", {"k\ufffd": ["\ufffd", 1, None, True, 1.5]}]),  # keys and nesting
    (r'"\ud7ff\ue000"', "\ud7ff\ue000"),  # next to the surrogates: not one
    (r'"\u00e9"', "\u00e9"),
    ('{"a": [1, "b"]}', {"a": [1, "b"]}),  # nothing escaped
])
def test_loads_text(text, value):
    assert loads_text(text) == value


def test_loads_text_passes_json_options_on():
    plain = loads_text('{"raised": 0.1}', parse_float=Decimal)
    assert plain == {"raised": Decimal("0.1")} and type(plain["raised"]) is Decimal
    scrubbed = loads_text(r'["\ud800", 0.1]', parse_float=Decimal)
    assert scrubbed == ["\ufffd", Decimal("0.1")] and type(scrubbed[1]) is Decimal


def test_what_scrubbing_gives_holds_no_surrogate_and_encodes_as_utf8():
    value = loads_text(r'{"name": "a\ud800b", "team": [{"n": "\udfff"}]}')
    assert str(value).encode("utf-8")  # would raise UnicodeEncodeError with a surrogate left
