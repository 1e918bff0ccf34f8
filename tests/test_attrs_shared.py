"""The report in ``attrs["icoframes"]`` is one read-only value shared by every derived frame.

pandas deep-copies ``attrs`` into each frame it derives (selection, ``head``, filter, a
``groupby`` part): a partial load's report, or a long history's summaries, copied at each
operation made notebooks slow and ``changes()`` quadratic in the days. These tests check
the behaviour that prevents it (no copy made, changes refused, the readers' working frames
without attrs), against the sandbox and real exports; the speed itself is measured in
``benchmarks/bench_attrs.py``.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import pickle
import warnings

import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.plotting import plot_status_flow

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

DAYS = [dt.date(2026, 11, d) for d in (1, 2, 3, 4)]


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=3) as server:
        yield server


@pytest.fixture
def partial(sb, tmp_path):
    """``load_icos`` cut by its budget: 5 ICOs loaded, the other listed ones missing."""
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", icoframes.IcoframesWarning)  # incomplete: meant
            yield icoframes.load_icos(budget=5)
    finally:
        icoframes.reset_configuration()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Four daily snapshots of a sandbox changed between days, the third one cut by its
    budget with nothing cached (ICOs missing: unseen, then first seen again)."""
    out = tmp_path_factory.mktemp("exports") / "out"
    with sandbox.serve(n_icos=40, seed=5) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
        try:
            past = server.directory.ids("past")
            for i, when in enumerate(DAYS):
                if i == 1:
                    server.update_ico(past[0], raised=12_345_000)
                    server.update_ico(server.directory.ids("ongoing")[0], status="past")
                noon = dt.datetime.combine(when, dt.time(12), tzinfo=dt.UTC)
                with time_machine.travel(noon), warnings.catch_warnings():
                    warnings.simplefilter("ignore", icoframes.IcoframesWarning)
                    icoframes.export_tables(  # the third day: a cache of nothing, cut short
                        out, snapshot=True, refresh="all", progress=False,
                        **({"budget": 10, "cache_dir": tmp_path_factory.mktemp("new")}
                           if i == 2 else {}))
        finally:
            icoframes.reset_configuration()
    return out


def _plain(value):
    """``value`` as plain dicts and lists, at every level."""
    return json.loads(json.dumps(value))


class _Counted(dict):
    """A plain (changeable) attrs value that counts the deep copies pandas makes of it."""

    copies: list[int]

    def __deepcopy__(self, memo):
        self.copies.append(1)
        twin = _Counted(copy.deepcopy(dict(self), memo))
        twin.copies = self.copies
        return twin


def _counted(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[int]]:
    """``frame`` (a shallow copy) whose attrs report is a :class:`_Counted` plain dict."""
    out = frame.copy(deep=False)
    counted = _Counted(_plain(frame.attrs["icoframes"]))
    counted.copies = []
    out.attrs = {"icoframes": counted}
    return out, counted.copies


def _doubled(snaps: pd.DataFrame) -> pd.DataFrame:
    """The four days of ``snaps`` followed by the same four again, four days later."""
    doubled = pd.concat([snaps, snaps.assign(
        snapshot_date=snaps["snapshot_date"] + pd.Timedelta(days=4))], ignore_index=True)
    infos = snaps.attrs["icoframes"]["snapshots"]
    later = [{**i, "snapshot_date": (pd.Timestamp(i["snapshot_date"]) + pd.Timedelta(days=4))
              .date().isoformat()} for i in infos]
    doubled.attrs = {"icoframes": {"snapshots": [*infos, *later]}}
    return doubled


def test_a_partial_loads_report_is_shared_not_copied(partial):
    stated = partial.attrs["icoframes"]
    assert not stated["complete"] and len(stated["missing"]) == 55
    derived = [partial.head(), partial[["id", "raised"]], partial[partial["id"] > 0],
               partial.copy(), partial.sort_values("id"),
               next(iter(partial.groupby("status")))[1]]
    for frame in derived:
        assert frame.attrs["icoframes"] is stated
    assert copy.deepcopy(stated) is stated
    assert copy.deepcopy(stated["missing"]) is stated["missing"]
    assert icoframes.report(partial.head()) == icoframes.report(partial)


def test_the_report_reads_as_before(partial):
    stated = partial.attrs["icoframes"]
    assert isinstance(stated, dict) and isinstance(stated["missing"], list)
    assert isinstance(stated["queries"][0], dict)
    plain = _plain(stated)
    assert plain == stated
    assert icoframes.reporting.LoadReport.from_dict(stated) == icoframes.report(partial)


@pytest.mark.parametrize(("change", "kind"), [
    (lambda r: r.__setitem__("complete", True), "dict"),
    (lambda r: r.pop("missing"), "dict"),
    (lambda r: r.update(complete=True), "dict"),
    (lambda r: r.setdefault("extra", 1), "dict"),
    (lambda r: r.__delitem__("queries"), "dict"),
    (lambda r: r["missing"].append({"id": 1}), "list"),
    (lambda r: r["missing"].__setitem__(0, {}), "list"),
    (lambda r: r["missing"].sort(key=str), "list"),
    (lambda r: r["missing"][0].__setitem__("reason", "edited"), "dict"),
    (lambda r: r["queries"][0]["params"].clear(), "dict"),
    (lambda r: r["requests"].__ior__({"icos": 0}), "dict"),
], ids=["set", "pop", "update", "setdefault", "del", "append", "list set", "sort",
        "nested dict", "params", "|="])
