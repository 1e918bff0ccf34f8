"""A bundle's notebook views lead with whether the load (or export) is complete.

"Is this everything?" is the first thing a notebook user reads off a ``Tables``: its
text (``repr``) and HTML (``_repr_html_``) views open with complete or INCOMPLETE,
how many listed ICOs have no row and why (counted by reason), the rows not refreshed,
why the load stopped, then each query, complete only when its list came whole and each
ICO it lists has its row (``QueryReport.without_row``), and how old it is. An export
read back says what its manifest says. However much is missing, the views stay short.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import warnings
from collections import Counter

import pytest
import time_machine
from ledger_day import NOON, noon
from made_exports import cut_export

import icoframes
from icoframes import IncompleteWarning, LoadReport, Tables, sandbox

LATER = NOON + dt.timedelta(days=3, hours=1)  # the views read a few days after the load


def _text(page: str) -> str:
    """The words of an HTML view, tags dropped, spaces joined."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)).strip()


@pytest.fixture
def sb(tmp_path):
    with sandbox.serve(n_icos=60, seed=3) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        yield server
    icoframes.reset_configuration()


@pytest.fixture
def cut(sb):
    """``load_tables(budget=5)``: 5 of the 60 listed ICOs have a row, as a 485 day leaves."""
    with noon(), pytest.warns(IncompleteWarning) as said:
        tables = icoframes.load_tables(budget=5, progress=False)
    return tables, said


def _expected(sb, tables: Tables) -> dict[str, int]:
    """Per status, the listed ICOs without a row, counted from the sandbox's directory."""
    present = set(tables.icos["id"])
    return {s: sum(i not in present for i in sb.directory.ids(s))
            for s in ("ongoing", "upcoming", "past")}


def test_the_report_says_per_query_how_many_of_its_icos_have_no_row(sb, cut):
    tables, _ = cut
    lacking = _expected(sb, tables)
    assert sum(lacking.values()) == 55 and len(tables.icos) == 5
    report = tables.report
    assert report is not None and report.complete is False and len(report.missing) == 55
    by_query = {q.params["status"]: q for q in report.queries}
    for status, q in by_query.items():
        assert q.complete is True  # the list itself came whole ...
        assert q.without_row == lacking[status]  # ... its ICOs did not all get a row
        assert q.rows == len(sb.directory.ids(status))
    assert Counter(m.status for m in report.missing) == +Counter(lacking)
    # the frame's attrs (0.1's dict) read back the same
    again = icoframes.report(tables.icos)
    assert [q.without_row for q in again.queries] == [q.without_row for q in report.queries]


def test_the_text_view_leads_with_the_incomplete_load(sb, cut):
    tables, _ = cut
    lacking = _expected(sb, tables)
    with time_machine.travel(LATER, tick=False):
        lines = repr(tables).splitlines()
    assert lines[0] == "Tables(5 ICOs): INCOMPLETE load: 55 of its 60 listed ICOs have no row"
    assert lines[1] == ("  why: 55 not_fetched (the call's budget ran out); "
                        "icoframes.report(...).missing lists each")
    for status, n in lacking.items():
        listed = len(sb.directory.ids(status))
        assert (f"complete: {'NO' if n else 'yes'} ({listed} listed, {n} without a row; "
                "list whole)") in next(line for line in lines if f"status={status} " in line)
    assert "oldest list fetched 2026-03-02 12:00 UTC (3 days ago)" in lines[5]
    assert "rows fetched 2026-03-02 12:00 UTC (3 days ago)" in lines[5]
    assert lines[6].split() == ["icos", "5", "rows"]  # then the tables, as before


def test_the_html_view_leads_with_the_incomplete_load(sb, cut):
    tables, _ = cut
    lacking = _expected(sb, tables)
    with time_machine.travel(LATER, tick=False):
        page = tables._repr_html_()
    head = page[:page.index("<table>")]  # before the first table: the completeness
    assert ("<p><strong>INCOMPLETE load</strong>: 55 of its 60 listed ICOs have no row</p>"
            in head)
    assert "why: 55 not_fetched (the call&#x27;s budget ran out)" in head
    assert "oldest list fetched 2026-03-02 12:00 UTC (3 days ago)" in head
    for status, n in lacking.items():
        listed = len(sb.directory.ids(status))
        assert (f"<tr><td>status={status}</td><td>{'NO' if n else 'yes'}</td><td>{listed}</td>"
                f"<td>{n}</td><td>whole</td><td>service</td>") in page
    assert re.search(r"requests spent: icos \d+, ico 5$", _text(page))  # the budget: 5


def test_a_loads_warning_is_said_once_with_the_count(sb):
    with noon(), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        icos = icoframes.load_icos(budget=5, progress=False)
    incomplete = [w for w in said if issubclass(w.category, IncompleteWarning)]
    assert len(incomplete) == 1 and len(icos) == 5
    assert str(incomplete[0].message).startswith(
        "incomplete result: 55 listed ICO(s) have no row: 55 not_fetched")
    assert incomplete[0].filename == __file__  # at the user's line (the notebook cell)


