"""A Client reads its key pair as configure() does: a key that cannot be a key (a control
character, blank, no text; a public key not ASCII) is refused before any request, the
private key never in the message nor in a local of the refusal's frames; a key with a
file's newline or spaces at its ends is stripped, as configure() strips it, and signs.

Before, each was taken: sent to the service (answered 480), or refused by requests' header
check with the public key quoted, and a padded private key signed every request wrongly.
A real sandbox over loopback HTTP counts the requests.
"""

from __future__ import annotations

import traceback

import pytest

from icoframes import sandbox
from icoframes.api.client import Client
from icoframes.errors import InvalidParameter
from icoframes.secret import Secret

KEY = "kEy-0f-the-Client-5521"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=3, seed=4, public_key="pub-of-test", private_key=KEY) as server:
        yield server


#: a public key of 8 or more characters is never quoted: it may be the private key given there
HIDDEN_11 = "a text of 11 characters (not shown: it may be a key)"
PRIVATE_REFUSED = "invalid private_key=<hidden>: must be a non-empty string without control " \
                  "characters"


@pytest.mark.parametrize(("public", "private", "said"), [
    ("pub-of-test", KEY + "\x01", PRIVATE_REFUSED),
    ("pub-of-test", "\x7f" + KEY, PRIVATE_REFUSED),
    ("pub-of-test", Secret(KEY + "\x00"), PRIVATE_REFUSED),
    ("pub-of-test", " \n", PRIVATE_REFUSED),
    ("pub-of-test", 12345678, "invalid private_key=<hidden>: must be a string"),
    ("pub\x01of-test", KEY, f"invalid public_key={HIDDEN_11}: must be a non-empty string "
                           "without control characters"),
    ("püb-of-test", KEY, f"invalid public_key={HIDDEN_11}: must be ASCII (it travels in an HTTP "
                        "header)"),
    ("pub", KEY + "\n" + KEY, PRIVATE_REFUSED),
    ("", KEY, "invalid public_key='': must be a non-empty string without control characters"),
    (5, KEY, "invalid public_key=5: must be a string"),
])
def test_a_key_that_cannot_be_one_is_refused_before_any_request(sb, public, private, said):
    before = sb.stats.requests.total()
    with pytest.raises(InvalidParameter) as refused:
        Client(base_url=sb.base_url, public_key=public, private_key=private)
    assert str(refused.value) == said
    assert KEY not in repr(refused.value.args)
    # no frame of the refusal (the test's own left out) holds the key given: what a
    # traceback with locals prints (pytest --showlocals, IPython's verbose mode)
    frames = [frame for frame, _ in traceback.walk_tb(refused.value.__traceback__)][1:]
    assert frames  # the package's frames
    assert not [f.f_code.co_name for f in frames if KEY in repr(f.f_locals)]
    assert KEY not in "".join(repr(v) for f in frames for v in f.f_locals.values())
    assert sb.stats.requests.total() == before


@pytest.mark.parametrize(("public", "private"), [
    (" pub-of-test\n", KEY + "\n"), ("pub-of-test", f"  {KEY}\t"),
    ("\tpub-of-test ", Secret(f"{KEY}\r\n"))])
def test_a_key_padded_as_a_file_keeps_it_is_stripped_and_signs(sb, public, private):
    with Client(base_url=sb.base_url, public_key=public, private_key=private) as client:
        assert client.public_key == "pub-of-test"
        assert {"category", "location", "platform", "type"} <= set(client.filters())
        assert client.requests["filters"] == 1 and client.total_attempts == 1
