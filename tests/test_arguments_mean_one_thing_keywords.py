"""A keyword a public function lacks is refused as InvalidParameter with a "did you mean",
never Python's bare TypeError ("got an unexpected keyword argument"), which suggests
nothing (more of test_arguments_mean_one_thing)."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
from hostile import refusing_port

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, checked_keywords, closest


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
     "bogus=1 is not a keyword of report(); its keywords: result"),
    (lambda: icoframes.report(reslt=None),
     "reslt=None is not a keyword of report(); did you mean 'result'?"),
    (lambda: icoframes.tidy(_profiles(), bogus=1),
     "bogus=1 is not a keyword of tidy(); its keywords: profiles, statuses"),
    (lambda: icoframes.tidy(_profiles(), status={1: "past"}),
     "status={1: 'past'} is not a keyword of tidy(); did you mean 'statuses'?"),
    (lambda: icoframes.describe(tabel="icos"),
     "tabel='icos' is not a keyword of describe(); did you mean 'table'?"),
    (lambda: icoframes.reset_configuration(everything=True),
     "everything=True is not a keyword of reset_configuration(); its keywords: none"),
    (lambda: icoframes.format_usd(value=1.0),
     "value=1.0 is not a keyword of format_usd(); its keywords: x"),
    (lambda: icoframes.tidy(_profiles()).subset(id_or_mask=[1]),
     "id_or_mask=[1] is not a keyword of subset(); did you mean 'ids_or_mask'?"),
    (lambda: icoframes.tidy(_profiles()).to_parquet(folder="x"),
     "folder='x' is not a keyword of to_parquet(); its keywords: self, directory"),
    (lambda: icoframes.tidy(_profiles()).problem_summary(by="table"),
     "by='table' is not a keyword of problem_summary(); its keywords: self"),
    (lambda: icoframes.tidy(_profiles()).with_report(reports=None),
     "reports=None is not a keyword of with_report(); did you mean 'report'?"),
    # serve is start by another name: the refusal names the one the user called
    (lambda: sandbox.serve(n_ico=5),
     "n_ico=5 is not a keyword of serve(); did you mean 'n_icos'?"),
    (lambda: sandbox.serve(seeed=1),
     "seeed=1 is not a keyword of serve(); did you mean 'seed'?"),
    (lambda: sandbox.start(n_ico=5),
     "n_ico=5 is not a keyword of start(); did you mean 'n_icos'?"),
    (lambda: sandbox.rates(wid=True),
     "wid=True is not a keyword of rates(); did you mean 'wide'?"),
    (lambda: sandbox.generate_directory(5, sed=1),
     "sed=1 is not a keyword of generate_directory(); did you mean 'seed'?"),
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
    with pytest.raises(InvalidParameter, match=r"^zzz_unknown=1 is not a keyword of "):
        function(zzz_unknown=1)


def test_the_declared_closeness_rule_is_the_one_the_loaders_use():
    assert closest("refesh", ["refresh", "offline"]) == ["refresh"]
    assert checked_keywords.__module__ == "icoframes.errors"
    from icoframes.api.params import closest as params_closest
    from icoframes.queries import checked_keywords as queries_checked

    assert params_closest is closest and queries_checked is checked_keywords
