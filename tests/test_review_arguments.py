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


@pytest.mark.parametrize("budget", [True, np.True_, np.False_, 2.0, "3.0", np.float64(3), -1,
                                    np.int64(-1)])
def test_a_budget_that_is_no_whole_number_is_refused_before_any_request(cfg, budget):
    with pytest.raises(InvalidParameter, match=r"budget must be a whole number from 0 to 9223"):
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


@pytest.mark.parametrize("seed", [np.int64(3), np.uint8(3), np.int32(3)])
def test_a_numpy_integer_seed_serves_the_directory_of_that_seed(seed):
    """start() checks seed= as a whole number (a NumPy one passes the check) and then
    gave it to random.Random, which takes no NumPy integer: a TypeError after the check."""
    with sandbox.serve(n_icos=np.int64(12), seed=seed, port=np.int64(0)) as numpy_made, \
            sandbox.serve(n_icos=12, seed=3) as plain:
        assert numpy_made.directory.ids() == plain.directory.ids()
        assert [r.name for r in numpy_made.directory.records()] == [
            r.name for r in plain.directory.records()]
        assert numpy_made.settings()["service_name"] == plain.settings()["service_name"]
        assert numpy_made.settings()["service_name"].startswith("sandbox-3-12-")


@pytest.mark.parametrize("call, message", [
    (lambda out: icoframes.describe("ico"), "no table 'ico'; did you mean 'icos'?; tables: "),
    (lambda out: icoframes.describe("ICOS"), "no table 'ICOS'; did you mean 'icos'?; tables: "),
    (lambda out: icoframes.read_snapshots(out, "problem"),
     "'problem' is not a table (icos, "),
    (lambda out: icoframes.changes(out, kinds="scroe"),
     "cannot compare 'scroe': not a kind of change or a column; did you mean 'score'?"),
])
def test_a_name_that_names_nothing_is_an_invalid_parameter_with_its_closest(tmp_path, call,
                                                                            message):
    """The one class for a bad argument (README: InvalidParameter), as plot by= and
    changes(gaps=) give: describe("ico") and read_snapshots(out, "problem") raised a
    bare KeyError (shown in quotes), changes(kinds="scroe") a bare ValueError. Each is
    still the KeyError / ValueError it was."""
    out = tmp_path / "out"
    for day in ("2026-11-01", "2026-11-02"):
        icoframes.Tables.empty().to_parquet(out / f"snapshot_date={day}")
    with pytest.raises(InvalidParameter) as caught:
        call(out)
    assert str(caught.value).startswith(message), str(caught.value)
    assert isinstance(caught.value, KeyError | ValueError)
    if "table" in message:
        assert isinstance(caught.value, KeyError)  # as before: except KeyError still works
    if "problem" in message:
        assert str(caught.value).endswith("; did you mean 'problems'?")


@pytest.mark.parametrize(("log", "hint"), [("yes", "; did you mean True?"),
                                         ("no", "; did you mean False?"), (None, ""),
                                         (1, "; did you mean True?")])
def test_plot_raised_log_is_true_or_false_as_every_flag(log, hint):
    """Every other flag (snapshot=, all=, rates=, wide=) refuses a truthy value with an
    InvalidParameter; plot_raised(log=) raised a bare ValueError."""
    import matplotlib.pyplot as plt

    icos = icoframes.schema.empty_frame(icoframes.schema.ICOS)
    before = plt.get_fignums()
    with pytest.raises(InvalidParameter) as info:
        icoframes.plot_raised(icos, log=log)
    assert str(info.value) == f"log must be True or False, got {log!r}{hint}"
    assert plt.get_fignums() == before


def test_plot_raised_log_takes_a_numpy_bool():
    import matplotlib.pyplot as plt

    ax = icoframes.plot_raised(icoframes.schema.empty_frame(icoframes.schema.ICOS),
                               log=np.False_)
    plt.close(ax.figure)


@pytest.mark.parametrize(("kinds", "message"), [
    # "did you mean 'score'?" to kinds='score': the kind is right, the frame lacks its column
    ("score", "cannot compare 'score': the snapshots have no column 'ico_score'"),
    ("raised", "cannot compare 'raised': the snapshots have no column 'raised'"),
    # never the name given as its own "did you mean"
    ("id", "cannot compare 'id': the column telling the ICOs apart, not a value that changes"),
    ("new", "cannot compare 'new': an event changes() gives by itself (new and removed ICOs "
            "always, unseen and first_seen with gaps='mark'), not a value to compare"),
])
def test_a_kind_the_frame_has_no_column_for_says_so_not_did_you_mean_itself(tmp_path, kinds,
                                                                            message):
    out = tmp_path / "out"
    for day in ("2026-11-01", "2026-11-02"):
        icoframes.Tables.empty().to_parquet(out / f"snapshot_date={day}")
    frame = icoframes.read_snapshots(out).drop(columns=["ico_score", "raised"])
    with pytest.raises(InvalidParameter) as caught:
        icoframes.changes(frame, kinds=kinds)
    assert str(caught.value) == message
    assert icoframes.changes(frame, kinds="status").empty  # the columns it has still compare
