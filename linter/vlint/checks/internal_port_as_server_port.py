"""What it does
    Reports ``--port`` given vLLM's internal port variable (``--port $VLLM_PORT``,
    ``${VLLM_PORT}``, Kubernetes ``$(VLLM_PORT)``) or ``--host`` given ``VLLM_HOST_IP``, where
    that variable is in the environment vLLM gets (exported, a container's ``env``), and a
    literal ``VLLM_PORT`` in the launch's environment equal to the API server's port.  A
    compose ``${VLLM_PORT}``, substituted from the host before the container starts, or a shell
    variable that is not exported, is only a name: it is not reported.

Why is this bad?
    Both variables belong to vLLM's distributed runtime, not to its API server
    (``vllm/envs.py``): ``VLLM_HOST_IP`` is the node's address for the workers, and
    ``VLLM_PORT`` the first of the internal ports vLLM opens, the next ones counting up from
    it.  Setting ``VLLM_PORT`` to the server's port makes the engine's internal socket and the
    HTTP server compete for one port ("Address already in use"); passing it to ``--port``
    ties the public port to an internal setting a later change will move.

Example
    ``VLLM_PORT=8000 vllm serve m --port $VLLM_PORT``

Use instead
    ``vllm serve m --port 8000``, and leave ``VLLM_PORT`` unset (or set it far from the
    server's port).

Fix safety
    No fix.

vLLM releases
    Every release that reads the variable (the catalog's environment variables).  Silent when
    ``--port`` is not known.

References
    https://docs.vllm.ai/en/latest/configuration/env_vars.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.checks.serving import listening
from vlint.model import Finding
from vlint.model.finding import Related

RULE = Rule(code="VL609", name="internal-port-as-server-port", severity="warning", since="0.2.0")

_OPTIONS = {"port": "VLLM_PORT", "host": "VLLM_HOST_IP"}


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
                    f"--{option.dest} is given {_OPTIONS[option.dest]}, a variable of vLLM's "
                    "distributed runtime, not of its API server",
                    f"write the server's {option.dest} itself",
                )
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
        f"VLLM_PORT is {server.port}, the API server's own port: vLLM's internal ports start "
        "there and collide with it",
        "leave VLLM_PORT unset, or set it far from --port",
        related=related,
    )
