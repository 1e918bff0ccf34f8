"""The words real ICO directories write, declared once per kind of field, beside the schema.

:mod:`icoframes.schema` says what each column is; this module says which words
mean what in the values that fill it. :mod:`icoframes.parse` reads every value
through these tables (and :mod:`icoframes.features` through the platform and
social ones), and the data dictionary (``make docs``) prints them, so the
documentation and the parser cannot disagree.

All words are matched case-insensitively (``casefold``) after the value is
stripped and its inner whitespace collapsed to one space.

Flags (``bool`` columns)
    :data:`TRUE_WORDS` read True, :data:`FALSE_WORDS` read False and
    :data:`UNKNOWN_WORDS` (with the :data:`MISSING_MARKERS`) read False *and* are
    not problems: a bool column cannot tell "no" from "unknown" (the API itself
    writes ``''`` for both). A **qualified flag**, one of these words followed
    by a qualifier in brackets or after a comma, colon or dash
    (``'YES (UNTIL 11 SEP)'``, ``'Available - beta'``), reads as its word
    *and* its whole text is a row of ``problems`` for that column, so the
    qualifier is kept where a reader looks for what the parser could not
    represent. Anything else is False and a problem.

Missing values (every kind)
    :data:`MISSING_MARKERS`: the cell is missing and nothing is reported.

"None" in lists and maps
    A list column (``restricted_areas``, ``accepting``, ``markets``) whose only
    item is one of :data:`NONE_WORDS` (``'No'``, ``'Not'``, ``'Nothing'``) is
    empty; inside a longer list such an item is kept (``NO`` is also
    Norway). Missing markers (``None``, ``-``, ``N/A``, blank) are dropped
    from any list. A map (``bonuses``...) written as one of these words is
    empty, and a bonus whose terms are a none word, a marker or blank
    (``{"Bonus": "NO"}``, ``{"Bonus": " "}``) is no bonus.

Lists written as one string
    A lone string of :data:`SPLIT_LISTS` is split at commas and semicolons (full-width
    too), bars, bullets and line breaks outside brackets (``'BTC, ETH, and Fiat'``), then
    at ``/ + & and`` where no name is cut (the names: :mod:`icoframes.placenames`). An item
    of a list of :data:`SPLIT_ITEMS` is split so too; :data:`SPLIT_URLS` are split between URLs.

Units and currencies
    :data:`UNIT_ALIASES`: canonical code -> spellings, and :data:`TOKEN_NAMES`, the common
    tokens' names (``'Tron'`` is TRX); in data also
    :data:`DATA_UNIT_SPELLINGS`, the misspellings (``'Etherum'`` is ETH) and
    ``'Fiat currency'``, the code ``FIAT``, which with :data:`FIAT_CODES` and
    :data:`ISO_CURRENCY_CODES` (every active ISO 4217 currency) marks a government currency;
    :data:`TOKEN_CODES`, the common tokens' tickers (:data:`CAPITALS_ONLY` of these, English
    words, only in capitals: ``'5 TRY'`` is lira, ``'5 try'`` no unit). A word beside a
    number in a value is a unit only when it is one of these codes, the ICO's own ticker or
    its unit column's unit. A ticker written
    with Cyrillic or Greek look-alike letters (``'ЕТН'``) is read with
    their Latin twins (:data:`LOOKALIKES`) when every letter has one; text
    with other non-Latin letters is left as written.

Platforms and social networks
    :data:`PLATFORM_FAMILIES` (``'Ethererum'``, ``'ERC-20'`` -> Ethereum) and
    :data:`SOCIAL_ALIASES` (ICOdrops' key ``btc`` is bitcointalk).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Final

__all__ = [
    "ACCEPTING_WORDS",
    "APPROXIMATION_WORDS",
    "CAPITALS_ONLY",
    "CENTS",
    "DATA_UNIT_SPELLINGS",
    "FALSE_WORDS",
    "FIAT_CODES",
    "FOREIGN_MULTIPLIERS",
    "FUNCTION_WORDS",
    "ISO_CURRENCY_CODES",
    "LABEL_WORDS",
    "LOOKALIKES",
    "MISSING_MARKERS",
    "NONE_WORDS",
    "NOT_CURRENCY_WORDS",
    "NOT_UNITS",
    "PERCENT_WORDS",
    "PLATFORM_FAMILIES",
    "QUALIFIER_WORDS",
    "SOCIAL_ALIASES",
    "SPLIT_ITEMS",
    "SPLIT_LISTS",
    "SPLIT_URLS",
    "TOKEN_CODES",
    "TOKEN_NAMES",
    "TOKEN_STANDARDS",
    "TOKEN_WORDS",
    "TRUE_WORDS",
    "UNIT_ALIASES",
    "UNKNOWN_WORDS",
    "case_variants",
    "fold",
    "platform_family",
    "social_network",
]

#: Missing in any column: the cell is empty, and nothing is reported. Not ``Unknown``: the
#: service's filter set lists it as a location (spec 2.1, ``location=["Unknown"]`` filters
#: by it), so a profile's ``"Unknown"`` is that filter value, kept as written.
MISSING_MARKERS: Final = frozenset(
    {"NA", "N/A", "N.A.", "N.A", "#N/A", "—", "–", "-", "--", "?", "NOT SET", "NOT SPECIFIED",
     "PENDING", "TBA", "TBC", "TBD", "NAN", "NONE", "NULL", "UNDEFINED"}
)

#: Flags that read True.
TRUE_WORDS: Final = frozenset({
    "1", "true", "yes", "y", "available", "✓", "✔", "✅", "☑", "☑️", "✔️",
})
#: Flags that read False (and are no problem).
FALSE_WORDS: Final = frozenset({
    "0", "false", "no", "n", "not available", "unavailable", "none", "✗", "✘", "❌", "✖",
    "not", "nope",
})
#: Flags that say "unknown": False in a bool column (it cannot say unknown), no problem.
UNKNOWN_WORDS: Final = frozenset({
    "unknown", "?", "not set", "not specified", "n/a", "na", "tba", "tbd", "pending",
    "not known", "not stated", "not yet", "soon",
})

#: As the only item of a list, or as a whole map or bonus terms: "there are none".
NONE_WORDS: Final = frozenset({"no", "not", "nothing", "nope", "no restrictions",
                               "not restricted", "not applicable", "nil"})

#: List columns of short names where a lone string is split (:mod:`icoframes.parse.splits`).
SPLIT_LISTS: Final = frozenset({"accepting", "restricted_areas"})
#: List columns of tickers, where an item of a list is split so too (``["BTC, ETH"]``): no
#: ticker holds a comma, while a country's name may (an item of ``restricted_areas`` is kept).
SPLIT_ITEMS: Final = frozenset({"accepting"})
#: List columns of URLs, where a lone string is split between its URLs.
SPLIT_URLS: Final = frozenset({"markets"})

#: Canonical unit code -> spellings meaning it (casefolded, stripped, spaces collapsed).
#: ``USDT`` is a token, not the dollar: it has its own code. ``FIAT`` is how
#: directories write "any government currency".
UNIT_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "USD": ("usd", "us dollar", "us dollars", "u.s. dollar", "u.s. dollars", "dollar", "dollars",
            "$", "us$", "usd$", "us $"),
    "EUR": ("eur", "euro", "euros", "€"),
    # a bare "pound" in English text is sterling, as a bare "dollar" is USD; the other
    # pounds are written with their country (Egyptian pound: EGP), which names no unit here
    "GBP": ("gbp", "pound sterling", "pounds sterling", "british pound", "british pounds", "£",
            "pound", "pounds"),
    "CHF": ("chf", "swiss franc", "swiss francs", "sfr", "sfr."),
    "CNY": ("cny", "rmb", "yuan", "renminbi"),
    "JPY": ("jpy", "円", "yen"),
    "AUD": ("aud", "a$", "au$"),
    # C$ is also the sign of the Nicaraguan córdoba (NIO), which ICO data write by its code:
    # in English financial text, and in ICO directories, C$ is the Canadian dollar
    "CAD": ("cad", "c$", "ca$"),
    "HKD": ("hkd", "hk$"),
    "SGD": ("sgd", "s$", "sg$"),
    "NZD": ("nzd", "nz$"),
    "BRL": ("brl", "r$"),
    "KRW": ("krw", "₩"),
    "RUB": ("rub", "₽", "ruble", "rubles", "rouble", "roubles", "rur", "руб", "руб."),
    "ETH": ("eth", "ether", "ethereum", "ethers", "Ξ"),
    "ETC": ("etc", "ethereum classic"),
    "BTC": ("btc", "bitcoin", "bitcoins", "xbt", "₿"),
    "LTC": ("ltc", "litecoin"),
    "BCH": ("bch", "bitcoin cash"),
    "XRP": ("xrp", "ripple"),
    "BNB": ("bnb", "binance coin"),
    "XLM": ("xlm", "stellar", "lumens"),
    "WAVES": ("waves",),
    "NEO": ("neo",),
    "EOS": ("eos",),
    "USDT": ("usdt", "tether"),
}

#: Names of common tokens -> their tickers, read as :data:`UNIT_ALIASES` are, in data and
#: in ``accepted_currencies`` (``"Tron"`` is TRX). A name that is an English word too (Status,
#: Maker, Verge, Icon, Ardor, NEM) is left out: ``"5M status"`` names no unit.
TOKEN_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "TRX": ("tron",), "ADA": ("cardano",), "XMR": ("monero",), "ZEC": ("zcash",),
    "DOGE": ("dogecoin",), "LSK": ("lisk",), "ONT": ("ontology",), "VET": ("vechain",),
    "XTZ": ("tezos",), "LINK": ("chainlink",), "DOT": ("polkadot",), "SOL": ("solana",),
    "DCR": ("decred",), "DGB": ("digibyte",), "KMD": ("komodo",), "AE": ("aeternity",),
    "ZIL": ("zilliqa",), "OMG": ("omisego",), "GNT": ("golem",), "BTS": ("bitshares",),
    "NAS": ("nebulas",), "SC": ("siacoin",), "ZEN": ("horizen", "zencash"),
    "BTG": ("bitcoin gold",), "BSV": ("bitcoin sv",), "MANA": ("decentraland",),
}

#: Spellings read in *data* only: common misspellings and generic words. An
#: argument (``accepted_currencies="Etherium"``) is refused with "did you mean"
#: instead (:mod:`icoframes.currencyfilter` takes only :data:`UNIT_ALIASES` and
#: :data:`TOKEN_NAMES`).
DATA_UNIT_SPELLINGS: Final[Mapping[str, tuple[str, ...]]] = {
    "ETH": ("ethererum", "etherum", "etherium", "etheruem", "ehtereum", "ethreum", "etereum"),
    "BTC": ("bitcion", "bitcoin (btc)"),
    "FIAT": ("fiat", "fiat currency", "fiat currencies", "fiat money"),
}

#: Multiplier words of other languages or readings: ``"5 mil"`` is 5,000 (Spanish) or 5 million,
#: ``"5 Bio."`` 5e9 or 5e12 (German). No amount is read with one, and a unit column naming one
#: names no unit (``"mil"``, ``"USD mil"``): never a guess, never a unit ``MIL``.
FOREIGN_MULTIPLIERS: Final = frozenset({"mil", "mill", "bil", "bio", "kk", "lakh", "lakhs",
                                        "crore", "crores", "tys", "millionen", "milliarden",
                                        "mrd", "milliard", "milliards", "млн", "млрд", "тыс"})

#: Words of a percent, as ``%`` is: ``"5 percent"`` is no amount (reason ``percent``) and a
#: unit column ``"percent"`` names no unit (never a unit ``PERCENT``).
PERCENT_WORDS: Final = frozenset({"percent", "per cent", "pct", "percentage"})

#: Words of approximation or of a bound that begin an amount (``"around 5M"``, ``"over 5M"``,
#: ``"up to 30M"``): the amount is ``vague``. Single words are no unit either (below).
APPROXIMATION_WORDS: Final = frozenset({
    "circa", "ca", "approx", "approximately", "apx", "about", "around", "almost", "nearly",
    "roughly", "est", "estimated", "over", "under", "above", "below", "beyond", "upto",
    "up to", "at least", "at most", "more than", "less than", "min", "max", "from"})

#: Words that say what an amount is or was, never its unit: ``"Hardcap 20M"``, ``"5M soft"``,
#: ``"Presale 0.1"``, ``"5M raised"``, ``"5M est."``. Beside a number (in any case: ``"5M
#: HARDCAP"``) the amount is ``vague``, a qualified amount, never that number in a made-up unit
#: ``HARDCAP``. Any other word is a unit only when known (:data:`TOKEN_CODES`: ``"5 link"`` is 5
#: LINK; ``"5M required"`` is ``unknown_unit``). A token whose ticker is one of
#: these (HARD, VALUE) is no unit written in a value: missing and a problem, never a guess.
QUALIFIER_WORDS: Final = frozenset({
    "hard", "soft", "cap", "caps", "hardcap", "softcap", "target", "targeted", "goal", "limit",
    "limited", "unlimited", "planned", "expected", "estimate", "raised", "collected", "sold",
    "reached", "achieved", "funded", "received", "presale", "preico", "crowdsale",
    "sale", "ico", "public", "private", "stage", "phase", "round", "tier", "fixed", "dynamic",
    "initial", "current", "starting", "start", "final", "first", "later", "finished", "ended",
    "closed", "worth", "equivalent", "equiv", "value", "exactly", "just", "some", "plus",
    "least", "most", "units", "unit", "amount", "mixed", "various", "multiple", "several"})

#: Words beside a number that join it to others and name no unit (``"5M in"``, ``"0.1 at"``).
FUNCTION_WORDS: Final = frozenset({"in", "at", "of", "for", "and", "or", "to", "till", "until",
                                   "by", "the", "with", "all", "any"})

#: Token standards, which name how a token is made, never a unit (``caps_unit`` ``"ERC20"``).
TOKEN_STANDARDS: Final = frozenset({"erc20", "erc-20", "erc223", "erc721", "bep2", "bep20",
                                    "trc20", "nep5", "qrc20"})

#: English words of :data:`NOT_UNITS` that may yet be the ICO's own ticker (HARD, VALUE, FOR,
#: EST, OVER): written as that ticker (``"500M HARD"`` for HARD, a ``caps_unit`` ``"HARD"``, ``"1
#: ETH = 1000 EST"`` for EST) they are its token. Not the words of a percent or a scale, nor
#: ``min``, ``max``, ``about``, ``approx`` (``"5 PCT"`` for PCT: 5 percent, or 5 PCT? never
#: guessed), which were never read as a unit.
LABEL_WORDS: Final = (QUALIFIER_WORDS | FUNCTION_WORDS | TOKEN_STANDARDS
                      | APPROXIMATION_WORDS - {"min", "max", "about", "approx"})

#: Words written beside an amount that are no unit: the amount is missing and a problem
#: (``"500 tokens"``, ``"around 5M"``), never in a unit "TOKENS", "AROUND"; a unit column of
#: them names no unit. Checked in any case (``"5M HARDCAP"``); a known currency
#: (:data:`UNIT_ALIASES`) is a unit first.
NOT_UNITS: Final = (frozenset({"token", "tokens", "coin", "coins", "day", "days", "week", "weeks",
                               "month", "months", "hour", "hours", "per", "each", "maximum",
                               "minimum", "total", "only", "bonus", "usd per", "pcs"})
                    | FOREIGN_MULTIPLIERS | PERCENT_WORDS | QUALIFIER_WORDS | FUNCTION_WORDS
                    | TOKEN_STANDARDS | {word for word in APPROXIMATION_WORDS if " " not in word})

#: A hundredth of a US dollar, written after an amount: ``"10 cents"`` and ``"10¢"`` are 0.1 USD.
CENTS: Final = frozenset({"¢", "cent", "cents"})

#: Words for the token itself after a price written per token (``"$0.1 per token"``).
TOKEN_WORDS: Final = frozenset({"token", "tokens", "coin", "coins"})

#: Codes of government currencies (``FIAT``: "any fiat").
FIAT_CODES: Final = frozenset({"USD", "EUR", "GBP", "CHF", "JPY", "CNY", "KRW", "RUB", "SGD",
                               "AUD", "CAD", "HKD", "NZD", "BRL", "FIAT"})

#: Every active ISO 4217 code of a country's currency (funds, metals and test codes left out):
#: a unit beside a number, like :data:`TOKEN_CODES`, and, like :data:`FIAT_CODES`, a
#: government currency an ICO accepts (``accepts_fiat``; :data:`CAPITALS_ONLY` of these
#: only in capitals: ``'TRY'`` is the lira, ``'try'`` no currency).
ISO_CURRENCY_CODES: Final = frozenset({
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD",
    "CDF", "CHF", "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD",
    "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ",
    "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD",
    "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR",
    "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR",
    "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN",
    "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR",
    "SDG", "SEK", "SGD", "SHP", "SLE", "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL",
    "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU",
    "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF", "XCD", "XCG", "XOF", "XPF", "YER", "ZAR",
    "ZMW", "ZWG", "ZWL"})

#: Codes that are English words (or a unit: ``kgs``), units only when written in capitals:
#: ``"5 TRY"`` is 5 Turkish lira, ``"5M try"`` and ``"10 top"`` name no unit.
CAPITALS_ONLY: Final = frozenset({
    "ALL", "BAM", "BOB", "CUP", "DOP", "ERN", "GEL", "GIP", "KGS", "MAD", "MOP", "PEN", "RON",
    "SOS", "TOP", "TRY", "YER", "ARK", "BLOCK", "FUN", "GAME", "GAS", "KIN", "MUSIC", "PART",
    "SALT", "SMART", "SUB", "ZEN", "EXP", "LEO"})

#: Codes that, in a list of the currencies an ICO accepts, are words or tokens rather than a
#: government currency, whatever their case: ``"ETH, BTC, ALL"`` is all currencies, not the
#: Albanian lek, and ``"TOP"`` the TOP token sooner than the Tongan paʻanga. Not fiat
#: (``accepts_fiat``), nor a currency counted (``n_accepted_currencies``); beside a number
#: they stay the currencies (``"5 ALL"`` is lek).
ACCEPTING_WORDS: Final = frozenset({"ALL", "TOP"})

#: Words of an accepting list's item that name no currency (any case): ``"and others"``,
#: ``"any ERC20 token"``, ``"Fiat"`` (any government currency: ``accepts_fiat``), ``"credit
#: card"``, ``"other cryptocurrencies"``. An item of such words names no currency counted
#: (``n_accepted_currencies``); with :data:`NOT_UNITS` (tokens, token standards, joining words).
NOT_CURRENCY_WORDS: Final = NOT_UNITS | frozenset({
    "fiat", "others", "other", "more", "etc", "any", "many", "most", "major", "main", "various",
    "popular", "crypto", "cryptos", "cryptocurrency", "cryptocurrencies", "currency",
    "currencies", "altcoin", "altcoins", "stablecoin", "stablecoins", "card", "cards", "credit",
    "debit", "bank", "wire", "transfer", "transfers", "paypal", "visa", "mastercard", "swift",
    "sepa", "alipay", "wechat", "skrill", "cash", "money", "payment", "payments", "methods",
    "soon", "tba", "tbd"})

#: Tickers of common crypto tokens that are no code of :data:`UNIT_ALIASES`: with those and
#: :data:`FIAT_CODES`, the codes a word beside a number may be read as without a unit column
#: or the ICO's own ticker saying so (``"5 link"`` is 5 LINK; ``"5M required"``, ``"500
#: BFC"`` for an ICO of XYZ name no unit known). No English word of :data:`NOT_UNITS`.
TOKEN_CODES: Final = frozenset({
    "ADA", "AE", "AION", "ALGO", "ARDR", "ATOM", "AVAX", "BAT", "BNT", "BSV", "BTG", "BTS",
    "BUSD", "DAI", "DASH", "DCR", "DGB", "DOGE", "DOT", "ELF", "ENJ", "FIL", "FTM", "GNO",
    "GNT", "GUSD", "HBAR", "HT", "ICX", "IOTA", "KCS", "KMD", "KNC", "LINK", "LSK", "MANA",
    "MATIC", "MIOTA", "MKR", "NANO", "NXT", "OKB", "OMG", "ONT", "PAX", "POLY", "QTUM",
    "REP", "SNT", "SOL", "STEEM", "STRAT", "TRX", "TUSD", "UNI", "USDC", "VET", "WAN", "WBTC",
    "WETH", "XEM", "XMR", "XTZ", "XVG", "ZEC", "ZIL", "ZRX",
    # ICO-era tickers (2017-2019): sale prices and accepted currencies of that time
    "GAS", "NAS", "ONG", "ARK", "KIN", "SC", "ZEN", "VEN", "USDS", "EURS", "OMNI", "STORJ",
    "SALT", "PIVX", "SYS", "GBYTE", "XZC", "HSR", "PPT", "BQX", "POWR", "SUB", "FUN", "WTC",
    "ICN", "EDG", "MCO", "MTL", "CVC", "ETP", "ELA", "IOST", "NULS", "BCN", "GAME", "XDN",
    "NEBL", "BLOCK", "PART", "SMART", "CRO", "LEO", "TOMO", "THETA", "TFUEL", "GRS", "UBQ",
    "EXP", "CLO", "MUSIC", "ETN", "XPR"})

#: Cyrillic and Greek letters that look like Latin ones, as written in tickers.
LOOKALIKES: Final[Mapping[str, str]] = {
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ү": "Y",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "к": "k", "м": "m", "н": "h", "т": "t", "в": "b",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
}

#: Platform family -> spellings of ``icos.platform`` meaning it. Any other
#: platform is its own family, as written.
PLATFORM_FAMILIES: Final[Mapping[str, tuple[str, ...]]] = {
    "Ethereum": ("ethereum", "eth", "erc20", "erc-20", "erc 20", "erc223", "erc-223",
                 "erc721", "erc-721", "ethereum erc20", "ethereum (erc20)", "ethererum",
                 "etherum", "etherium", "etheruem", "ehtereum", "ethreum", "etereum",
                 "ethereum blockchain", "ethereum network", "ethereum, erc20"),
    "Binance Smart Chain": ("binance smart chain", "bsc", "bep20", "bep-20", "bnb chain",
                            "binance chain", "bep2"),
    "Bitcoin": ("bitcoin", "btc"),
    "Stellar": ("stellar", "xlm"),
    "Tron": ("tron", "trx", "trc20", "trc-20"),
    "Waves": ("waves",),
    "NEO": ("neo", "nep5", "nep-5"),
    "EOS": ("eos",),
    "Solana": ("solana", "sol", "spl"),
    "Cardano": ("cardano", "ada"),
}

#: Social network -> keys meaning it in ``links.social`` (and the people's ``social``).
SOCIAL_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "bitcointalk": ("bitcointalk", "btc", "bitcoin talk", "btctalk", "bct", "ann",
                    "bitcointalk.org"),
    "twitter": ("twitter", "tw", "x", "x.com"),
    "telegram": ("telegram", "tg", "t.me", "telegram chat", "telegram group"),
    "facebook": ("facebook", "fb"),
    "medium": ("medium",),
    "reddit": ("reddit",),
    "github": ("github", "git hub"),
    "linkedin": ("linkedin", "linked in"),
    "youtube": ("youtube", "yt"),
    "discord": ("discord",),
    "slack": ("slack",),
}


def fold(text: str) -> str:
    """The form words are matched in: stripped, inner whitespace collapsed, casefolded.

    Examples
    --------
    >>> fold("  Not   Available ")
    'not available'
    """
    return " ".join(text.split()).casefold()


def case_variants(word: str) -> set[str]:
    """Every upper/lower-case spelling of ``word`` (for one exact-match hash lookup).

    Examples
    --------
    >>> sorted(case_variants("no"))
    ['NO', 'No', 'nO', 'no']
    """
    options = [(c.lower(), c.upper()) if c.isalpha() else (c,) for c in word]
    return {"".join(p) for p in itertools.product(*options)}


def _inverse(table: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    out = {fold(spelling): name for name, spellings in table.items() for spelling in spellings}
    if len(out) != sum(map(len, table.values())):  # pragma: no cover
        raise ImportError("a spelling names two things")
    return out


_FAMILY: Final = _inverse(PLATFORM_FAMILIES)
_NETWORK: Final = _inverse(SOCIAL_ALIASES)


def platform_family(platform: str) -> str:
    """The family of one platform spelling; other platforms as written (whitespace collapsed).

    Examples
    --------
    >>> platform_family(" ERC-20 "), platform_family("Ethererum"), platform_family("Qtum")
    ('Ethereum', 'Ethereum', 'Qtum')
    """
    cleaned = " ".join(platform.split())
    return _FAMILY.get(cleaned.casefold(), cleaned)


def social_network(key: str) -> str:
    """The network one social key names; other keys casefolded, as written.

    Examples
    --------
    >>> social_network("btc"), social_network(" Twitter "), social_network("vk")
    ('bitcointalk', 'twitter', 'vk')
    """
    folded = fold(key)
    return _NETWORK.get(folded, folded)
