"""A keyword a public function lacks is refused as InvalidParameter with a "did you mean",
never Python's bare TypeError ("got an unexpected keyword argument"), which suggests
nothing (more of test_arguments_mean_one_thing)."""

from __future__ import annotations

import inspect
import pickle
import typing

import pandas as pd
import pytest
from hostile import refusing_port

import icoframes
from icoframes import sandbox
from icoframes.api.client import Client
from icoframes.errors import InvalidParameter, UnknownName, checked_keywords, closest


@pytest.fixture
def nowhere(tmp_path):
    """Settings whose service refuses every connection: nothing could be fetched."""
    with refusing_port() as port:
        icoframes.configure(base_url=f"http://127.0.0.1:{port}/api/v1", public_key="k",
                            private_key="s", cache_dir=tmp_path / "cache")
        yield
    icoframes.reset_configuration()


def _profiles():
    return [{"id": 1, "main": {"name": "A"}}]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: icoframes.report(pd.DataFrame(), bogus=1),
     "bogus is not a keyword of report(); its keywords: result"),
    (lambda: icoframes.report(reslt=None),
     "reslt is not a keyword of report(); did you mean 'result'?"),
    (lambda: icoframes.tidy(_profiles(), bogus=1),
     "bogus is not a keyword of tidy(); its keywords: profiles, statuses, tables"),
    (lambda: icoframes.tidy(_profiles(), status={1: "past"}),
     "status is not a keyword of tidy(); did you mean 'statuses'?"),
    (lambda: icoframes.describe(tabel="icos"),
     "tabel is not a keyword of describe(); did you mean 'table'?"),
    (lambda: icoframes.reset_configuration(everything=True),
     "everything is not a keyword of reset_configuration(); its keywords: none"),
    (lambda: icoframes.format_usd(value=1.0),
     "value is not a keyword of format_usd(); its keywords: x"),
    (lambda: icoframes.tidy(_profiles()).subset(id_or_mask=[1]),
     "id_or_mask is not a keyword of subset(); did you mean 'ids_or_mask'?"),
    (lambda: icoframes.tidy(_profiles()).to_parquet(folder="x"),
     "folder is not a keyword of to_parquet(); its keywords: directory"),
    (lambda: icoframes.tidy(_profiles()).problem_summary(by="table"),
     "by is not a keyword of problem_summary(); its keywords: none"),
    (lambda: icoframes.tidy(_profiles()).with_report(reports=None),
     "reports is not a keyword of with_report(); did you mean 'report'?"),
    # serve is start by another name: the refusal names the one the user called
    (lambda: sandbox.serve(n_ico=5),
     "n_ico is not a keyword of serve(); did you mean 'n_icos'?"),
    (lambda: sandbox.serve(seeed=1),
     "seeed is not a keyword of serve(); did you mean 'seed'?"),
    (lambda: sandbox.start(n_ico=5),
     "n_ico is not a keyword of start(); did you mean 'n_icos'?"),
    (lambda: sandbox.rates(wid=True),
     "wid is not a keyword of rates(); did you mean 'wide'?"),
    (lambda: sandbox.generate_directory(5, sed=1),
     "sed is not a keyword of generate_directory(); did you mean 'seed'?"),
])
def test_an_unknown_keyword_is_refused_with_a_did_you_mean(call, message):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert str(info.value) == message


def _takes_any_keyword(function):
    return any(p.kind is inspect.Parameter.VAR_KEYWORD
               for p in inspect.signature(function).parameters.values())


def _public_functions():
    """Every public function of a fixed signature: those taking ``**kwargs`` (a loader's
    filters, configure's settings, matplotlib's keywords) check them by their own rules."""
    for name in sorted(icoframes.__all__):
        value = getattr(icoframes, name)
        if callable(value) and not inspect.isclass(value) and not _takes_any_keyword(value):
            yield name, value
    for name in ("serve", "rates", "generate_directory"):
        yield f"sandbox.{name}", getattr(sandbox, name)


@pytest.mark.parametrize(("name", "function"), list(_public_functions()))
def test_no_public_function_answers_an_unknown_keyword_with_a_bare_type_error(
        name, function, nowhere):
    with pytest.raises(InvalidParameter, match=r"^zzz_unknown is not a keyword of "):
        function(zzz_unknown=1)


def test_the_declared_closeness_rule_is_the_one_the_loaders_use():
    assert closest("refesh", ["refresh", "offline"]) == ["refresh"]
    assert checked_keywords.__module__ == "icoframes.errors"
    from icoframes.api.params import closest as params_closest
    from icoframes.queries import checked_keywords as queries_checked

    assert params_closest is closest and queries_checked is checked_keywords


