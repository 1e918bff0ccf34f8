"""Filtering and sorting records by validated list parameters (spec 4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .record import Record


def by_id(rec: Record) -> int:
    """Sort key: the record's id."""
    return rec.id


def filter_records(records: list[Record], wire: Mapping[str, Any]) -> list[Record]:
    """The ``records`` matching every filter in ``wire`` (validated list parameters)."""
    out = records
    for field, param in (("platform_id", "platform"), ("category_id", "category"),
                         ("type_id", "type")):
        if param in wire:
            wanted = set(wire[param])
            out = [r for r in out if getattr(r, field) in wanted]
    if "location" in wire:
        places = set(wire["location"])
        out = [r for r in out if r.location in places]
    if "status" in wire:
        out = [r for r in out if r.status == wire["status"]]
    if "ico_score" in wire:
        low = wire["ico_score"]
        out = [r for r in out if r.score is not None and r.score >= low]
    for param, field in (("airdrop_program", "airdrop"), ("bounty_program", "bounty"),
                         ("investor_kyc", "kyc"), ("investor_wl", "whitelist"),
                         ("ico_kyc_passed", "kyc_passed")):
        if param in wire:
            out = [r for r in out if getattr(r, field)]
    if "accepted_currencies" in wire:
        tickers = {t.upper() for t in wire["accepted_currencies"]}
        out = [r for r in out if tickers.intersection(t.upper() for t in r.accepting)]
    if "exclude_areas" in wire:
        areas = set(wire["exclude_areas"])
        out = [r for r in out if r.location not in areas and not areas.intersection(r.restricted)]
    return out


def sort_records(records: list[Record], wire: Mapping[str, Any]) -> list[Record]:
    """``records`` in the order ``wire`` asks for; see :meth:`.directory.Directory.query`."""
    key = wire.get("sort_asc") or wire.get("sort_desc")
    descending = "sort_desc" in wire or key is None
    if key is None or key == "id":
        return sorted(records, key=by_id, reverse=descending)
    if key == "name":
        return sorted(records, key=lambda r: (r.name.casefold(), r.id), reverse=descending)
    field = "start" if key == "start_datetime" else "end"
    dated = [r for r in records if getattr(r, field) is not None]
    undated = [r for r in records if getattr(r, field) is None]
    dated.sort(key=lambda r: (getattr(r, field), r.id), reverse=descending)
    undated.sort(key=by_id, reverse=descending)
    return dated + undated
