"""JSON text into Python values that every writer can keep.

A JSON string may hold an escaped lone UTF-16 surrogate (``"\\ud800"``), which
decodes to a Python string that UTF-8 cannot encode: SQLite, Arrow, pandas'
``str`` dtype and every file would refuse it. :func:`loads_text` is how
icoframes decodes JSON (the response gate, and the store reading what it kept).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["loads_text"]

# A JSON escape of a UTF-16 surrogate: "\\ud800" decodes to a lone surrogate, which UTF-8
# (hence SQLite, Arrow, pandas' str dtype and every file) cannot hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def loads_text(text: str, **kwargs: Any) -> Any:
    r"""JSON text decoded, with every lone surrogate escape replaced by U+FFFD.

    A pair of escapes (``"\ud83d\ude00"``) is one character and stays; a
    lone one cannot be written anywhere, so it becomes the replacement
    character (the stored raw text keeps the escape as sent).

    ``text`` is decoded from UTF-8, which cannot hold a surrogate, so only an
    escape can make one: a surrogate written raw in ``text`` is not looked for
    (the response gate decodes bodies strictly, and the cache writes lone
    surrogates as escapes; finding one would cost a second pass over every
    non-ASCII text).

    Examples
    --------
    >>> loads_text(r'{"name": "a\ud800b", "emoji": "\ud83d\ude00"}')
    {'name': 'a�b', 'emoji': '😀'}
    """
    value = json.loads(text, **kwargs)
    return _scrub(value) if _SURROGATE_ESCAPE.search(text) else value


def _scrub(value: Any) -> Any:
    if type(value) is str:
        return _SURROGATES.sub("\ufffd", value)
    if type(value) is dict:
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if type(value) is list:
        return [_scrub(v) for v in value]
    return value
