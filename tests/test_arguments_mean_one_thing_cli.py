"""Command-line arguments that meant nothing (more of test_arguments_mean_one_thing)."""

from __future__ import annotations

import pytest

from icoframes.cli import main


@pytest.mark.parametrize("n_icos", ["0", "-3", "many"])
def test_the_demo_needs_at_least_one_ico(tmp_path, n_icos, capsys):
    # with 0 it ran and ended "no ICO matched ... pass --allow-empty", which demo lacks
    assert main(["demo", "--n-icos", n_icos, "--out", str(tmp_path / "demo")]) == 2
    err = capsys.readouterr().err
    assert f"argument --n-icos: must be a whole number >= 1, got {n_icos!r}" in err
    assert not (tmp_path / "demo").exists()
