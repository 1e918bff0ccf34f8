"""A ``snapshot_date`` made text, dates or categorical, and one in the index (review REVK
M1, M2, L6): every reader counts the days of the frame as it counts read_snapshots'.

Real snapshot exports of a sandbox over five simulated days (time-machine), ``status=
"upcoming"``: three ICOs upcoming on days 1, 2 and 4; none on day 3 (the query matched
nothing: empty tables, ``allow_empty``); on day 5 three others are, and the daily limit
(1 request) stops the export before it holds any (``rows`` 0, ``complete`` false).
On 9315728 a text (``.dt.strftime``), ``datetime.date`` (``.dt.date``) or categorical
``snapshot_date`` made ``changes`` and ``plot_status_flow`` drop day 3 (no event: days 1,
2 and 4 hold the same ICOs) and day 5 without the warning the read_snapshots frame gets,
and ``report`` count 3 days (complete); ``report`` of a frame whose ``snapshot_date`` is in
the index, cut to one day, reported every day, while ``changes`` refused it.
"""

from __future__ import annotations

import datetime as dt
import shutil
import warnings

import matplotlib
import pandas as pd
import pyarrow as pa
import pytest
from made_exports import day, snapshot_tree, stopped_empty

import icoframes
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.snapshots import snapshot_dates, utc_dates

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")

matplotlib.use("Agg")

_DAY5 = stopped_empty(5)

# the ways a notebook turns read_snapshots' days into others (each read as those days)
KINDS = {
    "text": lambda c: c.dt.strftime("%Y-%m-%d"),
    "text objects": lambda c: c.dt.strftime("%Y-%m-%d").astype(object),
    "pandas string": lambda c: c.dt.strftime("%Y-%m-%d").astype("string"),
    "datetime.date": lambda c: c.dt.date,
    "Timestamp objects": lambda c: c.astype(object),
    "categorical": lambda c: c.astype("category"),
    "categorical text": lambda c: c.dt.strftime("%Y-%m-%d").astype("category"),
    # pyarrow's (pd.read_parquet(..., dtype_backend="pyarrow")): a zoned one raised pandas'
    # ValueError "cannot supply both a tz and a timezone-naive dtype" in changes(); the others
    # lost the day without a row (day 3) and the days were not counted as numpy's
    "pyarrow zoned": lambda c: c.dt.tz_localize("UTC").astype("timestamp[us, tz=UTC][pyarrow]"),
    "pyarrow zone converted": lambda c: c.dt.tz_localize("UTC").dt.tz_convert(
        "Asia/Tokyo").astype("timestamp[ms, tz=Asia/Tokyo][pyarrow]"),
    "pyarrow naive": lambda c: c.astype("timestamp[us][pyarrow]"),
    "pyarrow date": lambda c: c.astype("date32[pyarrow]"),
    "pyarrow text": lambda c: c.dt.strftime("%Y-%m-%d").astype("large_string[pyarrow]"),
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The tree: days 1, 2, 4 three upcoming ICOs, day 3 none, day 5 stopped empty."""
    out = tmp_path_factory.mktemp("exports") / "out"
    chosen, _, results = snapshot_tree(out, out.parent / "cache", days=5, upcoming=(1, 2, 4),
                                       stopped=True)
    assert results == [(True, 3), (True, 3), (True, 0), (True, 3), (False, 0)]
    return out, chosen


def _read(frame: pd.DataFrame):
    """changes, report and the plot's bars of ``frame``, with the warnings each gave."""
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        events = changes(frame)
        got = icoframes.report(frame)
        ax = plot_status_flow(frame)
    bars = [[p.get_height() for p in b.patches] for b in ax.containers]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    matplotlib.pyplot.close(ax.figure)
    said = [f"{w.category.__name__}: {w.message}" for w in warned  # one status: said always
            if "a query that selects ICOs" not in str(w.message)]
    return events, got, (labels, bars), said


def test_the_read_snapshots_frame_counts_the_empty_day_and_names_the_stopped_one(tree):
    """The reference every other kind of date is held to."""
    out, chosen = tree
    events, got, (labels, bars), said = _read(read_snapshots(out))
    assert events[["snapshot_date", "previous_date", "ico_id", "kind"]].values.tolist() == [
        *([day(3), day(2), i, "removed"] for i in chosen),
        *([day(4), day(3), i, "new"] for i in chosen)]
    assert got.complete is False and got.stopped == "2026-11-05: quota"
    assert [q.fetched_at.date() for q in got.queries] == [dt.date(2026, 11, d) for d in range(1, 6)]
    assert labels == ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
    assert bars == [[3, 3, 0, 3]]
    assert len(said) == 2 and all(s.startswith("IcoframesWarning: ") for s in said)
    assert "changes: the snapshot of 2026-11-05 stopped" in said[0]
    assert "plot_status_flow: the snapshot of 2026-11-05 stopped" in said[1]


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_date_is_read_as_read_snapshots_days(tree, kind):
    """REVK M1: on 9315728 changes gave no event (day 3 dropped), the plot 3 bars with
    'no change', report 3 days complete, and no warning named day 5."""
    out, _ = tree
    snaps = read_snapshots(out)
    made = snaps.assign(snapshot_date=KINDS[kind](snaps["snapshot_date"]))
    assert made.attrs == snaps.attrs and str(made["snapshot_date"].dtype) != "datetime64[ms]"
    want_events, want_report, want_plot, want_said = _read(snaps)
    events, got, plot, said = _read(made)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said
    assert str(utc_dates(made)["snapshot_date"].dtype) == "datetime64[ms]"


def test_a_categorical_date_lets_no_pandas_warning_out(tree):
    """REVK L6: under pandas 2.2 changes() and the plot of a categorical snapshot_date let
    pandas' FutureWarning ("The default of observed=False is deprecated") out (9315728).
    Without attrs: the days of its rows alone (1, 2 and 4), the same three ICOs."""
    out, _ = tree
    snaps = read_snapshots(out)
    made = snaps.assign(snapshot_date=snaps["snapshot_date"].astype("category"))
    made.attrs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        events = changes(made)
        ax = plot_status_flow(made)
    assert events.empty and list(events.columns) == [
        "ico_id", "snapshot_date", "kind", "old", "new", "previous_date", "parser_changed"]
    assert [p.get_height() for b in ax.containers for p in b.patches] == [3, 3, 3]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "2026-11-01", "2026-11-02", "2026-11-04"]
    matplotlib.pyplot.close(ax.figure)


