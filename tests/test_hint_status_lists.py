"""A list of statuses pasted as one text ("past,ongoing", "past ongoing") is refused saying
one status per call and how to load all three, not "did you mean 'ongoing'" (which drops
"past"); on the command line, ``--status all`` (``ALL``, ``*``) says to leave --status out,
as the loaders say to leave status out. Each against a real sandbox: 0 requests.
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter

RULE = "must be one of ongoing, upcoming, past"
EVERY = "all three, each row tagged with its status"
CHOICES = "(choose from 'ongoing', 'upcoming', 'past')"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=4) as server:
        yield server


@pytest.mark.parametrize(("text", "named"), [
    ("past,ongoing", "'past', 'ongoing'"), ("past ongoing", "'past', 'ongoing'"),
    ("Past; Upcoming", "'past', 'upcoming'"), ("ongoing/past", "'ongoing', 'past'"),
    ("past, ongoing, upcoming", "'past', 'ongoing', 'upcoming'"),
    ("finished,live", "'past', 'ongoing'")])
def test_a_list_in_one_text_says_one_status_per_call(cfg, tmp_path, text, named):
    expected = (f"invalid list parameter status={text!r}: {RULE}; {named} as one text: one "
                f"status per call: leave status out (None) to load {EVERY}, then keep the rows "
                "wanted")
    for load in (icoframes.load_list, icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(InvalidParameter) as exc:
            load(text, progress=False)
        assert str(exc.value) == expected
    with pytest.raises(InvalidParameter, match="as one text: one status per call"):
        icoframes.export_tables(tmp_path / "out", status=text, progress=False)
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("text", ["past/finished", "past,pats", "all,past"])
def test_a_text_that_names_no_two_statuses_keeps_its_own_refusal(cfg, text):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list(text, progress=False)
    assert "as one text" not in str(exc.value) and RULE in str(exc.value)
    assert cfg.stats.requests.total() == 0


def _export(cfg, tmp_path, capsys, status: str) -> str:
    assert main(["export", "--out", str(tmp_path / "out"), "--status", status]) == 2
    assert cfg.stats.requests.total() == 0 and not (tmp_path / "out").exists()
    return capsys.readouterr().err.rstrip()


@pytest.mark.parametrize("word", ["all", "ALL", "*", " Any ", "both"])
def test_the_command_line_says_leave_status_out(cfg, tmp_path, capsys, word):
    folded = word.strip().casefold()
    assert _export(cfg, tmp_path, capsys, word).endswith(
        f"argument --status: invalid choice: {folded!r} {CHOICES}; leave --status out to "
        f"export {EVERY}")


@pytest.mark.parametrize("text", ["past,ongoing", "Past Ongoing"])
def test_the_command_line_says_one_status_per_call(cfg, tmp_path, capsys, text):
    folded = text.casefold()
    assert _export(cfg, tmp_path, capsys, text).endswith(
        f"argument --status: invalid choice: {folded!r} {CHOICES}; 'past', 'ongoing' as one "
        f"text: one status per call: leave --status out to export {EVERY}, then keep the rows "
        "wanted")


def test_the_command_line_keeps_its_other_hints(cfg, tmp_path, capsys):
    assert _export(cfg, tmp_path, capsys, "pst").endswith(f"{CHOICES}; did you mean 'past'?")
    assert _export(cfg, tmp_path, capsys, "Finished").endswith(
        f"{CHOICES}; did you mean 'past'?")
    assert _export(cfg, tmp_path, capsys, "whatever").endswith(CHOICES)
