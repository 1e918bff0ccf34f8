"""The one progress bar of a load (tqdm: a widget in notebooks with ipywidgets, else text).

Text goes to a terminal as a live bar (cleared when the load ends). A stream
that is no terminal (a notebook without ipywidgets, a log file) gets one line
per load, written when it ends: every move of a live bar would be a fragment of
its own there.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any, Protocol

from tqdm.std import tqdm

__all__ = ["FinalLine", "Paged", "Progress", "interactive", "new_bar", "pages_total"]


def interactive() -> bool:
    """True in a Jupyter kernel or when stderr is a terminal (not under cron or CI).

    Asks IPython whether this process *is* a kernel: merely having imported
    ipykernel (as starting a kernel for nbclient does) does not make it one.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and "IPKernelApp" in getattr(shell, "config", {}):
        return True
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class Progress:
    """One bar per load, made when the first request finishes, so its total is known.

    It counts what the load is waiting for: the list pages while any list is
    being paged, then the profiles (reset to their count, with those already
    fetched). Its total is raised before the count that needs it, so the bar
    never shows more done than planned, nor a total of 0.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: tqdm[Any] | None = None
        self.pages_done = self.profiles_done = 0

    def count(self, kind: str, *, paging: bool, pages: Callable[[int], int | None],
              profiles: int) -> None:
        """Count one finished request (``kind``: "page" or "profile") and move the bar: list
        pages while any list is ``paging`` (``pages(done)``: their total, once page 1 of every
        list told it), then the ``profiles`` planned."""
        if kind == "page":
            self.pages_done += 1
        else:
            self.profiles_done += 1
        if paging or not profiles:
            total = pages(self.pages_done)
            if total is not None:
                self.show("list pages", "page", total, self.pages_done)
        else:
            self.show("profiles", "ICO", profiles, self.profiles_done)

    def show(self, label: str, unit: str, total: int, done: int) -> None:
        if not self.enabled or total <= 0:
            return
        bar = self.bar
        if bar is None:
            self.bar = bar = new_bar(label, unit, total)
        elif bar.desc != label:
            bar.unit = unit
            bar.set_description_str(label, refresh=False)
            bar.reset(total=total)
        elif bar.total != total:
            _set_total(bar, total)
        bar.update(done - bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class FinalLine(tqdm):
    """A text bar for a stream that is no terminal: silent while it moves, one line at close.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = FinalLine(total=3, desc="list pages", unit="page", file=out)
    >>> for _ in range(3):
    ...     _ = bar.update(1)
    >>> bar.close()
    >>> out.getvalue().count("\\n"), out.getvalue().startswith("list pages: 100%|")
    (1, True)
    """

    # types-tqdm says display returns None; tqdm's close reads its bool (True: a line to clear)
    def display(self, msg: str | None = None, pos: int | None = None) -> bool:  # type: ignore[override]
        return False  # nothing while it moves, so nothing to clear at close either

    def close(self) -> None:
        if self.disable:  # closed already (tqdm closes again when collected)
            return
        line = str(self)
        self.leave = False  # tqdm would end its (unwritten) line: the one below is left
        super().close()
        self.fp.write(line + "\n")
        self.fp.flush()


def new_bar(label: str, unit: str, total: int, *, file: IO[str] | None = None) -> tqdm[Any]:
    """A tqdm bar: a widget in a notebook with ipywidgets, else text (see the module).

    ``tqdm.auto`` falls back to text in a notebook without ipywidgets, but warns
    (``TqdmWarning: IProgress not found``) on every bar; so without ipywidgets
    the text bar is asked for directly. ``file`` is the text's stream (stderr).
    """
    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm as auto
        from tqdm.notebook import tqdm as widget

        if issubclass(auto, widget):  # in a notebook
            return auto(total=total, desc=label, unit=unit, leave=False)
    stream = sys.stderr if file is None else file
    live = getattr(stream, "isatty", lambda: False)()
    text = tqdm if live else FinalLine
    return text(total=total, desc=label, unit=unit, leave=False, file=stream)


def _set_total(bar: Any, total: int) -> None:
    """Raise the bar's total, the widget's maximum too (as ``tqdm.notebook.reset`` does)."""
    bar.total = total
    container = getattr(bar, "container", None)
    if container is not None:
        container.children[1].max = total
    bar.refresh()


class Paged(Protocol):
    """What the bar reads of a list query (:class:`~icoframes.fetch.paging.ListQuery`)."""

    paging: bool
    in_flight: int

    @property
    def pages_left(self) -> int | None: ...


def pages_total(queries: Iterable[Paged], done: int) -> int | None:
    """The list pages a load requests: ``done`` and those in flight or still to ask (None
    until page 1 of every list being paged has said how many pages it has)."""
    total = done
    for query in queries:
        left = query.pages_left
        if left is None:
            return None
        total += left + (query.in_flight if query.paging else 0)
    return total
