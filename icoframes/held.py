"""icoframes' own warnings held in one context for a while, then told (an export's load).

:func:`icoframes.errors.warn` appends to the list :func:`hold` sets instead of warning; the
holder tells them with :func:`tell` at its end, each at the place it was issued, through
the process's filters and that place's once-per-location registry, as warnings.warn would
have. A context variable, not ``warnings.catch_warnings`` (process-global: two exports in
two threads would leave ``warnings.filters`` replaced); other libraries' warnings are
never held. Threads of the load's pool run in a copy of its context
(:meth:`icoframes.fetch.pool.RequestPool.submit`): their warnings are held too.

A warning the filters make an error (``warnings.simplefilter("error")``, ``-W error``,
pytest's ``filterwarnings``) is never held (:func:`made_error`): it is raised where it is
issued, as warnings.warn raises it and as :func:`icoframes.load_tables` raises it, so the
work it warns of is not done first. Held, it would be raised only as the block ended: the
load's requests spent, its result dropped, the traceback in :func:`tell` rather than at its cause.
But for one the holder says again in its own terms (``hold(restated=...)``: the load's
"incomplete result", issued as it ends, said as the rows kept from the day's export leave
it): it is held, and raised as the holder says it, if the filters still make it an error.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import FrameType
from typing import Any, NamedTuple

__all__ = ["Held", "held_back", "hold", "holding", "made_error", "tell"]


class Held(NamedTuple):
    """One warning held: what warnings.warn would have passed to warnings.warn_explicit."""

    message: str
    category: type[Warning]
    filename: str
    lineno: int
    module: str
    registry: dict[Any, Any]

    @classmethod
    def at(cls, message: str, category: type[Warning], frame: FrameType) -> Held:
        """``message`` as issued at ``frame``'s current line."""
        module_globals = frame.f_globals
        return cls(message, category, frame.f_code.co_filename, frame.f_lineno,
                   module_globals.get("__name__", "<string>"),
                   module_globals.setdefault("__warningregistry__", {}))


_HELD: ContextVar[tuple[list[Held], Callable[[Held], bool]] | None] = ContextVar(
    "icoframes_held_warnings", default=None)


def holding() -> list[Held] | None:
    """The list this context's warnings go to, or None: they are told as issued."""
    found = _HELD.get()
    return None if found is None else found[0]


@contextlib.contextmanager
def hold(restated: Callable[[Held], bool] = lambda one: False) -> Iterator[list[Held]]:
    """icoframes' warnings of the block, held in the list it gets (told by the caller).
    ``restated``: those the caller says again in its own terms at the end, held even when
    the filters make them an error (raised then, in those terms, if still one)."""
    held: list[Held] = []
    token = _HELD.set((held, restated))
    try:
        yield held
    finally:
        _HELD.reset(token)


def held_back(message: str, category: type[Warning], frame: FrameType) -> bool:
    """Whether ``message``, issued at ``frame``, is held: this context holds its warnings
    (:func:`hold`), and the filters do not make this one an error (:func:`made_error`) or its
    holder restates it. False: the caller warns it now."""
    found = _HELD.get()
    if found is None:
        return False
    one = Held.at(message, category, frame)
    if made_error(one) and not found[1](one):
        return False
    found[0].append(one)  # told, where it was issued, as the holder's block ends
    return True


def tell(one: Held) -> None:
    """Issue ``one`` where it was issued, as warnings.warn would have then. Without the
    place's globals (warnings.warn passes its caller's, live; kept past the call they would make
    warn_explicit ask the module's loader for its source, and ``__main__`` of ``python -c``
    or the REPL raises ImportError)."""
    warnings.warn_explicit(one.message, one.category, one.filename, one.lineno,
                           module=one.module, registry=one.registry)


def made_error(one: Held) -> bool:
    """Whether the process's warnings filters make ``one`` an error now: the first filter
    that matches it (as warnings.warn_explicit matches ``warnings.filters``: message, category,
    module, line) says "error", or none matches and the default action is "error"."""
    text = str(one.message)
    for action, message, category, module, lineno in warnings.filters:
        if ((message is None or message.match(text)) and issubclass(one.category, category)
                and (module is None or module.match(one.module))
                and lineno in (0, one.lineno)):
            return bool(action == "error")
    return bool(getattr(warnings, "defaultaction", "default") == "error")
