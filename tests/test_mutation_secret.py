"""secret.py value by value: Secret's forms, checks, equality and pickle; redact_url,
RedactedURL, HiddenText and split_userinfo at their edges (`make mutate MODULE=secret`)."""

from __future__ import annotations

import copy
import pickle

import pytest

from icoframes.errors import ConfigError
from icoframes.secret import HiddenText, RedactedURL, Secret, redact_url, split_userinfo

LOST = ("this private key has no value: a pickled key never carries it. Configure the key in "
        "this process (ICOFRAMES_PRIVATE_KEY or icoframes.configure(private_key=...))")


# -- Secret -------------------------------------------------------------------------------


def test_a_secret_shows_only_hidden_in_every_form():
    key = Secret("s3cr3t")
    assert (repr(key), str(key), f"{key}", f"{key:>10}", f"{key:.3}") == (
        "Secret('<hidden>')", "<hidden>", "<hidden>", "  <hidden>", "<hi")
    assert key.reveal() == "s3cr3t"


@pytest.mark.parametrize(("value", "problem"), [
    ("key", None),
    (" key\n", None),  # read from a file: the newline is stripped before it is used
    (5, "must be a string"),
    (None, "must be a string"),
    ("", "must be a non-empty string without control characters"),
    ("  \n", "must be a non-empty string without control characters"),
    ("ke\x00y", "must be a non-empty string without control characters"),
    (" ke\ty ", "must be a non-empty string without control characters"),
])
def test_what_is_wrong_with_a_key(value, problem):
    assert Secret(value).problem() == problem


def test_stripped_keeps_the_value_without_surrounding_whitespace_or_as_it_is():
    assert Secret(" key\n").stripped().reveal() == "key"
    assert Secret(" key\n").stripped() == Secret("key")
    kept = Secret(5).stripped()
    assert isinstance(kept, Secret) and kept.problem() == "must be a string"


def test_a_key_that_is_not_text_cannot_be_revealed():
    with pytest.raises(ConfigError) as info:
        Secret(5).reveal()
    assert str(info.value) == LOST


@pytest.mark.parametrize(("value", "truth"), [("x", True), ("", False), (None, False)])
def test_a_secret_is_true_when_its_value_is(value, truth):
    assert bool(Secret(value)) is truth


def test_secrets_are_equal_by_value_never_to_text():
    assert Secret("a") == Secret("a")
    assert Secret("a") != Secret("b")
    assert Secret("a") != Secret("ab")
    assert Secret("a") != "a"
    assert Secret("a").__eq__("a") is NotImplemented
    assert Secret(None) == Secret(None)
    assert Secret("a") != Secret(None) and Secret(None) != Secret("a")
    assert Secret("\ud800x") == Secret("\ud800x")  # a lone surrogate compares too
    assert Secret("\ud800x") != Secret("\ud801x")
    assert len({Secret("a"), Secret("a"), Secret("b")}) == 2
    assert hash(Secret("a")) == hash(Secret("a"))
    # by value: keys in a dict or set spread (two values sharing a hash: about 1 in 2**61)
    assert hash(Secret("a")) != hash(Secret("b"))


def test_a_secret_is_its_own_copy_and_loses_its_value_in_a_pickle():
    key = Secret("s3cr3t")
    assert copy.copy(key) is key and copy.deepcopy(key) is key
    data = pickle.dumps(key)
    assert b"s3cr3t" not in data
    back = pickle.loads(data)
    assert isinstance(back, Secret) and repr(back) == "Secret('<hidden>')"
    assert back == Secret(None) and not back
    with pytest.raises(ConfigError) as info:
        back.reveal()
    assert str(info.value) == LOST


# -- addresses ----------------------------------------------------------------------------


