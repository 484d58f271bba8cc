"""Ray Serve LLM: the vLLM release each Ray release installs (``curated/ray_serve.toml``).

A Ray Serve LLM deployment (``ray.serve.llm``; a YAML ``llm_configs`` entry, a Python
``LLMConfig(...)``) runs the vLLM that the Ray release's ``llm`` extra installs.  The table
records, per Ray release, that extra's requirement as Ray published it (the wheel's
``Requires-Dist``, written by Ray's ``python/setup.py``); only an exact pin names a release.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from packaging.version import InvalidVersion, Version

from vlint.knowledge.curated import document

__all__ = ["RayPin", "ray_pin", "ray_version_from_image", "release_for_ray"]

# Ray's own images (rayproject/ray, rayproject/ray-llm, rayproject/ray-ml, and Anyscale's
# anyscale/ray, anyscale/ray-llm) are tagged with the Ray release first: ``2.46.0-py311-cu124``.
_RAY_IMAGE = re.compile(r"(^|/)(rayproject|anyscale)/ray(-llm|-ml)?$")
_RAY_TAG = re.compile(r"^(\d+\.\d+\.\d+)(?:[-.].*)?$")


@dataclass(frozen=True)
class RayPin:
    """The vLLM requirement of one Ray release's ``llm`` extra: ``vllm==X`` (``exact``) or
    ``vllm>=X`` (``minimum``: pip installs the newest vLLM, X is only a floor)."""

    ray: Version
    vllm: Version
    exact: bool
    source: str


@cache
def _pins() -> Mapping[Version, RayPin]:
    pins = (RayPin(ray=Version(str(row["ray"])), vllm=Version(str(row["vllm"])),
                   exact=row["pin"] == "exact", source=str(row["source"]))
            for row in document("ray_serve").get("releases", ()))
    return {pin.ray: pin for pin in pins}


def ray_pin(version: str) -> RayPin | None:
    """The curated requirement of Ray ``version`` (``"2.46.0"``, ``"v2.46.0"``); None when the
    release is not in the table or ``version`` is not a version."""
    try:
        ray = Version(version.strip())
    except InvalidVersion:
        return None
    return _pins().get(ray)


def release_for_ray(version: str) -> str | None:
    """The vLLM release Ray ``version`` runs for Ray Serve LLM (``"2.60.0"`` -> ``"0.29.0"``),
    or None when Ray pins no exact release (``vllm>=X`` before Ray 2.56.0: the newest vLLM
    at install time) or the Ray release is not known."""
    pin = ray_pin(version)
    return str(pin.vllm) if pin is not None and pin.exact else None


def ray_version_from_image(image: str) -> str | None:
    """The Ray release a Ray image's tag names (``anyscale/ray-llm:2.46.0-py311-cu128`` ->
    ``2.46.0``); None for another image, a digest, ``latest`` or ``nightly``."""
    name = image.split("@", 1)[0]
    repository, _, tag = name.rpartition(":")
    if not repository or "/" in tag or not _RAY_IMAGE.search(repository.lower()):
        return None
    match = _RAY_TAG.match(tag)
    return match.group(1) if match else None
