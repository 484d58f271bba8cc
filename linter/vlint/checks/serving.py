"""What the port and probe rules (VL6xx) share: the port vLLM's API server listens on, a
probe's port through the container's named ports, and whether a launch certainly sets an API
key."""

from __future__ import annotations

from dataclasses import dataclass

from vlint.checks.base import Context
from vlint.checks.security import API_KEY_VARIABLE
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.model import Port, Probe, Span
from vlint.normalise.resolution import number

# What each probe's failure does, for a finding's message.
CONSEQUENCE = {
    "liveness": "the kubelet restarts the container again and again",
    "readiness": "the pod never becomes ready and gets no traffic",
    "startup": "the kubelet kills the container before it serves",
    "healthcheck": "the service stays unhealthy",
}


@dataclass(frozen=True)
class Listening:
    """The API server's port, and where ``--port`` is written (None: the release default)."""

    port: int
    span: Span | None

    @property
    def described(self) -> str:
        return str(self.port) if self.span is not None else f"{self.port} (its default)"


def listening(context: Context) -> Listening | None:
    """The port the launch's API server binds; None for a launch that starts no server, listens
    on a Unix socket, or whose port is not known (a variable, options vlint cannot see)."""
    resolution = context.resolution
    if resolution.invocation.style != "cli" or resolution.parser is None:
        return None
    if resolution.written("uds") is not None or may_set_unseen_options(resolution):
        return None
    setting = resolution.written("port")
    if setting is not None:
        value = number(setting)
        return None if value is None or setting.span is None else Listening(value, setting.span)
    option = resolution.parser.by_dest.get("port")
    if option is None or not option.default_known or isinstance(option.default, bool) or \
            not isinstance(option.default, int):
        return None
    return Listening(option.default, None)


def probe_port(probe: Probe, ports: tuple[Port, ...]) -> int | None:
    """The port a probe checks: its number, or the container port of its name; None when not
    known."""
    if probe.port is None:
        return None
    value = probe.port.value
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return next((port.container.value for port in ports if port.name == value), None)
    return None


def api_key_at(context: Context) -> Span | None:
    """Where the launch certainly sets an API key (``--api-key`` written, ``VLLM_API_KEY`` in
    its environment); None when it does not, or may only."""
    resolution = context.resolution
    written = resolution.written("api_key")
    if written is not None and written.span is not None:
        return written.span
    invocation = resolution.invocation
    variable = invocation.deployment.env.get(API_KEY_VARIABLE)
    if variable is None:
        return None
    return variable.name_span or variable.value.sub_span(0)
