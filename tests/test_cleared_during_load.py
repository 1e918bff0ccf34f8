"""The profiles a load fetched and a clear then removed are said to be so, not "not fetched".

A clear (another process's ``icoframes cache clear``) during a load removes what the load
had kept: its result lacks those rows, and its report called them ``not_fetched`` with the
reason "not fetched", though this very call had fetched (and paid for) them. Here a real
``clear_cache()`` runs in the middle of a real load against the sandbox: right before the
load keeps its tenth profile (the step is wrapped to choose the moment; the clear and the
load are the package's own).
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning
from icoframes.fetch import load


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=9) as server:
        yield server


def test_a_load_cut_by_a_clear_says_what_the_clear_removed(cfg, monkeypatch):
    real = load.Load._keep
    kept: list[int] = []
    cleared: list[object] = []

    def keep(self, want, profile, **kwargs):
        if len(kept) == 9 and not cleared:
            cleared.append(icoframes.clear_cache())
        kept.append(want.id)
        return real(self, want, profile, **kwargs)

    monkeypatch.setattr(load.Load, "_keep", keep)
    with pytest.warns(IncompleteWarning, match="removed it meanwhile"):
        tables = icoframes.load_tables(status="past", progress=False)
    assert cleared and cleared[0].removed
    missing = tables.icos.attrs["icoframes"]["missing"]
    # of the 9 kept before the clear (the last may be written after it, with the next)
    assert missing and {m["id"] for m in missing} <= set(kept[:9])
    assert {m["state"] for m in missing} == {"not_fetched"}
    assert {m["reason"] for m in missing} == {
        "fetched by this call, then a clear of the cache (icoframes cache clear, clear_cache "
        "or prune_cache) removed it meanwhile; the next online load fetches it again"}
