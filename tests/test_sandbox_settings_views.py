"""sb.settings() (what a notebook shows): its items() and values() hide the private key as
its repr does; a key it lacks is refused with a "did you mean" whatever the method (del
too), and the refusal never shows the key looked up (a secret looked up by mistake)."""

from __future__ import annotations

import pickle

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, UnknownName

KEY = "sandbox-private-9f8e7d"


@pytest.fixture(scope="module")
def settings():
    with sandbox.serve(n_icos=5, seed=1, private_key=KEY) as sb:
        yield sb.settings()


def test_items_and_values_hide_the_private_key(settings):
    # a notebook cell ending in sb.settings().items() showed the key in clear
    for view in (settings.items(), settings.values()):
        assert KEY not in repr(view) and KEY not in str(view) and "'<hidden>'" in repr(view)
    assert repr(settings.items()).startswith("dict_items([('base_url', ")
    assert repr(settings.values()).startswith("dict_values([")
    # as views they are what a dict's are: the values themselves, set operations, live
    assert dict(settings.items()) == dict(settings) and ("private_key", KEY) in settings.items()
    assert KEY in settings.values() and list(settings.values()) == list(dict(settings).values())
    assert settings.items() & {("private_key", KEY)} == {("private_key", KEY)}
    copy = settings.copy()
    items, values = copy.items(), copy.values()
    copy["extra"] = 1
    assert ("extra", 1) in items and 1 in values and len(items) == 5
    icoframes.configure(**dict(settings.items()))
    icoframes.reset_configuration()


@pytest.mark.parametrize("lookup", [
    lambda s: s[KEY], lambda s: s.pop(KEY), lambda s: s.copy().__delitem__(KEY),
    lambda s: s["privat_key"], lambda s: s.copy().__delitem__("privat_key")])
def test_a_key_it_lacks_is_refused_without_showing_it(settings, lookup):
    """del s['privat_key'] was a bare KeyError; s[<the private key>] echoed the key."""
    with pytest.raises(UnknownName) as missing:
        lookup(settings)
    assert isinstance(missing.value, KeyError)
    assert KEY not in str(missing.value) and "privat_key'" not in str(missing.value)
    assert str(missing.value).startswith("that key is not a setting of sb.settings() (base_url, "
                                         "public_key, private_key, service_name)")


def test_del_of_a_key_it_has_still_deletes(settings):
    copy = settings.copy()
    del copy["service_name"]
    assert "service_name" not in copy and "service_name" in settings


@pytest.mark.parametrize("call", [lambda s: s.get("x", key=1), lambda s: s.get(key="base_url"),
                                  lambda s: s.pop(key="x", default=3),
                                  lambda s: s.copy().setdefault(key="x")])
def test_the_key_given_as_a_keyword_is_refused_as_a_dict_refuses_it(settings, call):
    """s.get('x', key=1) was a bare TypeError naming the private class ('_Settings.get() got
    multiple values for argument key'); a dict's key is positional only."""
    with pytest.raises(InvalidParameter) as refused:
        call(settings)
    assert str(refused.value).startswith("key is not a keyword of ")
    assert "_Settings" not in str(refused.value)


def test_it_still_pickles_and_reads_as_a_dict(settings):
    back = pickle.loads(pickle.dumps(settings))
    assert back == settings and KEY not in repr(back.items())
    assert settings.get("base_url", default=None) == settings["base_url"]
