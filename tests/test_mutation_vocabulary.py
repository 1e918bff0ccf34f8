"""vocabulary.py's functions: the folded form words are matched in, every case spelling of a
word, a platform's family and a social key's network (`make mutate MODULE=vocabulary`)."""

from __future__ import annotations

import pytest

from icoframes.vocabulary import case_variants, fold, platform_family, social_network


@pytest.mark.parametrize(("text", "folded"), [
    ("  Not   Available ", "not available"),
    ("\tTBA\n", "tba"),
    ("Stra\u00dfe", "strasse"),  # casefolded, not only lower-cased
    ("", ""),
])
def test_fold(text, folded):
    assert fold(text) == folded


@pytest.mark.parametrize(("word", "variants"), [
    ("no", {"no", "No", "nO", "NO"}),
    ("a1", {"a1", "A1"}),  # a digit has one case
    ("n/a", {"n/a", "N/a", "n/A", "N/A"}),
    ("\u216b-a", {"\u216b-a", "\u216b-A"}),  # a Roman numeral has a lower case but is no letter
    ("", {""}),
])
def test_case_variants(word, variants):
    assert case_variants(word) == variants


@pytest.mark.parametrize(("platform", "family"), [
    (" ERC-20 ", "Ethereum"), ("ETHERUM", "Ethereum"), ("ethereum   erc20", "Ethereum"),
    ("My  Own \t Chain", "My Own Chain"),  # another platform: as written, spaces collapsed
    ("Qtum", "Qtum"), ("QTUM", "QTUM"),
])
def test_platform_family(platform, family):
    assert platform_family(platform) == family


@pytest.mark.parametrize(("key", "network"), [
    ("btc", "bitcointalk"), (" BTC ", "bitcointalk"), (" Twitter ", "twitter"),
    ("VK", "vk"), ("Linked   In", "linkedin"), ("Vk  Page", "vk page"),  # other keys: folded
])
def test_social_network(key, network):
    assert social_network(key) == network
