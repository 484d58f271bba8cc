"""Options and settings for the whole test run.

The source tree is on the import path through pytest's ``pythonpath`` (pyproject.toml), whatever
vlint is installed; the tests are the package ``tests``.
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the golden .out files and the corpus expectations from the current output",
    )
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        help="rewrite the output-format snapshots (tests/snapshots) from the current output",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Under GitHub Actions vlint defaults to annotations; tests expect the terminal default.
    os.environ.pop("GITHUB_ACTIONS", None)
