"""A value written otherwise than an argument takes is refused with the value it most
likely means (more of test_arguments_mean_one_thing): a flag as a word (``"false"``), a
count as text or a float (``budget="5"``, ``5.0``), ``refresh="ALL"``, an age as text
(``max_age="1 month"``). Each was refused before too, but said only what was allowed; every
refusal comes before any request.
"""

from __future__ import annotations

import datetime as dt

import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter

#: What an age argument takes, as its refusal says it.
_AGE = "a timedelta, a duration such as '7D' or '12h', seconds"
#: The range of a count (``budget``, ``--budget``): an int64's, as a quota's.
_COUNT = " from 0 to 9223372036854775807"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=5) as server:
        yield server


_FLAG_TAKES_TRUE_ONLY = ("invalid list parameter bounty_program={!r}: takes "
                         "True only: the service selects the ICOs with a bounty program, never "
                         "those without; to get those, load without bounty_program and filter "
                         "the frame instead")


@pytest.mark.parametrize(("arguments", "message"), [
    ({"offline": "false"}, "offline must be True or False, got 'false'; did you mean False?"),
    ({"offline": " Yes"}, "offline must be True or False, got ' Yes'; did you mean True?"),
    ({"offline": 0}, "offline must be True or False, got 0; did you mean False?"),
    ({"offline": "maybe"}, "offline must be True or False, got 'maybe'"),
    ({"progress": "off"}, "progress must be True or False (or None: by the terminal), got "
                          "'off'; did you mean False?"),
    ({"refresh": "ALL"}, "refresh must be False, True or 'all', got 'ALL'; did you mean 'all'?"),
    ({"refresh": "all "}, "refresh must be False, True or 'all', got 'all '; "
                          "did you mean 'all'?"),
    ({"refresh": "false"}, "refresh must be False, True or 'all', got 'false'; "
                           "did you mean False?"),
    ({"refresh": 1}, "refresh must be False, True or 'all', got 1; did you mean True?"),
    ({"refresh": 2}, "refresh must be False, True or 'all', got 2"),
    # text of ASCII digits is read ("5": 5, as max_workers=" 3 " and --budget 5 are)
    ({"budget": "\u0665"}, f"budget must be a whole number{_COUNT}, got '\u0665'; did you mean 5?"),
    ({"budget": 5.0}, f"budget must be a whole number{_COUNT}, got 5.0; did you mean 5?"),
    ({"budget": -1.0}, f"budget must be a whole number{_COUNT}, got -1.0"),
    ({"budget": float("nan")}, f"budget must be a whole number{_COUNT}, got nan"),
    ({"bounty_program": "true"}, "invalid list parameter bounty_program='true': "
                                 "takes True (or 'yes') only; did you mean True?"),
    ({"bounty_program": "YES"}, "invalid list parameter bounty_program='YES': "
                                "takes True (or 'yes') only; did you mean True?"),
    ({"bounty_program": "false"}, _FLAG_TAKES_TRUE_ONLY.format("false")),
    # review REV-CL F3: "must be ids (positive integers)", though names are taken too
    ({"category": ["Finance", float("nan")]}, "invalid list parameter category=['Finance', "
     "nan]: nan is a missing value, no category (an id or a name); drop it (.dropna())"),
    ({"platform": [2, None]}, "invalid list parameter platform=[2, None]: None is a missing "
     "value, no platform (an id or a name); drop it (.dropna())"),
    ({"bounty_program": "no"}, _FLAG_TAKES_TRUE_ONLY.format("no")),
    ({"bounty_program": "maybe"}, "invalid list parameter bounty_program='maybe': "
                                  "takes True (or 'yes') only"),
    ({"max_age": "1 month"}, f"max_age must be {_AGE} or None, got '1 month' (a month has no "
                             "fixed length); did you mean '30D'?"),
    ({"max_age": "3_600"}, f"max_age must be {_AGE} or None, got '3_600'; "
                           "did you mean 3600?"),  # "3600" is 3600 seconds
    ({"max_age": "-1D"}, f"max_age must be {_AGE} or None, got '-1D' (negative: an age is 0 "
                         "or more)"),
    # review REV-CL F3: a timedelta refused as if it were none, infinity as if not seconds
    ({"max_age": dt.timedelta(hours=-1)}, f"max_age must be {_AGE} or None, got "
     "datetime.timedelta(days=-1, seconds=82800) (negative: an age is 0 or more)"),
    ({"max_age": -5}, f"max_age must be {_AGE} or None, got -5 (negative: an age is 0 or more)"),
    ({"max_age": float("inf")}, f"max_age must be {_AGE} or None, got inf (infinite: an age "
                                "is finite; None never expires)"),
    ({"profile_max_age": {"past": float("inf")}}, f"profile_max_age must be {_AGE}, or a "
     "mapping of them by status; got inf (infinite: an age is finite; '3650D' for hardly "
     "ever)"),
    ({"max_age": "\u0663"}, f"max_age must be {_AGE} or None, got '\u0663'; "
                           "did you mean 3?"),
    ({"profile_max_age": " 2 weeks"}, f"profile_max_age must be {_AGE}, or a "
                                      "mapping of them by status; got ' 2 weeks'; did you mean "
                                      "'2W'?"),
    ({"profile_max_age": {"past": "9_0"}}, f"profile_max_age must be {_AGE}, or a "
                                           "mapping of them by status; got '9_0'; did you mean "
                                           "90?"),
])
def test_a_value_written_otherwise_is_refused_with_what_it_means_before_any_request(
        cfg, arguments, message):
    for load in (icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(InvalidParameter) as info:
            load("past", **arguments)
        assert str(info.value) == message
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize(("call", "message"), [
    (lambda out: icoframes.export_tables(out, status="past", snapshot="false"),
     "snapshot must be True or False, got 'false'; did you mean False?"),
    (lambda out: icoframes.export_tables(out, status="past", allow_empty=1),
     "allow_empty must be True or False, got 1; did you mean True?"),
    (lambda out: icoframes.export_tables(out, status="past", budget="0.0"),
     "budget must be a whole number from 0 to 9223372036854775807, got '0.0'; did you mean 0?"),
    (lambda out: icoframes.export_tables(out, status="past", max_age="12 hrs"),
     f"max_age must be {_AGE} or None, got '12 hrs'; did you mean '12h'?"),
    (lambda out: icoframes.load_filters(offline="no"),
     "offline must be True or False, got 'no'; did you mean False?"),
    (lambda out: icoframes.cache_info(all="true"),
     "all must be True or False, got 'true'; did you mean True?"),
    (lambda out: icoframes.clear_cache(all="no"),
     "all must be True or False, got 'no'; did you mean False?"),
    (lambda out: icoframes.prune_cache("1 year"),
     f"older_than must be {_AGE}, 0 or more; got '1 year' (a year has no fixed length); "
     "did you mean '365D'?"),
    (lambda out: icoframes.prune_cache(" 86_400 "),
     f"older_than must be {_AGE}, 0 or more; got ' 86_400 '; "
     "did you mean 86400?"),
    (lambda out: icoframes.prune_cache(1e308),  # said by max_age's refusal alone before
     f"older_than must be {_AGE}, 0 or more; got 1e+308 (more seconds than a "
     "timedelta holds: below 8.64e+13)"),
])
def test_the_other_public_functions_say_it_too(cfg, tmp_path, call, message):
    (tmp_path / "cache").mkdir(exist_ok=True)
    kept = sorted(p.name for p in (tmp_path / "cache").iterdir())
    with pytest.raises(InvalidParameter) as info:
        call(tmp_path / "out")
    assert str(info.value) == message
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == kept  # nothing removed


@pytest.mark.parametrize(("plot", "arguments", "message"), [
    ("plot_timeline", {"freq": "m"}, "freq must be one of 'D', 'W', 'M', 'ME', 'MS', 'Q', 'QE', "
                                     "'QS', 'Y', 'YE', 'YS'; got 'm'; did you mean 'M'?"),
    ("plot_timeline", {"freq": " quarters"}, "freq must be one of 'D', 'W', 'M', 'ME', 'MS', "
                                             "'Q', 'QE', 'QS', 'Y', 'YE', 'YS'; got ' quarters'; "
                                             "did you mean 'Q'?"),
    ("plot_timeline", {"freq": "x"}, "freq must be one of 'D', 'W', 'M', 'ME', 'MS', 'Q', 'QE', "
                                     "'QS', 'Y', 'YE', 'YS'; got 'x'"),
    ("plot_raised", {"top": "5.0"}, "top must be a positive integer, got '5.0'; did you mean 5?"),
    ("plot_scores", {"top": 3.0}, "top must be a positive integer, got 3.0; did you mean 3?"),
    ("plot_raised", {"top": 0.0}, "top must be a positive integer, got 0.0"),
    ("plot_raised", {"bins": "1_0"}, "bins must be an int or a sequence of bin edges, got '1_0'; "
                                     "did you mean 10?"),
    # 10.0 was "bins must be at least two finite bin edges": read as a sequence of one
    ("plot_scores", {"bins": 10.0}, "bins must be an int or a sequence of bin edges, got 10.0; "
                                    "did you mean 10?"),
    ("plot_scores", {"bins": float("nan")}, "bins must be an int or a sequence of bin edges, "
                                            "got nan"),
])
def test_a_plot_argument_written_otherwise_says_what_it_means(plot, arguments, message):
    import matplotlib.pyplot as plt

    icos = icoframes.schema.empty_frame(icoframes.schema.ICOS)
    before = plt.get_fignums()
    with pytest.raises(InvalidParameter) as info:  # freq's was a bare ValueError
        getattr(icoframes, plot)(icos, **arguments)
    assert str(info.value) == message
    assert plt.get_fignums() == before  # refused before a figure is made