def test_changing_the_report_is_refused_with_the_way_to_copy_it(partial, change, kind):
    stated = partial.attrs["icoframes"]
    before = _plain(stated)
    # the copy that fits what was changed: dict(...) of a list keeps only its indexes
    with pytest.raises(TypeError, match=rf"this {kind} is read-only.*; change a copy: "
                                        rf"{kind}\(\.\.\.\) copies its top level, "
                                        r"icoframes\.thawed\(\.\.\.\) every level$"):
        change(stated)
    assert stated == before


def test_a_copy_of_the_report_is_changeable(partial):
    stated = partial.attrs["icoframes"]
    top = dict(stated)
    top["complete"] = True
    # the copy the refusal names: public, so in the API reference (tests/test_all_lists.py)
    assert "thawed" in icoframes.__all__
    plain = icoframes.thawed(stated)
    assert type(plain) is dict and type(plain["missing"]) is list
    plain["missing"].append({"id": 1})
    plain["queries"][0]["params"]["status"] = "x"
    assert stated["complete"] is False and len(stated["missing"]) == 55
    partial.attrs["icoframes"] = top  # the frame's attrs themselves stay the user's
    assert icoframes.report(partial).complete


def test_pickle_json_and_parquet_round_trips(partial, tmp_path):
    stated = partial.attrs["icoframes"]
    back = pickle.loads(pickle.dumps(partial))
    assert back.attrs["icoframes"] == stated
    with pytest.raises(TypeError, match="read-only"):  # still shared safely
        back.attrs["icoframes"]["missing"].append({"id": 1})
    assert icoframes.report(back) == icoframes.report(partial)
    partial.to_pickle(tmp_path / "icos.pkl")
    assert pd.read_pickle(tmp_path / "icos.pkl").attrs["icoframes"] == stated
    # (the column descriptions ride along, as on every loaded table)
    assert json.loads(json.dumps(partial.attrs)) == {"icoframes": _plain(stated),
                                                     "columns": _plain(partial.attrs["columns"])}
    partial.to_parquet(tmp_path / "icos.parquet")  # pandas keeps attrs in the file's metadata
    read = pd.read_parquet(tmp_path / "icos.parquet")
    assert read.attrs["icoframes"] == json.loads(json.dumps(stated))


def test_read_export_and_snapshots_share_their_manifests(tree):
    latest = icoframes.read_export(sorted(tree.iterdir())[-1])
    stated = latest.icos.attrs["icoframes"]
    assert stated["manifest"]["complete"] is True
    assert latest.icos.head().attrs["icoframes"] is stated
    with pytest.raises(TypeError, match="read-only"):
        stated["manifest"]["complete"] = False
    assert icoframes.report(latest).complete
    snaps = icoframes.read_snapshots(tree)
    infos = snaps.attrs["icoframes"]
    assert [i["snapshot_date"] for i in infos["snapshots"]] == [d.isoformat() for d in DAYS]
    assert snaps[snaps["status"] == "past"].attrs["icoframes"] is infos
    assert not icoframes.report(snaps).complete  # the third day's budget
    assert pickle.loads(pickle.dumps(snaps)).attrs["icoframes"] == infos


def test_changes_is_the_same_with_a_plain_report_and_copies_it_a_bounded_number_of_times(tree):
    snaps = icoframes.read_snapshots(tree)
    expected = icoframes.changes(tree)
    assert set(expected["kind"]) == {"raised", "status", "unseen"}
    pd.testing.assert_frame_equal(icoframes.changes(snaps), expected)
    plain, copies = _counted(snaps)
    pd.testing.assert_frame_equal(icoframes.changes(plain), expected)
    # the working frame carries no attrs: the report is copied by the few steps before,
    # never once per day's comparison (each of which derives dozens of frames)
    assert 0 < len(copies) <= 20
    twice, copies_twice = _counted(_doubled(snaps))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)  # a cut frame: said
        icoframes.changes(twice)
    assert len(copies_twice) == len(copies)  # twice the days, no more copies


def test_plot_status_flow_copies_the_report_a_bounded_number_of_times(tree):
    snaps = icoframes.read_snapshots(tree)
    plain, copies = _counted(snaps)
    ax = plot_status_flow(plain)
    texts = [t.get_text() for t in ax.texts]
    assert texts == [t.get_text() for t in plot_status_flow(snaps).texts]
    assert "30 unseen" in texts
    assert 0 < len(copies) <= 20
    twice, copies_twice = _counted(_doubled(snaps))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)
        plot_status_flow(twice)
    assert len(copies_twice) == len(copies)
    assert plain.attrs["icoframes"]["snapshots"] == _plain(snaps.attrs["icoframes"]["snapshots"])
