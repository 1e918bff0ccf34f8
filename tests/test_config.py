"""Settings precedence and the errors that say how to fix them."""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import pydoc
import re
import tomllib
from pathlib import Path

import pytest

import icoframes
from icoframes.config import SETTINGS, Settings, get_settings, unchanged
from icoframes.errors import ConfigError, InvalidParameter
from icoframes.secret import Secret

SETTINGS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "getting-started.md"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


pytestmark = pytest.mark.usefixtures("clean_settings")


def test_arguments_beat_env_vars_which_beat_defaults(monkeypatch, tmp_path):
    default = get_settings()
    assert default.max_workers == 8 and default.base_url is None
    assert "icoframes" in str(default.cache_dir)
    monkeypatch.setenv("ICOFRAMES_BASE_URL", "http://127.0.0.1:9/api/v1/")
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "3")
    s = get_settings()
    assert s.base_url == "http://127.0.0.1:9"  # /api/v1 suffix and slash dropped
    assert s.cache_dir == tmp_path / "env" and s.max_workers == 3
    icoframes.configure(cache_dir=tmp_path / "arg", max_workers=5)
    s = get_settings()
    assert s.cache_dir == tmp_path / "arg" and s.max_workers == 5
    assert s.base_url == "http://127.0.0.1:9"
    icoframes.configure(cache_dir=None)  # None drops the override
    assert get_settings().cache_dir == tmp_path / "env"


@pytest.mark.parametrize(("given", "read"), [("HTTP://127.0.0.1:9", "http://127.0.0.1:9"),
                                             ("Https://x.org/api/v1/", "https://x.org")])
def test_a_scheme_in_capitals_is_that_scheme(given, read):
    # a URL's scheme has no case (RFC 3986 3.1): "HTTP://" was refused, "must start with http://"
    assert icoframes.configure(base_url=given, public_key="p", private_key="k").base_url == read


def test_missing_keys_say_how_to_set_them():
    with pytest.raises(ConfigError) as info:
        get_settings().require_credentials()
    message = str(info.value)
    for needle in ("ICOFRAMES_BASE_URL", "ICOFRAMES_PUBLIC_KEY", "ICOFRAMES_PRIVATE_KEY",
                   "configure(", "sandbox"):
        assert needle in message


def test_private_key_is_never_in_repr_or_errors(monkeypatch):
    s = icoframes.configure(base_url="http://127.0.0.1:1", public_key="pub",
                            private_key="s3cr3t-value")
    assert "s3cr3t-value" not in repr(s) and "s3cr3t-value" not in str(s)
    with pytest.raises(InvalidParameter) as info:
        icoframes.configure(private_key=12345)
    assert "12345" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [({"base_url": "ftp://x"}, "http"), ({"max_workers": 0}, "between"),
     ({"timeout": -1}, "positive"), ({"daily_quota": 0}, "between 1 and 9223372036854775807"),
     # beyond SQLite's integers: the first booking of a load raised OverflowError
     ({"daily_quota": 2**63}, "between 1 and 9223372036854775807"),
     ({"quota_reset": "24:00"}, "HH:MM"), ({"quota_reset": 6}, "HH:MM")],
)
def test_invalid_settings_are_rejected(kwargs, fragment):
    with pytest.raises(InvalidParameter, match=fragment):
        icoframes.configure(**kwargs)


def test_bad_env_var_names_the_variable(monkeypatch):
    monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "many")
    with pytest.raises(ConfigError, match="ICOFRAMES_MAX_WORKERS"):
        get_settings()


def test_cache_dir_expands_user(monkeypatch):
    icoframes.configure(cache_dir="~/somewhere")
    assert get_settings().cache_dir == Path("~/somewhere").expanduser()


