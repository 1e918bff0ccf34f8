"""``n_accepted_currencies`` counts the items that name a currency, not free text.

On 9bc57721 every accepting item was a currency counted, by its text upper-cased when no code
was known: ``"ETH, and others"`` was 2 (``OTHERS``), ``"any ERC20 token"`` 1, ``"BTC, ETH, and
Fiat currency"`` 3 (``FIAT``), ``"ETH, Credit card, Wire transfer"`` 3. Now an item counts when
it names a currency (``icoframes.parse.accepted``): a known code or name, one word that may be a
token's ticker (``"HASH"``, the misspelled ``"USTD"``), or known codes joined (``"ETH/BTC"``);
the words of ``vocabulary.NOT_CURRENCY_WORDS`` name none, and ``"Fiat"`` (any government
currency) is said by ``accepts_fiat``, which is unchanged. An item with a note in brackets
(``"ETH (ERC20)"``) counts the currency before it, as ``accepts_fiat`` reads it (s18b counted
none), and ``"try"`` in lower case is no lira (s18b counted it).
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from messy_profiles import clean_profile, with_

import icoframes
from icoframes.features import compute_features
from icoframes.parse.profiles import tidy
from icoframes.vocabulary import NOT_CURRENCY_WORDS, NOT_UNITS

# (accepting as the service sends it, currencies named, accepts_fiat); the lists after the
# first five are written as in the public ICObench-derived set of 6,146 ICOs
CASES = [
    ("ETH, and others", 1, False), ("any ERC20 token", 0, False),
    ("BTC, ETH, and Fiat currency", 2, True), ("ETH, Credit card, Wire transfer", 1, False),
    (["ETH", "other cryptocurrencies", "20+ cryptocurrencies", "etc."], 1, False),
    ("ETH, BTC, Fiat", 2, True), ("BTC , ETH , LTC , DOGE", 4, False),
    ("BTC, ETH, LTC, XRP, USTD, BCH", 6, False), ("BTC, LTC, ETH, USD, TRON, USDT, XRP", 7, True),
    ("ETH, XRP, BTC, LTC, MAD, EUR, USD", 7, True), ("ETH,Fiat", 1, True),
    (["ETH/BTC", "LTC and DASH", "Bitcoin Cash"], 5, False), (["HASH", "hash", "ERC20"], 1, False),
    (["Fiat"], 0, True), (["PayPal", "Visa/MasterCard", "bank transfer"], 0, False),
    ("BTC, ZEC, ETC, LTC, BCH", 5, False), ("ETH, BTC, etc", 2, False),
    # a note in brackets: the currency before it counts, as accepts_fiat reads it
    ("ETH (ERC20), BTC", 2, False), (["EUR (bank transfer)"], 1, True),
    (["BTC (bank transfer)", "HASH (ERC20)"], 2, False), ("BTC and HASH", 2, False),
    ("BTC, HASH", 2, False), (["ETH", "try"], 1, False), (["ETH and BTC only"], 2, False),
]


def _ids(cases):
    return [str(accepting) for accepting, _, _ in cases]


@pytest.mark.parametrize(("accepting", "count", "fiat"), CASES, ids=_ids(CASES))
def test_only_items_naming_a_currency_are_counted(accepting, count, fiat):
    tables = tidy([with_(clean_profile(), {"finance.accepting": accepting})])
    row = compute_features(tables).loc[0]
    assert row["n_accepted_currencies"] == count
    assert bool(row["accepts_fiat"]) is fiat


def test_the_words_are_declared_once_with_those_that_are_never_a_unit():
    assert NOT_UNITS <= NOT_CURRENCY_WORDS
    assert {"fiat", "others", "any", "cryptocurrencies", "paypal"} <= NOT_CURRENCY_WORDS
    assert all(word == word.casefold() for word in NOT_CURRENCY_WORDS)


def test_a_load_counts_the_currencies_named(configure):
    lists = {i: accepting for i, (accepting, _, _) in enumerate(CASES, start=1)}

    def profile(h):
        asked = int(h.request_json()["id"])
        json_reply({"error": None,
                    "data": with_(clean_profile(asked), {"finance.accepting": lists[asked]})})(h)

    with HostileServer({LIST: paged_list(len(CASES)), PROFILE: profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
        assert (srv.hits[LIST], srv.hits[PROFILE]) == (2, len(CASES))  # pages of 20
    features = compute_features(tables).set_index("ico_id").sort_index()
    assert features["n_accepted_currencies"].dtype == "int64"
    assert features["n_accepted_currencies"].tolist() == [count for _, count, _ in CASES]
    assert features["accepts_fiat"].tolist() == [fiat for _, _, fiat in CASES]
