"""Progress bars: one per load, made only when something is fetched, with its total known."""

from __future__ import annotations

import importlib.util
import io
import re
import warnings

import pytest
from tqdm.std import tqdm as text_tqdm

import icoframes
from icoframes import sandbox
from icoframes.fetch import progress as progress_module


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=90, seed=31) as server:
        yield server


class RecordedBar(progress_module.FinalLine):
    """The text bar a stream that is no terminal gets, recording (desc, total, n) after
    every move, and when closed."""

    def __init__(self, *args, states, **kwargs):
        self.states = states
        super().__init__(*args, **kwargs)

    def update(self, n=1):
        out = super().update(n)
        self.states.append((self.desc, self.total, self.n))
        return out

    def close(self):
        if not self.disable:
            self.states.append((self.desc, self.total, self.n))
        super().close()


@pytest.fixture
def bars(monkeypatch):
    """Every bar a load makes: (its states, what it wrote)."""
    made: list[tuple[list, io.StringIO]] = []

    def new_bar(label, unit, total):
        states, stream = [], io.StringIO()
        made.append((states, stream))
        return RecordedBar(total=total, desc=label, unit=unit, leave=False, file=stream,
                           states=states)

    monkeypatch.setattr(progress_module, "new_bar", new_bar)
    return made


def last(states, label):
    return [s for s in states if s[0] == label][-1]


def test_a_cold_load_has_one_bar_counting_pages_then_profiles(cfg, bars):
    icoframes.load_icos(status="past", progress=True)
    pages, profiles = cfg.stats.requests["icos"], cfg.stats.requests["ico"]
    assert pages > 1 and profiles == len(cfg.directory.ids("past"))
    assert len(bars) == 1
    states, stream = bars[0]
    assert all(total > 0 and 0 <= n <= total for _, total, n in states), states
    labels = list(dict.fromkeys(desc for desc, _, _ in states))
    assert labels[-1] == "profiles" and set(labels) <= {"list pages", "profiles"}
    assert last(states, "profiles") == ("profiles", profiles, profiles)
    if "list pages" in labels:
        assert last(states, "list pages")[1] <= pages
    text = stream.getvalue()
    assert text.count("\n") == 1 and "\r" not in text, text  # one line: the final state
    assert text.startswith(f"profiles: 100%|##########| {profiles}/{profiles} [")
    assert not re.search(r"(^|[\s:])0(ICO|it|page) \[|/0 \[", text)  # never a bar without a total


def test_a_cached_call_makes_no_bar(cfg, bars):
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_icos(status="past", progress=True)
    icoframes.load_list(status="past", progress=True)
    icoframes.load_tables(status="past", progress=True)
    assert bars == []


def test_load_list_counts_list_pages(cfg, bars):
    icoframes.load_list(status=None, progress=True)
    pages = cfg.stats.requests["icos"]
    assert len(bars) == 1
    states, _ = bars[0]
    assert {desc for desc, _, _ in states} == {"list pages"}
    assert all(total > 0 and n <= total for _, total, n in states)
    assert states[-1] == ("list pages", pages, pages)
    # three lists: the bar shows once page 1 of each told how many pages it has
    assert {total for _, total, _ in states} == {pages}, states


def test_the_list_pages_total_is_known_from_page_1(cfg, bars):
    icoframes.load_list(status="past", progress=True)
    pages = cfg.stats.requests["icos"]
    assert pages >= 3 and len(bars) == 1
    states, stream = bars[0]
    assert states == [("list pages", pages, n) for n in range(1, pages + 1)] + [states[-1]]
    assert states[-1] == ("list pages", pages, pages)
    assert stream.getvalue().startswith(f"list pages: 100%|##########| {pages}/{pages} [")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_live_bar_and_another_stream_one_final_line():
    tty, log = Terminal(), io.StringIO()
    live = progress_module.new_bar("profiles", "ICO", 3, file=tty)
    quiet = progress_module.new_bar("profiles", "ICO", 3, file=log)
    assert "0/3" in tty.getvalue() and log.getvalue() == ""  # the live bar shows at once
    for bar in (live, quiet):
        bar.update(2)
        bar.update(1)
        bar.close()
    assert type(live) is text_tqdm and "\r" in tty.getvalue()
    assert log.getvalue().count("\n") == 1 and "\r" not in log.getvalue()
    assert log.getvalue().startswith("profiles: 100%|##########| 3/3 [")


def test_a_load_writes_one_final_line_to_a_stream_that_is_no_terminal(cfg, capsys):
    icoframes.load_icos(status="upcoming", progress=True)
    profiles = cfg.stats.requests["ico"]
    err = capsys.readouterr().err
    assert profiles > 0
    assert err.count("\n") == 1 and "\r" not in err, err
    assert re.match(rf"profiles: 100%\|\S+\| {profiles}/{profiles} \[", err), err


def test_stale_profiles_with_cached_lists_count_only_profiles(cfg, bars):
    icoframes.load_icos(status="ongoing", progress=False)
    some = cfg.directory.ids("ongoing")[:3]
    for ico_id in some:  # their list summary changes, so their profiles are fetched again
        cfg.update_ico(ico_id, raised=123_456_789.0)
    cfg.stats.reset()
    icoframes.load_icos(status="ongoing", progress=True, max_age=0)
    fetched = cfg.stats.requests["ico"]
    assert fetched == len(some)
    states, _ = bars[0]
    assert len(bars) == 1 and states[-1] == ("profiles", fetched, fetched)


def test_progress_off_makes_no_bar(cfg, bars):
    icoframes.load_icos(status="upcoming", progress=False)
    assert cfg.stats.requests["ico"] > 0 and bars == []


def test_without_ipywidgets_the_bar_is_text_and_warns_of_nothing(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ipywidgets" else real(name, *a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a TqdmWarning would fail here
        bar = progress_module.new_bar("profiles", "ICO", 7)
        bar.update(7)
        bar.close()
    assert isinstance(bar, text_tqdm) and (bar.desc, bar.total, bar.n) == ("profiles", 7, 7)
    err = capsys.readouterr().err
    assert "IProgress" not in err and re.match(r"profiles: 100%\|\S+\| 7/7 \[", err)
