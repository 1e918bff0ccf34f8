"""The notebook views of a bundle say what they can, and what they say is true.

- A manifest edited by hand (a missing ICO without an id, an id that is no number, a
  ``not_refreshed`` entry without an id, a count that is no number) still reads back with
  ``read_export``; its views (``repr``, ``_repr_html_``) raised KeyError or ValueError, a
  traceback in the notebook cell. They now show the rows and say the manifest is damaged;
  the ``LoadReport`` read from it (``icoframes.report``) says it cannot show itself.
- An INCOMPLETE report with nothing the headline counts said "INCOMPLETE load: " and no
  more.
- The listed total is summed over the lists: lists that may list one ICO twice (two of one
  status) are said to be summed, not "its 6 listed ICOs" of 3.

The export is a real one of a sandbox over loopback, cut by its daily limit.
"""

from __future__ import annotations

import html
import json
import shutil

import pytest
from made_exports import cut_export

import icoframes
from icoframes import LoadReport, Tables

DAMAGED = "load report unreadable: the export's manifest is damaged ("


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    """An export of 30 ICOs that its daily limit (12 requests) cut: INCOMPLETE."""
    out = tmp_path_factory.mktemp("export") / "out"
    cut_export(out, out.parent / "cache", n_icos=30, seed=3, quota=12)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["missing"]
    return out


def _damage(m):
    """Each edit a hand may make, as the name of the part it breaks."""
    return {
        "a missing ICO without an id": lambda: m["missing"][0].pop("id"),
        "a missing ICO's id no number": lambda: m["missing"][0].update(id="<b>x</b>"),
        "not_refreshed without an id": lambda: m.update(not_refreshed=[{"name": "x"}]),
        "a partial list's count no number": lambda: m["queries"][0].update(
            complete=False, missing="many", total_icos=99),
        "requests spent no number": lambda: m.update(requests_spent={"icos": "two"}),
    }


@pytest.mark.parametrize("edit", list(_damage({})))
def test_a_damaged_manifest_is_said_and_the_rows_still_shown(cut, tmp_path, edit):
    out = tmp_path / "out"
    shutil.copytree(cut, out)
    manifest = json.loads((out / "manifest.json").read_text())
    _damage(manifest)[edit]()
    (out / "manifest.json").write_text(json.dumps(manifest))
    tables = icoframes.read_export(out)
    text, page = repr(tables), tables._repr_html_()  # on 7c2753c: KeyError, ValueError
    first, *rest = text.splitlines()
    assert first.startswith(f"Tables({len(tables.icos)} ICOs): {DAMAGED}"), first
    assert first.endswith("; it says the export is INCOMPLETE; attrs['icoframes']['manifest'] "
                          "holds it"), first
    assert ["icos", str(len(tables.icos)), "rows"] in [line.split() for line in rest]
    assert f"<p>{html.escape(DAMAGED)}" in page and "<b>" not in page
    assert f"<tr><td>icos</td><td>{len(tables.icos)}</td>" in page
    if edit == "a partial list's count no number":  # read, then not shown: LoadReport's own
        got = icoframes.report(tables)
        assert repr(got) == ("LoadReport(load report unreadable (ValueError: query 1's "
                             "missing is 'many', not a count))")
        assert got._repr_html_().startswith("<p>load report unreadable (ValueError: ")
    original = icoframes.read_export(cut)  # the same export undamaged: its report shown
    assert repr(original).splitlines()[0].startswith(
        f"Tables({len(original.icos)} ICOs): INCOMPLETE export: ")


@pytest.mark.parametrize(("field", "value"), [
    *(("complete", v) for v in (None, "x", 7, [], {}, [1])),
    *(("missing", v) for v in (None, "x", 7, {}, [1]))])  # ([] is none missing: no damage)
