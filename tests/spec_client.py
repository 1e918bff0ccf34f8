"""A deliberately tiny API client written from the spec alone (no icoframes imports).

If this client can talk to the sandbox, the sandbox speaks the spec: POST with a
JSON body, ``X-Service-Public-Key``, and ``X-Service-Access-Key`` = Base64 of the
raw HMAC-SHA256 of the exact body bytes under the private key (spec section 5).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import requests

FILTERS = "/api/v1/filters/"
ICOS = "/api/v1/icos/"
ICO = "/api/v1/ico/"


def sign(private_key: str, body: bytes) -> str:
    """Base64 of the raw HMAC-SHA256 of ``body`` under ``private_key`` (spec 5.3)."""
    return base64.b64encode(hmac.new(private_key.encode(), body, hashlib.sha256).digest()).decode()


class SpecClient:
    """POSTs signed JSON bodies and hands back the raw :class:`requests.Response`."""

    def __init__(self, base_url: str, public_key: str, private_key: str, *, timeout: float = 10):
        self.base_url = base_url.rstrip("/")
        self.public_key = public_key
        self.private_key = private_key
        self.timeout = timeout
        self.session = requests.Session()

    def close(self) -> None:
        self.session.close()

    def encode(self, payload: Any) -> bytes:
        return json.dumps(payload).encode()

    def send(self, path: str, body: bytes, *, headers: dict[str, str] | None = None,
             method: str = "POST") -> requests.Response:
        """Send ``body`` as is, signed correctly unless ``headers`` override the keys."""
        sent = {"Content-Type": "application/json", "X-Service-Public-Key": self.public_key,
                "X-Service-Access-Key": sign(self.private_key, body)}
        sent.update(headers or {})
        return self.session.request(method, self.base_url + path, data=body, headers=sent,
                                    timeout=self.timeout)

    def post(self, path: str, payload: Any = None) -> requests.Response:
        return self.send(path, self.encode({} if payload is None else payload))

    def call(self, path: str, payload: Any = None) -> dict[str, Any]:
        """POST and return the decoded JSON body, whatever the error field says."""
        return self.post(path, payload).json()

    def filters(self) -> dict[str, Any]:
        return self.call(FILTERS)

    def icos(self, **params: Any) -> dict[str, Any]:
        return self.call(ICOS, params)

    def ico(self, ico_id: Any) -> dict[str, Any]:
        return self.call(ICO, {"id": ico_id})

    def all_summaries(self, **params: Any) -> tuple[list[dict[str, Any]], int]:
        """Every summary over all pages, and ``total_icos`` as the server stated it."""
        first = self.icos(**params, page=1)
        if first["error"] is not None:
            raise RuntimeError(f"error {first['error']}: {first.get('message')}")
        items = list(first["data"])
        for page in range(2, int(first["total_pages"]) + 1):
            body = self.icos(**params, page=page)
            if body["error"] is not None:
                raise RuntimeError(f"page {page}: error {body['error']}")
            assert int(body["current_page"]) == page
            items.extend(body["data"])
        return items, int(first["total_icos"])
