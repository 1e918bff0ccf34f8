"""validate_list_params() and closest(): every rule of api/params.py, value by value, and
every refusal's message in full (`make mutate MODULE=params`)."""

from __future__ import annotations

import numpy as np
import pytest

from icoframes.api.params import closest, validate_list_params
from icoframes.errors import InvalidParameter


def _refused(params: dict) -> str:
    with pytest.raises(InvalidParameter) as info:
        validate_list_params(params)
    return str(info.value)


# -- the messages, in full ----------------------------------------------------------------


@pytest.mark.parametrize(("params", "message"), [
    ({"colour": 1}, "colour is not a list parameter of spec "
                    "4.2 (see icoframes.api.params.PARAMS)"),
    ({"sort_asc": 3}, "invalid list parameter sort_asc=3: must be one of name, id, "
                      "start_datetime, end_datetime"),
    ({"platform": [3, 0]}, "invalid list parameter platform=0: must be ids (positive "
                           "integers)"),
    ({"platform": []}, "invalid list parameter platform=[]: must not be an empty list"),
    ({"platform": True}, "invalid list parameter platform=True: must be a value or a "
                         "list of values"),
    ({"platform": {"a": 1}}, "invalid list parameter platform={'a': 1}: must be a "
                             "value or a list of values"),
    ({"platform": b"ab"}, "invalid list parameter platform=b'ab': must be a value or "
                          "a list of values"),
    ({"location": ""}, "invalid list parameter location='': must be a non-empty "
                       "string or a list of them"),
    ({"location": []}, "invalid list parameter location=[]: must not be an empty list"),
    ({"exclude_areas": {"Malta": 1}}, "invalid list parameter exclude_areas={'Malta': 1}: "
                                      "must be a value or a list of values"),
    ({"location": ["Malta", "  "]}, "invalid list parameter location=['Malta', '  ']: "
                                    "must be a non-empty string or a list of them"),
    ({"exclude_areas": [5]}, "invalid list parameter exclude_areas=[5]: must be "
                             "a non-empty string or a list of them"),
    ({"accepted_currencies": ["eth", "E"]},
     "invalid list parameter accepted_currencies=['eth', 'E']: takes "
     "currency tickers (2 to 10 letters or digits, like 'ETH' or 'USDT'); 'E' is not one"),
    ({"bounty_program": False},
     "invalid list parameter bounty_program=False: takes True only: the service "
     "selects the ICOs with a bounty program, never those without; to get those, load without "
     "bounty_program and filter the frame instead"),
    ({"investor_kyc": np.False_},
     "invalid list parameter investor_kyc=np.False_: takes True only: the service "
     "selects the ICOs that conduct KYC, never those without; to get those, load without "
     "investor_kyc and filter the frame instead"),
    ({"bounty_program": "YES"}, "invalid list parameter bounty_program='YES': "
                                "takes True (or 'yes') only; did you mean True?"),
    ({"ico_score": True}, "invalid list parameter ico_score=True: must be an integer "
                          "from 1 to 10"),
    ({"ico_score": 0}, "invalid list parameter ico_score=0: must be an integer from 1 "
                       "to 10"),
    ({"page": "-1"}, "invalid list parameter page='-1': must be an integer from 1 to "
     "9223372036854775807"),
    ({"sort_asc": "ID"}, "invalid list parameter sort_asc='ID': must be one of name, "
                         "id, start_datetime, end_datetime; did you mean 'id'?"),
    ({"sort_asc": "id", "sort_desc": "name"},
     "give sort_asc or sort_desc, not both (got sort_asc='id', sort_desc='name')"),
])
def test_each_refusal_in_full(params, message):
    assert _refused(params) == message


# -- what is accepted, and its wire form ---------------------------------------------------


def test_a_missing_value_is_skipped_and_the_others_still_read():
    assert validate_list_params({"location": None, "status": "past", "page": None,
                                 "ico_score": 10}) == {"status": "past", "ico_score": 10}


def test_only_the_status_is_read_in_any_case_not_a_sort_key():
    assert validate_list_params({"status": "Ongoing"}) == {"status": "ongoing"}
    assert validate_list_params({"sort_desc": "start_datetime"}) == {
        "sort_desc": "start_datetime"}
    assert "did you mean 'name'" in _refused({"sort_desc": " Name"})


@pytest.mark.parametrize(("given", "wire"), [
    (1, 1), (10, 10), (np.int64(7), 7), ("3", 3), (" 4 ", 4),
])
def test_integers_at_their_bounds_and_from_text(given, wire):
    read = validate_list_params({"ico_score": given})["ico_score"]
    assert read == wire and type(read) is int


@pytest.mark.parametrize("given", [11, 0, -1, 3.0, "3.0", "x", np.True_, True, ""])
def test_integers_out_of_bounds_or_not_integers_are_refused(given):
    assert ": must be an integer from 1 to 10" in _refused({"ico_score": given})


def test_a_page_has_no_upper_bound_but_starts_at_one():
    assert validate_list_params({"page": 1}) == {"page": 1}
    assert validate_list_params({"page": 10**6}) == {"page": 10**6}
    assert validate_list_params({"page": "1"}) == {"page": 1}


@pytest.mark.parametrize(("given", "wire"), [
    (1, [1]), ("2", [2]), (np.int64(3), [3]), ((4, 5), [4, 5]), (np.array([6, 7]), [6, 7]),
    ([10**12], [10**12]),
])
def test_ids_as_a_value_or_any_list(given, wire):
    read = validate_list_params({"category": given})["category"]
    assert read == wire and all(type(i) is int for i in read)


