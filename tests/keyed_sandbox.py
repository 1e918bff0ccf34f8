"""The sandbox the tests of refused arguments share (tests/test_arguments_*.py): its private
key must never be said back, and every request it serves is counted (a refusal costs none).

A test module takes its fixtures by name (``sb, client = keyed_sandbox.sb,
keyed_sandbox.client``): one sandbox for each module, as each module made before.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from icoframes import sandbox
from icoframes.api.client import Client

#: The sandbox's private key: a refusal that quotes it, in any form, has leaked it.
KEY = "k3y-7f3a9c1d5e-never-shown"


@pytest.fixture(scope="module")
def sb() -> Iterator[sandbox.Sandbox]:
    """30 ICOs of seed 3 with the private key :data:`KEY`, for the whole test module."""
    with sandbox.serve(n_icos=30, seed=3, private_key=KEY) as server:
        yield server


@pytest.fixture
def client(cfg: sandbox.Sandbox) -> Iterator[Client]:
    """A client of the configured sandbox (``cfg``), closed after the test."""
    with cfg.client() as made:
        yield made


def requests_served(sb: sandbox.Sandbox) -> int:
    """Every request the sandbox served (answered or refused) since its stats were reset."""
    return sb.stats.requests.total()
