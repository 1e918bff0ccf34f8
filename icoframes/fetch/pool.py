"""A load's concurrent requests: one bounded thread pool, each finished request handed back once.

The pool only runs requests; what to ask for and what to do with an answer is
the load's (:class:`~icoframes.fetch.load.Load`). Each request is tagged with
its kind ("page" or "profile") and what it is for, and comes back with them.
A request sent on its own (the filter set's) is sent as a crawl sends its own
(:func:`held_request`): its first Ctrl-C lets it end.
"""

from __future__ import annotations

import contextlib
import contextvars
import queue
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from ..api.switch import StopSwitch
from ..errors import CacheError
from .inflight import FirstSignal, grace

__all__ = ["Finished", "RequestPool", "held_request"]

T = TypeVar("T")
R = TypeVar("R")

#: The longest single wait of :meth:`RequestPool.shut_down`, in seconds. A wait with
#: no end can miss a Ctrl-C: CPython runs the handler of a signal that arrives after
#: the thread released the GIL and before it blocked only when the wait returns.
_TICK = 0.5

#: A finished request: its kind, what it is for, and its future (done).
Finished = tuple[str, Any, Future[Any]]


class RequestPool:
    """At most ``workers`` requests at once; the threads are made by the first request.

    Parameters
    ----------
    workers : int
        Concurrent requests (the ``max_workers`` setting).
    tick : callable, optional
        Called whenever the pool waits for a request, at least every :data:`_TICK` seconds,
        also while :meth:`shut_down` waits for those in flight: the load renews its claims
        (a claim that lapsed while a paid request is waited for lets another process fetch
        it again). Its :class:`~icoframes.errors.CacheError` is raised from
        :meth:`next_done`, and ignored in :meth:`shut_down` (the claims lapse then).
    """

    def __init__(self, workers: int, *, tick: Callable[[], object] | None = None) -> None:
        self.workers = workers
        self._tick = tick or (lambda: None)
        self._pool: ThreadPoolExecutor | None = None
        self._done: queue.SimpleQueue[Future[Any] | None] = queue.SimpleQueue()  # None: a signal
        self._tasks: dict[Future[Any], tuple[str, Any]] = {}
        self.interrupted: BaseException | None = None  # raised while shut_down waited
        self._closed = False  # shut down: nothing more is sent

    @property
    def busy(self) -> int:
        """Requests sent and not yet handed back."""
        return len(self._tasks)

    def infos(self, kind: str) -> list[Any]:
        """What the requests of ``kind`` sent and not yet handed back are for."""
        return [info for k, info in list(self._tasks.values()) if k == kind]

    @property
    def free(self) -> bool:
        """A worker is free for one more request (none once the pool is shut down)."""
        return not self._closed and len(self._tasks) < self.workers

    def submit(self, kind: str, info: Any, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on a worker; it comes back from :meth:`next_done` as ``kind, info``."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="icoframes")
        # in a copy of the load's context: an export holds their warnings (icoframes.held)
        future = self._pool.submit(contextvars.copy_context().run, fn, *args)
        self._tasks[future] = (kind, info)
        future.add_done_callback(self._done.put)

    def next_done(self, timeout: float) -> Finished | None:
        """The next finished request, or None after ``timeout`` seconds."""
        self._tick()
        if (future := self._ended(timeout)) is None:
            return None
        kind, info = self._tasks.pop(future)
        return kind, info, future

    def _ended(self, timeout: float) -> Future[Any] | None:
        """The next request to end, or None after ``timeout`` seconds (or a signal's wake-up).

        Waited for on the pool's own queue, one call that holds no lock of a request when it
        returns or raises (``concurrent.futures.wait`` takes the lock of every future in turn,
        and a handler's exception between two takes left one held)."""
        try:
            return self._done.get(timeout=timeout)
        except queue.Empty:
            return None

    def finished(self) -> Iterator[Finished]:
        """Every other request finished by now, without waiting (in the order they ended),
        each taken from the pool only as it is handed out: one not handed out yet (its
        taker stopped) is still among those :meth:`shut_down` returns."""
        while True:
            try:
                future = self._done.get_nowait()
            except queue.Empty:
                return
            if future is None:  # (a signal's wake-up)
                continue
            kind, info = self._tasks.pop(future)
            yield kind, info, future

    def _wait(self, grace: float | None, signalled: FirstSignal) -> None:
        """Wait ``grace`` seconds at most (None: no limit) for the requests in flight, until a
        signal's handler raised (its ``None`` in the queue wakes the wait)."""
        # (a request that ended before is in the queue too: discarding it changes nothing)
        pending = {future for future in self._tasks if not future.done()}
        end = None if grace is None else time.monotonic() + grace
        while pending and signalled.caught is None:
            with contextlib.suppress(CacheError):
                self._tick()
            left = _TICK if end is None else min(_TICK, end - time.monotonic())
            if left <= 0:
                break
            if (ended := self._ended(left)) is not None:
                pending.discard(ended)

    def cut_by(self, exc: BaseException) -> float:
        """``exc`` (raised by a signal's handler) came as the pool was to be shut down: kept in
        :attr:`interrupted` when it came before :meth:`shut_down` began, which then cuts at
        once (the grace it returns, 0), as in its wait; raised again when it came after."""
        if self._closed:
            raise exc
        self.interrupted = exc
        return 0.0

    def shut_down(self, *, grace: float | None, cancel: Callable[[], None]) -> list[Finished]:
        """Stop the pool: requests in flight get ``grace`` seconds (paid for; None: until each
        ends, by its own deadline), then ``cancel()`` cuts the rest. Returns the requests that
        finished but were not handed back yet. Whatever a signal's handler raises in the wait
        (a second Ctrl-C, a service's ``sys.exit``) cuts the rest at once and is kept in
        :attr:`interrupted` for the caller, who keeps what came and raises it again."""
        # a handler's exception raised anywhere here could leave a request's lock held by
        # this thread (taken in ``future.done()``, ``cancel()``, the executor's shutdown): the
        # worker that ends that request would wait for it forever, and the process, which
        # joins its workers at exit, never end. Held until the block ends, the first ends the
        # wait; any later one (a third Ctrl-C) is ignored while the rest is cut.
        signalled = FirstSignal(on_caught=lambda: self._done.put(None), until_exit=True)
        try:  # closed first thing inside: an exception before it finds the pool open (cut_by)
            self._closed = True
            with signalled:
                if self._pool is not None and grace != 0 and self._tasks:
                    self._wait(grace, signalled)
                return self._cut(cancel)
        except BaseException as exc:  # not only KeyboardInterrupt: left uncut, the workers
            self.interrupted = exc  # read on to their deadline and the exit waits for them
            with FirstSignal(until_exit=True):  # (one as the hold was set: the cut held too,
                return self._cut(cancel)  # a later signal ignored)
        finally:
            if signalled.caught is not None:  # (the first: before one raised as it ended)
                self.interrupted = signalled.caught

    def _cut(self, cancel: Callable[[], None]) -> list[Finished]:
        """Cut what is still in flight; the requests finished and not handed back."""
        if self._pool is None:
            return []
        if any(not f.done() for f in self._tasks):
            cancel()  # cut what is still in flight, wake the waiting
        self._pool.shutdown(wait=False, cancel_futures=True)
        return [(kind, info, future) for future, (kind, info) in list(self._tasks.items())
                if future.done() and not future.cancelled()]


def held_request(send: Callable[[], T], keep: Callable[[T], R], control: StopSwitch) -> R:
    """``keep(send())``, ``send`` (one request, its retries) run on a worker as a crawl runs
    its own: the first Ctrl-C (SIGTERM, SIGHUP) whose handler raises is held (no retry
    leaves; the request gets :data:`~.inflight.FINISHING` seconds at most, said), its answer
    is kept (``keep``), then what the handler raised is raised; a second one cuts it at once
    and is raised (:mod:`.inflight`). (Sent from the main thread, the request would be cut
    by the first Ctrl-C: paid for, its answer lost, asked again by the next load.)"""
    pool, held = RequestPool(1), FirstSignal(on_caught=control.stop_sending)
    ended: list[Finished] = []
    kept: list[R] = []  # the answer kept in the hold
    interrupted = True  # (a signal before the hold: cut, as a crawl's)
    try:
        with held:
            pool.submit("request", None, send)
            while held.caught is None and not ended:
                if (done := pool.next_done(timeout=_TICK)) is not None:
                    ended.append(done)
            if ended and ended[0][2].exception() is None:
                # kept in the hold, as a crawl keeps a page: a signal during the write is
                # raised once the paid answer is written, not in the middle of it
                try:
                    kept.append(keep(ended[0][2].result()))
                except Exception:
                    held.raise_caught()  # (a signal held during a failed write: its context)
                    raise
        interrupted = False
    finally:
        try:
            wait = grace(None, interrupted=interrupted, held=held, unpaid=(),
                         sent=control.on_wire, halt=control.halt)
        except BaseException as exc:  # a second signal as the finishing line is said
            wait = pool.cut_by(exc)
        ended += pool.shut_down(grace=wait, cancel=control.cancel)
    answer = ended[0][2] if ended else None
    if (raised := pool.interrupted or held.caught) is not None:  # a second signal's first
        try:
            if answer is not None and answer.exception() is None and not kept:
                keep(answer.result())  # what came is kept, as a crawl keeps it
        finally:
            raise raised  # (a write's error, if any, as its context)
    assert answer is not None  # (the loop ends with it, or by a signal)
    return kept[0] if kept else keep(answer.result())  # (or its error)
