"""Two statuses joined by a word ("past and ongoing", "past or ongoing") are a list pasted as
one text, said as "past,ongoing" is: one status per call and how to load all three, not
"did you mean 'ongoing'" (which drops "past"). The sandbox's ``add_ico`` and ``update_ico``
set the one status list an ICO is in: a word for every status or a list of them gets the
mutator's own hint, not the loaders' "leave status out (None) to load all three".
Against a real sandbox: 0 requests, nothing added or changed.
"""

from __future__ import annotations

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import InvalidParameter

RULE = "must be one of ongoing, upcoming, past"
EVERY = "all three, each row tagged with its status"


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=4) as server:
        yield server


@pytest.mark.parametrize(("text", "named"), [
    ("past and ongoing", "'past', 'ongoing'"), ("Past OR Ongoing", "'past', 'ongoing'"),
    ("past, and upcoming", "'past', 'upcoming'"), ("finished or live", "'past', 'ongoing'"),
    ("past & ongoing", "'past', 'ongoing'")])
def test_two_statuses_joined_by_a_word_say_one_status_per_call(cfg, tmp_path, capsys, text,
                                                               named):
    for load in (icoframes.load_list, icoframes.load_icos, icoframes.load_tables):
        with pytest.raises(InvalidParameter) as exc:
            load(status=text, progress=False)
        assert str(exc.value) == (
            f"invalid list parameter status={text!r}: {RULE}; {named} as one text: one status "
            f"per call: leave status out (None) to load {EVERY}, then keep the rows wanted")
    assert main(["export", "--out", str(tmp_path / "out"), "--status", text]) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        f"as one text: one status per call: leave --status out to export {EVERY}, then keep "
        "the rows wanted")
    assert cfg.stats.requests.total() == 0


@pytest.mark.parametrize("text", ["past and", "and", "past and past"])
def test_a_joining_word_without_two_statuses_is_no_list(cfg, text):
    with pytest.raises(InvalidParameter) as exc:
        icoframes.load_list(status=text, progress=False)
    assert "as one text" not in str(exc.value) and RULE in str(exc.value)


ONE = "{} puts an ICO in one status list: give one of 'ongoing', 'upcoming', 'past', a call " \
      "per ICO"


@pytest.mark.parametrize(("value", "said"), [
    ("all", "; {one}"), (" Every ", "; {one}"), ("*", "; {one}"),
    ("past,ongoing", "; 'past', 'ongoing' as one text: one status per call: {one}"),
    ("past and ongoing", "; 'past', 'ongoing' as one text: one status per call: {one}"),
    (["past", "ongoing"], "; one status per call: {one}")])
def test_the_sandbox_mutators_give_their_own_hint(sb, value, said):
    ids, first, before = sb.directory.ids(), sb.directory.ids()[0], sb.stats.requests.total()
    status = sb.directory.status_of(first)
    for name, call in (("add_ico", lambda: sb.add_ico(status=value)),
                       ("update_ico", lambda: sb.update_ico(first, status=value))):
        with pytest.raises(InvalidParameter) as exc:
            call()
        assert str(exc.value) == (f"invalid argument status={value!r}: {RULE}"
                                  + said.format(one=ONE.format(name)))
        assert "leave status out" not in str(exc.value)
    assert sb.directory.ids() == ids and sb.directory.status_of(first) == status
    assert sb.stats.requests.total() == before


def test_the_sandbox_mutators_keep_their_other_hints(sb):
    for value, hint in (("finished", "; did you mean 'past'?"), ("pst", "; did you mean 'past'?")):
        with pytest.raises(InvalidParameter) as exc:
            sb.add_ico(status=value)
        assert str(exc.value) == f"invalid argument status={value!r}: {RULE}{hint}"
    new = sb.add_ico(status=" Ongoing")
    assert sb.directory.status_of(new) == "ongoing"


@pytest.mark.parametrize(("value", "said"), [
    ("ALL", "; {one}"), (("past", "ongoing"), "; one status per call: {one}"),
    ("past or ongoing", "; 'past', 'ongoing' as one text: one status per call: {one}"),
    ("finished", "; did you mean 'past'?")])
def test_read_status_words_what_a_status_is_where_it_is_read(value, said):
    # the mutators' hint is built as said (read_status's ``one``), not by rewriting the
    # loaders' text in the refusal; the loaders' words stay theirs
    from icoframes.api.params import read_status

    one = ONE.format("add_ico")
    with pytest.raises(InvalidParameter) as exc:
        read_status(value, one=one)
    assert str(exc.value) == f"invalid argument status={value!r}: {RULE}" + said.format(one=one)
    with pytest.raises(InvalidParameter) as theirs:
        read_status(value)
    assert "puts an ICO" not in str(theirs.value)
