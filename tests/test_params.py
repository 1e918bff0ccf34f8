"""Spec 4.2 list parameters: one declaration, readable errors, statuses in any case."""

from __future__ import annotations

import numpy as np
import pytest

import icoframes
from icoframes.api.params import (
    ID_LIST_PARAMS,
    LIST_PARAMS,
    PARAMS,
    SORT_KEYS,
    STATUSES,
    STRING_LIST_PARAMS,
    YES_FLAGS,
    validate_list_params,
)
from icoframes.errors import InvalidParameter

# one accepted value per kind, and the wire form it becomes
SAMPLES = {"sort": ("id", "id"), "int": (3, 3), "ids": (np.int64(4), [4]),
           "strings": ("Malta", ["Malta"]), "status": ("past", "past"),
           "yes-flag": (True, "yes"), "tickers": (" eth", ["ETH"])}


def test_the_declaration_covers_spec_4_2_and_the_derived_lists():
    # spec 4.2, in its order: 16 parameters
    assert LIST_PARAMS == (
        "sort_asc", "sort_desc", "page", "platform", "category", "type", "location", "status",
        "ico_score", "airdrop_program", "bounty_program", "investor_kyc", "investor_wl",
        "ico_kyc_passed", "accepted_currencies", "exclude_areas")
    assert STATUSES == ("ongoing", "upcoming", "past")
    assert ID_LIST_PARAMS == ("platform", "category", "type")
    assert STRING_LIST_PARAMS == ("location", "accepted_currencies", "exclude_areas")
    assert len(YES_FLAGS) == 5
    assert [p.name for p in PARAMS if not p.filter] == ["sort_asc", "sort_desc", "page"]
    assert all(p.doc for p in PARAMS)


@pytest.mark.parametrize("param", PARAMS, ids=lambda p: p.name)
def test_every_parameter_is_read_by_its_kind(param):
    given, wire = SAMPLES["tickers" if param.tickers else param.kind]
    assert validate_list_params({param.name: given}) == {param.name: wire}


@pytest.mark.parametrize("given", ["Past", "PAST", " past ", "pAsT"])
def test_status_is_accepted_in_any_case(given):
    assert validate_list_params({"status": given}) == {"status": "past"}


def test_a_misspelled_status_or_sort_key_gets_a_suggestion():
    with pytest.raises(InvalidParameter, match=r"one of ongoing, upcoming, past; did you mean "
                                               r"'upcoming'\?"):
        validate_list_params({"status": "Upcomming"})
    with pytest.raises(InvalidParameter, match=r"did you mean 'start_datetime'\?"):
        validate_list_params({"sort_desc": "start_date"})
    with pytest.raises(InvalidParameter, match=r"one of ongoing, upcoming, past$"):
        validate_list_params({"status": "whatever"})  # nothing close, no meaning: no guess
    with pytest.raises(InvalidParameter, match=r"one of ongoing, upcoming, past; did you mean "
                                               r"'past'\?$"):
        validate_list_params({"status": "finished"})  # a word for one (STATUS_WORDS)


@pytest.mark.parametrize(
    ("given", "suggestion"),
    [("staus", "'status'"), ("platfrom", "'platform'"), ("locations", "'location'"),
     ("exclude_area", "'exclude_areas'"), ("ico_kyc", "'ico_kyc_passed' or 'investor_kyc'")],
)
def test_a_misspelled_keyword_gets_a_suggestion_not_the_whole_list(given, suggestion):
    with pytest.raises(InvalidParameter) as info:
        validate_list_params({given: "x"})
    message = str(info.value)
    assert message.endswith(f"did you mean {suggestion}?")
    assert "accepted_currencies" not in message  # not a list of all 16


def test_an_unknown_keyword_without_a_close_match_points_at_the_declaration():
    with pytest.raises(InvalidParameter, match=r"colour is not a list parameter of spec 4\.2 "
                                               r"\(see icoframes\.api\.params\.PARAMS\)"):
        validate_list_params({"colour": "red"})


def test_values_out_of_the_declared_range_are_rejected():
    with pytest.raises(InvalidParameter, match="ico_score=11: must be an integer from 1 to 10"):
        validate_list_params({"ico_score": 11})
    with pytest.raises(InvalidParameter, match="page=0: must be an integer from 1 to 9223"):
        validate_list_params({"page": 0})
    with pytest.raises(InvalidParameter, match=f"must be one of {', '.join(SORT_KEYS)}"):
        validate_list_params({"sort_asc": 3})
    assert validate_list_params({"bounty_program": None, "location": None}) == {}
    for refused in (False, np.False_, "no", 1):
        with pytest.raises(InvalidParameter, match=r"bounty_program=.*: takes True"):
            validate_list_params({"bounty_program": refused})


def test_loaders_reject_typos_before_any_request(tmp_path):
    # nothing listens on port 9: a request would fail with a connection error instead
    icoframes.configure(base_url="http://127.0.0.1:9", public_key="p", private_key="s",
                        cache_dir=tmp_path, timeout=1)
    try:
        with pytest.raises(InvalidParameter, match="did you mean 'exclude_areas'"):
            icoframes.load_icos(exclude_area="Atlantis", progress=False)
        with pytest.raises(InvalidParameter, match="did you mean 'past'"):
            icoframes.load_list(status="pats", progress=False)
    finally:
        icoframes.reset_configuration()
