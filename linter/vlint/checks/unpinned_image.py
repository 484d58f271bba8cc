"""What it does
    Reports a vLLM server image (``vllm/vllm-openai``, ``vllm/vllm-openai-rocm``, ...) referenced
    without a tag, or with a floating tag: ``latest``, ``nightly``, ``main``, ``dev``,
    ``stable``, ``edge``.  A release tag (``v0.32.0``), a dated or other fixed tag
    (``nightly-2025-08-25``) or a digest (``@sha256:...``) passes.

Why is this bad?
    A floating tag is a different image after every push: a redeploy silently upgrades vLLM
    (flags removed or renamed, new defaults), nobody can say which code serves the model, and
    vlint cannot pick the release to check against (it falls back to the project's pin or the
    newest release it knows).  A supply-chain change also arrives unreviewed.

Example
    ``image: vllm/vllm-openai:latest``

Use instead
    ``image: vllm/vllm-openai:v0.32.0`` (or ``vllm/vllm-openai@sha256:<digest>``).

Fix safety
    No fix: which release to pin is the deployment's choice.

vLLM releases
    All.  The finding points at the image reference (compose and Kubernetes ``image:``,
    Dockerfile ``FROM``, a Helm values ``image:`` or ``repository:``, a SkyPilot
    ``image_id: docker:...``); for a compose service built from a Dockerfile that keeps its
    base image's entry point, at the service's ``build:``, naming that base image.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/deployment/docker.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.knowledge.images import is_server_image
from vlint.model import Finding

RULE = Rule(code="VL504", name="unpinned-image", severity="warning", since="0.1.0")

_FLOATING = frozenset({"latest", "nightly", "main", "dev", "stable", "edge"})


def floating_tag(image: str) -> str | None:
    """``'latest'`` (no tag) or the floating tag of ``image``; None when it is pinned."""
    if "@" in image:
        return None
    last = image.rsplit("/", 1)[-1]
    if ":" not in last:
        return "latest"
    tag = last.rsplit(":", 1)[1].lower()
    if tag in _FLOATING:
        return tag
    return None


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    image = invocation.image
    if image is None or "$" in image or not is_server_image(image):
        return
    tag = floating_tag(image)
    if tag is None:
        return
    written = "no tag" if ":" not in image.rsplit("/", 1)[-1] else f"':{tag}'"
    yield context.finding(
        RULE,
        invocation.image_span or invocation.anchor,
        f"'{image}' is not pinned: {written} follows every new vLLM build",
        "pin a release tag (vllm/vllm-openai:v0.32.0) or a digest (@sha256:...)",
    )