# -- methods: every public method of every public class -----------------------------------


def _classes_in(annotation: object, found: set[type]) -> None:
    if inspect.isclass(annotation) and annotation.__module__.startswith("icoframes."):
        found.add(annotation)
    for argument in typing.get_args(annotation):
        _classes_in(argument, found)


def _hinted_classes(obj: object) -> set[type]:
    """The icoframes classes ``obj``'s annotations name (a return, a field, a parameter)."""
    try:
        hints = typing.get_type_hints(obj)
    except (NameError, TypeError):  # a plot's Axes, imported for type checking only
        return set()
    found: set[type] = set()
    for annotation in hints.values():
        _classes_in(annotation, found)
    return found


def _public_classes() -> list[type]:
    """The classes of icoframes' and icoframes.sandbox's ``__all__``, and every icoframes
    class their functions, methods, properties and fields name, transitively (a
    ``LoadReport``'s ``QueryReport``, a ``CacheDirInfo``'s ``ServiceFolder``, a
    ``Sandbox``'s ``SandboxStats``, the ``Client`` that ``Sandbox.client()`` hands out); not
    exceptions, nor the parts of ``icoframes.api`` a client is made of (its retry policy,
    its load control)."""
    roots = [getattr(module, name) for module in (icoframes, sandbox)
             for name in module.__all__]
    todo, seen = [r for r in roots if callable(r)], set()
    while todo:
        obj = todo.pop()
        if not inspect.isclass(obj):
            todo.extend(_hinted_classes(obj))
            continue
        if obj in seen or issubclass(obj, BaseException) or (obj.__module__.startswith(
                "icoframes.api.") and obj is not Client):
            continue
        seen.add(obj)
        todo.extend(_hinted_classes(obj))
        for name in dir(obj):
            member = inspect.getattr_static(obj, name)
            member = member.fget if isinstance(member, property) else member
            if not name.startswith("_") and callable(getattr(member, "__func__", member)):
                todo.extend(_hinted_classes(getattr(member, "__func__", member)))
    return sorted(seen, key=lambda c: c.__qualname__)


def _public_methods():
    """Each public method of a public class that is a Python function of a fixed signature
    (a ``dict``'s C methods and ``**kwargs`` ones check their own way), bound or not."""
    for cls in _public_classes():
        for name in dir(cls):
            static = inspect.getattr_static(cls, name)
            function = getattr(static, "__func__", static)
            if name.startswith("_") or not inspect.isfunction(function):
                continue
            unwrapped = inspect.unwrap(function)
            if any(p.kind is inspect.Parameter.VAR_KEYWORD
                   for p in inspect.signature(unwrapped).parameters.values()):
                continue
            yield f"{cls.__qualname__}.{name}", cls, name, isinstance(static, staticmethod
                                                                       | classmethod)


def test_the_public_classes_are_found():
    names = {c.__qualname__ for c in _public_classes()}
    assert {"Tables", "Settings", "LoadReport", "QueryReport", "MissingICO", "CacheInfo",
            "CacheDirInfo", "ServiceFolder", "CacheReport", "ExportResult", "Secret",
            "TableSchema", "Sandbox", "SandboxStats", "Directory", "Client"} <= names
    assert len(list(_public_methods())) >= 40


@pytest.mark.parametrize(("cls", "name", "bound"), [
    pytest.param(cls, name, bound, id=qualname)
    for qualname, cls, name, bound in _public_methods()])
def test_no_public_method_answers_an_unknown_keyword_with_a_bare_type_error(cls, name, bound):
    # CacheReport.skip(), ExportResult.as_dict(), Settings.require_credentials() and the
    # Tables mapping's get() raised "got an unexpected keyword argument"; the check comes
    # before the method runs, so no instance is needed
    method = getattr(cls, name)
    with pytest.raises(InvalidParameter, match=rf"^zzz_unknown is not a keyword of {name}\(\)"):
        method(zzz_unknown=1) if bound else method(object(), zzz_unknown=1)


