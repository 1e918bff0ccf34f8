"""How a request proves who sends it: its signature (spec section 5, :func:`sign`), and
HTTP Basic auth from the user information of ``base_url``, never shown.

``http://user:pass@host`` is sent as requests would send it (an ``Authorization:
Basic`` header), but the address requests is given has no user information: the
header is set on each prepared request from a :class:`~icoframes.secret.Secret`,
as a :class:`~icoframes.secret.HiddenText`. So no frame of a request (the
client's, requests', urllib3's) holds the password in a local that a traceback
with locals would print: not in a URL, not in a header's ``repr``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from requests import PreparedRequest
from requests.auth import AuthBase

from ..config import checked_settings, hide
from ..errors import InvalidParameter
from ..readers import same_key
from ..secret import HiddenText, Secret, split_userinfo

__all__ = ["BasicFromURL", "read_keys", "sign", "url_and_auth"]


def read_keys(public_key: Any, private_key: Any) -> tuple[str, Secret] | InvalidParameter:
    """The key pair read as :func:`icoframes.configure` reads it (each stripped: a key read
    from a file keeps its newline; the private key a :class:`~icoframes.secret.Secret`), or
    the InvalidParameter configure() raises for it (a key that is no text, blank, with a
    control character; a public key not ASCII; one key as both). A client and the sandbox
    read their keys here, once. The refusal is returned, not raised
    (:func:`~icoframes.config.checked_settings`): its caller raises it once no local of its
    own holds the keys' text (a traceback's locals: ``capture_locals``, ``pytest
    --showlocals``); the private key is never in the message (``private_key=<hidden>``)."""
    read, refusal = checked_settings({"public_key": public_key,
                                      "private_key": hide("private_key", private_key)})
    refusal = refusal or same_key(public_key, read["private_key"])
    if refusal is None:
        return read["public_key"], read["private_key"]
    # (the arguments' reading: never a ConfigError, which names a variable)
    return refusal if isinstance(refusal, InvalidParameter) else InvalidParameter(str(refusal))


def sign(body: bytes, private_key: Secret | str) -> str:
    """Signature of spec section 5: Base64 of the raw HMAC-SHA256 of ``body`` (reads the key).

    Examples
    --------
    >>> sign(b'{"id":1}', Secret("secret"))
    'A971iWIMgT8Zj9A9eWfikrFj7wQ16/Qwcc4OlRl2PLc='
    """
    key = private_key if isinstance(private_key, Secret) else Secret(private_key)
    digest = hmac.new(key.reveal().encode("utf-8"), body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


class BasicFromURL(AuthBase):
    """Sets the ``Authorization`` header made of ``base_url``'s user information.

    Parameters
    ----------
    header : Secret
        The header value (``"Basic ..."``), from :func:`~icoframes.secret.split_userinfo`.
    """

    def __init__(self, header: Secret) -> None:
        self.__header = header

    def __call__(self, request: PreparedRequest) -> PreparedRequest:
        request.headers["Authorization"] = HiddenText(self.__header.reveal())
        return request

    def __repr__(self) -> str:
        return "BasicFromURL(<hidden>)"


def url_and_auth(base_url: str) -> tuple[str, BasicFromURL | None]:
    """``base_url`` without user information, and the auth that sends it (None without).

    Examples
    --------
    >>> url_and_auth("http://user:pw@127.0.0.1:8000"), url_and_auth("http://127.0.0.1:8")
    (('http://127.0.0.1:8000', BasicFromURL(<hidden>)), ('http://127.0.0.1:8', None))
    """
    plain, header = split_userinfo(base_url)
    return plain, None if header is None else BasicFromURL(header)
