"""What it does
    Reports a health probe on a path vLLM's API server guards with the API key, for a launch
    that sets one (``--api-key``, ``VLLM_API_KEY``): a Kubernetes or Helm ``httpGet`` probe, or
    a compose ``healthcheck`` fetching a loopback URL with a tool that fails on an HTTP error
    (``curl -f``, ``wget``), that sends no ``Authorization`` header.  The guarded prefixes are
    each release's own, generated from its authentication middleware: ``/v1`` up to 0.21.x;
    ``/v1``, ``/v2`` and ``/inference`` from 0.22.0; ``/cohere`` too from 0.27.0
    (``AuthenticationMiddleware``, ``vllm/entrypoints/openai/api_server.py`` and later
    ``vllm/entrypoints/serve/middleware/authenticate.py``, ``GUARDED_PREFIX``).  The finding
    points at the path, with the API key as a related location.

Why is this bad?
    Without the key the server answers 401 to every request on those paths, so the probe
    fails however healthy vLLM is: the kubelet restarts the container (liveness), never
    routes traffic to it (readiness) or kills it (startup); compose marks the service
    unhealthy.  ``/health`` is not guarded in any release and answers 200 once the engine is
    up.

Example
    ``livenessProbe: {httpGet: {path: /v1/models, port: 8000}}`` with ``VLLM_API_KEY`` set.

Use instead
    ``livenessProbe: {httpGet: {path: /health, port: 8000}}``.

Fix safety
    No fix: the probe's purpose (a model listing rather than liveness) is the deployment's.

vLLM releases
    All releases with ``--api-key``, each with its own guarded prefixes.  Silent when the key
    may only be set (an environment vlint cannot read), for a path that is not literal, and
    for a ``curl`` without ``--fail``, which succeeds on a 401.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.serving import CONSEQUENCE, api_key_at
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL607", name="probe-path-needs-api-key", severity="error", since="0.2.0")

_HTTP_HANDLERS = frozenset({"httpGet", "exec"})


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    probes = resolution.invocation.deployment.probes
    guarded = resolution.release.api_key_paths
    if not probes or not guarded or resolution.invocation.style != "cli":
        return
    key = api_key_at(context)
    if key is None:
        return
    for probe in probes:
        path = probe.path
        if path is None or path.value is None or probe.handler not in _HTTP_HANDLERS:
            continue
        if probe.authorized or not probe.status_checked:
            continue
        prefix = next((p for p in guarded if path.value.startswith(p)), None)
        if prefix is None:
            continue
        what = "health check" if probe.kind == "healthcheck" else f"{probe.kind} probe"
        yield context.finding(
            RULE,
            path.span,
            f"the {what} requests '{path.value}' with no API key, and vLLM {context.releases} "
            f"answers 401 on '{prefix}' paths when a key is set: {CONSEQUENCE[probe.kind]}",
            "probe /health, which needs no key",
            related=(Related(key, "the API key is set here"),),
        )