@pytest.mark.parametrize(("url", "shown"), [
    ("http://user:pass@example.org:8000/x", "http://<hidden>@example.org:8000/x"),
    ("http://tok@[::1]:9/", "http://<hidden>@[::1]:9/"),
    ("http://a@b:c@host/p?q=1#f", "http://<hidden>@host/p?q=1#f"),  # the last @ ends it
    ("https://api.example.org/v1", "https://api.example.org/v1"),
    # an @ after the authority urlsplit sees: what precedes it may be a password holding
    # "/", "?" or "#" (these end the authority), so it is hidden, an @ in a path with it
    ("https://example.org/a@b", "https://<hidden>@b"),
    ("http://user:pa/ss@host/p", "http://<hidden>@host/p"),
    ("http://user:pa?ss@host", "http://<hidden>@host"),
    ("http://user:pa#ss@host", "http://<hidden>@host"),
    ("http://user:pa/s@s@host", "http://<hidden>@host"),  # two @ after it: the last ends it
    ("http://u:p@host/a@b", "http://<hidden>@host/a@b"),  # an authority with its @: the path kept
    ("http://u:p@[::1", "<hidden>"),  # unparseable with an @: all of it hidden
    ("http://[::1", "http://[::1"),  # unparseable without: as it is
    ("user:pw@example.org", "<hidden>@example.org"),  # no scheme: read as scheme "user"
    ("user:p@ss@example.org/x", "<hidden>@example.org/x"),  # an @ in the password: the last
    ("http//user:pw@x/p", "<hidden>@x/p"),  # a mistyped scheme: no authority at all
    ("mailto:someone@example.org", "<hidden>@example.org"),  # no authority: hidden too
    ("example.org/a", "example.org/a"),
])
def test_redact_url(url, shown):
    assert redact_url(url) == shown


def test_a_redacted_url_is_the_address_with_a_repr_that_hides_its_user():
    url = RedactedURL("http://user:pw@example.org:8000")
    assert repr(url) == "'http://<hidden>@example.org:8000'"
    assert url == "http://user:pw@example.org:8000" and f"{url}" == str(url)
    assert hash(url) == hash("http://user:pw@example.org:8000")


def test_hidden_text_is_used_as_it_is_and_shows_hidden():
    text = HiddenText("Basic dTpw")
    assert repr(text) == "'<hidden>'" and text == "Basic dTpw" and f"{text}" == "<hidden>"
    assert text.encode("latin-1") == b"Basic dTpw" and hash(text) == hash("Basic dTpw")


@pytest.mark.parametrize(("url", "plain", "header"), [
    ("http://us%40er:p%3Aw@example.org:8/x", "http://example.org:8/x", "Basic dXNAZXI6cDp3"),
    ("http://:pw@example.org", "http://example.org", "Basic OnB3"),  # ":pw"
    ("http://user:@example.org", "http://example.org", "Basic dXNlcjo="),  # "user:"
    ("http://us\u00e9r:p@example.org", "http://example.org", "Basic dXPpcjpw"),  # Latin-1
    ("http://a@b:c@host/p", "http://host/p", "Basic YUBiOmM="),  # "a@b:c"
])
def test_split_userinfo_makes_the_basic_header_requests_would(url, plain, header):
    got_plain, got_header = split_userinfo(url)
    assert got_plain == plain
    assert got_header is not None and got_header.reveal() == header


@pytest.mark.parametrize(("url", "plain"), [
    ("http://user@example.org", "http://example.org"),  # no password: no auth
    ("http://:@example.org/x", "http://example.org/x"),  # both empty: no auth
    ("https://example.org/a@b", "https://example.org/a@b"),
    ("https://example.org/", "https://example.org/"),
])
def test_split_userinfo_without_a_header(url, plain):
    assert split_userinfo(url) == (plain, None)


@pytest.mark.parametrize(("url", "shown"), [
    ("http://u:p@[::1", "<hidden>"),
    ("http://u:\u20ac@example.org", "http://<hidden>@example.org"),  # not Latin-1
])
def test_user_information_that_cannot_be_sent_is_refused_without_showing_it(url, shown):
    with pytest.raises(ConfigError) as info:
        split_userinfo(url)
    assert str(info.value) == (f"base_url {shown!r}: its user information cannot be sent "
                               "(HTTP Basic auth needs a parseable address and Latin-1 text)")


@pytest.mark.parametrize("url", ["user:pw@example.org", "http//user:pw@example.org",
                                 "ftp://user:pw@example.org"])
def test_a_base_url_without_a_usable_scheme_is_refused_without_showing_its_password(url):
    import icoframes
    from icoframes.errors import InvalidParameter

    with pytest.raises(InvalidParameter) as info:
        icoframes.configure(base_url=url)
    assert "pw" not in str(info.value) and "<hidden>@example.org" in str(info.value)