def test_every_setting_is_a_field_a_parameter_and_an_env_var(monkeypatch, tmp_path):
    names = [s.name for s in SETTINGS]
    assert [f.name for f in dataclasses.fields(Settings)] == names
    parameters = inspect.signature(icoframes.configure).parameters
    assert [n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY] == names
    # one valid value per setting, as text: a new setting must be added here too
    text = {"base_url": "http://127.0.0.1:7", "public_key": "pk", "private_key": "sk",
            "cache_dir": str(tmp_path), "service_name": "sandbox-0-10-abc", "max_workers": "5",
            "timeout": "2.5",
            "daily_quota": "10", "quota_reset": "06:30 UTC", "max_response_bytes": "65536"}
    for setting in SETTINGS:
        monkeypatch.setenv(setting.env, text[setting.name])
    read = get_settings()
    assert {n: getattr(read, n) for n in names} == {
        "base_url": "http://127.0.0.1:7", "public_key": "pk", "private_key": Secret("sk"),
        "cache_dir": tmp_path, "service_name": "sandbox-0-10-abc", "max_workers": 5,
        "timeout": 2.5, "daily_quota": 10, "quota_reset": dt.time(6, 30),
        "max_response_bytes": 65536}


def test_help_shows_real_names_and_readable_defaults():
    signature = inspect.signature(icoframes.configure)
    for setting in SETTINGS:
        parameter = signature.parameters[setting.name]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        assert parameter.default is unchanged
    assert "max_workers: 'int | None' = unchanged" in str(signature)
    page = pydoc.render_doc(icoframes.configure, renderer=pydoc.plaintext)
    assert "object at 0x" not in page
    for setting in SETTINGS:
        assert setting.env in page
    assert "default: 8." in page and "default: 5000." in page
    assert "object at 0x" not in pydoc.render_doc(Settings, renderer=pydoc.plaintext)
    # the module docstring's table is made from the same rows
    assert "ICOFRAMES_TIMEOUT" in icoframes.config.__doc__


def test_leaving_an_argument_out_keeps_it_and_none_drops_it(tmp_path):
    icoframes.configure(max_workers=3, cache_dir=tmp_path)
    assert icoframes.configure(timeout=4).max_workers == 3
    assert icoframes.configure(max_workers=unchanged).max_workers == 3
    after = icoframes.configure(max_workers=None)
    assert after.max_workers == 8 and after.cache_dir == tmp_path and after.timeout == 4.0


def test_a_misspelled_setting_gets_a_suggestion():
    with pytest.raises(InvalidParameter,
                       match="unknown setting 'max_worker'; did you mean 'max_workers'"):
        icoframes.configure(max_worker=3)
    with pytest.raises(InvalidParameter, match="did you mean 'timeout'"):
        get_settings(timeot=3)
    assert get_settings().max_workers == 8  # nothing changed


def test_private_key_is_hidden_in_env_errors_and_help(monkeypatch):
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", "s3cr3t\x01tail")
    with pytest.raises(ConfigError) as info:
        get_settings()
    assert "ICOFRAMES_PRIVATE_KEY=<hidden>" in str(info.value) and "s3cr3t" not in str(info.value)
    monkeypatch.setenv("ICOFRAMES_PRIVATE_KEY", "s3cr3t-value")
    s = get_settings()
    assert s.private_key is not None and s.private_key.reveal() == "s3cr3t-value"
    assert "s3cr3t" not in repr(s) and "private_key" not in repr(s)


def test_the_settings_page_shows_the_declaration():
    text = SETTINGS_PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    # the table is made from SETTINGS when the site is built, never copied
    assert ".. icoframes-settings::" in section
    assert "ICOFRAMES_BASE_URL" not in section


def test_type_checkers_see_the_settings_and_configure():
    """``make lint``'s mypy run checks tests/typecheck_settings.py, a user's calls: the types
    of Settings and configure's refusals (a str for an int, a misspelled setting) are
    ``assert_type`` and ``# type: ignore[...]`` lines there, each an error of the lint when
    it no longer holds (``warn_unused_ignores``). Checked there rather than by running mypy
    here: a second, cold mypy run of icoframes and pandas-stubs took a minute of the suite."""
    mypy = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert "tests/typecheck_settings.py" in mypy["files"] and mypy["warn_unused_ignores"]
    checks = (PYPROJECT.parent / "tests" / "typecheck_settings.py").read_text(encoding="utf-8")
    assert "assert_type(settings.max_workers, int)" in checks
    assert "assert_type(icoframes.get_settings().private_key, Secret | None)" in checks
    assert len(re.findall(r"icoframes\.configure\(.*# type: ignore\[arg-type\]", checks)) == 2
