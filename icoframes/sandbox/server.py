"""Starting and stopping a sandbox: :func:`start` (alias :func:`serve`) and :class:`Sandbox`.

A :class:`Sandbox` runs an :class:`.httpd.HTTPServer` in a daemon thread around
a :class:`.service.Service` (the API's behaviour, described there) over a
:class:`.directory.Directory`, and lets a test change all three while it runs.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import threading
from _collections_abc import dict_keys
from collections.abc import ItemsView, Mapping, ValuesView
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Never, TypedDict, cast

from ..api.auth import read_keys
from ..api.client import Client
from ..errors import (
    InvalidParameter,
    UnknownName,
    checked_keywords,
    checked_methods,
    did_you_mean,
    quoted,
)
from ..numerals import (
    INT64_MAX,
    NO_LIMIT,
    as_integer,
    bounds,
    did_you_mean_number,
    number_text,
)
from ..secret import HIDDEN, Secret
from .directory import Directory, generate_directory
from .httpd import HOST, STOP_GUARD, HTTPServer
from .service import Service
from .stats import SandboxStats


class SandboxSettings(TypedDict):
    """What ``sb.settings()`` returns: typed, so ``configure(**sb.settings())`` type-checks."""

    base_url: str
    public_key: str
    private_key: str
    service_name: str | None


_NO_DEFAULT: Any = object()


def _shown(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {k: HIDDEN if k == "private_key" else v for k, v in settings.items()}


class _Items(ItemsView[str, Any]):
    """``sb.settings().items()``: a dict's items view whose repr hides the private key."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self._settings = settings

    def __repr__(self) -> str:
        return f"dict_items({list(_shown(self._settings).items())!r})"


