"""A refusal names what is meant and what is missing: no "did you mean" of a keyword of another
meaning, a near sort key suggested, a dict of filter values refused, names importable as
written, and an offline miss that says which part of the cache is lacking. Against the
sandbox over loopback; each refusal before any request."""

from __future__ import annotations

import re
import warnings

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, NotCached


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=7) as server:
        yield server


def _refused(sb, call, **kwargs) -> str:
    """The message of the InvalidParameter ``call(**kwargs)`` raises; no request sent."""
    sb.stats.reset()
    with pytest.raises(InvalidParameter) as info:
        call(progress=False, **kwargs)
    assert sum(sb.stats.requests.values()) == 0
    return str(info.value)


def test_allow_incomplete_says_what_an_incomplete_export_does_not_allow_empty(cfg, tmp_path):
    for call, kwargs in ((icoframes.export_tables, {"out": tmp_path / "out"}),
                         (icoframes.load_tables, {})):
        said = _refused(cfg, call, status="past", allow_incomplete=True, **kwargs)
        assert "did you mean" not in said  # was: did you mean 'allow_empty'?
        assert said.startswith("allow_incomplete is not a keyword of icoframes' loads and "
                               "exports: an incomplete load or export is returned, never "
                               "raised"), said  # was: "of the loader", of export_tables too
        assert "ExportResult.complete" in said and "--allow-incomplete" in said
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("sort", "key", "meant"), [
    ("sort_asc", "start", "start_datetime"), ("sort_desc", "end", "end_datetime"),
    ("sort_asc", " End ", "end_datetime")])
def test_a_sort_by_start_or_end_suggests_the_date_key(cfg, sort, key, meant):
    said = _refused(cfg, icoframes.load_icos, status="past", **{sort: key})
    assert said.endswith(f"; did you mean {meant!r}?"), said


@pytest.mark.parametrize("filters", [{"category": {"Finance": 1}}, {"platform": {1: 2}},
                                     {"location": {"USA": True}}])
def test_a_dict_of_filter_values_is_refused_before_any_request(cfg, tmp_path, filters):
    for call, kwargs in ((icoframes.load_icos, {}), (icoframes.load_list, {}),
                         (icoframes.export_tables, {"out": tmp_path / "out"})):
        said = _refused(cfg, call, status="past", **filters, **kwargs)  # was: its keys loaded
        (key,) = filters
        assert f"invalid list parameter {key}=" in said and "not a mapping" in said, said
        assert "list(d) for its keys or list(d.values()) for its values" in said
    assert icoframes.load_icos(status="past", category=["Finance"], progress=False) is not None


def _named_functions(message: str) -> list[str]:
    return re.findall(r"icoframes(?:\.\w+)+(?=\()", message)


def test_a_function_a_snapshot_message_names_is_importable_as_written(cfg, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)
        icoframes.export_tables(tmp_path / "out", status="past", snapshot=True, progress=False)
    frame = icoframes.read_snapshots(tmp_path / "out")
    with pytest.raises(InvalidParameter) as info:
        icoframes.report(frame[frame["id"] < 0])
    named = _named_functions(str(info.value))
    assert named == ["icoframes.history.snapshot_info"]  # was icoframes.snapshot_info
    for name in named:  # each reachable from `import icoframes`, as the message writes it
        obj = icoframes
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        assert callable(obj)


@pytest.mark.parametrize(("filters", "declined", "filter_set"), [
    ({"category": 4}, "row(s) undecided, category", True),
    ({"sort_asc": "name"}, "the service's collation is not stated", False)])
def test_offline_says_what_of_the_cache_is_lacking_not_nothing(cfg, filters, declined,
                                                              filter_set):
    icoframes.load_icos(status="past", progress=False)  # the list and every profile cached
    cfg.stats.reset()
    with pytest.raises(NotCached) as info:
        icoframes.load_icos(status="past", offline=True, progress=False, **filters)
    said = str(info.value)
    assert "nothing of this query is in the cache" not in said, said
    assert "holds no list of this query, and the cached lists it narrows cannot answer it" in said
    assert "the cached list {'status': 'past'}: " in said and declined in said
    assert ("The filter set is not cached (icoframes.load_filters() once online caches it)"
            in said) is filter_set
    assert sum(cfg.stats.requests.values()) == 0
    icoframes.load_icos(status="past", progress=False, **filters)  # online: answered
    assert cfg.stats.requests.get("ico", 0) == 0  # no profile fetched again


def test_offline_with_no_list_at_all_still_says_nothing_is_cached(cfg):
    with pytest.raises(NotCached, match=r"nothing of this query is in the cache .*no list for "
                                        r"\[\{'status': 'ongoing'\}\]"):
        icoframes.load_icos(status="ongoing", offline=True, progress=False)
    assert sum(cfg.stats.requests.values()) == 0


@pytest.mark.parametrize("sort", ["sort_asc", "sort_desc"])
def test_a_dict_given_as_a_sort_is_told_the_one_key_a_sort_takes(cfg, sort):
    said = _refused(cfg, icoframes.load_icos, status="past", **{sort: {"name": 1}})
    assert said.endswith("must be one of name, id, start_datetime, end_datetime, not a "
                         "mapping"), said  # was: "a value or a list of values", list(d)...
