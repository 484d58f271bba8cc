"""What it does
    Reports ``--port`` given vLLM's internal port variable (``--port $VLLM_PORT``,
    ``${VLLM_PORT}``, Kubernetes ``$(VLLM_PORT)``) or ``--host`` given ``VLLM_HOST_IP``, where
    that variable is in the environment vLLM gets (exported, a container's ``env``), and, for
    releases before 0.6.3, a literal ``VLLM_PORT`` in the launch's environment equal to the API
    server's port.  A compose ``${VLLM_PORT}``, substituted from the host before the container
    starts, or a shell variable that is not exported, is only a name: it is not reported.

Why is this bad?
    Both variables belong to vLLM's distributed runtime, not to its API server
    (``vllm/envs.py``: ``VLLM_HOST_IP`` is the node's address for the workers, ``VLLM_PORT``
    the first of the internal ports vLLM opens, the next ones counting up from it); vLLM's
    environment-variable docs say not to start the API server with them.  From 0.6.3 the
    server binds its port before the engine starts (``vllm/entrypoints/openai/api_server.py``,
    "bind the port before the engine is set up") and the internal ports skip a busy one
    (``get_open_port``), so the launch works, tied to a setting meant for something else (a
    hint).  Before 0.6.3 the engine took its ports first: a ``VLLM_PORT`` equal to the server's
    port gave the port to the engine, and the server could not bind it (a warning).

Example
    ``VLLM_PORT=8000 vllm serve m --port $VLLM_PORT``

Use instead
    ``vllm serve m --port 8000``, and leave ``VLLM_PORT`` unset (or set it far from the
    server's port).

Fix safety
    No fix.

vLLM releases
    Every release that reads the variable (the catalog's environment variables); the collision
    only before 0.6.3.  Silent when ``--port`` is not known.

References
    https://docs.vllm.ai/en/latest/configuration/env_vars.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule
from vlint.checks.serving import listening
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL609", name="internal-port-as-server-port", severity="info", since="0.2.0")

_OPTIONS = {"port": "VLLM_PORT", "host": "VLLM_HOST_IP"}
# From this release the API server binds its port before the engine opens its own.
BOUND_FIRST = Version("0.6.3")


def _references(name: str) -> re.Pattern[str]:
    return re.compile(rf"\$(?:{name}\b|\{{{name}[}}:]|\({name}\))")


_REFERENCE = {dest: _references(variable) for dest, variable in _OPTIONS.items()}


def check(context: Context) -> Iterator[Finding]:
    resolution = context.resolution
    invocation = resolution.invocation
    read = resolution.release.env_vars
    for use in resolution.uses:
        option = use.option
        if option is None or option.dest not in _OPTIONS:
            continue
        variable_name = _OPTIONS[option.dest]
        if variable_name not in read or variable_name not in invocation.env:
            continue  # not in vLLM's environment (a compose or shell variable of that name)
        for value in use.values:
            if not value.literal and _REFERENCE[option.dest].search(value.text):
                yield context.finding(
                    RULE,
                    value.span,
                    f"--{option.dest} is given {variable_name}, a variable of vLLM's "
                    "distributed runtime, not of its API server",
                    f"write the server's {option.dest} itself",
                )
    if resolution.release.version >= BOUND_FIRST:
        return
    variable = invocation.deployment.env.get("VLLM_PORT")
    if variable is None or "VLLM_PORT" not in read or not variable.value.literal:
        return
    server = listening(context)
    if server is None or variable.value.text.strip() != str(server.port):
        return
    related = () if server.span is None else (
        Related(server.span, f"the API server listens on {server.port} here"),)
    yield context.finding(
        RULE,
        variable.value.sub_span(0),
        f"VLLM_PORT is {server.port}, the API server's own port: vLLM {context.releases} opens "
        "its internal ports there before the server binds it",
        "leave VLLM_PORT unset, or set it far from --port",
        severity="warning",
        related=related,
    )
