"""List responses into frames: summaries (spec 2.2) and the filter set (spec 2.1).

Pure functions of decoded JSON, shared by the loaders and the crawl.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..schema import FILTERS, LIST
from .columns import to_float, to_text

__all__ = ["filters_frame", "list_frame", "merge_pages", "page_counts", "summary_keys"]


def page_counts(page: Mapping[str, Any]) -> tuple[int, int]:
    """``(total_icos, total_pages)`` of a list response; the API sends them as text or numbers."""
    return _as_int(page.get("total_icos")) or 0, _as_int(page.get("total_pages")) or 0


def merge_pages(pages: Iterable[Mapping[str, Any]]) -> list[dict]:
    """The summaries of several list pages in order, once per id (the last copy wins).

    The list can shift while it is paged (a new ICO at the top pushes an item
    onto the next page), so the same ICO can appear on two pages.
    """
    seen: dict[int, dict] = {}
    for page in pages:
        data = page.get("data")
        for item in data if isinstance(data, list) else []:
            ico_id = _as_int(item.get("id")) if isinstance(item, Mapping) else None
            if ico_id is not None:
                seen[ico_id] = item  # keeps the position of the first copy
    return list(seen.values())


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) if math.isfinite(number) and number.is_integer() else None
    return None



def list_frame(items: Sequence[Mapping[str, Any]], *, status: str | None) -> pd.DataFrame:
    """List summaries (spec 2.2) as a typed frame with the ``LIST`` schema columns.

    Summaries whose id is not an integer are left out (the loaders could not
    fetch their profiles anyway).
    """
    ids = [_as_int(item.get("id")) if isinstance(item, Mapping) else None for item in items]
    kept = [item for item, ico_id in zip(items, ids, strict=True) if ico_id is not None]

    def field(section: str, key: str) -> list[Any]:
        parts = (item.get(section) for item in kept)
        return [part.get(key) if isinstance(part, Mapping) else None for part in parts]

    frame = pd.DataFrame({
        "id": np.array([i for i in ids if i is not None], dtype=np.int64),
        "name": to_text(field("main", "name"))[0],
        "logo": to_text(field("main", "logo"))[0],
        "ico_score": to_float(field("main", "ico_score"))[0],
        "url": to_text(field("links", "url"))[0],
        "raised": to_float(field("finance", "raised"))[0],
        "status": [status] * len(kept),
    })
    return frame.astype(LIST.dtypes)[LIST.names]



def summary_keys(listing: pd.DataFrame) -> list[str]:
    """A text key of the summary values whose change means a profile must be re-fetched."""
    names = listing["name"].astype(object).where(listing["name"].notna(), None).tolist()
    scores = listing["ico_score"].to_numpy(dtype=float)
    raised = listing["raised"].to_numpy(dtype=float)
    return [json.dumps([n, None if np.isnan(s) else s, None if np.isnan(r) else r])
            for n, s, r in zip(names, scores, raised, strict=True)]



def filters_frame(raw: Mapping[str, Any]) -> pd.DataFrame:
    """The filter set (spec 2.1) as a frame with the ``FILTERS`` schema."""
    rows: list[tuple[str, int | None, str]] = []
    for key in ("platform", "category", "type", "location"):
        entries = raw.get(key) if isinstance(raw, Mapping) else None
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, Mapping):
                continue
            name = str(entry.get("name") or "").strip()
            if not name:
                continue
            rows.append((key, None if key == "location" else _as_int(entry.get("id")), name))
    frame = pd.DataFrame(rows, columns=FILTERS.names)
    return frame.astype(FILTERS.dtypes)
