"""What a type checker sees of the settings: checked by mypy in ``make lint``, never run.

The statements are in a function no test calls. Each line ending in ``# type: ignore[...]``
must be an error: mypy's ``warn_unused_ignores`` fails the lint when it is not (a wrong
argument would pass a user's type check); ``assert_type`` fails it when a type changes.
"""

from __future__ import annotations

from typing import assert_type

import icoframes
from icoframes.secret import Secret


def a_user_configures_icoframes() -> None:
    settings = icoframes.configure(max_workers=4, cache_dir="x")
    assert_type(settings.max_workers, int)
    assert_type(icoframes.get_settings().private_key, Secret | None)
    icoframes.configure(max_workers="four")  # type: ignore[arg-type]  # a str, not an int
    icoframes.configure(max_worker=4)  # type: ignore[arg-type]  # a misspelled setting