class _Values(ValuesView[Any]):
    """``sb.settings().values()``: a dict's values view whose repr hides the private key."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self._settings = settings

    def __repr__(self) -> str:
        return f"dict_values({list(_shown(self._settings).values())!r})"


@checked_methods
class _Settings(dict[str, Any]):
    """What ``sb.settings()`` is at run time: the dict :class:`SandboxSettings` describes,
    whose methods refuse a keyword they lack (``get(key, defualt=None)``: did you mean
    'default'?) and whose lookups of a key it lacks say which it holds, as an
    :class:`~icoframes.UnknownName` (a ``KeyError`` still), never echoing the key
    (a secret looked up by mistake); its repr, ``items()`` and ``values()`` hide the key."""

    def __missing__(self, key: object) -> Never:
        raise UnknownName(f"that key is not a setting of sb.settings() ({', '.join(self)})"
                          f"{did_you_mean(key, self)}")

    def __delitem__(self, key: str) -> None:
        if key not in self:
            self[key]  # refused by __missing__
        super().__delitem__(key)

    def __repr__(self) -> str:
        return repr(_shown(self))

    def get(self, key: str, /, default: Any = None) -> Any:
        return super().get(key, default)

    def pop(self, key: str, /, default: Any = _NO_DEFAULT) -> Any:
        if key not in self and default is _NO_DEFAULT:
            return self[key]  # refused by __missing__
        return super().pop(key, default)

    def setdefault(self, key: str, /, default: Any = None) -> Any:
        return super().setdefault(key, default)

    def keys(self) -> dict_keys[str, Any]:
        return super().keys()

    def values(self) -> _Values:  # type: ignore[override]  # a ValuesView, not dict_values
        return _Values(self)

    def items(self) -> _Items:  # type: ignore[override]  # an ItemsView, not dict_items
        return _Items(self)

    def copy(self) -> _Settings:
        return _Settings(self)

    def clear(self) -> None:
        super().clear()

    def popitem(self) -> tuple[str, Any]:
        return super().popitem()


__all__ = ["MAX_ICOS", "PORTS", "Sandbox", "serve", "service_name", "start"]

#: The ports a sandbox may listen on (0: any free one).
PORTS: tuple[int, int] = (0, 65535)
#: The most ICOs a generated sandbox holds (each takes about 0.1 ms to make: 10**40 was
#: taken, and the sandbox never started).
MAX_ICOS = 1_000_000


@checked_methods
class Sandbox:
    """A running (or ready to run) sandbox server; make one with :func:`~icoframes.sandbox.start`.

    The private key never shows in ``repr``. ``service_name`` names what it
    serves for the cache (see :meth:`settings`); None when that is not known.
    """

    def __init__(self, service: Service, *, port: int = 0, service_name: str | None = None):
        self._service = service
        self._requested_port = port
        self.service_name = service_name
        self._lock = threading.Lock()
        self._server: HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def directory(self) -> Directory:
        """The ICOs served; :meth:`add_ico`, :meth:`update_ico`, :meth:`remove_ico` change it."""
        return self._service.directory

    @property
    def stats(self) -> SandboxStats:
        """What the server has seen: requests, profiles served, faults, connections."""
        return self._service.stats

    @property
    def public_key(self) -> str:
        return self._service.public_key

    @property
    def private_key(self) -> str:
        return self._service.private_key

    @property
    def latency(self) -> float:
        """Seconds from a request's arrival to its answer; see :meth:`set_latency`."""
        return self._service.latency

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the sandbox is not running; call start() first")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, without the ``/api/v1`` suffix."""
        return f"http://{HOST}:{self.port}"

    def settings(self) -> SandboxSettings:
        """Keyword arguments for ``icoframes.configure(**sb.settings())``.

        Besides the address and keys, ``service_name`` names the content served
        (:func:`~icoframes.sandbox.server.service_name`): the cache and request ledger
        go by it, not by the random port, so a sandbox of the same content started again (the
        notebook run twice) finds its cache. None for a ``directory`` passed in.

        A dict, whose methods refuse a keyword they lack and whose lookup of a key it
        lacks says which it holds (:class:`~icoframes.UnknownName`, a ``KeyError``),
        as every argument's refusal does; its repr shows the private key as ``<hidden>``.
        """
        return cast(SandboxSettings, _Settings(
            base_url=self.base_url, public_key=self.public_key, private_key=self.private_key,
            service_name=self.service_name))

    def client(self, **kwargs: Any) -> Client:
        """A :class:`~icoframes.api.client.Client` of this sandbox; ``kwargs`` go to it (its
        keywords but the address and keys, which are the sandbox's)."""
        mine = [k for k in ("base_url", "public_key", "private_key") if k in kwargs]
        if mine:
            del kwargs  # no frame of the refusal holds a value given (a key, maybe)
            raise InvalidParameter(f"{', '.join(mine)}: sb.client() gives the sandbox's own; "
                                   "for another service call Client(...) itself")
        try:
            return Client(base_url=self.base_url, public_key=self.public_key,
                          private_key=self.private_key, **kwargs)
        except Exception:  # a keyword Client lacks (a key under a wrong name, maybe)
            del kwargs
            raise

    def start(self) -> Sandbox:
        """Bind 127.0.0.1 and serve in a daemon thread; returns self. No-op when running."""
        with self._lock:
            if self._server is None:
                server = HTTPServer(self._service, self._requested_port)
                self._thread = threading.Thread(target=server.serve_forever,
                                                kwargs={"poll_interval": 0.05},
                                                name=f"icoframes-sandbox-{server.server_port}",
                                                daemon=True)
                self._server = server
                self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close every connection and the listening socket. Idempotent.

        Requests held by :meth:`pause` are let through first.
        """
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
        if server is None:
            return
        self._service.resume()
        server.shutdown()  # no new connection; every accepted one is known to the server
        server.close_connections()  # idle ones at once, the others after their reply
        server.server_close()
        if thread is not None:
            thread.join(STOP_GUARD)

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._server is not None else "not running"
        return (f"Sandbox({where}, public_key={self.public_key!r}, "
                f"n_icos={len(self.directory)}, quota={self._service.quota.limit})")

    def reset_quota(self) -> None:
        """Simulate the daily reset: every key's count goes back to 0."""
        self._service.quota.reset()

    def set_faults(self, fail_rate: float) -> None:
        """Probability, 0 to 1, that a request meets an injected fault (as :func:`start`'s)."""
        self._service.set_faults(_real("fail_rate", fail_rate))

    def set_latency(self, latency: float) -> None:
        """Seconds from a request's arrival to its answer (as :func:`start`'s)."""
        self._service.set_latency(_real("latency", latency))

    def pause(self) -> None:
        """Hold every request once it is counted, until :meth:`resume` (a stalled server).

        ``stats.in_flight`` tells how many are held; ``stats.wait_for`` waits for them.
        """
        self._service.pause()

    def resume(self) -> None:
        """Answer the held requests and those to come."""
        self._service.resume()

    def add_ico(self, status: str = "past") -> int:
        """Insert a new ICO with the highest id (it tops the default list order)."""
        return self.directory.add_ico(status)

    def update_ico(self, ico_id: int, *, name: str | None = None,
                   ico_score: float | None = None, raised: int | None = None,
                   status: str | None = None, end: datetime | None = None,
                   location: str | None = None, category: str | None = None) -> None:
        """Change values of an ICO; see :meth:`.directory.Directory.update_ico`."""
        self.directory.update_ico(ico_id, name=name, ico_score=ico_score, raised=raised,
                                  status=status, end=end, location=location, category=category)

    def remove_ico(self, ico_id: int) -> None:
        """Delete an ICO from the directory."""
        self.directory.remove_ico(ico_id)


