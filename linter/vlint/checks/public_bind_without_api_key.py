"""What it does
    Reports a server that listens beyond the loopback interface with no API key: ``--host``
    written as ``0.0.0.0``, ``::`` or any address or name other than loopback, or no ``--host``
    at all (the release binds all interfaces then), while neither ``--api-key`` is written nor
    ``VLLM_API_KEY`` is in the invocation's environment.

Why is this bad?
    Anyone who can reach the port can use the model, run up its compute and reach every
    endpoint.  Without ``--host`` vLLM binds every interface: in 0.31.0, 0.32.0 and 0.33.0 the
    parser's default is ``None`` and ``vllm/entrypoints/launchers/launcher.py`` binds
    ``(args.host or "", args.port)`` — the empty address is all IPv4 interfaces.  Inside a
    container image the server must bind all interfaces to be reachable through a published
    port, so a container without a key is exactly the case reported.  vLLM's security guide
    adds that ``--api-key`` protects only the ``/v1``-style endpoints: it is the minimum, not
    the whole answer.

Example
    ``vllm serve my-model --host 0.0.0.0``

Use instead
    ``vllm serve my-model --host 0.0.0.0`` with ``VLLM_API_KEY`` set from a secret store, or
    ``--host 127.0.0.1`` behind a reverse proxy that authenticates.

Fix safety
    No fix: the key must come from the deployment's secret store.

vLLM releases
    All.  Where the bind is implicit, the release's default of ``--host`` is read from the
    catalog; a default of ``None`` means all interfaces (verified in the sources above).  The
    implicit bind is reported only for a container image's whole command (compose,
    Dockerfile): a Kubernetes or Helm argv is often a fragment that an operator or chart
    completes, and a bare ``vllm serve`` in a script or a README usually runs on a
    workstation.  An
    invocation that listens on a Unix socket (``--uds``) is not reported, nor one whose
    environment comes partly from a file vlint does not read (compose ``env_file``), which may
    set ``VLLM_API_KEY``, nor one whose arguments hold a word vlint cannot resolve
    (``vllm serve $VLLM_ARGS``, compose ``command: ${VLLM_ARGS}``), which may hold
    ``--api-key`` or ``--host``.  Python ``LLM(...)`` starts no server.

References
    https://docs.vllm.ai/en/latest/usage/security.html
    https://docs.vllm.ai/en/latest/cli/serve.html
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.security import api_key_set
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.model import Finding

RULE = Rule(code="VL501", name="public-bind-without-api-key", severity="warning", since="0.1.0")

# Kinds whose argv is the container's whole command.  A Kubernetes or Helm argv is often a
# fragment an operator or chart completes (KubeAI, production-stack add their own flags), so an
# implicit bind is not judged there.
_CONTAINER_KINDS = frozenset({"compose", "dockerfile"})
_LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback"})
_HELP = "set VLLM_API_KEY from a secret store (or bind 127.0.0.1 behind an authenticating proxy)"


def is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    if invocation.style != "cli" or resolution.parser is None:
        return
    if resolution.written("uds") is not None or api_key_set(context):
        return
    if may_set_unseen_options(resolution):
        return  # ``$VLLM_ARGS`` may hold ``--api-key``, ``--host`` or ``--uds``
    written = resolution.written("host")
    if written is not None:
        if not written.certain or not isinstance(written.value, str) or written.span is None:
            return
        if is_loopback(written.value):
            return
        yield context.finding(
            RULE,
            written.span,
            f"the server listens on '{written.value}' with no API key",
            _HELP,
        )
        return
    option = resolution.parser.by_dest.get("host")
    if option is None or invocation.image is None:
        return
    if not _CONTAINER_KINDS.intersection(invocation.origin):
        return
    if option.default is not None:
        if not option.default_known or is_loopback(str(option.default)):
            return
        bound = f"'{option.default}'"
    else:
        bound = "all interfaces"
    yield context.finding(
        RULE,
        invocation.anchor,
        f"no '--host': vLLM {context.releases} binds {bound} in the container and no API key "
        "is set",
        _HELP,
    )
