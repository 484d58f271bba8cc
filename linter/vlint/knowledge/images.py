"""Container images: which references name a vLLM server image, the release a tag pins, and
which server a release's official image starts (its ENTRYPOINT, generated into the catalog).

Extractors, rules and the target resolution all ask these questions about an image reference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from packaging.version import InvalidVersion, Version

from vlint.knowledge import catalog
from vlint.model import Entry

__all__ = ["API_SERVER_MODULE", "LATEST", "image_entry", "is_server_image", "release_from_image"]

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
LATEST = "latest"
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
_SERVER_IMAGE = re.compile(r"(^|/)(vllm-openai(-[a-z0-9]+)?|vllm)(:|@|$)")
_RELEASE_TAG = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)(?:[-+].*)?$")


def is_server_image(image: str) -> bool:
    """Whether an image reference names a vLLM OpenAI server image (``vllm/vllm-openai:...``)."""
    name = image.split("@", 1)[0]
    repository = name.rsplit(":", 1)[0] if ":" in name.rsplit("/", 1)[-1] else name
    return bool(_SERVER_IMAGE.search(repository + ":"))


def release_from_image(image: str) -> str | None:
    """The vLLM release a vLLM image's tag pins (``vllm/vllm-openai:v0.10.1`` -> ``0.10.1``).

    ``latest``, written or implied by a missing tag, is returned as ``"latest"``.  Only an image
    whose name says vLLM counts: ``python:3.11.7`` or ``ghcr.io/llm-d/llm-d-cuda:v0.9.0`` version
    something else.
    """
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    name, _, tag = last.partition(":")
    if "vllm" not in name.lower() or "$" in image or "{" in image:
        return None
    if tag in ("", "latest"):
        return LATEST
    match = _RELEASE_TAG.match(tag)
    return match.group(1) if match else None


def image_entry(target: str | None) -> Entry:
    """Which server the ``vllm/vllm-openai`` image of a release starts (its Dockerfile's
    ENTRYPOINT, generated into the catalog); ``vllm serve`` when the release is not known."""
    if target is None:
        return "serve"
    try:
        version = catalog.newest() if target == LATEST else Version(target)
    except InvalidVersion:
        return "serve"
    known = catalog.known_releases()
    if version not in known:
        return "serve"
    image = _nearest_image(known, known.index(version))
    entrypoint = [w.rsplit("/", 1)[-1] for w in image.get("entrypoint", ())]
    if entrypoint[-1:] == [API_SERVER_MODULE] and entrypoint[:1] and _PYTHON.match(entrypoint[0]):
        return "api_server"
    return "serve"


def _nearest_image(known: Sequence[Version], index: int) -> Mapping[str, Any]:
    """The image facts of ``known[index]``, or of the nearest release that has them.

    A release whose source distribution ships no Dockerfile (0.4.x to 0.6.1) or that was read
    from a wheel has none; its image is taken to start what the nearest release's image starts,
    the newer one first (the official image's ENTRYPOINT changed once in all known releases,
    and never between neighbours that both record it).
    """
    for distance in range(len(known)):
        for neighbour in (index + distance, index - distance):
            if 0 <= neighbour < len(known):
                image = catalog.load(known[neighbour]).raw.get("image")
                if image:
                    found: Mapping[str, Any] = image
                    return found
    return {}