@checked_keywords
def start(*, n_icos: int = 1000, seed: int = 0, latency: float = 0.0,
          quota: int | None = 5000, fail_rate: float = 0.0, port: int = 0,
          public_key: str = "sandbox-public", private_key: str | Secret = "sandbox-private",
          grow_every: int | None = None, directory: Directory | None = None) -> Sandbox:
    """Start a sandbox server on 127.0.0.1 in a daemon thread.

    ``serve`` is the same function, named for ``with sandbox.serve(...) as sb:``
    blocks. These defaults are also the command line's (:mod:`.command`).

    Parameters
    ----------
    n_icos : int, default 1000
        Size of the generated directory.
    seed : int, default 0
        Seed of the directory and of the fault draws.
    latency : float, default 0.0
        Seconds from a request's arrival (its request line read) to its answer; the
        answer is made meanwhile, so the time it takes is within the latency.
    quota : int or None, default 5000
        Requests per public key per UTC day, from 1 to 2**63 - 1 (as a client's
        ``daily_quota``); None for no limit (``--quota none`` on the command line). 0 is
        refused ("did you mean None?"): the command line took it for no limit.
    fail_rate : float, default 0.0
        Probability of an injected fault per request.
    port : int, default 0
        Port to bind; 0 picks a free one.
    public_key, private_key : str
        The only key pair the server accepts.
    grow_every : int or None, default None
        Add a new past ICO after every this many list requests (1 to 2**63 - 1).
    directory : Directory, optional
        Serve this directory instead of generating one (``n_icos`` is then unused).

    Returns
    -------
    Sandbox
        Running; call ``stop()`` or use it as a context manager.

    Raises
    ------
    ValueError
        For a key :func:`icoframes.configure` would refuse (blank, a control
        character, a public key not ASCII: ``InvalidParameter``, the same
        rule and message), or a number of the wrong type or range
        (``InvalidParameter``: a count that is not a whole number, ``True`` as a
        count or share, a quota of 0 or less, a negative latency, a quota or
        ``grow_every`` past 2**63 - 1, an infinite or NaN latency, a ``fail_rate`` outside 0
        to 1, ``grow_every`` below 1, a port beyond 65535).

    Examples
    --------
    >>> from icoframes import sandbox
    >>> with sandbox.serve(n_icos=20, quota=3) as sb:
    ...     sb.base_url.startswith("http://127.0.0.1:"), len(sb.directory)
    (True, 20)
    """
    # held as a Secret while the directory is made (seconds): no local shows it in clear
    private_key = private_key if isinstance(private_key, Secret) else Secret(private_key)
    if isinstance(refused := read_keys(public_key, private_key), InvalidParameter):  # first
        del public_key, private_key  # raised with no local holding a key's text
        raise refused  # (nothing generated; the Service reads the pair so, from its own)
    # as Python ints: random.Random takes no NumPy integer (seed=np.int64(3) was a TypeError)
    # a seed an int64 holds: its service name (the cache's folder) has at most 100 characters,
    # and seed=10**5000 had no text at all (a bare ValueError)
    n_icos, seed, port = _whole("n_icos", n_icos, 0, MAX_ICOS), _whole(
        "seed", seed, -INT64_MAX - 1, INT64_MAX), _whole("port", port, *PORTS)
    # a quota past INT64_MAX is none a client's daily_quota (its ledger's SQLite integer) says
    quota, grow_every = (_whole("quota", quota, 1, INT64_MAX, none=True),
                         _whole("grow_every", grow_every, 1, INT64_MAX, none=True))
    latency, fail_rate = _real("latency", latency), _real("fail_rate", fail_rate)
    name = None
    if directory is None:
        directory = generate_directory(n_icos, seed=seed)
        name = service_name(n_icos, seed)
    service = Service(directory, public_key=public_key, private_key=private_key, quota=quota,
                      fail_rate=fail_rate, latency=latency, grow_every=grow_every, seed=seed)
    return Sandbox(service, port=port, service_name=name).start()


