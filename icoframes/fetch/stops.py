"""What stops a load, worded once: the daily limit (and its warning) and the breaker."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..api.control import LoadControl
from ..config import Settings
from ..errors import QuotaExceeded, QuotaWarning, ServiceUnavailable, warn

__all__ = ["breaker_error", "quota_error", "warn_short_quota"]


def quota_error(stop: QuotaExceeded, settings: Settings, *, fetched: int, left: int,
                unlisted: bool) -> QuotaExceeded:
    """The daily limit stopped the load: what was kept, what is left, when to call again."""
    more = " (and a list was not complete, so possibly more)" if unlisted else ""
    which = ("the service's daily request limit (error 485)" if stop.code == 485 else
             f"the daily_quota setting ({settings.daily_quota} requests)")
    return QuotaExceeded(
        f"{which} reached after fetching {fetched} profiles; {left} remain{more}. "
        "Everything fetched is cached: call the same loader again after the allowance "
        "resets (midnight UTC) to fetch only the rest.",
        code=stop.code, endpoint=stop.endpoint, remaining=left)


def breaker_error(settings: Settings, control: LoadControl) -> ServiceUnavailable:
    """The breaker tripped: the host, how many attempts failed in a row, the last cause."""
    host = urlsplit(settings.base_url).netloc or settings.base_url
    error = ServiceUnavailable(
        f"{host} is not answering usefully: {control.in_a_row} attempts failed in a row "
        f"(last: {control.last_failure}), so the load stopped. Everything fetched is "
        "cached; call again later to fetch only the rest.")
    error.last_failure = control.last_failure
    return error


def warn_short_quota(remaining: int, daily_quota: int) -> None:
    """A load plans more requests than today's allowance has left: say so, once."""
    warn(f"this load needs more profile requests than the about {remaining} that remain of "
         f"today's {daily_quota} for this key; it will stop at the limit, keep what it "
         "fetched, and the next call will resume", QuotaWarning)
