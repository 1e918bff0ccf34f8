"""Every argument means one thing, or is refused before any request with what it most likely
means: an age read as text one way in every age argument (``"7D"``, ``"12h"``: as
``pd.Timedelta`` reads them; ``"3600"``: seconds), a list pasted as one filter value refused
with its list form, and the plots', ``subset``'s and ``to_usd``'s refusals saying what was
meant.
"""

from __future__ import annotations

import datetime as dt
import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.api.params import validate_list_params
from icoframes.errors import InvalidParameter
from icoframes.queries import build_queries

#: What an age argument takes, as its refusals say it.
_AGE = "a timedelta, a duration such as '7D' or '12h', seconds"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=20, seed=5) as server:
        yield server


# -- ages: one reading of text ---------------------------------------------------------------


@pytest.mark.parametrize("day", ["1D", "24h", " 1 day ", "P1D", "86400", 86400,
                                 dt.timedelta(days=1), pd.Timedelta("1D"),
                                 np.timedelta64(1, "D")])
def test_a_day_written_any_way_is_the_default_max_age_and_asks_nothing_offline(warm, day):
    # offline=True takes the default max_age (a day) however written, and refuses any other
    # age (it would ask the service again): so each form is read as exactly a day
    rows = icoframes.load_icos("past", offline=True, max_age=day, progress=False)
    assert len(rows) and warm.stats.requests.total() == 0


@pytest.mark.parametrize(("age", "seconds"), [("12h", 43200), ("7D", 604800), ("90min", 5400),
                                              ("3600", 3600), (" 1 day 6h ", 108000)])
def test_text_of_a_duration_is_read_as_pandas_reads_it_and_text_of_a_number_as_seconds(
        warm, age, seconds):
    with pytest.raises(InvalidParameter) as caught:  # offline says the age it read
        icoframes.load_icos("past", offline=True, max_age=age, progress=False)
    assert (f"but max_age={age!r} ({seconds} seconds) asks the service again"  # as written
            in str(caught.value))
    assert warm.stats.requests.total() == 0


def test_every_age_argument_reads_a_duration_as_text(warm):
    icoframes.load_icos("past", max_age="7D", profile_max_age={"past": "90D"}, progress=False)
    assert warm.stats.requests.total() == 0  # within both ages: answered from the cache
    assert icoframes.prune_cache("3650D").removed == []  # nothing unused for ten years
    assert icoframes.prune_cache(" 1 day ").removed == []


@pytest.mark.parametrize(("age", "hint"), [
    ("1 month", " (a month has no fixed length); did you mean '30D'?"),
    ("1M", " (m: minutes or months?); did you mean '1min' or '30D'?"),
    ("P1M", " (a month has no fixed length); did you mean '30D'?"),  # a minute to pandas
    ("2 years", " (a year has no fixed length); did you mean '730D'?"),
    ("2 weeks", "; did you mean '2W'?"), ("7T", "; did you mean '7min'?"),
    ("12 hrs", "; did you mean '12h'?"), ("soon", ""),
    ("7D/12h", ""),  # no list pandas would sum: it reads no slash
])
def test_a_duration_pandas_does_not_read_is_refused_with_what_it_means(warm, age, hint):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", max_age=age, progress=False)
    assert str(caught.value) == f"max_age must be {_AGE} or None, got {age!r}{hint}"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.prune_cache(age)
    assert str(caught.value) == f"older_than must be {_AGE}, 0 or more; got {age!r}{hint}"


def test_a_negative_duration_is_refused_saying_so(warm):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", max_age="-1D", progress=False)
    assert str(caught.value) == (f"max_age must be {_AGE} or None, got '-1D' (negative: an age "
                                 "is 0 or more)")
    with pytest.raises(InvalidParameter) as caught:  # "0 or more" said already
        icoframes.prune_cache("-1D")
    assert str(caught.value) == f"older_than must be {_AGE}, 0 or more; got '-1D'"
    assert warm.stats.requests.total() == 0


_RATES = pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"], "usd_per_unit": [2.0]})


@pytest.mark.parametrize("week", ["7D", "168h", 604800, "604800", dt.timedelta(days=7),
                                  Fraction(604800), Fraction(1209600, 2)])
def test_rate_max_age_reads_an_age_as_every_age_argument_does(week):
    icos = pd.DataFrame({"hard_cap": [1.0], "caps_unit": ["ETH"],
                         "end_datetime": pd.to_datetime(["2018-01-08"])})
    out = icoframes.to_usd(icos, _RATES, columns=["hard_cap"], date="end_datetime",
                           rate_max_age=week)
    assert out["hard_cap_usd"].tolist() == [2.0]  # a week old: within a week