@pytest.mark.parametrize(("text", "hint"), [
    ("2026/11/02", "; did you mean '2026-11-02'?"),
    ("November 2, 2026", "; did you mean '2026-11-02'?"),
    ("20261102", "; did you mean '2026-11-02'?"),  # ISO's basic form, as a date argument's
    ("20261340", ""),  # no such day
    ("11/02/2026", ""),  # month or day first: a guess, never offered
    ("yesterday", ""),
])
def test_text_that_is_not_a_date_is_refused_by_every_reader(tree, text, hint):
    out, _ = tree
    snaps = read_snapshots(out)
    made = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.strftime("%Y-%m-%d"))
    made.loc[made.index[-1], "snapshot_date"] = text
    said = (f"a snapshot_date must be a date or datetime, got '{text}' (as text: an ISO date "
            f"with a 4-digit year, 'YYYY-MM-DD' with an optional time){hint}")
    for reader in (changes, icoframes.report, plot_status_flow):
        with pytest.raises(InvalidParameter) as raised:
            reader(made)
        assert str(raised.value) == said
    made.loc[made.index[-1], "snapshot_date"] = "today"  # a date argument's now: no day
    with pytest.raises(InvalidParameter, match="a snapshot_date must be a date, got 'today'"):
        changes(made)


def test_a_snapshot_date_in_the_index_is_read_as_the_column(tree):
    """REVK M2: report() of a frame whose snapshot_date is its index, cut to day 2, reported
    every day of the tree (9315728: complete False, stopped '2026-11-05: quota', 5
    queries), while changes() refused the frame ("needs a 'snapshot_date' column"); with
    the column kept too (drop=False) changes() and the plot raised pandas' ValueError
    "'snapshot_date' is both an index level and a column label"."""
    out, chosen = tree
    snaps = read_snapshots(out)
    cut = snaps.set_index("snapshot_date").loc["2026-11-02"]
    assert len(cut) == 3 and cut.attrs == snaps.attrs
    got = icoframes.report(cut)
    assert got == icoframes.report(snaps[snaps["snapshot_date"] == day(2)])
    assert got.complete is True and got.stopped is None
    assert [q.fetched_at.date() for q in got.queries] == [dt.date(2026, 11, 2)]
    assert changes(cut).empty  # one day: nothing to compare
    for indexed in (snaps.set_index("snapshot_date"), snaps.set_index(["snapshot_date", "id"]),
                    snaps.set_index("snapshot_date", drop=False)):  # 9315728: ValueError
        events, got, plot, said = _read(indexed)
        want_events, want_report, want_plot, want_said = _read(snaps)
        pd.testing.assert_frame_equal(events, want_events)
        assert got == want_report and plot == want_plot and said == want_said
    with pytest.warns(IcoframesWarning, match=_DAY5):
        events = changes(snaps.set_index("snapshot_date"))
    assert events["ico_id"].tolist() == chosen + chosen


