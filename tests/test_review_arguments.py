"""Arguments of the same kind follow one rule across functions (review of 2026-11-26).

A whole number is a whole number wherever it is taken: ``configure(max_workers=)``,
``sandbox.start(n_icos=)``, a plot's ``top=`` and a list parameter accept a NumPy
integer (what a frame's column or ``len`` of an array gives), and so does a loader's
``budget=``. ``True`` (a NumPy one too) is no count anywhere.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=30, seed=11) as server:
        yield server


@pytest.mark.parametrize("budget", [np.int64(3), np.uint8(3), np.int32(3)])
def test_a_numpy_integer_budget_is_a_budget(cfg, budget):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rest is said to be missing: not what is tested
        icos = icoframes.load_icos(status="past", budget=budget, progress=False)
    assert sum(cfg.stats.profile_hits.values()) == 3  # the budget, spent exactly
    assert icos["id"].dtype == "int64"
    assert len(icos) == 3


@pytest.mark.parametrize("budget", [True, np.True_, np.False_, 2.0, "3", np.float64(3), -1,
                                    np.int64(-1)])
def test_a_budget_that_is_no_whole_number_is_refused_before_any_request(cfg, budget):
    with pytest.raises(InvalidParameter, match=r"budget must be a whole number >= 0, got "):
        icoframes.load_icos(status="past", budget=budget, progress=False)
    assert cfg.stats.requests.total() == 0



def test_a_numpy_integer_budget_in_an_export_is_written_as_a_number(cfg, tmp_path):
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # incomplete: said in the manifest, checked below
        icoframes.export_tables(out, status="past", budget=np.int64(3), progress=False)
    assert sum(cfg.stats.profile_hits.values()) == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["arguments"]["budget"] == 3
    assert manifest["complete"] is False