def test_seconds_under_a_day_as_a_rate_age_are_refused_with_the_days_they_most_likely_mean():
    icos = pd.DataFrame({"hard_cap": [1.0], "caps_unit": ["ETH"],
                         "end_datetime": pd.to_datetime(["2018-01-08"])})
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(icos, _RATES, columns=["hard_cap"], date="end_datetime",
                         rate_max_age="7")
    assert str(caught.value).endswith(
        "got '7' (seconds: under the day by which rates are matched); did you mean '7D'?")
    with pytest.raises(InvalidParameter) as caught:  # a Fraction of seconds, as any number
        icoframes.to_usd(icos, _RATES, columns=["hard_cap"], date="end_datetime",
                         rate_max_age=Fraction(7))
    assert str(caught.value).endswith("got Fraction(7, 1) (seconds: under the day by which "
                                      "rates are matched); did you mean '7D'?")


# -- a list pasted as one value --------------------------------------------------------------


@pytest.mark.parametrize(("filters", "message"), [
    ({"location": "Singapore, USA"}, "unknown location 'Singapore, USA'; did you mean "
                                     "['Singapore', 'USA']? (see the location rows of "
                                     "icoframes.load_filters())"),
    ({"exclude_areas": "singapore;usa"}, "unknown exclude_areas 'singapore;usa'; did you mean "
                                         "['Singapore', 'USA']? (see the location rows of "
                                         "icoframes.load_filters())"),
    ({"category": "platform, Cryptocurrency"}, "unknown category name 'platform, "
                                               "Cryptocurrency'; did you mean ['Platform', "
                                               "'Cryptocurrency']? (see the category rows of "
                                               "icoframes.load_filters())"),
    # a slash joins a list as prose writes alternatives: its list, never a part alone
    ({"location": "Singapore/USA"}, "unknown location 'Singapore/USA'; did you mean "
                                    "['Singapore', 'USA']? (see the location rows of "
                                    "icoframes.load_filters())"),
    ({"category": "platform / Cryptocurrency"}, "unknown category name 'platform / "
                                                "Cryptocurrency'; did you mean ['Platform', "
                                                "'Cryptocurrency']? (see the category rows of "
                                                "icoframes.load_filters())"),
    # but one name written with a slash or a comma is that name: a near name of the whole
    ({"location": "New/Zealand"}, "unknown location 'New/Zealand'; did you mean 'New "
                                  "Zealand'? (see the location rows of icoframes.load_filters())"),
    ({"location": "Czech, Republic"}, "unknown location 'Czech, Republic'; did you mean 'Czech "
                                      "Republic'? (see the location rows of "
                                      "icoframes.load_filters())"),
    ({"location": "Singapur/USA"}, "unknown location 'Singapur/USA' (see the location rows of "
                                   "icoframes.load_filters())"),  # never a part alone
    # every part known: the list, never a name only near the whole text
    ({"location": "Malta, USA"}, "unknown location 'Malta, USA'; did you mean ['Malta', 'USA']? "
                                 "(see the location rows of icoframes.load_filters())"),
    ({"location": "Malta/USA"}, "unknown location 'Malta/USA'; did you mean ['Malta', 'USA']? "
                                "(see the location rows of icoframes.load_filters())"),
    ({"location": "Israel, Canada"}, "unknown location 'Israel, Canada'; did you mean "
                                     "['Israel', 'Canada']? (see the location rows of "
                                     "icoframes.load_filters())"),
    ({"category": "Energy, Investment"}, "unknown category name 'Energy, Investment'; did you "
                                         "mean ['Energy', 'Investment']? (see the category rows "
                                         "of icoframes.load_filters())"),
    ({"platform": "1, 2"}, "invalid list parameter platform='1, 2': '1, 2' is no id nor name; "
                           "did you mean [1, 2]?"),
    # but slashes between numbers alone write a date or a fraction, not ids
    ({"category": "2024/01/05"}, "unknown category name '2024/01/05' (see the category rows "
                                 "of icoframes.load_filters())"),
    ({"platform": "1/2"}, "unknown platform name '1/2' (see the platform rows of "
                          "icoframes.load_filters())"),
    ({"type": ["1 2"]}, "invalid list parameter type=['1 2']: '1 2' is no id nor name; "
                        "did you mean [1, 2]?"),
])
def test_a_list_pasted_as_one_filter_value_is_refused_with_its_list_form(warm, filters, message):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", progress=False, **filters)
    assert str(caught.value) == message
    assert warm.stats.requests.total() == 0


@pytest.mark.slow
def test_two_known_names_joined_are_hinted_as_their_list_never_as_one_name(warm):
    # every ordered pair of the filter set's names, joined as a CSV cell or prose joins them:
    # a name only near the whole text ("Malta, USA": 'Malaysia') would drop both
    filter_set = icoframes.load_filters()
    wrong = []
    for kind, rows in filter_set.groupby("filter"):
        key = "location" if kind == "location" else str(kind)
        names = [name for name in rows["name"] if isinstance(name, str)]
        pairs = list(itertools.permutations(names, 2))
        for n, (first, second) in enumerate(pairs):
            value = (", ", "/", " / ")[n % 3].join((first, second))
            try:
                build_queries("past", {key: value}, lambda rows=rows: rows)
            except InvalidParameter as exc:
                if f"; did you mean {[first, second]!r}? (see" not in str(exc):
                    wrong.append(str(exc))
            else:
                wrong.append(f"{key}={value!r} taken")
    assert not wrong, f"{len(wrong)} pairs: {wrong[:5]}"
    assert warm.stats.requests.total() == 0


