"""What it does
    Reports a Kubernetes or Helm container that launches vLLM with a liveness probe, no
    startup probe, and a liveness budget — ``initialDelaySeconds + failureThreshold x
    periodSeconds``, with Kubernetes' defaults (0, 3, 10) for what is not written — below the
    configuration's ``liveness-budget`` (120 seconds by default).  The finding points at the
    ``livenessProbe`` key.

Why is this bad?
    The kubelet starts liveness probes as soon as the container starts, unless a startup probe
    holds them back.  vLLM answers ``/health`` only once the model is loaded, the KV cache
    sized and the CUDA graphs captured, which takes minutes for large models (downloads
    included): a probe that gives up sooner kills the container, which starts again and is
    killed again (``CrashLoopBackOff``), and the model never serves.  vLLM's Kubernetes guide
    uses long initial delays or a startup probe for this.

Example
    ``livenessProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10}`` (30 seconds).

Use instead
    A ``startupProbe`` on ``/health`` with ``failureThreshold: 60`` and ``periodSeconds: 10``
    (ten minutes) beside the liveness probe, or a liveness ``initialDelaySeconds`` the model
    needs.

Fix safety
    No fix: how long the model takes to load is the deployment's.

vLLM releases
    All.  A heuristic: the time a model takes to start depends on its size, the storage and the
    GPUs, so the threshold is configurable (``liveness-budget = 300`` in ``[tool.vlint]``;
    ``0`` turns the rule off).  Silent when a probe's timing is not literal.

References
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
    https://docs.vllm.ai/en/latest/deployment/k8s.html
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.model import Finding, Located

RULE = Rule(code="VL612", name="liveness-without-startup-probe", severity="warning",
            since="0.2.0")

# Kubernetes' defaults (core/v1 Probe): initialDelaySeconds 0, periodSeconds 10,
# failureThreshold 3.
_DEFAULTS = {"initial_delay": 0, "period": 10, "failure_threshold": 3}


def _seconds(located: Located[int | None] | None, default: int) -> int | None:
    if located is None:
        return default
    return located.value


def check(context: Context) -> Iterator[Finding]:
    if context.liveness_budget <= 0:
        return
    probes = context.resolution.invocation.deployment.probes
    if any(probe.kind == "startup" for probe in probes):
        return
    liveness = next((probe for probe in probes if probe.kind == "liveness"), None)
    if liveness is None:
        return
    delay = _seconds(liveness.initial_delay, _DEFAULTS["initial_delay"])
    period = _seconds(liveness.period, _DEFAULTS["period"])
    failures = _seconds(liveness.failure_threshold, _DEFAULTS["failure_threshold"])
    if delay is None or period is None or failures is None:
        return
    budget = delay + failures * period
    if budget >= context.liveness_budget:
        return
    yield context.finding(
        RULE,
        liveness.span,
        f"the liveness probe gives vLLM {budget} s to start (initialDelaySeconds {delay} + "
        f"failureThreshold {failures} x periodSeconds {period}) and there is no startup probe: "
        "a model that takes longer to load is killed and restarted",
        "add a startupProbe on /health (failureThreshold x periodSeconds covering the load), "
        f"or a longer initialDelaySeconds (liveness-budget is {context.liveness_budget} s)",
    )
