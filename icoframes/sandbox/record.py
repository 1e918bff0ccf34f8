"""One ICO's clean truth: the immutable :class:`Record` the sandbox filters, sorts and renders.

A record is pure data. :mod:`.render` writes its raw profile and list summary,
:mod:`.query` filters and sorts records, :mod:`.generate` makes them and
:mod:`.directory` holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from .catalog import CATEGORY_NAMES, PLATFORM_NAMES, TYPE_NAMES

__all__ = ["NewRecord", "Record"]


@dataclass(frozen=True, slots=True)
class Record:
    """One ICO: the clean truth, from which its summary and profile are rendered.

    Records are immutable; :meth:`.Directory.update_ico` swaps in a new one, so a
    request being served never sees a half-updated ICO.

    ``start``/``end`` are None when the profile shows ``''`` or an invalid date;
    ``score``/``raised`` are None when the profile shows no usable value.
    ``index`` is the order of creation, ``slot`` (``index`` shifted, modulo
    :data:`~.catalog.PERIOD`) picks the rare messy shapes and ``seed`` seeds
    every other detail of the profile.

    ``origin`` is the record as generated once :meth:`.Directory.update_ico`
    changed it (None before): the profile's other details are drawn as for
    ``origin`` (:attr:`drawn`), so an edit changes only the values it names.
    """

    id: int
    index: int
    slot: int
    seed: int
    status: str
    name: str
    slug: str
    ticker: str
    platform_id: int
    category_id: int
    type_id: int
    location: str
    score: float | None
    score_shape: str
    airdrop: bool
    bounty: bool
    kyc: bool
    whitelist: bool
    kyc_passed: bool
    accepting: tuple[str, ...]
    restricted: tuple[str, ...]
    start: datetime | None
    end: datetime | None
    start_text: str
    end_text: str
    tba: bool
    raised: int | None
    raised_shape: str
    origin: Record | None = None

    @property
    def drawn(self) -> Record:
        """The record the profile's details are drawn from: the one generated, before any edit.

        Some draws depend on values an edit can change (the caps on ``raised``,
        the markets on ``status``, the prices in ETH or BTC on the sale's day);
        drawing them from the edited values would change fields no one edited.
        """
        return self.origin or self

    @property
    def platform(self) -> str:
        """Canonical platform name (the profile may spell it differently)."""
        return PLATFORM_NAMES[self.platform_id]

    @property
    def category(self) -> str:
        """Category name."""
        return CATEGORY_NAMES[self.category_id]

    @property
    def type(self) -> str:
        """Type name (ICO, IEO, STO...)."""
        return TYPE_NAMES[self.type_id]

    @property
    def url(self) -> str:
        """The ICO's page on the directory's public site."""
        return f"https://icodirectory.example/ico/{self.slug}"

    @property
    def logo(self) -> str:
        """The URL of its logo."""
        return f"https://icodirectory.example/img/logo/{self.slug}.png"


#: Makes a brand-new record from (index, highest id so far, status); its id is higher.
NewRecord = Callable[[int, int, str], Record]
