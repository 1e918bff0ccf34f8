"""The directory's fixed vocabularies: platforms, categories, types, countries, currencies.

These are the values the filter set (spec 2.1) lists and the clean truth of a
record refers to by id. Their weights are the shares of ICOs in the figures of
``/work/shared/notes/ico-figures.md``; :mod:`.generate` draws from them.
Also here: the words profiles are written with (people, roles, milestones,
exchanges), the reference date and the cadence of the rare messy shapes, which
generation and rendering must agree on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

#: Ongoing and upcoming ICOs are dated around this day, not around "now".
REFERENCE_DATE = datetime(2026, 11, 1)

# (id, name, weight in %): the weights are shares of ICOs.
PLATFORMS: tuple[tuple[int, str, float], ...] = (
    (1, "Ethereum", 80.0), (2, "Waves", 3.0), (3, "Stellar", 2.5), (4, "NEO", 2.0),
    (5, "EOS", 1.8), (6, "Bitcoin", 1.2), (7, "Own blockchain", 3.0), (8, "Tron", 1.2),
    (9, "Binance Smart Chain", 1.5), (10, "Hyperledger", 0.6), (11, "Cardano", 0.4),
    (12, "Qtum", 0.5), (13, "NEM", 0.5), (14, "Komodo", 0.3), (15, "Separate blockchain", 1.0),
    (16, "Omni", 0.2), (17, "Solana", 0.3),
)
CATEGORIES: tuple[tuple[int, str, float], ...] = (
    (1, "Platform", 14.0), (2, "Cryptocurrency", 9.0), (3, "Business services", 8.0),
    (4, "Finance", 8.0), (5, "Banking", 4.0), (6, "Infrastructure", 5.0),
    (7, "Entertainment", 5.0), (8, "Gaming", 4.5), (9, "Artificial Intelligence", 4.0),
    (10, "Real estate", 3.0), (11, "Energy", 3.0), (12, "Health", 3.5), (13, "Media", 3.5),
    (14, "Communication", 3.0), (15, "Internet", 4.0), (16, "Investment", 5.0),
    (17, "Software", 4.0), (18, "Smart Contract", 4.0), (19, "Retail", 3.0),
    (20, "Tourism", 2.0), (21, "Education", 1.5), (22, "Charity", 1.0),
)
TYPES: tuple[tuple[int, str, float], ...] = (
    (1, "ICO", 70.0), (2, "Pre-ICO", 10.0), (3, "IEO", 8.0), (4, "STO", 7.0), (5, "IDO", 5.0),
)
# Top countries as in the figures; the long tail shares the remaining ~40%.
_TOP_COUNTRIES = (
    ("USA", 13.0), ("Singapore", 10.2), ("UK", 9.2), ("Unknown", 7.2), ("Russia", 5.6),
    ("Estonia", 5.4), ("Switzerland", 4.8), ("Cayman Islands", 2.2), ("Germany", 2.2),
)
_TAIL_COUNTRIES = (
    "Argentina", "Australia", "Austria", "Belarus", "Belgium", "Belize", "Brazil",
    "British Virgin Islands", "Bulgaria", "Canada", "China", "Côte d'Ivoire", "Curaçao",
    "Cyprus", "Czech Republic", "Denmark", "Finland", "France", "Georgia", "Gibraltar",
    "Hong Kong", "India", "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kazakhstan",
    "Latvia", "Liechtenstein", "Lithuania", "Luxembourg", "Malaysia", "Malta", "Mexico",
    "Netherlands", "New Zealand", "Nigeria", "Norway", "Philippines", "Poland", "Portugal",
    "Romania", "Seychelles", "Slovenia", "South Africa", "South Korea", "Spain", "Sweden",
    "Taiwan", "Thailand", "Turkey", "Ukraine", "United Arab Emirates", "Vietnam",
)
_TAIL_WEIGHT = (100.0 - sum(w for _, w in _TOP_COUNTRIES)) / len(_TAIL_COUNTRIES)
#: (area, weight) of the areas a profile restricts (``finance.restricted_areas``).
RESTRICTED_SHARES: tuple[tuple[str, float], ...] = (
    ("USA", 30.0), ("China", 14.0), ("Singapore", 5.0), ("South Korea", 6.0), ("Canada", 6.0),
    ("Iran", 3.0), ("North Korea", 3.0), ("Syria", 2.0), ("Cuba", 2.0), ("Sudan", 1.5),
    ("Crimea", 1.0), ("Russia", 1.0), ("UK", 1.0), ("Japan", 1.0), ("Côte d'Ivoire", 0.3),
)
#: Every country name the directory uses, as a location or a restricted area: the
#: location filter values (spec 2.1), which ``exclude_areas`` is checked against too.
COUNTRIES: tuple[str, ...] = tuple(sorted(
    {c for c, _ in _TOP_COUNTRIES} | set(_TAIL_COUNTRIES) | {a for a, _ in RESTRICTED_SHARES},
    key=str.casefold))
#: (country, weight in %) for every location, top countries first.
COUNTRY_SHARES: tuple[tuple[str, float], ...] = tuple(
    list(_TOP_COUNTRIES) + [(c, _TAIL_WEIGHT) for c in _TAIL_COUNTRIES]
)
# Ticker -> share of ICOs accepting it (figures: counts among 6,146 ICOs).
CURRENCIES: tuple[tuple[str, float], ...] = (
    ("ETH", 5058 / 6146), ("BTC", 2605 / 6146), ("LTC", 820 / 6146), ("Fiat", 751 / 6146),
    ("BCH", 357 / 6146), ("DASH", 222 / 6146), ("XRP", 188 / 6146), ("USDT", 157 / 6146),
)

# What profiles say about people, projects and markets (drawn by :mod:`.render`).
FIRST_NAMES = (
    "Alex", "Anna", "Andrei", "Ben", "Carlos", "Chloé", "Chen", "Daniel", "David", "Elena",
    "Emma", "Felix", "Hiro", "Igor", "Ivan", "James", "Jana", "José", "Julia", "Jürgen", "Kai",
    "Laura", "Li", "Lucas", "Maria", "Mark", "Max", "Michael", "Min-jun", "Nadia", "Nikolai",
    "Olga", "Omar", "Paul", "Priya", "Rahul", "Sara", "Sergey", "Sofia", "Søren", "Thomas",
    "Tom", "Victor", "Wei", "Yuki", "Zoë", "Małgorzata", "Ahmed", "Kwame", "Lucía",
)
LAST_NAMES = (
    "Anderson", "Becker", "Brown", "Chen", "Costa", "Dubois", "Fischer", "García", "Hoffmann",
    "Ivanov", "Jensen", "Kim", "Kowalski", "Kuznetsov", "Lee", "Martin", "Müller", "Nakamura",
    "Novák", "Nguyen", "O'Brien", "Petrov", "Rossi", "Schmidt", "Silva", "Smith", "Tan",
    "Tanaka", "Wang", "Weber", "Williams", "Wong", "Zhang", "Mensah", "Okafor", "Sokolova",
)
TEAM_ROLES = (
    "CEO", "CTO", "COO", "CMO", "CFO", "Co-founder", "Lead Developer", "Blockchain Developer",
    "Full-stack Developer", "Marketing Manager", "Community Manager", "Designer",
    "Product Manager", "Legal Counsel", "Business Development", "Data Scientist",
)
ADVISOR_ROLES = ("Advisor", "Legal Advisor", "Blockchain Advisor", "Strategic Advisor",
                 "Marketing Advisor", "Financial Advisor")
# Social networks, and the share of ICOs linking each.
SOCIAL_NETWORKS = ("twitter", "telegram", "facebook", "medium", "reddit", "github",
                   "bitcointalk", "linkedin", "youtube", "discord", "slack")
SOCIAL_SHARES = (0.9, 0.85, 0.7, 0.55, 0.45, 0.45, 0.35, 0.3, 0.25, 0.15, 0.1)
# Token allocation: the sale itself under one of SALE_PARTS, then some of ALLOCATION_PARTS.
ALLOCATION_PARTS = ("Team", "Advisors", "Reserve", "Bounty", "Partners", "Foundation",
                    "Marketing", "Community", "Development", "Airdrop", "Ecosystem", "Pre-sale")
SALE_PARTS = ("Crowdsale", "ICO", "Token sale", "Public sale")
MILESTONES = (
    "Concept and whitepaper", "Team formation", "Private sale", "Pre-sale", "Token sale",
    "Prototype", "MVP release", "Beta launch", "Security audit", "Exchange listing",
    "Mainnet launch", "Mobile app", "Partnerships in Asia", "Global expansion",
    "Version 2.0", "DAO governance",
)
EXCHANGES = ("binance", "kucoin", "hitbtc", "bittrex", "huobi", "okex", "gate", "idex",
             "bitfinex", "uniswap")
PITCHES = (
    "It connects users and providers without intermediaries.",
    "Its token pays for services inside the ecosystem.",
    "The team has shipped a working prototype.",
    "Holders share the platform's revenue.",
    "It brings transparent, auditable records to the industry.",
    "Smart contracts automate payments and settlement.",
)

# Canonical names by id: a record stores ids, its profile shows names.
PLATFORM_NAMES = {p: n for p, n, _ in PLATFORMS}
CATEGORY_NAMES = {c: n for c, n, _ in CATEGORIES}
TYPE_NAMES = {t: n for t, n, _ in TYPES}

#: Rare messy shapes recur once per this many records (see :mod:`.render`).
PERIOD = 50
#: Styles of amounts written as text: "$2,000,000", "1,500,000", "15M", "250K", "2000000 USD".
AMOUNT_STYLES = ("dollar", "comma", "M", "K", "usd")


def filter_set() -> dict[str, list[dict[str, Any]]]:
    """The filter set (spec 2.1): platform, category, type, location."""
    return {
        "platform": [{"id": i, "name": n} for i, n, _ in PLATFORMS],
        "category": [{"id": i, "name": n} for i, n, _ in CATEGORIES],
        "type": [{"id": i, "name": n} for i, n, _ in TYPES],
        "location": [{"name": c} for c in COUNTRIES],
    }
