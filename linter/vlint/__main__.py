"""``python -m vlint``: the command line, with the current folder off the import path.

``python -m`` puts the current folder first on ``sys.path``; in a checkout being linted, a
module there named like one vlint imports (``click.py``) would run as vlint's own code.
"""

from __future__ import annotations

import os
import sys


def _without_cwd(entries: list[str]) -> list[str]:
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the current folder was removed
        here = None
    return [entry for entry in entries if entry and os.path.realpath(entry) != here]


sys.path[:] = _without_cwd(sys.path)

from vlint.cli import run  # noqa: E402  (after the import path is safe)

run()