#: The real-number arguments: their highest value and what they must be.
_REALS = {"latency": (math.inf, "seconds >= 0, finite"), "fail_rate": (1.0, "a share from 0 to 1")}


def _real(name: str, value: Any) -> Any:
    """``value`` of ``latency`` or ``fail_rate``; InvalidParameter when it is none. Text is
    read as every number given as text (``latency=" 0.5 "``, as ``timeout=" 0.5 "``)."""
    high, rule = _REALS[name]
    number: Any = number_text(value) if isinstance(value, str) else value  # "٣" is none
    if isinstance(number, bool) or not isinstance(number, numbers.Real) or not (
            0 <= cast(float, number) <= high and number < math.inf):  # nan, inf, True: refused
        raise InvalidParameter(f"{name} must be {rule}, got {quoted(value)}"
                               f"{did_you_mean_number(value, whole=False, low=0, high=high)}")
    return number


def _whole(name: str, value: Any, low: int, high: int, *, none: bool = False) -> Any:
    """``value`` as an int; InvalidParameter unless it is a whole number in range (None when
    ``none``): True is no count and 2.5 no port."""
    if value is None and none:
        return None
    number = as_integer(value)  # never True, nor a numpy timedelta64, nor a broken int
    if number is None or not low <= number <= high:
        hint = "" if number is not None else did_you_mean_number(value, low=low, high=high)
        if number == 0 and name == "quota":  # 0 was no limit on the command line
            hint = f"; did you mean None ({NO_LIMIT})?"
        raise InvalidParameter(f"{name} must be a whole number{bounds(low, high)}"
                               f"{' or None' if none else ''}, got {quoted(value)}{hint}")
    return number


def service_name(n_icos: int, seed: int) -> str:
    """The cache's name for a generated sandbox: ``sandbox-<seed>-<n_icos>-<code hash>``.

    Seed and size decide what :func:`generate_directory` makes; the hash of
    this package's sandbox code (its data version) changes with any change to
    how the data are generated or served, so two versions never share a cache.
    Changes made while it runs (``add_ico``, ``update_ico``...) are seen as a
    real service's changes are: through ``max_age`` and ``refresh``.

    Examples
    --------
    >>> service_name(1000, 0) == service_name(1000, 0) != service_name(1000, 1)
    True
    >>> service_name(1000, 0)[:14]
    'sandbox-0-1000'
    """
    return f"sandbox-{seed}-{n_icos}-{_code_version()}"


@lru_cache(maxsize=1)
def _code_version() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:8]


#: :func:`~icoframes.sandbox.start` by the name ``with sandbox.serve(...)`` reads well with;
#: a keyword it lacks is refused naming ``serve()``.
serve = checked_keywords(start, name="serve")
