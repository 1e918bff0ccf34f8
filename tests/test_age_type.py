"""The one type of the age arguments, :data:`icoframes.Age` (REV-SH T1).

What a type checker makes of the documented calls is tests/typecheck_ages.py, checked by
``make lint``'s mypy run (before the alias, 9 of its calls were mypy errors that run fine).
Here: the alias is public, names every form the runtime reads, and each age argument is
annotated with it.
"""

from __future__ import annotations

import datetime as dt
import inspect
import tomllib
import typing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.ages import as_age

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_age_type_is_public_and_type_checked():
    mypy = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert "tests/typecheck_ages.py" in mypy["files"] and mypy["warn_unused_ignores"]
    assert "Age" in icoframes.__all__ and icoframes.Age is icoframes.ages.Age


@pytest.mark.parametrize("value", ["12h", "30D", "90", dt.timedelta(hours=1), pd.Timedelta("7D"),
                                   np.timedelta64(1, "D"), 3600, 3600.0, np.int64(60),
                                   np.float64(1.5)])
def test_every_form_of_the_type_is_an_age_at_run_time(value):
    # an int is a float to a type checker (PEP 484's numeric tower), not to isinstance
    kinds = (*(typing.get_origin(t) or t for t in typing.get_args(icoframes.Age)), int)
    assert isinstance(value, kinds)
    assert isinstance(as_age(value), dt.timedelta)


@pytest.mark.parametrize(("function", "parameter", "allows_none"), [
    (icoframes.load_icos, "max_age", True), (icoframes.load_tables, "profile_max_age", True),
    (icoframes.prune_cache, "older_than", False), (icoframes.to_usd, "rate_max_age", True),
    (icoframes.export_tables, "max_age", True)])
def test_each_age_argument_takes_the_type(function, parameter, allows_none):
    hint = typing.get_type_hints(function)[parameter]
    args = set(typing.get_args(hint))
    assert set(typing.get_args(icoframes.Age)) <= args
    assert (type(None) in args) is allows_none
    assert parameter in inspect.signature(function).parameters
