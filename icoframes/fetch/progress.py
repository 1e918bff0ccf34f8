"""The one progress bar of a load (tqdm: a widget in notebooks with ipywidgets, else text)."""

from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["Progress", "new_bar"]


class Progress:
    """One bar per load, made when the first request finishes, so its total is known.

    It counts what the load is waiting for: the list pages while any list is
    being paged, then the profiles (reset to their count, with those already
    fetched). Its total is raised before the count that needs it, so the bar
    never shows more done than planned, nor a total of 0.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

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


def new_bar(label: str, unit: str, total: int) -> Any:
    """A tqdm bar: a widget in a notebook with ipywidgets, else one line of text.

    ``tqdm.auto`` falls back to text in a notebook without ipywidgets, but warns
    (``TqdmWarning: IProgress not found``) on every bar; so without ipywidgets
    the text bar is asked for directly.
    """
    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm as widget_or_text
        return widget_or_text(total=total, desc=label, unit=unit, leave=False)
    from tqdm.std import tqdm as text
    return text(total=total, desc=label, unit=unit, leave=False)


def _set_total(bar: Any, total: int) -> None:
    """Raise the bar's total, the widget's maximum too (as ``tqdm.notebook.reset`` does)."""
    bar.total = total
    container = getattr(bar, "container", None)
    if container is not None:
        container.children[1].max = total
    bar.refresh()
