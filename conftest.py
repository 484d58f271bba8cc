"""Run the tests against the source tree, whatever is installed."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).parent
for source_root in ("rules", "linter"):
    path = str(ROOT / source_root)
    if path not in sys.path:
        sys.path.insert(0, path)


def pytest_addoption(parser: object) -> None:
    import pytest

    assert isinstance(parser, pytest.Parser)
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite golden .out files and output snapshots from the current output",
    )


def pytest_configure(config: object) -> None:
    import os

    # Under GitHub Actions vlint defaults to annotations; tests expect the terminal default.
    os.environ.pop("GITHUB_ACTIONS", None)
