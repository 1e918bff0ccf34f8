"""What a refusal or a problem says: a number in base 16 is one unreadable number, not a
range; tidy() of no iterable is refused saying what it takes; a plot's "did you mean" offers
no matplotlib property that only shares letters with the keyword."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

import icoframes
from icoframes.errors import InvalidParameter

matplotlib.use("Agg")


def _profile(ico_id: int, hard_cap: str) -> dict[str, object]:
    return {"id": ico_id, "main": {"name": f"P{ico_id}"},
            "finance": {"hard_cap": hard_cap, "caps_unit": "USD"}}


def test_a_number_with_a_base_prefix_is_one_unreadable_number():
    # "0x10" was reason 'range': its "0" and "10" read as two numbers
    written = {1: "0x10", 2: "0X1F", 3: "0b101", 4: "0o17", 5: "0x10-0x20", 6: "100-200"}
    problems = icoframes.tidy([_profile(i, v) for i, v in written.items()]).problems
    reasons = dict(zip(problems["ico_id"], problems["reason"], strict=True))
    assert reasons == {1: "unreadable_number", 2: "unreadable_number", 3: "unreadable_number",
                       4: "unreadable_number", 5: "range", 6: "range"}


@pytest.mark.parametrize(("given", "shown"), [(None, "None"), (5, "5"), (2.5, "2.5")])
def test_tidy_of_no_iterable_says_what_it_takes(given, shown):
    # it was Python's bare TypeError: 'NoneType' object is not iterable
    with pytest.raises(InvalidParameter) as refused:
        icoframes.tidy(given)
    assert str(refused.value) == ("tidy() takes an iterable of profiles (decoded JSON), got "
                                  f"{shown}")


def test_a_plots_did_you_mean_offers_no_property_that_only_shares_letters():
    # normalise: "did you mean 'antialiased'?" (0.6 alike by difflib, nothing alike in meaning)
    with pytest.raises(InvalidParameter) as refused:
        icoframes.plot_status_flow(pd.DataFrame(), normalise=True)
    assert str(refused.value) == ("normalise is not a keyword of plot_status_flow() nor a style "
                                  "of its bars (matplotlib's Axes.bar); its own keywords: ax")
    with pytest.raises(InvalidParameter, match=r"did you mean 'alpha'\?$"):  # a near spelling
        icoframes.plot_status_flow(pd.DataFrame(), alhpa=0.5)