def test_row_positions_named_id_are_not_read_as_ids(tree):
    """A RangeIndex named "id" (``rename_axis("id")`` of a frame whose id column went) holds
    row positions: read as ids it made 62 events of a tree with 6; refused as a frame
    without ids."""
    out, _ = tree
    positions = read_snapshots(out).rename_axis("id").drop(columns="id")
    assert isinstance(positions.index, pd.RangeIndex)
    with pytest.raises(InvalidParameter, match="changes needs a 'id' column"):
        changes(positions)


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_dates_converted_then_normalized_in_a_zone_are_refused_by_every_reader(tree, zone):
    """REVK: ``.dt.tz_localize("UTC").dt.tz_convert(zone).dt.normalize()`` puts every date at
    the zone's midnight, in the UTC day before; on 9315728 changes() and the plot read each
    day with the manifest of the day before (no event: days 1, 2 and 4 became 10-31, 11-01
    and 11-03, the empty day lost), while report() refused it. One check refuses it for all
    three, its hint naming normalize."""
    out, _ = tree
    snaps = read_snapshots(out)
    zoned = snaps["snapshot_date"].dt.tz_localize("UTC").dt.tz_convert(zone)
    made = snaps.assign(snapshot_date=zoned.dt.normalize())
    said = ("this frame holds rows of 2026-10-31, a day that no snapshot in its "
            "attrs['icoframes'] names: its {} unknown. Rows added by hand (pd.concat keeps the "
            "first frame's attrs)? {}. A zone localized rather than converted? A snapshot_date "
            "is a UTC day: .dt.tz_localize('UTC').dt.tz_convert(zone) shows it in a zone, and "
            ".dt.normalize() then moves it to the zone's midnight, in the UTC day before")
    popped = "frame.attrs.pop('icoframes') counts the days of its rows alone"
    dropped = ("report() of the rows of its snapshots' days is their report: d = "
               "icoframes.snapshots.utc_dates(frame); report(d[~d['snapshot_date'].isin("
               "pd.to_datetime(['2026-10-31']))])")
    for reader, what, kept in ((changes, "changes are", popped),
                               (plot_status_flow, "status flow is", popped),
                               (icoframes.report, "report is", dropped)):
        with pytest.raises(InvalidParameter) as raised:
            reader(made)
        assert str(raised.value) == said.format(what, kept)
    with pytest.warns(IcoframesWarning, match=_DAY5):  # converted alone: the same days
        assert changes(snaps.assign(snapshot_date=zoned)).equals(changes(snaps))


def test_a_categorical_of_no_dates_is_refused_as_its_numbers_are():
    """utc_dates reads a categorical by its categories' dtype: of numbers it is no date,
    refused as a column of numbers is, not an AttributeError from .dt."""
    frame = pd.DataFrame({"snapshot_date": pd.Series([1, 2]).astype("category"), "id": [1, 2]})
    with pytest.raises(InvalidParameter, match=r"^snapshot_date holds numbers \(int64\), not "):
        utc_dates(frame)


