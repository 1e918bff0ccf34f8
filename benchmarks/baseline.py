"""What a notebook user writes without icoframes: a serial requests loop, then pandas.

One ``requests.Session``, the signing of spec section 5 written by hand, list
pages 1 .. total_pages and then one profile request per ICO, one after the
other, with no cache: running it again re-crawls everything. The profiles go
through :func:`benchmarks.bench_tidy.baseline_tidy` (``pd.json_normalize``,
one ``pd.to_numeric``/``pd.to_datetime`` per column, Python loops for the
child tables), the same hand-written tidy the tidy benchmark measures.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import requests

from .bench_tidy import baseline_tidy

__all__ = ["BaselineClient", "crawl", "load", "read_jsonl", "tidy", "write_jsonl"]


class BaselineClient:
    """A minimal signed client of the list and profile endpoints."""

    def __init__(self, base_url: str, public_key: str, private_key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.public_key = public_key
        self._private_key = private_key.encode()
        self.session = requests.Session()

    def __enter__(self) -> BaselineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.session.close()

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        # sign exactly the bytes that are sent
        body = json.dumps(payload).encode()
        digest = hmac.new(self._private_key, body, hashlib.sha256).digest()
        headers = {"Content-Type": "application/json",
                   "X-Service-Public-Key": self.public_key,
                   "X-Service-Access-Key": base64.b64encode(digest).decode()}
        response = self.session.post(self.base_url + path, data=body, headers=headers,
                                     timeout=30)
        decoded = response.json()
        if decoded.get("error"):
            raise RuntimeError(f"{path} {payload}: error {decoded['error']}")
        return decoded


def crawl(base_url: str, public_key: str, private_key: str,
          status: str | None = "past") -> list[dict[str, Any]]:
    """Every profile of the ICOs listed under ``status``, fetched one request at a time."""
    params = {"status": status} if status else {}
    with BaselineClient(base_url, public_key, private_key) as client:
        first = client.post("/api/v1/icos/", {**params, "page": 1})
        summaries = list(first["data"])
        for page in range(2, int(first["total_pages"]) + 1):
            summaries += client.post("/api/v1/icos/", {**params, "page": page})["data"]
        ids = list(dict.fromkeys(int(s["id"]) for s in summaries))
        return [client.post("/api/v1/ico/", {"id": i})["data"] for i in ids]


def tidy(profiles: list[dict[str, Any]], status: str | None = "past") -> dict[str, pd.DataFrame]:
    """The hand-written tidy of the tidy benchmark, every profile tagged with ``status``."""
    return baseline_tidy(profiles, {int(p["id"]): status for p in profiles})


def load(settings: dict[str, str], status: str | None = "past") -> dict[str, pd.DataFrame]:
    """Crawl and tidy: the baseline's counterpart of a cold ``load_icos``."""
    return tidy(crawl(settings["base_url"], settings["public_key"], settings["private_key"],
                      status), status)


def write_jsonl(profiles: Iterable[dict[str, Any]], path: Path) -> None:
    """Save profiles the way an analyst keeps a crawl: one JSON object per line."""
    with open(path, "w", encoding="utf-8") as fh:
        for profile in profiles:
            fh.write(json.dumps(profile, ensure_ascii=False))
            fh.write("\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
