"""The paging of one list query: which page to ask next, and when the list is whole.

Pages are handed out one at a time (:meth:`ListQuery.next_page`), so the crawl
never queues more than it has workers for, whatever ``total_pages`` a server
claims. Page 1 comes back before any other page is asked (it says how many
there are: its ``total_pages``, or when that is null, no count or above 10,000 the pages its
``total_icos`` makes, the more of the two when they disagree, said in a logged warning: no
more than a count read would allow, :func:`~icoframes.api.gate.list_counts`); paging stops
at the first empty page or error 482.

A list is **complete** when one pass over its pages is clean: every page came,
each with the counts page 1 gave (``total_icos``, ``total_pages``), and the ids
seen cover ``total_icos``; its rows are then that pass's, in the service's
order. A pass whose counts moved (an ICO came or went between two pages: the
pages no longer tile one list), or that ended on a page page 1 counted (the list
shrank: its last page is past the end now), stops asking and the list is paged
once more from page 1 (at most :data:`MAX_PASSES` passes); so is a pass short of
its count (the list may have shifted). When the last pass moved too, or a page
failed, the list is kept as **partial** with every row its passes saw (their
order is not the service's): used, marked so in the cache and in the result (a
moved page in ``failed_pages``), and paged again by the next call. A last pass
that did not move but is short of its count (or ended on the same page of the
same counts as the pass before) is the list, its rows alone
(:attr:`ListQuery.count_contradicts`: the count lies, paging again brings the
same): partial, used as cached until it is older than ``max_age``. A list is as old as its
oldest page, page 1 of the pass(es) its rows are of (an export's: of the day it began).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..api.gate import list_counts
from ..api.params import PAGE_SIZE
from ..files import utcnow
from ..parse import rules
from ..parse.lists import list_frame, merge_pages, merge_parsed
from ..parse.problems import Problems
from ..store.cache import Stored
from ..store.db import from_ms, ms

__all__ = ["MAX_PASSES", "MOVED", "PAGES_FAILED", "STOOD_IN", "ListQuery"]

#: Passes over a list's pages at most in one load (a list that keeps moving is kept partial).
MAX_PASSES = 2
#: Pages of a list that failed for good in a row after which the rest of its pass is not
#: asked: a count that overstates the list (pages past its end answered wrongly) costs a few
#: requests, not two per page it claims; the list is kept partial and the load goes on.
PAGES_FAILED = 8
#: The ``cache_declined`` line of a list whose cached answer stood in for its paging begins so.
STOOD_IN = "that paging came back partial"
#: Why a page of a list that moved while it was paged is in ``failed_pages`` begins so.
MOVED = "the list moved while it was paged"
_Page = tuple[list[Any], pd.DataFrame, list[dict[str, Any]]]  # its items as sent, rows, problems
log = logging.getLogger(__name__)


@dataclass
class ListQuery:
    """One list query of a load: its paging state, then its rows and completeness."""

    params: dict[str, Any]
    frame: pd.DataFrame | None = None
    items: list[Any] = field(default_factory=list)  # as the service sent them (for the cache)
    n_items: int = 0  # how many (of a cached list: counted, not decoded)
    complete: bool = False
    fetched_at: dt.datetime | None = None  # its rows' age: its paging's page 1 asked (or cached)
    from_cache: bool = False
    problems: list[dict[str, Any]] = field(default_factory=list)
    total_icos: int | None = None
    failed_pages: dict[int, str] = field(default_factory=dict)
    fallback: Stored | None = None  # the cached copy, used when paging fails
    stand_in: ListQuery | None = None  # its cached answer, when paged only for the load's moment
    cache_used: str | None = None  # why a cached list counts as of the load's moment (its window)
    keeps_day: bool = False  # an export's: the rows of its day's list a paging lacks are kept
    kept: dict[str, Any] | None = None  # which rows were kept so, listed when
    stood_in: bool = False  # answered with its stand-in (and the rows paged): not cached
    paged_at: dt.datetime | None = None  # its paging's page 1 (rows but kept ones), or cached
    dated_by: dt.datetime | None = None  # an export's day's last ms: its list is of that day
    answered_from: dict[str, Any] | None = None  # the cached list that answered it locally
    declined: list[str] = field(default_factory=list)  # why cached lists could not
    repaged_for_order: bool = False  # paged because its own cached list's order was declined
    order_unstated: str | None = None  # an unsorted answer's rows in the cached list's order
    paging: bool = False
    passes: int = 1
    pages_unread: str | None = None  # why page 1's total_pages was not read (paged by total_icos)
    page_lost: list[dict[str, Any]] = field(default_factory=list)  # the last page's problems
    _pages: dict[tuple[int, int], _Page] = field(default_factory=dict)  # (pass, page) -> it
    _began: dict[int, dt.datetime] = field(default_factory=dict)  # pass -> its page 1 asked
    _next: int = 1
    _last: int = 1  # pages known to exist in this pass (page 1 tells)
    _ended: bool = False
    _ids_this_pass: set[str] = field(default_factory=set)
    _counts: tuple[int, int] = (0, 0)  # page 1's (total_icos, total_pages) in this pass
    _span: tuple[int, int] = (0, 0)  # the lowest and highest count of this pass's pages of ICOs
    _moved: dict[int, dict[int, str]] = field(default_factory=dict)  # pass -> page -> why
    # pass -> its first page listing none that page 1 counted ICOs for, and page 1's counts
    _empty: dict[int, tuple[int, tuple[int, int]]] = field(default_factory=dict)
    _relisted: set[int] = field(default_factory=set)  # the ids of a pass after the first
    _settled_ids: set[int] | None = None  # (its rows once paged, read once)
    in_flight: int = 0
    _failed_in_a_row: int = 0  # pages of this list failed for good since one came

    # -- using a cached copy -------------------------------------------------

    def use_cached(self, stored: Stored) -> None:
        """Answer the query with a cached list (complete or partial, as stored)."""
        self.frame, self.fetched_at, self.from_cache = stored.frame, stored.fetched_at, True
        self.complete = bool(stored.meta.get("complete", True))
        self.total_icos, self.paged_at = stored.meta.get("total_icos"), stored.meta.get("paged_at")
        self.problems = list(stored.meta.get("problems") or [])
        self.items, self.n_items = [], int(stored.meta.get("items") or 0)
        self.failed_pages = {int(k): v for k, v in (stored.meta.get("failed_pages") or {}).items()}

    def use_answer(self, frame: pd.DataFrame, source: Stored, *,
                   unstated: str | None = None) -> None:
        """Answer the query with rows picked from a cached list it narrows (``source``);
        ``unstated`` says why their order may not be the service's (None: it is)."""
        self.frame, self.fetched_at, self.from_cache = frame, source.fetched_at, True
        self.order_unstated = unstated
        # every row the answer has is counted (no page, no item): the count agrees with it
        self.complete, self.total_icos, self.n_items = True, len(frame), len(frame)
        self.answered_from, self.paged_at = dict(source.meta["params"]), source.meta.get("paged_at")
        ids = set(frame["id"].tolist())  # the source's unreadable values of these rows
        self.problems = [p for p in source.meta.get("problems") or [] if p.get("ico_id") in ids]

    @property
    def count_contradicts(self) -> bool:
        """Every page came (paging ends at a page listing none), with fewer items than
        ``total_icos``, and no page moved: the count is not the list's."""
        return (not self.failed_pages and self.total_icos is not None
                and self.n_items < self.total_icos)

    def start(self, fallback: Stored | None, *, after: dt.datetime | None = None,
              by: dt.datetime | None = None) -> None:
        """Page the query from the service; ``fallback`` answers it if that fails, unless older
        than ``after`` (an export's day); the list is dated no later than ``by`` (its day's end)."""
        if fallback is not None and after is not None and fallback.fetched_at < after:
            fallback = None
        self.fallback, self.paging, self.keeps_day, self.dated_by = (  # (ms: as cached)
            fallback, True, after is not None, by and from_ms(ms(by)))

    def dated(self, began: dt.datetime) -> dt.datetime:
        """The age of rows paged from ``began``: no later than its export's day (``dated_by``)."""
        return min(began, self.dated_by or began)

    # -- which rows it has (for the profiles planned) -------------------------

    @property
    def relisted(self) -> tuple[int, bool, int] | None:
        """None while every row it handed out is one of its rows; once a pass moved, what
        :meth:`still_lists` says changes with: (its pass, paging, ids that pass listed)."""
        if self.passes == 1 and not (self.paging and (1 in self._moved or self._shrank)):
            return None
        return self.passes, self.paging, len(self._relisted)

    def still_lists(self, ico_id: int) -> bool | None:
        """Whether ``ico_id``, a row this list handed out, is one of its rows: after a pass
        that moved, only if the pass after it listed it (None: not yet), or once paged its
        rows have it (a row only the moved pass had left the list)."""
        if self.relisted is None:
            return True
        if self.paging:
            return True if ico_id in self._relisted else None
        if self._settled_ids is None:
            self._settled_ids = set() if self.frame is None else set(self.frame["id"].tolist())
        return ico_id in self._settled_ids

    # -- paging ----------------------------------------------------------------

    def next_page(self) -> tuple[int, int] | None:
        """``(page, pass)`` to request now, or None (wait for page 1, or all asked)."""
        if not self.paging or self._ended or self._next > self._last:
            return None
        if self._next > 1 and (self.passes, 1) not in self._pages:
            return None  # page 1 of this pass says how many pages there are
        number, self._next, self.in_flight = self._next, self._next + 1, self.in_flight + 1
        if number == 1:
            self._began[self.passes] = _now()
        return number, self.passes

    def on_page(self, number: int, pass_no: int, response: dict[str, Any]) -> pd.DataFrame:
        """Keep one page, parsed (once: :meth:`finish_pass` merges the parsed pages); its
        rows (for planning their profiles)."""
        self.in_flight, self._failed_in_a_row, data = self.in_flight - 1, 0, response.get("data")
        items: list[Any] = data if isinstance(data, list) else []
        frame = list_frame(items, status=self.params["status"], problems=(lost := Problems()))
        # (records() of no problem builds an empty frame: a page's most costly step)
        self.page_lost = lost.records() if len(lost) else []  # (its rows' keys: summary_keys)
        self._pages[(pass_no, number)] = (items, frame, self.page_lost)
        if pass_no != self.passes or not self.paging:  # (not paging: another's list answers)
            return frame
        if pass_no > 1:  # (what :meth:`still_lists` reads)
            self._relisted.update(frame["id"].tolist())
        total_icos, total_pages, unread = list_counts(response)
        if number == 1:
            if unread and not self.pages_unread:  # (said once: every pass's page 1 may say it)
                self.pages_unread = unread
                log.warning("the list %s: page 1 says %s: paged to the first page listing "
                            "none, %d page(s) at most (%d ICOs counted, %d a page)", self.params,
                            unread, max(1, total_pages), total_icos, PAGE_SIZE)
            self.total_icos, self._last = total_icos, max(1, total_pages)
            self._ids_this_pass, self._counts = set(), (total_icos, total_pages)
            self._span = (total_icos, total_icos)
        elif items:  # pages are handled in any order, not as answered: the latest count is the
            # highest of a list that grew since page 1, the lowest of one that shrank (both:
            # unknown, :attr:`counts_both_ways`; page 1 is answered before the others are asked)
            low, high = min(self._span[0], total_icos), max(self._span[1], total_icos)
            self._span, self.total_icos = (low, high), low if high <= self._counts[0] else high
            if (total_icos, total_pages) != self._counts:
                # an ICO came or went since page 1: this pass's pages no longer tile one list
                # (one item skipped or seen twice at a page's edge, and the count may agree)
                self._moved.setdefault(pass_no, {})[number] = (
                    f"{MOVED}: page 1 counted {self._counts[0]} ICOs in {self._counts[1]} pages, "
                    f"page {number} {total_icos} in {total_pages}")
                if self.passes < MAX_PASSES:
                    self._next = self._last + 1  # the rest of this pass would be paged again
        ids = {str(item.get("id")) for item in items if isinstance(item, dict)}
        if not items:  # an empty page (or error 482): nothing follows it
            self._ended = True
            icos, pages = self._counts
            if number <= pages and (number - 1) * PAGE_SIZE < icos:  # page 1 counted ICOs
                first = self._empty.get(pass_no)  # (pages in flight come back in any order)
                if first is None or number < first[0]:
                    self._empty[pass_no] = (number, self._counts)
        elif number > 1 and ids and ids <= self._ids_this_pass:
            # a whole page seen before: a server repeating itself (a shifting list moves 1-2)
            self._ended = True
            self.failed_pages[number] = "the page repeats earlier pages"
        self._ids_this_pass |= ids
        return frame

    def on_failure(self, number: int, reason: str) -> None:
        """A page failed for good (after its retries): the list cannot be complete, unless
        another's list answers it now (as in :meth:`on_page`)."""
        self.in_flight -= 1
        if not self.paging:
            return
        self._failed_in_a_row += 1
        self.failed_pages[number] = reason
        if number == 1:
            self._ended = True  # without page 1 nothing says how many pages there are
        elif self._failed_in_a_row >= PAGES_FAILED and not self._ended:
            self._ended = True  # the pages after them are not asked (a count that overstates)
            for later in range(self._next, self._last + 1):
                self.failed_pages[later] = (f"not asked: the {PAGES_FAILED} pages before it "
                                            f"failed in a row (last: {reason})")

    def stop(self, reason: str) -> None:
        """The load stopped mid-list: every page of this pass that did not come (never
        asked, or cut in flight) failed for ``reason``, so the list is kept partial and
        paged again, never read as a whole list counting fewer items than its total."""
        self.in_flight = 0
        if not self._ended:  # (a list that ended on an empty page has no pages left)
            for number in range(1, self._last + 1):
                if (self.passes, number) not in self._pages:
                    self.failed_pages.setdefault(number, reason)

    @property
    def pages_left(self) -> int | None:
        """Pages of this pass not asked yet; None until its page 1 says how many there are."""
        if not self.paging or self._ended:
            return 0
        if (self.passes, 1) not in self._pages:
            return None
        return max(0, self._last - self._next + 1)

    def pages_at_most(self, unknown: int) -> int:
        """Page requests this list may still send (those in flight are booked already): the
        pages of this pass not asked; while it may be paged again (a first pass that may end
        shifted) a whole pass more, of the pages its latest count says (or page 1's, when
        more) and one page more (it may grow where no page answered yet); and one page for a
        retry while a page is to be asked or answered. A page count not known yet (page 1
        unanswered) counts as ``unknown`` pages, or as its cached copy's when that has more."""
        left = self.pages_left
        if not self.paging:
            return 0
        retry = 1 if left != 0 or self.in_flight else 0
        if left is None:
            cached = self.fallback.meta.get("total_icos") if self.fallback is not None else 0
            left = max(unknown, -(-int(cached or 0) // PAGE_SIZE))
            return left * (1 + MAX_PASSES - self.passes) + retry
        again = 0
        if self._may_page_again:
            again = (max(self._last, -(-(self.total_icos or 0) // PAGE_SIZE)) + 1) * (
                MAX_PASSES - self.passes)
        return left + again + retry

    @property
    def _may_page_again(self) -> bool:
        """Whether this pass, ending short or moved, would be followed by another: not after a
        page failed (it spent its retries), nor when it ended on an empty page it did not
        take for a move (page 1's: paging again would end there again)."""
        return (self.passes < MAX_PASSES and not self.failed_pages
                and (not self._ended or self.passes in self._moved or self._shrank))

    @property
    def _shrank(self) -> bool:
        """This pass ended on a page that page 1 counted ICOs for: the list shrank while it
        was paged (an ICO before it left: the last page is past the end now), a move; unless
        the pass before ended at the same page of the same counts (then the count, not the
        list, is off: a total_icos saying more ICOs than the pages hold)."""
        ended = self._empty.get(self.passes)
        return ended is not None and ended != self._empty.get(self.passes - 1)

    @property
    def pass_done(self) -> bool:
        return self.paging and self.in_flight == 0 and (self._ended or self._next > self._last)

    def finish_pass(self, *, may_repage: bool) -> bool:
        """After a pass: True to page once more, else settle ``frame`` and ``complete``."""
        pages = [self._pages[key] for key in sorted(self._pages) if key[0] == self.passes]
        items = merge_pages({"data": page[0]} for page in pages)
        # items sent without a usable id are short in the frame (paging again brings them back)
        short = self.total_icos is None or len(items) < self.total_icos
        if self._shrank:
            number, (icos, n_pages) = self._empty[self.passes]
            self._moved.setdefault(self.passes, {})[number] = (
                f"{MOVED}: page 1 counted {icos} ICOs in {n_pages} "
                f"pages, page {number} listed none")
        moved = self.passes in self._moved
        if (moved or short) and may_repage and self._may_page_again:
            # the list moved or shifted while it was paged: page it all once more
            self.passes, self._next, self._last, self._ended = self.passes + 1, 1, 1, False
            self._relisted.clear()
            return True
        self.paging = False
        # a pass that did not move is the service's list: its rows alone, in its order (a row
        # only an earlier pass saw has left the list, and the earlier order is not the
        # list's); short of its count too (the count is off: count_contradicts)
        clean = not (moved or short or self.failed_pages)
        began = self._began.get(self.passes) or _now()  # this pass's rows: as old as its page 1
        if moved or self.failed_pages:  # no pass is: every row seen, partial, paged again
            began = min(self._began.values(), default=began)  # (rows of every pass: the first)
            pages = [self._pages[key] for key in sorted(self._pages)]
            items = merge_pages({"data": page[0]} for page in pages)
            moves = {n: why for by_page in self._moved.values() for n, why in by_page.items()}
            self.failed_pages = {**moves, **self.failed_pages}  # a last pass's failure wins
        frame, lost = merge_parsed(pages, items)
        self.complete = clean and len(frame) >= (self.total_icos or 0)
        if not self.complete and self.stand_in is not None:
            self._stand_in(self.stand_in, frame, items, lost, began)  # a partial paging is no
            return False  # reason to answer with less
        if frame.empty and not self.complete and self.fallback is not None:
            self.use_cached(self.fallback)  # nothing new: what was cached is the best answer
            self.complete = False
            return False
        self.frame, self.fetched_at, self.problems = frame, self.dated(began), lost
        self.items, self.n_items, self.paged_at = items, len(items), began
        if not self.complete and self.keeps_day and self.fallback is not None:
            self._keep_earlier(self.fallback)
        return False

    def _stand_in(self, answer: ListQuery, paged: pd.DataFrame, items: list[Any],
                  lost: list[dict[str, Any]], began: dt.datetime | None) -> None:
        """Answer with ``answer`` (this query answered from the cache, complete and within
        ``max_age``), its paging with the load's other lists having come back partial: the
        rows that paging listed stand as of now (an ICO that moved into the list since the
        cached answer is among them only), the answer's others are kept as of its time
        (``kept``: a later list of the load that lists one of them wins). Never complete: an
        ICO that joined the list on a page that failed or moved (``failed_pages``, kept) is
        missing, and a kept row that left since may make up its count. Not cached."""
        failed = "; ".join(f"page {n}: {why}" for n, why in sorted(self.failed_pages.items()))
        counted = self.total_icos
        for name in ("frame", "items", "n_items", "fetched_at", "paged_at", "from_cache",
                     "problems", "total_icos", "answered_from", "order_unstated"):
            setattr(self, name, getattr(answer, name))
        self.stood_in, why = True, f"{STOOD_IN} ({failed or 'fewer ICOs than its count'}): "
        assert answer.frame is not None and answer.fetched_at is not None
        if paged.empty:
            self.declined = [*self.declined, why + "the answer from the cache stands, as old "
                             "as its fetched_at, not of the moment of the lists paged now"]
            return
        earlier = answer.frame[~answer.frame["id"].isin(paged["id"])]
        ids = set(earlier["id"].tolist())
        self.frame = pd.concat([paged, earlier], ignore_index=True)
        self.items, self.n_items, self.from_cache = items, len(items), False
        self.problems = lost + [p for p in answer.problems if p.get("ico_id") in ids]
        self.paged_at, self.total_icos = began or _now(), counted or answer.total_icos
        self.kept = {"rows": len(earlier), "ids": sorted(int(i) for i in ids),
                     "fetched_at": answer.fetched_at.isoformat()} if ids else None
        self.declined = [*self.declined, why + "the rows of the pages that came stand as paged "
                         "now, with the other rows of the answer from the cache, as old as its "
                         "fetched_at (kept), not of the moment of the lists paged now"]

    def _keep_earlier(self, earlier: Stored) -> None:
        """A list of an export's day that this paging could not get whole: the rows of the
        day's earlier list that it lacks are kept (a day's rows are never replaced by fewer),
        said in ``kept``; the list is then as old as those rows (``fetched_at``), also as
        cached, so that a later run of the day keeps them with the time they were listed."""
        assert self.frame is not None
        extra = earlier.frame[~earlier.frame["id"].isin(self.frame["id"])]
        if extra.empty:
            return
        ids = set(extra["id"].tolist())
        self.items += [item for item in (earlier.raw if isinstance(earlier.raw, list) else [])
                       if isinstance(item, Mapping) and rules.parse_id(item.get("id")) in ids]
        self.frame = pd.concat([self.frame, extra], ignore_index=True)
        self.n_items = len(self.items)
        self.problems += [p for p in earlier.meta.get("problems") or [] if p.get("ico_id") in ids]
        self.fetched_at = earlier.fetched_at
        self.kept = {"rows": len(extra), "ids": sorted(int(i) for i in ids),
                     "fetched_at": earlier.fetched_at.isoformat()}

    @property
    def counts_both_ways(self) -> str | None:
        """Why the count is unknown when the last pass's pages counted more ICOs than its
        page 1 and fewer (the list grew and shrank while paged: which is the latest is not
        known; ``total_icos`` is the highest), else None."""
        (low, high), first = self._span, self._counts[0]
        return (f"its pages counted {low} to {high} ICOs (page 1: {first}): the list grew and "
                "shrank while it was paged, how many it holds now is unknown"
                if low < first < high else None)

    @property
    def missing(self) -> int | None:
        """ICOs the service counts that the list lacks; None when the count is unknown, or
        when the rows of a partial list reach it (how many it lacks is: ``missing_unknown``)."""
        if self.total_icos is None or self.counts_both_ways:
            return None
        short = self.total_icos - (0 if self.frame is None else len(self.frame))
        return max(0, short) if self.complete else short if short > 0 else None

    def summary(self) -> dict[str, Any]:
        """What the load says of this query in ``attrs["icoframes"]["queries"]``."""
        return {
            "params": self.params, "complete": self.complete, "from_cache": self.from_cache,
            "rows": 0 if self.frame is None else len(self.frame), "total_icos": self.total_icos,
            "failed_pages": {str(k): v for k, v in self.failed_pages.items()},
            "missing": self.missing, "count_contradicts": self.count_contradicts,
            "fetched_at": None if self.fetched_at is None else self.fetched_at.isoformat(),
            "problems": self.problems, "answered_from": self.answered_from,
            **({"cache_declined": self.declined} if self.declined else {}),
            **({"cache_used": self.cache_used} if self.cache_used else {}),
            **({"order_unstated": self.order_unstated} if self.order_unstated else {}),
            **({"kept": self.kept} if self.kept else {}),
            **({"missing_unknown": why} if (why := self.counts_both_ways) else {}),
        }


def _now() -> dt.datetime:
    """Now at the cache's precision: the load that paged a list and later ones say one time."""
    return from_ms(ms(utcnow()))
