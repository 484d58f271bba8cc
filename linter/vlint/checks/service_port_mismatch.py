"""What it does
    Reports a Kubernetes Service in the same file and namespace whose selector matches the labels
    of a pod that launches vLLM, and whose ``targetPort`` (its ``port`` when no target is written;
    a name resolved through the container's ports) is not the port vLLM's API server listens on
    (``--port``, or the release's default from the catalog).  Only for a pod with one container:
    in a pod with sidecars the Service may mean another container.  The finding points at the
    ``targetPort``, with ``--port`` as a related location where it is written.

Why is this bad?
    The Service forwards every connection to ``targetPort`` on the pod; nothing listens there,
    so clients (an Ingress, other services) get "connection refused" while the pod looks healthy
    (Kubernetes, "Service": ``targetPort``).

Example
    ``vllm serve m --port 8080`` in a pod selected by a Service with ``targetPort: 8000``.

Use instead
    ``targetPort: 8080``, or a named container port (``name: http``) and ``targetPort: http``.

Fix safety
    No fix: which number is meant is the deployment's choice.

vLLM releases
    All; ``--port``'s default is each release's own.  Silent when a selector, a label, the port
    or ``--port`` is not literal, for options vlint cannot see, for a launch on a Unix socket,
    and for Services in other files of the folder (not read yet).

References
    https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.serving import listening
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL615", name="service-port-mismatch", severity="warning", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    facts = context.resolution.invocation.deployment
    if not facts.service_ports or facts.pod_containers != 1:
        return
    server = listening(context)
    if server is None:
        return
    for service_port in facts.service_ports:
        target = service_port.target.value
        if isinstance(target, str):
            target = next((port.container.value for port in facts.ports if port.name == target),
                          None)
        if target is None or target == server.port:
            continue
        related = () if server.span is None else (
            Related(server.span, f"vLLM listens on {server.port} here"),)
        yield context.finding(
            RULE,
            service_port.target.span,
            f"Service '{service_port.service}' sends its traffic to port {target}, but vLLM "
            f"listens on {server.described}: connections are refused",
            f"set targetPort to {server.port}, the port vLLM listens on",
            related=related,
        )
