"""The service's side: the list parameters of spec 4.2 and the signed client."""

from __future__ import annotations

import functools
import inspect
from typing import Any

from ..config import Settings
from ..errors import InvalidParameter, checked_keywords, checked_methods, closest, keywords_of
from .client import Client

# every public method of the client refuses a keyword it lacks with a "did you mean"
# (client.profile(ico=1)), as every public class's does: applied here, where the package
# hands the class out, for any import of icoframes.api.client runs this first
checked_methods(Client)
# and so does making one: Client(privat_key=...), Client.from_settings(timeot=1) and
# sb.client(...), whose keywords go to it (checked_methods leaves __init__ and **kwargs out)
_init = Client.__init__


def _no_call(*args: Any, **kwargs: Any) -> None:
    """Stands for Client.__init__ (its signature) in the check of a client's keywords."""


_no_call.__signature__ = inspect.signature(_init)  # type: ignore[attr-defined]
_client_keywords = checked_keywords(_no_call, name="Client")


def _new(cls: type[Client], *args: Any, **kwargs: Any) -> Client:
    """Refuses a keyword Client lacks before __init__ runs, by the keywords' names alone: no
    frame of the refusal, nor of __init__'s errors, holds a key or password given. A
    subclass with an __init__ of its own takes its own keywords: its __init__ refuses."""
    names = dict.fromkeys(kwargs)
    del args, kwargs
    if cls.__init__ is _init:
        _client_keywords(None, **names)
    return object.__new__(cls)


_new.__signature__ = _no_call.__signature__  # type: ignore[attr-defined]  # help(Client)
setattr(Client, "__new__", _new)  # noqa: B010
# what :meth:`Client.from_settings` takes from the settings, never as a keyword too.
_FROM_SETTINGS = ("base_url", "public_key", "private_key")
_from_settings = Client.from_settings.__func__  # type: ignore[attr-defined]


@functools.wraps(_from_settings)
def _checked_from_settings(cls: type[Client], settings: Settings | None = None,
                           **kwargs: Any) -> Client:
    refused = _from_settings_refusal(settings, list(kwargs))
    if refused:  # before the settings are read: a did-you-mean, never a ConfigError
        del kwargs  # no frame of the refusal holds a value given (a key under a wrong name)
        raise InvalidParameter(refused)
    result: Client = _from_settings(cls, settings, **kwargs)
    return result


def _from_settings_refusal(settings: object, names: list[str]) -> str:
    if settings is not None and not isinstance(settings, Settings):
        return ("settings must be a Settings (icoframes.get_settings()) or None, got "
                f"{type(settings).__name__}")
    own = [k for k in keywords_of(_init) if k not in ("self", *_FROM_SETTINGS)]
    for key in (k for k in names if k not in own):
        close = closest(key, [*own, *_FROM_SETTINGS])
        taken = key if key in _FROM_SETTINGS else next(
            (c for c in close if c in _FROM_SETTINGS), None)
        if taken is not None:
            return (f"{key} is not a keyword of from_settings(): {taken} comes from the "
                    f"settings (configure({taken}=...) first), or call Client({taken}=...)")
        return f"{key} is not a keyword of from_settings(); " + (
            f"did you mean {' or '.join(map(repr, close))}?" if close
            else f"its keywords: settings, {', '.join(own)}")
    return ""


setattr(Client, "from_settings", classmethod(_checked_from_settings))  # noqa: B010

__all__ = ["Client"]