def test_a_report_no_longer_offers_its_own_bookkeeping():
    # CacheReport.skip(path, reason) and .remove(path, size) were public: remove() deleted
    # any path given and counted it as freed by the cache's housekeeping
    report = icoframes.CacheReport()
    assert not hasattr(report, "skip") and not hasattr(report, "remove")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: icoframes.get_settings().require_credentials(strict=True),
     "strict is not a keyword of require_credentials(); its keywords: none"),
    (lambda: icoframes.Tables.empty().get("icos", defualt=None),
     "defualt is not a keyword of get(); did you mean 'default'?"),
    (lambda: icoframes.Tables.read_parquet(directry="x"),
     "directry is not a keyword of read_parquet(); did you mean 'directory'?"),
    (lambda: icoframes.LoadReport.from_dict(summry={}),
     "summry is not a keyword of from_dict(); did you mean 'summary'?"),
    (lambda: icoframes.CacheReport().as_dict(deep=True),
     "deep is not a keyword of as_dict(); its keywords: none"),
])
def test_a_methods_refusal_names_the_method_and_what_was_meant(call, message):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert str(info.value) == message


SECRET_TEXT = "priv-7f3a9c-never-shown"


@pytest.mark.parametrize("call", [
    lambda: icoframes.load_icos(private_key=SECRET_TEXT),
    lambda: icoframes.load_tables(privatekey=SECRET_TEXT),
    lambda: sandbox.serve(private_key2=SECRET_TEXT),
    lambda: icoframes.tidy([], private_key=SECRET_TEXT),
    lambda: icoframes.load_icos(ofline=SECRET_TEXT),
], ids=["load_icos", "load_tables", "serve", "tidy", "load_icos-close"])
def test_a_refused_keyword_never_shows_its_value(call):
    """A key given under a wrong name is refused by name alone: the value may be a secret,
    and the message reaches tracebacks, logs and notebook outputs."""
    with pytest.raises(InvalidParameter) as refused:
        call()
    assert SECRET_TEXT not in str(refused.value)
    assert "is not a" in str(refused.value) or "is neither a" in str(refused.value)


def test_a_checked_method_keeps_the_name_pickle_looks_up():
    assert icoframes.Tables.subset.__qualname__ == "Tables.subset"
    assert pickle.loads(pickle.dumps(icoframes.Tables.subset)) is icoframes.Tables.subset


def test_the_clients_methods_refuse_a_keyword_they_lack_before_any_request():
    # Client.profile(ico=1) raised "got an unexpected keyword argument 'ico'": the client was
    # the one public class whose methods were left out (client.py has no line to spare: the
    # check is applied where icoframes.api hands the class out)
    with refusing_port() as port, Client(base_url=f"http://127.0.0.1:{port}", public_key="k",
                                         private_key="s") as client:
        with pytest.raises(InvalidParameter) as info:
            client.profile(ico=1)
        assert str(info.value) == "ico is not a keyword of profile(); did you mean 'ico_id'?"
        with pytest.raises(InvalidParameter, match=r"^bdy is not a keyword of list_wire\(\)"):
            client.list_wire({}, bdy={})
        assert client.total_attempts == 0


def test_the_sandbox_settings_refuse_a_keyword_or_key_they_lack():
    # sb.settings() was a plain dict: .get("base_url", defualt=None) and .keys(sorted=True)
    # raised "takes no keyword arguments", ["base_ur"] a bare KeyError('base_ur')
    with sandbox.serve(n_icos=5, seed=1) as sb:
        settings = sb.settings()
        with pytest.raises(InvalidParameter) as info:
            settings.get("base_url", defualt=None)
        assert str(info.value) == "defualt is not a keyword of get(); did you mean 'default'?"
        with pytest.raises(InvalidParameter) as info:
            settings.keys(sorted=True)
        assert str(info.value) == "sorted is not a keyword of keys(); its keywords: none"
        for lookup in (lambda: settings["base_ur"], lambda: settings.pop("base_ur")):
            with pytest.raises(UnknownName) as missing:
                lookup()
            assert isinstance(missing.value, KeyError)
            assert str(missing.value) == ("that key is not a setting of sb.settings() (base_url, "
                                          "public_key, private_key, service_name); did you mean "
                                          "'base_url'?")
        # as a dict it is what it was: the same keys, values, equality and keywords for configure
        assert settings.get("base_url", default=None) == settings["base_url"] == sb.base_url
        assert settings.get("nothing") is None and settings.pop("nothing", 1) == 1
        assert settings == {"base_url": sb.base_url, "public_key": sb.public_key,
                            "private_key": sb.private_key, "service_name": sb.service_name}
        assert dict(settings.copy()) == dict(settings) and isinstance(settings, dict)
        # and its repr, the one a notebook shows, hides the private key
        assert sb.private_key not in repr(settings) and "'private_key': '<hidden>'" in repr(
            settings)
        icoframes.configure(**settings)
        icoframes.reset_configuration()