def test_a_completeness_of_no_type_is_said_damaged(cut, tmp_path, field, value):
    """A ``complete`` that is not true or false read as no report, and a ``missing`` that
    is no list of ICOs as none missing: df2645a's views said nothing of the report, or
    "INCOMPLETE export: stopped: quota" without the ICOs it lacks."""
    out = tmp_path / "out"
    shutil.copytree(cut, out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest[field] = value
    (out / "manifest.json").write_text(json.dumps(manifest))
    tables = icoframes.read_export(out)
    first = repr(tables).splitlines()[0]
    why = (f"its complete is {value!r}, not true or false" if field == "complete" else
           f"its missing is {value!r}, not a list of ICOs")
    says = "" if field == "complete" else "; it says the export is INCOMPLETE"
    assert first == (f"Tables({len(tables.icos)} ICOs): {DAMAGED}ValueError: {why}){says}; "
                     "attrs['icoframes']['manifest'] holds it")
    assert f"<p>{html.escape(DAMAGED)}ValueError: {html.escape(why)}" in tables._repr_html_()


def test_a_view_that_fails_on_a_whole_report_does_not_blame_the_manifest(cut, monkeypatch):
    """The catch that keeps a view from raising also caught a fault of the view itself
    (here a stand-in: its text and HTML made to raise), and said the export's manifest is
    damaged (df2645a): the manifest reads whole, so the report is said not shown."""
    def broken(*args, **kwargs):
        raise TypeError("a fault of the view")

    import icoframes.reportview
    import icoframes.tables
    for module in (icoframes.reportview, icoframes.tables):
        for name in ("completeness_lines", "completeness_html"):
            monkeypatch.setattr(module, name, broken, raising=False)
    tables = icoframes.read_export(cut)
    first = repr(tables).splitlines()[0]
    assert first == (f"Tables({len(tables.icos)} ICOs): load report could not be shown "
                     "(TypeError: a fault of the view); it says the export is INCOMPLETE; "
                     "attrs['icoframes']['manifest'] holds it")
    assert "load report could not be shown (TypeError: " in tables._repr_html_()
    assert "damaged" not in repr(tables) + tables._repr_html_()


def _list(status, rows):
    return {"params": {"status": status}, "complete": True, "rows": rows, "from_cache": False}


def test_an_incomplete_report_with_nothing_counted_says_what_it_knows():
    # on 7c2753c: "LoadReport(INCOMPLETE load: " and nothing after the colon
    report = LoadReport.from_dict({"queries": [_list("past", 3)], "complete": False,
                                   "missing": []})
    first = repr(report).splitlines()[0]
    assert first == ("LoadReport(INCOMPLETE load: its report says so, without saying what is "
                     "missing")
    assert "INCOMPLETE load</strong>: its report says so" in report._repr_html_()
    view = repr(Tables.empty().with_report(report)).splitlines()[0]
    assert view == ("Tables(0 ICOs): INCOMPLETE load: its report says so, without saying what "
                    "is missing")


def test_a_listed_total_summed_over_lists_that_may_share_an_ico_says_so():
    missing = [{"id": 7, "name": None, "state": "failed", "reason": "error 500",
                "status": "past"}]
    # two lists of one status: 3 ICOs listed by each may be the same 3
    twice = LoadReport.from_dict({"queries": [_list("past", 3), _list("past", 3)],
                                  "missing": missing})
    assert repr(twice).splitlines()[0] == (
        "LoadReport(INCOMPLETE load: 1 of its 6 listed ICOs have no row (summed over its 2 "
        "lists: an ICO in several counted in each)")  # on 7c2753c: "1 of its 6 listed ICOs"
    no_status = LoadReport.from_dict({"queries": [_list(None, 3), _list("past", 3)],
                                      "missing": missing})
    assert "(summed over its 2 lists: " in repr(no_status)
    # lists of distinct statuses list distinct ICOs: their sum is a count of ICOs
    apart = LoadReport.from_dict({"queries": [_list("past", 3), _list("upcoming", 3)],
                                  "missing": missing})
    assert repr(apart).splitlines()[0] == ("LoadReport(INCOMPLETE load: 1 of its 6 listed ICOs "
                                           "have no row")
    one = LoadReport.from_dict({"queries": [_list(None, 3)], "missing": missing})
    assert repr(one).splitlines()[0].endswith(": 1 of its 3 listed ICOs have no row")
