"""JSON text into Python values, as the service sent it: how icoframes decodes JSON.

A JSON string may hold an escaped lone UTF-16 surrogate (``"\\ud800"``), which
decodes to a Python string that UTF-8 cannot encode. :func:`loads_text` keeps it
(the response gate, and the store reading what it kept, decode with it): the parser
reports each such text as a row of ``problems`` (reason ``surrogate``) and keeps it
with U+FFFD in the tables (:func:`icoframes.parse.text.clean_surrogates`), and the
store writes it escaped (``\\ud800``: in JSON, the same text), so the cache keeps the
raw as sent and rebuilding its tables reports it again. Scrubbed here, it was never
reported and the raw was lost.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads_text"]


def loads_text(text: str, **kwargs: Any) -> Any:
    r"""JSON text decoded, every string as sent: a lone surrogate escape stays one.

    A pair of escapes (``"\ud83d\ude00"``) is one character. ``text`` is decoded from
    UTF-8, which cannot hold a surrogate, so only an escape can make one.

    Examples
    --------
    >>> loads_text(r'{"name": "a\ud800b", "emoji": "\ud83d\ude00"}')
    {'name': 'a\ud800b', 'emoji': '😀'}

    An integer too long for ``int`` (over 4,300 digits, Python's guard against slow
    conversions) is kept as its text: only that value is refused (the parser reads such a
    text as it reads one sent as a string), not the whole answer.

    >>> loads_text('{"raised": ' + "9" * 5000 + '}')["raised"] == "9" * 5000
    True
    """
    return json.loads(text, **{"parse_int": _int_or_text, **kwargs})


def _int_or_text(digits: str) -> int | str:
    try:
        return int(digits)
    except ValueError:  # too many digits to convert
        return digits
