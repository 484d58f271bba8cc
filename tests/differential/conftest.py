"""Fixtures for differential tests against real vLLM releases.

The ``real_vllm`` fixture builds (once, cached under ``$VLINT_VLLM_HOME``) and starts real vLLM
interpreters.  ``VLINT_SKIP_REAL_VLLM=1`` skips these tests; otherwise a failure to build the
environment is an error, so CI cannot pass without the real releases.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realvllm import RealVLLM  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "differential: compares vlint with real vLLM releases (needs tools/vllm_env.py)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.differential)


@pytest.fixture(scope="session")
def real_vllm() -> Iterator[RealVLLM]:
    if os.environ.get("VLINT_SKIP_REAL_VLLM") == "1":
        pytest.skip("VLINT_SKIP_REAL_VLLM=1")
    real = RealVLLM.shared()
    yield real
    real.close()