def test_rows_without_a_date_are_read_as_if_dropped(tree):
    """REVL M1: on fixu 87dd7e4 changes() refused rows of two days made NaT ("an ICO id
    occurs twice in one snapshot": NaT equals NaT to duplicated), plot_status_flow counted
    their ICOs in its note, and of a frame all NaT raised "zero-size array"."""
    out, _ = tree
    snaps = read_snapshots(out)
    undated = snaps.assign(snapshot_date=snaps["snapshot_date"].where(
        ~snaps["snapshot_date"].isin([day(2), day(4)])))
    dropped = undated.dropna(subset=["snapshot_date"])
    assert undated["snapshot_date"].isna().sum() == 6 and len(dropped) == 3
    events, got, plot, said = _read(undated)
    want_events, want_report, want_plot, want_said = _read(dropped)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said
    assert events.empty and plot == (["2026-11-01"], [[3]])  # the days of its rows: day 1
    none = snaps.assign(snapshot_date=pd.NaT).astype({"snapshot_date": "datetime64[ms]"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # every day: outside the rows' days
        assert changes(none).empty
        ax = plot_status_flow(none)
    assert [t.get_text() for t in ax.texts] == ["no ICOs to plot"]
    matplotlib.pyplot.close(ax.figure)


def test_rows_added_by_hand_of_a_day_no_snapshot_names_are_refused_saying_so(tree):
    """REVL M2: a what-if frame (read_snapshots and a copy of its last day dated the next
    day: pd.concat keeps the first frame's attrs) is refused by changes() since fixu, its
    message naming only a zone mistake; it names rows added by hand and how to read them."""
    out, _ = tree
    snaps = read_snapshots(out)
    whatif = pd.concat([snaps, snaps[snaps["snapshot_date"] == day(4)].assign(
        snapshot_date=day(6))], ignore_index=True)
    assert whatif.attrs == snaps.attrs
    with pytest.raises(InvalidParameter) as refused:
        changes(whatif)
    assert str(refused.value).startswith(
        "this frame holds rows of 2026-11-06, a day that no snapshot in its "
        "attrs['icoframes'] names: its changes are unknown. Rows added by hand (pd.concat "
        "keeps the first frame's attrs)? frame.attrs.pop('icoframes') counts the days of its "
        "rows alone. A zone localized rather than converted?")
    with pytest.raises(InvalidParameter, match="its status flow is unknown. Rows added by hand"
                       r" \(pd.concat keeps the first frame's attrs\)\? frame.attrs.pop"):
        plot_status_flow(whatif)
    # report() needs the attrs (the manifests): on ca98c47 its hint was changes' (pop them),
    # which led to "this DataFrame carries no load report"; its own leads to the report
    with pytest.raises(InvalidParameter) as refused:
        icoframes.report(whatif)
    kept = ("report() of the rows of its snapshots' days is their report: d = "
            "icoframes.snapshots.utc_dates(frame); report(d[~d['snapshot_date'].isin("
            "pd.to_datetime(['2026-11-06']))]). A zone localized rather than converted?")
    assert "its report is unknown. Rows added by hand (pd.concat keeps the first frame's " \
           f"attrs)? {kept}" in str(refused.value)
    d = icoframes.snapshots.utc_dates(whatif)
    assert icoframes.report(d[~d["snapshot_date"].isin(pd.to_datetime(["2026-11-06"]))]) == \
        icoframes.report(snaps)
    whatif.attrs.pop("icoframes")  # as changes' and the plot's message says: its rows' days
    events = changes(whatif)
    assert events[["snapshot_date", "ico_id", "kind"]].values.tolist() == []  # 4 and 6 alike
    assert list(snapshot_dates(whatif)) == [day(1), day(2), day(4), day(6)]
    ax = plot_status_flow(whatif)
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "2026-11-01", "2026-11-02", "2026-11-04", "2026-11-06"]
    matplotlib.pyplot.close(ax.figure)
    with pytest.raises(InvalidParameter, match="carries no load report"):  # no attrs: no report
        icoframes.report(whatif)


@pytest.mark.parametrize("missing", ["NaT", "", " ", "nan", "None", "<NA>", None,
                                     "NaN", "nat", " NONE ", "<na>"])
@pytest.mark.parametrize("dtype", [object, "string"])
def test_the_text_of_a_missing_date_is_read_as_nat(tree, missing, dtype):
    """Text a missing date becomes (``astype(str)``: 'NaT'; ``to_csv``: '') is a row of no date,
    as NaT of a datetime column is, by every reader: on ca98c47 it was refused (a
    snapshot_date must be a date ..., got 'NaT') while None and NaT were left out."""
    out, _ = tree
    snaps = read_snapshots(out)
    text = snaps["snapshot_date"].dt.strftime("%Y-%m-%d").astype(object)
    undated = snaps.assign(snapshot_date=text.where(
        ~snaps["snapshot_date"].isin([day(2), day(4)]), missing).astype(dtype))
    dated = snaps.assign(snapshot_date=snaps["snapshot_date"].where(
        ~snaps["snapshot_date"].isin([day(2), day(4)])))
    events, got, plot, said = _read(undated)
    want_events, want_report, want_plot, want_said = _read(dated)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said
    assert plot == (["2026-11-01"], [[3]])  # the days of its rows: day 1


def test_numbers_are_refused_as_no_dates_by_every_reader(tree):
    """A snapshot_date of numbers: on ca98c47 each was read as nanoseconds after 1970 and the
    frame refused as "rows of 1970-01-01 ... A zone localized rather than converted?", a
    hint of time zones. Refused as no dates, with what is read, and for compact dates
    (20261102) how they become dates, which reads as the read_snapshots frame."""
    out, _ = tree
    snaps = read_snapshots(out)
    compact = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.strftime("%Y%m%d").astype(int))
    accepted = ("not dates: a snapshot's day is a date or datetime (as read_snapshots gives it, "
                "or zoned), a period of a day, a datetime.date, or text of an ISO date with a "
                "4-digit year ('YYYY-MM-DD' with an optional time)")
    meant = "; did you mean pd.to_datetime(frame['snapshot_date'].astype(str), format='%Y%m%d')?"
    blank = ("; did you mean pd.to_datetime(frame['snapshot_date'].astype('Int64')"
             ".astype('string'), format='%Y%m%d')?")
    # a day's cells blank (read_csv: floats, NaN), as a row of no date
    holed = compact.assign(snapshot_date=compact["snapshot_date"].where(
        snaps["snapshot_date"] != day(2)))
    cases = [(compact, f"snapshot_date holds numbers (int64), {accepted}{meant}"),
             (compact.astype({"snapshot_date": float}),
              f"snapshot_date holds numbers (float64), {accepted}{blank}"),
             (compact.astype({"snapshot_date": "Int64"}),
              f"snapshot_date holds numbers (Int64), {accepted}{meant}"),
             (holed, f"snapshot_date holds numbers (float64), {accepted}{blank}"),
             (holed.astype({"snapshot_date": "Int64"}),
              f"snapshot_date holds numbers (Int64), {accepted}{blank}"),
             (compact.assign(snapshot_date=compact["snapshot_date"] + 0.5),
              f"snapshot_date holds numbers (float64), {accepted}"),
             (compact.astype({"snapshot_date": "int64[pyarrow]"}),
              f"snapshot_date holds numbers (int64[pyarrow]), {accepted}{meant}"),
             (snaps.assign(snapshot_date=snaps["snapshot_date"] - day(1)),
              f"snapshot_date holds durations (timedelta64[ms]), {accepted}")]
    for made, said in cases:
        for reader in (changes, icoframes.report, plot_status_flow):
            with pytest.raises(InvalidParameter) as raised:
                reader(made)
            assert str(raised.value) == said
    frame = compact  # as the hint says
    fixed = frame.assign(snapshot_date=pd.to_datetime(frame["snapshot_date"].astype(str),
                                                      format="%Y%m%d"))
    want_events, want_report, want_plot, want_said = _read(snaps)
    events, got, plot, said = _read(fixed)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said
    frame = holed  # as its hint says: day 2's rows of no date, as NaT's are
    fixed = frame.assign(snapshot_date=pd.to_datetime(
        frame["snapshot_date"].astype("Int64").astype("string"), format="%Y%m%d"))
    dated = snaps.assign(snapshot_date=snaps["snapshot_date"].where(
        snaps["snapshot_date"] != day(2)))
    events, got, plot, said = _read(fixed)
    want_events, want_report, want_plot, want_said = _read(dated)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said


