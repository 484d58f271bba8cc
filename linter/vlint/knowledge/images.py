"""Container images: which references name a vLLM server image, and the release a tag pins.

Extractors, rules and the target resolution all ask these two questions about an image
reference; the answers depend only on the reference's text.
"""

from __future__ import annotations

import re

__all__ = ["LATEST", "is_server_image", "release_from_image"]

LATEST = "latest"
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
