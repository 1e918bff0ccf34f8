"""``python -m icoframes.sandbox [options]`` is ``icoframes sandbox [options]``."""

import sys

from ..cli import main

raise SystemExit(main(["sandbox", *sys.argv[1:]]))
