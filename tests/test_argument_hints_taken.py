"""Text that means two things is refused, and a hint suggests only what is taken.

An age with the bare unit ``m`` (``"6m"``: minutes to pandas, months in a tenor) or
durations joined as a list (``"7D,12h"``, which pandas sums) are refused before any
request, ``prune_cache`` deleting nothing; a hint is never itself refused (``timeout="2D"``,
``platform="0, 1"``, ``accepted_currencies="ETH,None"``); a list pasted as one name never
gets one part alone, but a near name that holds a comma comes first.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.api.params import validate_list_params
from icoframes.errors import InvalidParameter
from icoframes.sandbox import service

_AGE = "a timedelta, a duration such as '7D' or '12h', seconds"
_M = " (m: minutes or months?); did you mean '{}min' or '{}D'?"


def _with_comma_names() -> dict:
    """The sandbox's filter set, plus a category whose name holds a comma."""
    filters = _FILTER_SET()
    rows = [dict(row) for row in filters["category"]]
    rows.append({**rows[0], "name": "Finance, Banking", "id": 99})
    return {**filters, "category": rows}


_FILTER_SET = service.filter_set


@pytest.fixture(scope="module")
def sb():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "filter_set", _with_comma_names)
        with sandbox.serve(n_icos=20, seed=5) as server:
            yield server


# -- ages: "6m" and lists ------------------------------------------------------------------


@pytest.mark.parametrize(("age", "hint"), [("6m", _M.format(6, 180)), ("6 m", _M.format(6, 180)),
                                           ("6M", _M.format(6, 180)),
                                           ("1.5m", _M.format(1.5, 45)),
                                           ("1m30s", " (m: minutes or months?)")])
def test_a_bare_m_is_refused_in_every_age_argument_and_prune_deletes_nothing(warm, age, hint):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.prune_cache(age)  # read as minutes, it would delete the folder just used
    assert str(caught.value) == f"older_than must be {_AGE}, 0 or more; got {age!r}{hint}"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", max_age=age, progress=False)
    assert str(caught.value) == f"max_age must be {_AGE} or None, got {age!r}{hint}"
    with pytest.raises(InvalidParameter, match="profile_max_age must be"):
        icoframes.load_icos("past", profile_max_age={"past": age}, progress=False)
    assert warm.stats.requests.total() == 0
    # the cache is whole: answered from it, offline
    assert len(icoframes.load_icos("past", offline=True, progress=False))


@pytest.mark.parametrize(("age", "seconds"), [("6min", 360), ("180D", "1.5552e+07"),
                                              ("PT6M", 360)])
def test_what_a_bare_m_suggests_is_taken_and_iso_minutes_still_are(warm, age, seconds):
    with pytest.raises(InvalidParameter) as caught:  # offline says the age it read
        icoframes.load_icos("past", offline=True, max_age=age, progress=False)
    assert f"but max_age={age!r} ({seconds} seconds) asks the service again" in str(caught.value)


_SUM = " (durations joined into one text, which would be read as their sum: an age is one duration)"


@pytest.mark.parametrize("age", ["1D,7D,90D", "7D,12h", "7D; 12h", "1D|2D"])
def test_durations_joined_as_a_list_are_refused_not_summed(warm, age):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", max_age=age, progress=False)
    assert str(caught.value) == f"max_age must be {_AGE} or None, got {age!r}{_SUM}"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", profile_max_age=age, progress=False)
    assert str(caught.value).endswith(f"got {age!r}{_SUM}")
    with pytest.raises(InvalidParameter) as caught:
        icoframes.prune_cache(age)
    assert str(caught.value).endswith(f"got {age!r}{_SUM}")
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(_ICOS, _RATES, columns=["hard_cap"], date="end_datetime",
                         rate_max_age=age)
    assert str(caught.value).endswith(f"got {age!r}{_SUM}")
    assert warm.stats.requests.total() == 0


@pytest.mark.parametrize("age", ["1 day 6h", "1 day, 6:00:00", "30h"])
def test_one_duration_in_groups_is_read_whole(warm, age):
    with pytest.raises(InvalidParameter) as caught:  # offline says the age it read
        icoframes.load_icos("past", offline=True, max_age=age, progress=False)
    assert f"but max_age={age!r} (108000 seconds) asks the service again" in str(caught.value)


