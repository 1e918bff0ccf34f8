"""``icoframes cache prune --older-than DAYS``, and no guess of the command that deletes.

``icoframes cache prune`` (``prune_cache`` had no command) was answered "did you mean
'clear'?" (through the synonym "purge"): a user who meant to keep what is recent was
offered the command that deletes everything. The cache is a real sandbox load's.
"""

from __future__ import annotations

import os

import pytest
from test_cli_cache import cached  # noqa: F401  (the fixture)

from icoframes.cli import EXIT_OK, EXIT_USAGE, main

pytestmark = pytest.mark.usefixtures("clean_settings")

#: 2000-01-01 UTC: older than any --older-than a test gives, whenever it runs
LONG_AGO = 946684800


@pytest.mark.parametrize("typed", ["prune", "cleer", "clean", "pruge", "prun"])
def test_no_guess_names_a_command_that_deletes(typed, capsys):
    args = ["cache", typed] if typed != "prune" else ["cache", "prune", "--older-than", "-1"]
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error:" in err
    assert "did you mean 'clear'" not in err and "did you mean 'prune'" not in err


@pytest.mark.parametrize("typed", ["purge", "wipe", "delete", "remove", "Clear"])
def test_a_word_for_deleting_gets_the_commands_listed_not_one_offered(typed, capsys):
    # "purge" may mean prune (the old) or clear (all): the user picks from the list
    assert main(["cache", typed]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "did you mean" not in err
    assert err.rstrip().endswith("(choose from 'info', 'clear', 'prune')")


def test_prune_needs_older_than(capsys, caplog):
    assert main(["cache", "prune"]) == EXIT_USAGE
    assert "icoframes cache prune needs --older-than DAYS" in caplog.text
    assert main(["cache", "info", "--older-than", "3"]) == EXIT_USAGE
    assert "--older-than is for icoframes cache prune only" in caplog.text


def test_cache_prune_keeps_what_is_recent_and_removes_what_is_not(cached, capsys):  # noqa: F811
    assert main(["cache", "prune", "--older-than", "30"]) == EXIT_OK
    assert capsys.readouterr() == ("cache pruned: nothing was unused that long\n", "")
    assert cached.is_dir()
    for folder, _, files in os.walk(cached):  # no load used it since 2000
        for name in files:
            os.utime(os.path.join(folder, name), (LONG_AGO, LONG_AGO))
    assert main(["cache", "prune", "--older-than", "30"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"removed {cached}"
    assert out.splitlines()[-1].startswith("cache pruned: 1 path removed, ")
    assert err == "" and not cached.exists()
