"""What it does
    Reports a Kubernetes Service named ``vllm`` in the same file and namespace as a pod that
    launches vLLM, when the pod keeps service links (``enableServiceLinks`` not ``false``) and
    the container does not set ``VLLM_PORT`` itself.  The finding points at the Service's name,
    with the container's image as a related location.

Why is this bad?
    For every Service of its namespace the kubelet gives a new container ``{NAME}_PORT=tcp://
    <cluster-ip>:<port>`` (Kubernetes, "Discovering services", environment variables): a
    Service named ``vllm`` sets ``VLLM_PORT=tcp://10.0.0.1:8000``.  vLLM reads ``VLLM_PORT`` as
    the first of its internal ports (``vllm/envs.py``) and fails at start-up: from 0.9.0
    ``ValueError: VLLM_PORT 'tcp://...' appears to be a URI`` (``get_vllm_port``); before,
    ``int()`` of it raises "invalid literal for int()".  vLLM's environment-variable docs
    warn about exactly this.

Example
    A Deployment running ``vllm serve`` and, in the same file, ``kind: Service`` with
    ``metadata: {name: vllm}``.

Use instead
    Name the Service ``vllm-server`` (anything but ``vllm``), or set ``enableServiceLinks:
    false`` in the pod.

Fix safety
    No fix: other resources (an Ingress, clients) may refer to the Service's name.

vLLM releases
    Every release that reads ``VLLM_PORT`` (the catalog's environment variables); the message
    names each one's error.  Services in other files of the folder are not read yet, nor
    ``kubectl expose deployment vllm``.

References
    https://docs.vllm.ai/en/latest/configuration/env_vars.html
    https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL608", name="service-link-vllm-port", severity="error", since="0.2.0")

_URI_MESSAGE = Version("0.9.0")  # vllm/envs.py get_vllm_port
_VARIABLE = "VLLM_PORT"


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    facts = invocation.deployment
    if _VARIABLE not in resolution.release.env_vars or _VARIABLE in invocation.env:
        return
    links = facts.service_links
    if links is not None and links.value is not True:
        return  # false, or not known
    service = next((name for name in facts.services if name.value == "vllm"), None)
    if service is None:
        return
    if resolution.release.version >= _URI_MESSAGE:
        error = "ValueError: VLLM_PORT 'tcp://...' appears to be a URI"
    else:
        error = "ValueError: invalid literal for int() with base 10: 'tcp://...'"
    related = () if invocation.image_span is None else (
        Related(invocation.image_span, "this container gets VLLM_PORT=tcp://..."),)
    yield context.finding(
        RULE,
        service.span,
        f"a Service named 'vllm' sets VLLM_PORT=tcp://<ip>:<port> in the pod's environment, "
        f"and vLLM {context.releases} fails at start-up: {error}",
        "rename the Service (vllm-server), or set enableServiceLinks: false in the pod",
        related=related,
    )
