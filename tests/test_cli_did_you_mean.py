"""The command's "did you mean": the closest of all the options, the closest choice."""

from __future__ import annotations

import pytest

from icoframes.cli import EXIT_USAGE, main

pytestmark = pytest.mark.usefixtures("clean_settings")

EXPORT_USAGE = "usage: icoframes export [-h] --out DIR"


@pytest.mark.parametrize(("argv", "said"), [
    # a mistyped option, --out missing: the closest option, not the missing one
    (["export", "--stauts", "past"], "the following arguments are required: --out; --stauts "
     "is no option of this command: did you mean '--status'?"),
    (["export", "--statsu", "past"], "the following arguments are required: --out; --statsu "
     "is no option of this command: did you mean '--status'?"),
    (["export", "--budegt", "5"], "the following arguments are required: --out; --budegt "
     "is no option of this command: did you mean '--budget'?"),
    # the missing option named when it is the closest; each typo its own
    (["export", "--ot", "x", "--stauts", "past"], "the following arguments are required: "
     "--out; --ot is no option of this command: did you mean '--out'?; --stauts is no "
     "option of this command: did you mean '--status'?"),
    # nothing close, or an abbreviation argparse reads: the missing option alone
    (["export", "--zzzz", "3"], "the following arguments are required: --out"),
    (["export", "--stat", "past"], "the following arguments are required: --out"),
])
def test_a_mistyped_option_gets_the_closest_of_all_options(argv, said, capsys):
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(EXPORT_USAGE)
    assert err.rstrip().endswith(f"icoframes export: error: {said}")


@pytest.mark.parametrize(("argv", "prog", "said"), [
    # the "--" of every option made any word close enough: '--verbose', '--status' were offered
    (["--bogus"], "icoframes", "the following arguments are required: COMMAND"),
    (["export", "--sort-asc", "name"], "icoframes export",
     "the following arguments are required: --out"),
    (["export", "--out", "o", "--sort-asc", "name"], "icoframes export",
     "unrecognized arguments: --sort-asc name"),  # no key: 8 characters or more
    (["export", "--out", "o", "--bogus"], "icoframes export", "unrecognized arguments: --bogus"),
    # a typo is still a typo
    (["export", "--out", "o", "--snapshots"], "icoframes export",
     "unrecognized arguments: --snapshots; did you mean '--snapshot'?"),
    (["sandbox", "--prot", "1"], "icoframes sandbox",
     "unrecognized arguments: --prot 1; did you mean '--port'?"),
])
def test_an_option_nothing_like_any_gets_no_suggestion(argv, prog, said, tmp_path,
                                                       monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == EXIT_USAGE
    assert capsys.readouterr().err.rstrip().endswith(f"{prog}: error: {said}")
    assert list(tmp_path.iterdir()) == []


def test_with_out_given_the_export_usage_is_printed(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path / "o"), "--stauts", "past"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(EXPORT_USAGE)  # was the top-level usage: icoframes [-h] ... COMMAND
    assert err.rstrip().endswith(
        "icoframes export: error: unrecognized arguments: --stauts past; did you mean "
        "'--status'?")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("argv", "prog", "said"), [
    (["export", "--out", "o", "--status", "pst"], "icoframes export",
     "argument --status: invalid choice: 'pst' (choose from 'ongoing', 'upcoming', 'past'); "
     "did you mean 'past'?"),
    (["export", "--out", "o", "--refresh", "al"], "icoframes export",
     "argument --refresh: invalid choice: 'al' (choose from 'none', 'changed', 'all'); "
     "did you mean 'all'?"),
    # Python's refresh=True/False as words: no suggestion (refresh='changed' in Python had
    # one); the CLI's word for each (review REVE L5)
    (["export", "--out", "o", "--refresh", "true"], "icoframes export",
     "argument --refresh: invalid choice: 'true' (choose from 'none', 'changed', 'all'); "
     "did you mean 'changed'?"),
    (["export", "--out", "o", "--refresh", "False"], "icoframes export",
     "argument --refresh: invalid choice: 'False' (choose from 'none', 'changed', 'all'); "
     "did you mean 'none'?"),
    (["export", "--out", "o", "--refresh", "1"], "icoframes export",  # REVI L4: none
     "argument --refresh: invalid choice: '1' (choose from 'none', 'changed', 'all'); "
     "did you mean 'changed'?"),
    (["export", "--out", "o", "--refresh", "0"], "icoframes export",
     "argument --refresh: invalid choice: '0' (choose from 'none', 'changed', 'all'); "
     "did you mean 'none'?"),
    (["exprot"], "icoframes", "argument COMMAND: invalid choice: 'exprot' (choose from "
     "'export', 'sandbox', 'demo', 'cache'); did you mean 'export'?"),
    (["cache", "sho"], "icoframes cache", "argument action: invalid choice: 'sho' (choose "
     "from 'info', 'clear', 'prune'); did you mean 'info'?"),
    (["cache", "delete"], "icoframes cache", "argument action: invalid choice: 'delete' "
     "(choose from 'info', 'clear', 'prune')"),  # a command that deletes is never offered
    (["cache", "purge"], "icoframes cache", "argument action: invalid choice: 'purge' "
     "(choose from 'info', 'clear', 'prune')"),
    (["cache", "wipe"], "icoframes cache", "argument action: invalid choice: 'wipe' "
     "(choose from 'info', 'clear', 'prune')"),
    (["cache", "clearr"], "icoframes cache", "argument action: invalid choice: 'clearr' "
     "(choose from 'info', 'clear', 'prune')"),
    (["cache", "zzz"], "icoframes cache", "argument action: invalid choice: 'zzz' (choose "
     "from 'info', 'clear', 'prune')"),
])
def test_a_mistyped_choice_gets_the_closest_choice(argv, prog, said, tmp_path, monkeypatch,
                                                   capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"{prog}: error: {said}")
    assert not (tmp_path / "o").exists()
