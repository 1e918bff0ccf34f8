"""`python -m icoframes` is the same as the `icoframes` command."""

from .cli import run

run()
