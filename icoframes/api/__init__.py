"""The service's side: the list parameters of spec 4.2 and the signed client."""

from __future__ import annotations

import functools
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
setattr(Client, "__init__", checked_keywords(_init, name="Client"))  # noqa: B010
# what :meth:`Client.from_settings` takes from the settings, never as a keyword too.
_FROM_SETTINGS = ("base_url", "public_key", "private_key")
_from_settings = Client.from_settings.__func__  # type: ignore[attr-defined]


@functools.wraps(_from_settings)
def _checked_from_settings(cls: type[Client], settings: Settings | None = None,
                           **kwargs: Any) -> Client:
    if settings is not None and not isinstance(settings, Settings):
        raise InvalidParameter("settings must be a Settings (icoframes.get_settings()) or None, "
                               f"got {type(settings).__name__}")
    own = [k for k in keywords_of(_init) if k not in ("self", *_FROM_SETTINGS)]
    for key in kwargs:  # before the settings are read: a did-you-mean, never a ConfigError
        if key in own:
            continue
        close = closest(key, [*own, *_FROM_SETTINGS])
        taken = key if key in _FROM_SETTINGS else next(
            (c for c in close if c in _FROM_SETTINGS), None)
        if taken is not None:  # never the value: it may be a secret given under a wrong name
            raise InvalidParameter(f"{key} is not a keyword of from_settings(): {taken} comes "
                                   f"from the settings (configure({taken}=...) first), or "
                                   f"call Client({taken}=...)")
        raise InvalidParameter(f"{key} is not a keyword of from_settings(); " + (
            f"did you mean {' or '.join(map(repr, close))}?" if close
            else f"its keywords: settings, {', '.join(own)}"))
    result: Client = _from_settings(cls, settings, **kwargs)
    return result


setattr(Client, "from_settings", classmethod(_checked_from_settings))  # noqa: B010

__all__ = ["Client"]