_TICKERS = ("invalid list parameter accepted_currencies={!r}: takes currency tickers (2 to 10 "
            "letters or digits, like 'ETH' or 'USDT') or the names of icoframes.vocabulary."
            "UNIT_ALIASES and TOKEN_NAMES ('Ether', 'Bitcoin', 'Tron'); {!r} is not one{}")


@pytest.mark.parametrize(("value", "hint"), [
    ("ETH,BTC", "; did you mean ['ETH', 'BTC']?"), ("ETH BTC", "; did you mean ['ETH', 'BTC']?"),
    ("eth; Bitcoin", "; did you mean ['ETH', 'BTC']?"),
    ("XYZ1, ABC", "; did you mean ['XYZ1', 'ABC']?"),
    ("ETH/BTC", "; did you mean ['ETH', 'BTC']?"),
    # one name, not a list: "Tether USD" is no USDT and USD, "Bit coin" Bitcoin
    ("Tether USD", ""), ("Bit coin", "; did you mean 'BTC'?"),
])
def test_currencies_pasted_as_one_value_are_refused_with_their_list(warm, value, hint):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.load_icos("past", accepted_currencies=value, progress=False)
    assert str(caught.value) == _TICKERS.format(value, value, hint)
    assert warm.stats.requests.total() == 0


def test_the_list_a_hint_names_is_taken(warm):
    rows = icoframes.load_icos("past", location=["Singapore", "USA"],
                               accepted_currencies=["ETH", "BTC"], progress=False)
    assert set(rows["location"].dropna()) <= {"Singapore", "USA"}


def test_the_clients_parameters_hint_the_list_too():
    with pytest.raises(InvalidParameter, match=r"; did you mean \[1, 2\]\?$"):
        validate_list_params({"platform": "1,2"})
    with pytest.raises(InvalidParameter, match=r"; did you mean \['ETH', 'BTC'\]\?$"):
        validate_list_params({"accepted_currencies": "ETH,BTC"})


# -- plots, subset, to_usd -------------------------------------------------------------------


@pytest.mark.parametrize(("freq", "meant"), [("A", "Y"), ("A-DEC", "Y"), ("AS", "Y"),
                                             ("Q-DEC", "Q"), ("W-SUN", "W")])
def test_pandas_old_aliases_of_a_period_are_refused_with_the_freq_meant(freq, meant):
    icos = icoframes.schema.empty_frame(icoframes.schema.ICOS)
    with pytest.raises(InvalidParameter) as caught:
        icoframes.plot_timeline(icos, freq=freq)
    assert str(caught.value) == (
        "freq must be one of 'D', 'W', 'M', 'ME', 'MS', 'Q', 'QE', 'QS', 'Y', 'YE', 'YS'; "
        f"got {freq!r}; did you mean {meant!r}?")


def test_one_id_given_to_subset_is_refused_with_the_list_of_it():
    tables = icoframes.tidy([{"id": 12345, "main": {"name": "A"}}])
    for one in (12345, np.int64(12345)):
        with pytest.raises(InvalidParameter) as caught:
            tables.subset(one)
        assert str(caught.value) == (f"subset takes ICO ids or a boolean mask over icos, got "
                                     f"{type(one).__name__}; did you mean [12345]?")
    assert tables.subset([12345]).icos["id"].tolist() == [12345]


def test_tables_given_to_to_usd_is_refused_with_its_icos_table():
    tables = icoframes.tidy([{"id": 1, "main": {"name": "A"}}])
    with pytest.raises(InvalidParameter) as caught:
        icoframes.to_usd(tables, pd.DataFrame())
    assert str(caught.value) == ("icos must be a pandas DataFrame, got Tables; "
                                 "did you mean tables.icos?")


@pytest.mark.parametrize(("value", "seconds"), [
    ("30s", "30"), ("1min", "60"), ("1.5h", "5400"),
    # what an age's refusal suggests, in seconds: "6m" is minutes (months: over a day)
    ("6m", "360"), ("6M", "360"), ("7T", "420"), ("12 hrs", "43200"),
    ("0.001m", "0.06"),  # never months (2592 s): no one writes a timeout in months
])
def test_a_setting_of_seconds_given_as_a_duration_says_its_seconds(value, seconds):
    # a setting is a number of seconds (an environment variable too): a duration is refused
    # with the seconds it writes, not only "must be a number of seconds"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.configure(timeout=value)
    assert str(caught.value) == (f"invalid timeout={value!r}: must be a number of seconds; "
                                 f"did you mean {seconds}?")