def test_a_complete_load_says_so_and_each_query_yes(sb):
    with noon():
        tables = icoframes.load_tables(status="past", progress=False)
    past = len(sb.directory.ids("past"))
    text = repr(tables)
    assert text.splitlines()[0] == (f"Tables({past} ICOs): complete load: every listed ICO of "
                                    "its 1 list has its row")
    assert f"complete: yes ({past} listed, 0 without a row; list whole)" in text
    assert "INCOMPLETE" not in text and "why:" not in text
    page = tables._repr_html_()
    assert "<strong>complete load</strong>: every listed ICO of its 1 list has its row" in page


def test_a_query_answered_from_the_cache_says_so_and_from_which_list(sb):
    """The report's text and HTML views of a narrower query the cache answered name the
    cached list it was answered from (``answered_from``), not only "0 requests"."""
    with noon():
        icoframes.load_filters()
        icoframes.load_icos(status="past", progress=False)
        sb.stats.reset()
        narrow = icoframes.load_icos(status="past", category=[4], progress=False)
    assert sum(sb.stats.requests.values()) == 0
    report = icoframes.report(narrow)
    lines = repr(report).splitlines()
    at = next(i for i, line in enumerate(lines) if "query category=[4], status=past" in line)
    assert lines[at + 1] == "    answered from the cache: the cached list status=past"
    assert "cache (the list status=past)" in _text(report._repr_html_())
    plain = icoframes.load_icos(status="past", category=[4], refresh=True, progress=False)
    assert "answered from the cache" not in repr(icoframes.report(plain))


def test_an_export_read_back_says_what_its_manifest_says(tmp_path):
    out = tmp_path / "out"
    cut_export(out, tmp_path / "cache", n_icos=60, seed=3, quota=30)  # the day's limit cuts it
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["stopped"]["reason"] == "quota"
    missing = len(manifest["missing"])
    listed = sum(q["rows"] for q in manifest["queries"])
    by_status = Counter(m["status"] for m in manifest["missing"])
    tables = icoframes.read_export(out)
    assert tables.report is None  # (the attribute is a load's), yet the views say it
    with time_machine.travel(LATER, tick=False):
        text, page = repr(tables), tables._repr_html_()
    first, why, *_ = text.splitlines()
    assert first == (f"Tables({listed - missing} ICOs): INCOMPLETE export: {missing} of its "
                     f"{listed} listed ICOs have no row; stopped: quota (the daily request "
                     "limit)")
    assert why.startswith(f"  why: {missing} not_fetched (quota)")
    assert "exported 2026-03-02 12:00 UTC (3 days ago)" in text
    assert f"<strong>INCOMPLETE export</strong>: {missing} of its {listed}" in page
    for q in manifest["queries"]:
        status = q["params"]["status"]
        n = by_status.get(status, 0)
        assert (f"<tr><td>status={status}</td><td>{'NO' if n else 'yes'}</td>"
                f"<td>{q['rows']}</td><td>{n}</td><td>whole</td>") in page


def test_thousands_missing_are_said_in_a_few_lines(tmp_path):
    with sandbox.serve(n_icos=2000, seed=4) as big:
        icoframes.configure(**big.settings(), cache_dir=tmp_path / "cache")
        try:
            with noon(), pytest.warns(IncompleteWarning):
                tables = icoframes.load_tables(budget=0, progress=False)
        finally:
            icoframes.reset_configuration()
    assert len(tables.report.missing) == 2000 and tables.icos.empty
    text, page = repr(tables), tables._repr_html_()
    assert text.splitlines()[0] == ("Tables(0 ICOs): INCOMPLETE load: 2,000 of its 2,000 "
                                    "listed ICOs have no row")
    assert len(text.splitlines()) <= 20 and len(page) < 5000
    assert len(repr(tables.report)) < 2000  # not one MissingICO per id


def test_many_reasons_are_counted_the_most_frequent_first():
    missing = [{"id": i, "name": None, "state": "failed", "status": "past",
                "reason": f"error 5{i % 40:02d}" + " after every retry" * 20}
               for i in range(4000)] + [{"id": 10**5 + i, "name": None, "state": "not_fetched",
                                         "reason": "quota", "status": "past"}
                                        for i in range(500)]
    report = LoadReport.from_dict({"queries": [{"params": {"status": "past"}, "complete": True,
                                                "rows": 4600, "from_cache": False}],
                                   "missing": missing, "requests": {"ico": 4000}})
    text = repr(Tables.empty().with_report(report))
    why = text.splitlines()[1]
    assert why.startswith("  why: 500 not_fetched (quota), 100 failed (error 500 after")
    assert "3,800 more for 38 other reasons" in why and len(why) < 400
    assert report.queries[0].without_row == 4500
