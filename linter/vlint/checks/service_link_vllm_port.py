"""What it does
    Reports a Kubernetes Service named ``vllm`` in the same file and namespace as a pod that
    launches vLLM, when the pod keeps service links (``enableServiceLinks`` not ``false``) and
    the container does not set ``VLLM_PORT`` itself.  The finding points at the Service's name,
    with the container's image as a related location.  Also a command in a shell script or a
    Markdown document that creates such a Service: ``kubectl expose deployment vllm`` (``oc
    expose deployment/vllm``, any workload kind; the Service takes the workload's name unless
    ``--name`` gives another) and ``kubectl create service clusterip vllm``, at the name.

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
    names each one's error.  A ``kubectl`` command names no release: it is reported as the
    failure of every release that reads ``VLLM_PORT`` (0.4.2 and later).  Services in other
    files of the folder are not read yet.

References
    https://docs.vllm.ai/en/latest/configuration/env_vars.html
    https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule, rule_finding
from vlint.model import Finding, LineIndex, Span
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


# ``kubectl expose KIND NAME`` / ``KIND/NAME`` (oc too) and ``kubectl create service TYPE NAME``
# naming ``vllm``: https://kubernetes.io/docs/reference/kubectl/generated/kubectl_expose/.
_EXPOSE = re.compile(
    r"\b(?:kubectl|oc)[ \t]+(?:(?:-n|--namespace)[ \t=]+\S+[ \t]+)?"
    r"(?:expose[ \t]+(?:deployments?|deploy|statefulsets?|sts|pods?|po|replicasets?|rs|"
    r"replicationcontrollers?|rc|services?|svc)(?:/|[ \t]+)"
    r"|create[ \t]+(?:service|svc)[ \t]+(?:clusterip|nodeport|loadbalancer)[ \t]+)"
    r"(vllm)(?=[ \t;&|)\\]|$)", re.MULTILINE)
_NAMED = re.compile(r"[ \t]--name[ \t=]+[\"']?([A-Za-z0-9.-]+)")
_EXPOSING = re.compile(r"\b(?:kubectl|oc)[ \t]+(?:\S+[ \t]+){0,3}expose[ \t]")
_COMMAND_KINDS = frozenset({"shell", "markdown"})
LOOKBACK = 512
MAX_PER_FILE = 20


def exposed(path: str, kind: str, text: str) -> list[Finding]:
    """The commands of a shell or Markdown file that create a Service named ``vllm`` (at most
    ``MAX_PER_FILE``): the file-level half of the rule, which the engine reports."""
    if kind not in _COMMAND_KINDS or "vllm" not in text or (
            "expose" not in text and "create" not in text):
        return []
    places: list[tuple[int, int]] = []
    for match in _EXPOSE.finditer(text):
        end = text.find("\n", match.end(), match.end() + LOOKBACK)
        named = _NAMED.search(text, match.end(), match.end() + LOOKBACK if end < 0 else end)
        if named is None or named.group(1) == "vllm":
            places.append(match.span(1))
            if len(places) >= MAX_PER_FILE:
                break
    if "--name" in text:
        # ``kubectl expose deployment server --name vllm``: the Service takes the given name.
        for named in _NAMED.finditer(text):
            if named.group(1) != "vllm":
                continue
            # The command's words before it, bounded: a crafted line cannot make this quadratic.
            start = max(text.rfind("\n", 0, named.start()) + 1, named.start() - LOOKBACK)
            if _EXPOSING.search(text, start, named.start()):
                places.append(named.span(1))
                if len(places) >= MAX_PER_FILE:
                    break
    if not places:
        return []
    found: list[Finding] = []
    lines = LineIndex.of(text)
    for start, end in sorted(set(places))[:MAX_PER_FILE]:
        span = Span(lines.pos(start), lines.pos(end))
        found.append(rule_finding(
            RULE, path, span,
            "this creates a Service named 'vllm', which sets VLLM_PORT=tcp://<ip>:<port> in "
            "every new pod of its namespace: vLLM fails there at start-up (VLLM_PORT "
            "'tcp://...' appears to be a URI)",
            "give the Service another name (--name vllm-server), or set enableServiceLinks: "
            "false in the vLLM pod",
        ))
    return found