def test_strings_are_sent_as_given_but_tickers_stripped_and_upper_cased():
    assert validate_list_params({"location": [" Malta", "usa"]}) == {
        "location": [" Malta", "usa"]}
    assert validate_list_params({"exclude_areas": ("China",)}) == {"exclude_areas": ["China"]}
    assert validate_list_params({"accepted_currencies": ["eth ", "Usdt", "ABCDEFGHIJ", "b2"]}) \
        == {"accepted_currencies": ["ETH", "USDT", "ABCDEFGHIJ", "B2"]}


@pytest.mark.parametrize("ticker", ["E", "ABCDEFGHIJK", "ET-H", "E TH", "€UR"])
def test_what_is_not_a_ticker_is_refused(ticker):
    assert f"{ticker!r} is not one" in _refused({"accepted_currencies": ["ETH", ticker]})


@pytest.mark.parametrize("given", [True, np.True_, "yes"])
def test_a_yes_flag_takes_true_or_yes(given):
    assert validate_list_params({"airdrop_program": given}) == {"airdrop_program": "yes"}


@pytest.mark.parametrize(("given", "hint"), [
    (1, "; did you mean True?"), ("true", "; did you mean True?"), (" Yes", "; did you mean True?"),
    (np.int64(1), "; did you mean True?"), ("", ""), ("maybe", ""), (2, ""),
])
def test_a_yes_flag_refuses_every_other_truthy_or_text_value(given, hint):
    assert _refused({"ico_kyc_passed": given}).endswith(
        f": takes True (or 'yes') only{hint}")


@pytest.mark.parametrize("given", [False, np.False_, "no", "false", 0, np.int64(0), " OFF "])
def test_a_yes_flag_given_a_false_says_why_the_api_cannot_ask_for_it(given):
    # "no" was "takes True (or 'yes') only": the reason False is refused is the same for it
    assert _refused({"ico_kyc_passed": given}) == (
        f"invalid list parameter ico_kyc_passed={given!r}: takes True only: "
        "the service selects the ICOs whose team passed KYC, never those without; to get "
        "those, load without ico_kyc_passed and filter the frame instead")


# -- closest(): the best guess, and a second only when as close ----------------------------


def test_closest_keeps_a_choice_at_exactly_the_minimal_ratio():
    assert closest("abcxy", ["abczz"]) == ["abczz"]  # 3 of 5 alike: ratio 0.6
    assert closest("abcxy", ["abzzz"]) == []  # ratio 0.4


def test_closest_adds_a_second_choice_within_a_tenth_of_the_best_only():
    assert closest("abcdefghij", ["abcdefghij", "abcdefghiz"]) == ["abcdefghij", "abcdefghiz"]
    assert closest("abcdefghij", ["abcdefgxyz", "abcdefghij"]) == ["abcdefghij"]  # 0.7 < 0.9


def test_closest_gives_at_most_two_choices_the_last_in_name_order_first():
    assert closest("abcd", ["abce", "abcf", "abcg"]) == ["abcg", "abcf"]


def test_closest_of_nothing_is_nothing():
    assert closest("status", []) == []


@pytest.mark.parametrize("digits", ["\u00b2", "\u0663", " \u00b2 "])
def test_ids_in_digits_other_than_ascii_are_refused_not_a_crash(digits):
    # "²" and "٣" are str.isdigit(): int("²") raised a bare ValueError
    assert validate_list_params({"platform": " 7 "}) == {"platform": [7]}
    with pytest.raises(InvalidParameter) as info:
        validate_list_params({"platform": [digits]})
    # "٣" is what Python's int() reads as 3: said as a "did you mean" (icoframes.numerals)
    hint = "; did you mean 3?" if digits == "\u0663" else ""
    assert str(info.value) == (f"invalid list parameter platform={digits!r}: must "
                               f"be ids (positive integers){hint}")


@pytest.mark.parametrize(("params", "refused"), [
    ({"ico_score": 5.0}, "ico_score=5.0: must be an integer from 1 to 10; "
                         "did you mean 5?"),
    ({"ico_score": " 10.0 "}, "ico_score=' 10.0 ': must be an integer from 1 to 10; "
                              "did you mean 10?"),
    ({"ico_score": "1e1"}, "ico_score='1e1': must be an integer from 1 to 10; "
                           "did you mean 10?"),
    # the number meant is out of range: nothing to suggest
    ({"ico_score": 11.0}, "ico_score=11.0: must be an integer from 1 to 10"),
    ({"ico_score": "0.0"}, "ico_score='0.0': must be an integer from 1 to 10"),
    ({"ico_score": 11}, "ico_score=11: must be an integer from 1 to 10"),
    ({"platform": [0.0]}, "platform=0.0: must be ids (positive integers)"),
    ({"platform": ["-1.0"]}, "platform='-1.0': must be ids (positive integers)"),
    ({"platform": [2.0]}, "platform=2.0: must be ids (positive integers); "
                          "did you mean 2?"),
    ({"platform": ["\uff12"]}, "platform='\uff12': must be ids (positive integers); "
                               "did you mean 2?"),
])
def test_a_number_written_otherwise_gets_the_integer_it_means_only_within_the_bounds(
        params, refused):
    assert _refused(params) == f"invalid list parameter {refused}"
