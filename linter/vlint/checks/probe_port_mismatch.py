"""What it does
    Reports a health probe that checks a port vLLM's API server does not listen on: a
    Kubernetes or Helm ``livenessProbe``/``readinessProbe``/``startupProbe`` with ``httpGet``,
    ``tcpSocket`` or ``grpc`` (a named port resolved through the container's ``ports``), or a
    compose ``healthcheck`` whose ``test`` fetches a loopback URL, against ``--port`` (the
    release's default when it is not written, from the catalog).  The finding points at the
    probe's port, with ``--port`` as a related location where it is written.

Why is this bad?
    Nothing answers on the probed port, so the probe fails however healthy vLLM is: a liveness
    probe restarts the container over and over (often while the model is still loading), a
    readiness probe keeps the pod out of its Service, a startup probe kills it, and a compose
    service stays ``unhealthy`` (its ``depends_on: condition: service_healthy`` neighbours
    never start).

Example
    ``vllm serve m --port 8080`` with ``livenessProbe: {httpGet: {path: /health, port:
    8000}}``.

Use instead
    Probe the port vLLM listens on (``port: 8080``), or name the container port and probe the
    name.

Fix safety
    No fix: which of the two numbers is meant is the deployment's choice.

vLLM releases
    All; ``--port``'s default is each release's own (8000 in every release so far:
    ``vllm/entrypoints/openai/cli_args.py``).  Silent for a launch on a Unix socket
    (``--uds``), a port that is not literal, options vlint cannot see (``$VLLM_ARGS``), a
    named port the container does not declare, an ``exec`` probe, and a health check of
    another host.

References
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
    https://docs.docker.com/reference/compose-file/services/#healthcheck
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.serving import CONSEQUENCE, listening, probe_port
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL605", name="probe-port-mismatch", severity="error", since="0.2.0")


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    facts = invocation.deployment
    if not facts.probes:
        return
    server = listening(context)
    if server is None:
        return
    for probe in facts.probes:
        if probe.port is None or probe.handler == "none":
            continue
        port = probe_port(probe, facts.ports)
        if port is None or port == server.port:
            continue
        related = () if server.span is None else (
            Related(server.span, f"vLLM listens on {server.port} here"),)
        what = "health check" if probe.kind == "healthcheck" else f"{probe.kind} probe"
        yield context.finding(
            RULE,
            probe.port.span,
            f"the {what} checks port {port}, but vLLM listens on {server.described}: "
            f"{CONSEQUENCE[probe.kind]}",
            f"probe port {server.port}, the port vLLM listens on",
            related=related,
        )