def test_pyarrow_zoned_dates_of_events_are_read_not_a_pandas_error(tree):
    """changes() of a ``timestamp[us, tz=UTC][pyarrow]`` snapshot_date whose snapshots differ
    raised pandas' raw ValueError on ca98c47 ("cannot supply both a tz and a timezone-naive
    dtype") when it typed its events' dates: they are read_snapshots' events."""
    out, chosen = tree
    snaps = read_snapshots(out)
    gone = snaps[~((snaps["snapshot_date"] == day(2)) & (snaps["id"] == chosen[0]))]
    zoned = gone.assign(snapshot_date=gone["snapshot_date"].dt.tz_localize("UTC").astype(
        "timestamp[us, tz=UTC][pyarrow]"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # day 5, as of the frame: not counted
        events, want = changes(zoned), changes(gone)
    pd.testing.assert_frame_equal(events, want)
    assert events[["snapshot_date", "ico_id", "kind"]].values.tolist()[:2] == [
        [day(2), chosen[0], "removed"], [day(3), chosen[1], "removed"]]


def test_a_partitioned_tree_read_with_pyarrow_dtypes_is_read_as_the_default_read(tree, tmp_path):
    """``pd.read_parquet(tree, dtype_backend="pyarrow")`` gives the hive key snapshot_date as
    ``dictionary<values=string, ...>[pyarrow]``: read by every reader as the default read's
    (a categorical), not refused as "holds values ..., not dates"."""
    out, _ = tree
    icos = tmp_path / "icos"
    for part in sorted(out.glob("snapshot_date=*")):
        if (part / "icos.parquet").exists():
            (icos / part.name).mkdir(parents=True)
            shutil.copy(part / "icos.parquet", icos / part.name / "icos.parquet")
    attrs = read_snapshots(out).attrs
    plain = pd.read_parquet(icos)
    arrow = pd.read_parquet(icos, dtype_backend="pyarrow")
    plain.attrs = arrow.attrs = attrs
    assert pa.types.is_dictionary(arrow["snapshot_date"].dtype.pyarrow_dtype)
    want_events, want_report, want_plot, want_said = _read(plain)
    events, got, plot, said = _read(arrow)
    pd.testing.assert_frame_equal(events[want_events.columns[:4]],
                                  want_events[want_events.columns[:4]])
    assert len(events) == len(want_events) == 6
    assert got == want_report and plot == want_plot and said == want_said


@pytest.mark.parametrize("kind", [pa.dictionary(pa.int32(), pa.timestamp("ms")),
                                  pa.dictionary(pa.int8(), pa.date32()), pa.string_view()])
def test_pyarrow_dictionaries_and_string_views_are_read_as_their_values(tree, kind):
    """A dictionary of dates, or text as ``string_view``: the days its values are."""
    out, _ = tree
    snaps = read_snapshots(out)
    column = snaps["snapshot_date"]
    values = (column.dt.strftime("%Y-%m-%d") if pa.types.is_string_view(kind) else column)
    made = snaps.assign(snapshot_date=pd.Series(
        pa.array(values.tolist()).cast(kind), index=column.index).astype(pd.ArrowDtype(kind))
        if pa.types.is_string_view(kind) else pd.Series(
        pa.array(values).cast(kind.value_type).dictionary_encode().cast(kind),
        index=column.index, dtype=pd.ArrowDtype(kind)))
    assert made["snapshot_date"].dtype == pd.ArrowDtype(kind)
    events, got, plot, said = _read(made)
    want_events, want_report, want_plot, want_said = _read(snaps)
    pd.testing.assert_frame_equal(events, want_events)
    assert got == want_report and plot == want_plot and said == want_said
