"""Hand-written ICO profiles (spec 2.3): one clean profile and the messy shapes real data shows.

Every builder returns a fresh dict, so a test may change what it gets.
:func:`clean_profile` is complete and well formed; :func:`with_` returns a copy
with some values replaced by dotted path (``with_(p, {"finance.raised": "15M"})``).
"""

from __future__ import annotations

import copy
from typing import Any


def clean_profile(ico_id: Any = 101) -> dict[str, Any]:
    """A complete, well-formed profile with every field of spec 2.3."""
    return {
        "id": ico_id,
        "main": {
            "name": "Aquaibit",
            "description": "A marketplace for water rights.",
            "logo": "https://dir.example/img/aquaibit.png",
            "premium": True,
            "scam": "",
            "ico_score": 3.5,
            "platform": "Ethereum",
            "kyc": True,
            "whitelist": "",
            "category": "Platform",
            "type": "ICO",
            "mvp": True,
            "location": "Singapore",
            "kyc_passed": "",
        },
        "links": {
            "url": "https://dir.example/ico/aquaibit",
            "website": "https://aquaibit.example",
            "whitepaper": "https://aquaibit.example/wp.pdf",
            "social": {
                "twitter": "https://twitter.example/aquaibit",
                "telegram": "https://t.example/aquaibit",
            },
            "video": "https://video.example/aquaibit",
        },
        "finance": {
            "ticker": "AQB",
            "tokens_for_sale": 150000000,
            "token_price": 0.15,
            "token_price_unit": "USD",
            "min_purchase": 100,
            "max_purchase": 50000.5,
            "purchase_unit": "USD",
            "token_type": "ERC20",
            "soft_cap": 3000000,
            "hard_cap": 15000000,
            "caps_unit": "USD",
            "escrow": "",
            "markets": ["https://ex1.example/AQB", "https://ex2.example/AQB"],
            "distribution": {"Crowdsale": "60%", "Team": "25%", "Reserve": "15%"},
            "restricted_areas": ["USA", "China"],
            "accepting": ["ETH", "BTC"],
            "raised": 12500000,
        },
        "dates": {
            "start_datetime": "01.03.2018 12:00:00",
            "end_datetime": "31.03.2018 23:59:59",
            "tba": "",
        },
        "additional": {
            "bonuses": {"Early bird": "20% in week 1", "Whale": "5% above 100 ETH"},
            "airdrop": True,
            "bounty": "",
        },
        "roadmap": {
            "01-01-2018": "Whitepaper",
            "01-03-2018": "Token sale",
            "15-09-2018": "Mainnet",
        },
        "team": [
            {
                "name": "Ann Lee",
                "role": "CEO",
                "photo": "https://dir.example/img/ann.jpg",
                "social": {"linkedin": "https://linkedin.example/ann",
                           "twitter": "https://twitter.example/ann"},
            },
            {
                "name": "Bo Chen",
                "role": "CTO",
                "photo": "https://dir.example/img/bo.jpg",
                "social": {"github": "https://github.example/bo"},
            },
        ],
        "advisors": [
            {
                "name": "Cy Diaz",
                "role": "Legal Advisor",
                "photo": "",
                "social": {"linkedin": "https://linkedin.example/cy"},
            },
        ],
    }


def with_(profile: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``profile`` with ``{"section.key": value}`` set; value ``DELETE`` removes."""
    out = copy.deepcopy(profile)
    for path, value in changes.items():
        *parents, last = path.split(".")
        target = out
        for key in parents:
            target = target[key]
        if value is DELETE:
            target.pop(last, None)
        else:
            target[last] = value
    return out


DELETE = object()


def minimal_profile(ico_id: Any = 1) -> dict[str, Any]:
    """Just an id: every section missing."""
    return {"id": ico_id}


def sparse_profile(ico_id: Any = 202) -> dict[str, Any]:
    """The spec sample's style: ``''`` wherever a value is absent, ``[]`` for empty maps."""
    return {
        "id": str(ico_id),
        "main": {
            "name": "Sparse ", "description": "", "logo": "", "premium": "", "scam": "",
            "ico_score": "", "platform": "", "kyc": "", "whitelist": "", "category": "",
            "type": "", "mvp": "", "location": "", "kyc_passed": "",
        },
        "links": {"url": "", "website": "", "whitepaper": "", "social": [], "video": ""},
        "finance": {
            "ticker": "", "tokens_for_sale": "", "token_price": "", "token_price_unit": "",
            "min_purchase": "", "max_purchase": "", "purchase_unit": "", "token_type": "",
            "soft_cap": "", "hard_cap": "", "caps_unit": "", "escrow": "", "markets": "",
            "distribution": [], "restricted_areas": "", "accepting": "", "raised": "",
        },
        "dates": {"start_datetime": "", "end_datetime": "", "tba": True},
        "additional": {"bonuses": [], "airdrop": "", "bounty": ""},
        "roadmap": [],
        "team": "",
        "advisors": "",
    }


def wrong_sections_profile(ico_id: Any = 303) -> dict[str, Any]:
    """Sections that are not dicts: a string, a non-empty list, ``[]``, ``None``, ``{}``."""
    return {
        "id": ico_id,
        "main": "Aquaibit",
        "links": ["https://aquaibit.example"],
        "finance": [],
        "dates": None,
        "additional": {},
        "roadmap": "Q3 2018: launch",
        "team": {"name": "Solo Founder", "role": "CEO"},
        "advisors": {"0": {"name": "Ad One"}, "2": {"name": "Ad Three"}},
    }


def people_profile(ico_id: Any = 404) -> dict[str, Any]:
    """People lists with entries that are not people, and odd social values."""
    return {
        "id": ico_id,
        "team": [
            {"name": " Ann ", "role": "CEO", "photo": "", "social": {
                "twitter": "https://twitter.example/ann ",
                "facebook": "",
                "github": None,
                "linkedin": {"url": "https://linkedin.example/ann"},
                "medium": "N/A",
            }},
            "Bo Chen",
            None,
            {"name": "Cy", "extra": "ignored", "social": []},
            {"role": "Developer", "social": ""},
            {"name": "Di", "social": "https://twitter.example/di"},
        ],
        "advisors": [{"name": "Ed", "social": {"twitter": "https://twitter.example/ed"}}, 42],
        "links": {"social": {"twitter": "https://twitter.example/ico", "reddit": ""}},
    }
