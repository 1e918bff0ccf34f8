"""``status`` is typed with its three values where a caller gives it.

It was ``str | None``: ``load_icos(status="pats")`` passed ``mypy --strict`` and failed only
at run time. ``Status`` is the one list of statuses, the runtime's too (``STATUSES``), which
still takes any case ("Past") and refuses a misspelling with a "did you mean"
(tests/test_params.py).
"""

from __future__ import annotations

import typing

import pytest

import icoframes
from icoframes.api.params import STATUSES


@pytest.mark.parametrize("function", [icoframes.load_list, icoframes.load_icos,
                                      icoframes.load_tables, icoframes.export_tables])
def test_status_is_typed_with_the_statuses(function):
    hint = typing.get_type_hints(function)["status"]
    # the three values written out, not icoframes.Status: on a tree without it the test
    # fails on the hint (str | None), not on the missing name
    assert hint == typing.Literal["ongoing", "upcoming", "past"] | None
    assert typing.get_args(icoframes.Status) == STATUSES == ("ongoing", "upcoming", "past")

