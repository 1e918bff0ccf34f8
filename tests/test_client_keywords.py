"""Making a client refuses a keyword it lacks as its methods do: Client(...), Client.from_settings
and sb.client(...) (whose keywords go to Client) give an InvalidParameter with a "did you mean",
never Python's bare TypeError, never showing the value (a key may be given under a wrong name).
Nothing is sent: the sandbox counts no request."""

from __future__ import annotations

import pickle
import traceback

import pytest

import icoframes
from icoframes import sandbox
from icoframes.api.client import Client
from icoframes.errors import InvalidParameter

KEY = "sandbox-private-5c4b3a"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=5, seed=1, private_key=KEY) as server:
        yield server


@pytest.fixture
def configured(sb):
    icoframes.configure(**sb.settings())
    yield icoframes.get_settings()
    icoframes.reset_configuration()


def _refused(call) -> str:
    with pytest.raises(InvalidParameter) as refused:
        call()
    assert KEY not in str(refused.value)
    return str(refused.value)


def test_client_refuses_a_keyword_it_lacks(sb):
    # was "Client.__init__() got an unexpected keyword argument 'privat_key'"
    message = _refused(lambda: Client(base_url=sb.base_url, public_key="k", privat_key=KEY))
    assert message == "privat_key is not a keyword of Client(); did you mean 'private_key'?"
    assert _refused(lambda: Client(base_url=sb.base_url, public_key="k", private_key=KEY,
                                   timeot=1)).endswith("did you mean 'timeout'?")
    before = sb.stats.requests.total()
    with Client(base_url=sb.base_url, public_key=sb.public_key, private_key=KEY) as client:
        assert client.total_requests == 0  # the keywords it has still make one
    assert sb.stats.requests.total() == before


def test_a_subclass_takes_the_keywords_of_its_own_init(sb):
    """Client's check of keywords runs before __init__; a subclass whose __init__ takes a
    keyword of its own (review Z: refused as 'label is not a keyword of Client()') makes a
    client, and what it passes on that Client lacks is refused by Client's __init__ (Python's
    TypeError, naming the keyword alone); one that keeps Client's __init__ is
    checked as Client."""

    class Labelled(Client):
        def __init__(self, *, label: str, **kwargs):
            super().__init__(**kwargs)
            self.label = label

    class Plain(Client):
        pass

    with Labelled(label="mine", base_url=sb.base_url, public_key=sb.public_key,
                  private_key=KEY) as client:
        assert client.label == "mine" and client.total_requests == 0
    with pytest.raises(TypeError, match="privat_key") as refused:  # Client.__init__'s refusal
        Labelled(label="mine", base_url=sb.base_url, public_key=sb.public_key, privat_key=KEY)
    assert KEY not in str(refused.value)
    assert _refused(lambda: Plain(base_url=sb.base_url, public_key="k", privat_key=KEY)) == (
        "privat_key is not a keyword of Client(); did you mean 'private_key'?")


def test_sandbox_client_refuses_a_keyword_client_lacks(sb):
    assert _refused(lambda: sb.client(privat_key=KEY)) == (
        "privat_key is not a keyword of Client(); did you mean 'private_key'?")
    assert _refused(lambda: sb.client(pool_sise=2)).endswith("did you mean 'pool_size'?")
    # the address and keys are the sandbox's: was "got multiple values for keyword argument"
    assert _refused(lambda: sb.client(base_url=KEY)).startswith(
        "base_url: sb.client() gives the sandbox's own")
    with sb.client(pool_size=2) as client:
        assert client.base_url == sb.base_url


@pytest.mark.parametrize(("kwargs", "said"), [
    ({"timeot": 1}, "timeot is not a keyword of from_settings(); did you mean 'timeout'?"),
    ({"privat_key": KEY}, "privat_key is not a keyword of from_settings(): private_key comes "
                          "from the settings (configure(private_key=...) first), or call "
                          "Client(private_key=...)"),
    ({"base_url": "http://127.0.0.1:1"}, "base_url is not a keyword of from_settings(): "
                                         "base_url comes from the settings"),
    ({"settings": 1}, "settings must be a Settings (icoframes.get_settings()) or None, got int"),
    ({"settings": {"base_url": "x"}}, "settings must be a Settings"),
])
def test_from_settings_refuses_what_it_does_not_take(configured, kwargs, said):
    """from_settings(settings=1) was an AttributeError, from_settings(timeot=1) a bare
    TypeError, base_url=... 'got multiple values for keyword argument'."""
    assert _refused(lambda: Client.from_settings(**kwargs)).startswith(said)


def test_from_settings_refuses_a_keyword_before_asking_for_settings():
    # unconfigured: the misspelled keyword is said, not a ConfigError about missing keys
    icoframes.reset_configuration()
    assert _refused(lambda: Client.from_settings(timeot=1)).endswith("did you mean 'timeout'?")


def test_from_settings_still_makes_a_client(configured, sb):
    with Client.from_settings(timeout=5) as client:
        assert client.base_url == sb.base_url
    with Client.from_settings(configured, pool_size=2) as client:
        assert client.base_url == sb.base_url
    assert pickle.loads(pickle.dumps(Client.profile)) is Client.profile


@pytest.mark.parametrize("call", [
    lambda sb: Client(base_url=sb.base_url, public_key="p", privat_key=KEY),
    lambda sb: sb.client(privat_key=KEY), lambda sb: sb.client(private_key=KEY),
    lambda sb: Client.from_settings(privat_key=KEY)])
def test_no_frame_of_a_refusal_holds_the_key_given(configured, sb, call):
    """The refusal's traceback (pytest --showlocals, a notebook's verbose traceback) shows
    every frame's locals: none holds the key given under a wrong name."""
    with pytest.raises(InvalidParameter) as refused:
        call(sb)
    frames = [frame for frame, _ in traceback.walk_tb(refused.value.__traceback__)][1:]
    assert frames  # the package's own frames, the test's left out
    assert not [f.f_code.co_name for f in frames if KEY in repr(f.f_locals)]


def test_the_locals_of_a_client_that_failed_to_be_made_can_be_shown():
    """A value __init__ refuses (timeout="x") fails half-way; a traceback showing its locals
    (capture_locals: pytest --showlocals, IPython's verbose mode) read repr(self) and raised
    AttributeError (review Z); the half-made client says so, and no key shows."""
    with pytest.raises(ValueError) as refused:
        Client(base_url="http://127.0.0.1:9", public_key="k", private_key=KEY, timeout="x")
    shown = "".join(traceback.TracebackException.from_exception(
        refused.value, capture_locals=True).format())
    assert "Client(<not made>)" in shown and KEY not in shown
