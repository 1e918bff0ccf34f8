"""A status word with an obvious meaning ("finished", "live", "future") is refused with the
status it most likely means; "all", "any" or a list of statuses with how to load them all
(leave status out). The word is never taken: a status has one spelling. Each refusal is
checked against a real sandbox, before any request (0 counted).
"""

from __future__ import annotations

import numpy as np
import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter

RULE = "must be one of ongoing, upcoming, past"
EVERY = ("; leave status out (None) to load all three, each row tagged with its status")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=4) as server:
        yield server


@pytest.mark.parametrize(("word", "meant"), [
    ("finished", "past"), ("ended", "past"), ("Closed", "past"), ("completed ", "past"),
    ("active", "ongoing"), ("live", "ongoing"), ("current", "ongoing"), ("open", "ongoing"),
    ("future", "upcoming"), ("planned", "upcoming")])
def test_a_status_word_gets_the_status_it_means(cfg, tmp_path, word, meant):
    expected = f"invalid list parameter status={word!r}: {RULE}; did you mean {meant!r}?"
    for load in (icoframes.load_list, icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(InvalidParameter) as exc:
            load(word, progress=False)
        assert str(exc.value) == expected
    with pytest.raises(InvalidParameter, match=r"did you mean"):
        icoframes.export_tables(tmp_path / "out", status=word, progress=False)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("word", ["all", "any", " ALL", "every", "both", "*"])
def test_a_word_for_every_status_says_to_leave_status_out(cfg, word):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_icos(status=word, progress=False)
    assert str(exc.value) == f"invalid list parameter status={word!r}: {RULE}{EVERY}"
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("statuses", [["past", "ongoing"], ("past",), np.array(["past"])])
def test_a_list_of_statuses_says_one_per_call_or_leave_it_out(cfg, statuses):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list(statuses, progress=False)
    assert str(exc.value).endswith(f"{RULE}; one status per call{EVERY.replace('; ', ': ')}, "
                                   "then keep the rows wanted")
    assert cfg.stats.requests.total() == 0


def test_a_misspelling_keeps_its_did_you_mean_and_a_status_in_any_case_is_taken(cfg):
    with pytest.raises(InvalidParameter, match=f"{RULE}; did you mean 'past'\\?$"):
        icoframes.load_list("pats", progress=False)
    with pytest.raises(InvalidParameter, match=f"{RULE}$"):
        icoframes.load_list("whatever", progress=False)
    assert cfg.stats.requests.total() == 0
    assert set(icoframes.load_list(" Past", progress=False)["status"]) == {"past"}


def test_the_command_line_offers_the_status_a_word_means(cfg, tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path / "out"), "--status", "Finished"]) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "invalid choice: 'finished' (choose from 'ongoing', 'upcoming', 'past'); did you mean "
        "'past'?")
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()