_RATES = pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"], "usd_per_unit": [2.0]})
_ICOS = pd.DataFrame({"hard_cap": [1.0], "caps_unit": ["ETH"],
                      "end_datetime": pd.to_datetime(["2018-01-08"])})


def test_a_rate_age_past_pandas_range_is_refused_with_the_packages_error():
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(_ICOS, _RATES, columns=["hard_cap"], date="end_datetime",
                         rate_max_age=dt.timedelta.max)
    assert str(caught.value).endswith(
        "(longer than a pandas Timedelta holds: about 106,751 days)")


def test_a_rate_age_of_a_bare_m_is_refused():
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(_ICOS, _RATES, columns=["hard_cap"], date="end_datetime",
                         rate_max_age="6m")
    assert str(caught.value).endswith(f"got '6m'{_M.format(6, 180)}")


# -- a hint suggests only what is taken ------------------------------------------------------


@pytest.mark.parametrize("value", ["-1D", "0s", "2D", "106751D"])
def test_a_timeout_duration_out_of_range_says_the_range_not_its_seconds(value):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.configure(timeout=value)
    assert str(caught.value) == (f"invalid timeout={value!r}: must be a number of seconds, "
                                 "positive and at most 86,400 (a day)")


def test_a_timeout_duration_hint_is_its_exact_seconds():
    with pytest.raises(InvalidParameter) as caught:
        icoframes.configure(timeout="0.1234567s")
    assert str(caught.value).endswith("did you mean 0.1234567?")


def test_an_age_in_other_digits_suggests_the_form_pandas_reads_without_a_warning(warm):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", max_age="\u0663s", progress=False)
    assert str(caught.value).endswith("; did you mean '3s'?")  # not '3S', deprecated


@pytest.mark.parametrize(("filters", "message"), [
    ({"platform": "0, 1"}, "unknown platform name '0, 1' (see the platform rows of "
                           "icoframes.load_filters())"),
    ({"type": "1, 99999999999999999999"}, "unknown type name '1, 99999999999999999999' (see "
                                          "the type rows of icoframes.load_filters())"),
    ({"accepted_currencies": "ETH,None"},
     "invalid list parameter accepted_currencies='ETH,None': takes currency tickers (2 to 10 "
     "letters or digits, like 'ETH' or 'USDT') or the names of icoframes.vocabulary."
     "UNIT_ALIASES and TOKEN_NAMES ('Ether', 'Bitcoin', 'Tron'); 'ETH,None' is not one"),
    # a list pasted as one name: no part of it alone
    ({"location": "Singapore, Atlantis"}, "unknown location 'Singapore, Atlantis' (see the "
                                          "location rows of icoframes.load_filters())"),
    # a near name holding a comma before the list it splits into
    ({"category": "finance,banking"}, "unknown category name 'finance,banking'; did you mean "
                                      "'Finance, Banking'? (see the category rows of "
                                      "icoframes.load_filters())"),
    # ... but never one with fewer parts than the value: it would drop the rest
    ({"category": "Finance, Banking, Platform"},
     "unknown category name 'Finance, Banking, Platform'; did you mean ['Finance', 'Banking', "
     "'Platform']? (see the category rows of icoframes.load_filters())"),
])
def test_a_filter_hint_is_never_a_refused_value_nor_one_part_alone(warm, filters, message):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", progress=False, **filters)
    assert str(caught.value) == message
    assert warm.stats.requests.total() == 0


def test_the_names_hinted_are_taken(warm):
    with pytest.warns(icoframes.errors.NoMatchWarning, match=r"category=\[99\]"):
        icoframes.load_icos("past", category="Finance, Banking", progress=False)
    with pytest.raises(InvalidParameter, match="must be ids"):
        icoframes.load_icos("past", platform=[0, 1], progress=False)
    with pytest.raises(InvalidParameter, match="'NONE' is no currency"):
        icoframes.load_icos("past", accepted_currencies=["ETH", "NONE"], progress=False)


def test_the_clients_list_hint_names_no_refused_value():
    for params in ({"platform": "0, 1"}, {"accepted_currencies": "ETH,None"}):
        with pytest.raises(InvalidParameter) as caught:
            validate_list_params(params)
        assert "did you mean" not in str(caught.value)
