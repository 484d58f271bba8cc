"""What it does
    Reports a container whose declared ports all differ from the port vLLM's API server listens
    on: the container side of compose ``ports:`` (``HOST:CONTAINER``, long ``target:``) and
    ``expose:``, ``docker run -p`` (``podman``, ``nerdctl``), and the ``containerPort``s of a
    Kubernetes or Helm pod whose only long-running container is vLLM's.  ``--port`` is the
    written value or the release's default (from the catalog).  The finding points at the first
    declared port, with ``--port`` as a related location where it is written.

Why is this bad?
    Traffic sent to the declared port reaches nothing: a compose ``"8000:8000"`` with
    ``--port 8080`` publishes a port no process listens on, and the API cannot be reached from
    outside the container; a Kubernetes Service or probe aimed at the declared port is refused.
    Usually ``--port`` was changed and the deployment was not, or the reverse.  In a pod with a
    sidecar (a proxy in front of vLLM, an init container with ``restartPolicy: Always``) the
    declared ports may be the sidecar's or auxiliary ones (the KV connector's side channels):
    such pods are not judged.

Example
    ``ports: ["8000:8000"]`` with ``command: ["m", "--port", "8080"]``.

Use instead
    ``ports: ["8000:8080"]`` (publish vLLM's port), or drop ``--port 8080``.

Fix safety
    No fix: which side is wrong is the deployment's choice.

vLLM releases
    All; ``--port``'s default is each release's own.  Silent when any published port is vLLM's,
    when a port or ``--port`` is not literal, for options vlint cannot see, and for a launch on
    a Unix socket.  A container that runs another server in front of vLLM (a proxy started by
    the same script on the published port) is reported too: suppress it there.

References
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports
    https://docs.docker.com/reference/compose-file/services/#ports
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.serving import listening
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL606", name="container-port-mismatch", severity="warning", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    facts = context.resolution.invocation.deployment
    if facts.pod_containers is not None and facts.pod_containers != 1:
        return  # a sidecar may own the declared ports
    ports = facts.ports
    if not ports or any(port.container.value is None for port in ports):
        return
    server = listening(context)
    if server is None or any(port.container.value == server.port for port in ports):
        return
    first = ports[0].container
    declared = ", ".join(str(port.container.value) for port in ports)
    related = () if server.span is None else (
        Related(server.span, f"vLLM listens on {server.port} here"),)
    yield context.finding(
        RULE,
        first.span,
        f"the container declares port {declared}, but vLLM listens on {server.described}: "
        "traffic to the declared port reaches nothing",
        f"declare port {server.port}, or make --port the declared one",
        related=related,
    )
