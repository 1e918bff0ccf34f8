"""``python -m icoframes.sandbox [options]`` is ``icoframes sandbox [options]``."""

from .command import main

raise SystemExit(main())
