"""The Deployment facet, one helper per concept: every extractor builds an invocation's
environment, image and container facts through these, so that a rule reads the same facts
whichever kind of file the launch came from.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypeVar
from urllib.parse import urlsplit

from vlint.model import Deployment, EnvVar, GpuCount, Invocation, Located, Mount, Port, Span, Token

T = TypeVar("T")

# -- environment ----------------------------------------------------------------------------


def assignment(word: Token) -> EnvVar | None:
    """A ``NAME=VALUE`` word (``env NAME=x``, a compose ``environment:`` list entry, Dockerfile
    ``ENV``, systemd ``Environment=``) as a variable; None for a word without ``=``."""
    name, equals, _ = word.text.partition("=")
    if not equals or not name:
        return None
    return EnvVar(name, word.slice(len(name) + 1), word.sub_span(0, len(name)))


def named(name: Token, value: Token) -> EnvVar:
    """A variable written as a name and a separate value (a mapping key, Kubernetes
    ``name:``/``value:``, a shell ``NAME=`` prefix)."""
    return EnvVar(name.text, value, name.sub_span(0))


def environment(variables: Iterable[EnvVar | None]) -> dict[str, EnvVar]:
    """Variables by name, a later one replacing an earlier one of the same name."""
    return {variable.name: variable for variable in variables if variable is not None}


def from_tokens(values: Mapping[str, Token], names: Mapping[str, Span]) -> dict[str, EnvVar]:
    """Variables from a name -> value mapping and the places of their names (a shell command's
    ``VAR=x`` prefix, as the shell reader gives it)."""
    return {name: EnvVar(name, value, names.get(name)) for name, value in values.items()}


# -- image ----------------------------------------------------------------------------------


def image(token: Token) -> Located[str]:
    """An image reference as written, at its scalar (its quotes excluded)."""
    return at(token, token.text)


# -- nesting --------------------------------------------------------------------------------


# The facts a host states about the container; one it does not state is the inner text's.
_FACTS = tuple(f.name for f in fields(Deployment) if f.name not in ("env", "env_complete"))


def enclosed(
    invocation: Invocation,
    kind: str,
    around: Deployment | None = None,
    target: str | None = None,
) -> Invocation:
    """A launch found inside a file (or text) of ``kind``: ``kind`` leads its origin; the facts
    ``around`` it (a container's image, GPUs, ports...) are its own where ``around`` states
    them; its environment is ``around``'s with its own variables over them; ``target`` applies
    unless it pins one."""
    outer = around or Deployment()
    inner = invocation.deployment
    stated = {name: getattr(outer, name) or getattr(inner, name) for name in _FACTS}
    deployment = Deployment(
        env={**outer.env, **inner.env},
        env_complete=outer.env_complete and inner.env_complete,
        **stated,
    )
    # (An origin that already names the host, built through the extract context, stays.)
    origin = invocation.origin if kind in invocation.origin else (kind, *invocation.origin)
    return replace(
        invocation, origin=origin, deployment=deployment, target=invocation.target or target
    )


def pod_by_controller(facts: Deployment, at: Span) -> Deployment:
    """The facts of a container whose pod an operator or a chart writes from a resource's or
    values' fields (KubeAI's ``Model``, KServe's ``LLMInferenceService``, production-stack's
    ``VLLMRuntime`` and chart, llm-d's modelservice chart): its IPC namespace and ``/dev/shm``
    are theirs (they mount a memory volume at ``/dev/shm``), stated where vlint cannot read them,
    at ``at``."""
    return facts if facts.ipc is not None else replace(facts, ipc=Located(None, at))


# -- container resources --------------------------------------------------------------------

# Kubernetes quantity suffixes are case-sensitive (``m`` is a thousandth, not a million).
_QUANTITY = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DOCKER = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "m": 2**20, "mb": 2**20, "g": 2**30,
           "gb": 2**30, "t": 2**40, "tb": 2**40, "p": 2**50, "pb": 2**50}
# At most 18 digits a side: a number no container has, but never one that overflows a float or
# passes the interpreter's limit on digits (a crafted file must not turn into VL003).
_SIZE = re.compile(r"\s*([0-9]{1,18}(?:\.[0-9]{1,18})?)\s*([A-Za-z]{0,2})\s*")


def docker_bytes(text: str) -> int | None:
    """A Docker size (compose ``shm_size``, ``docker run --shm-size``): ``64m``, ``1gb``,
    ``2G``, or a number of bytes; units are powers of 1024, as Docker reads them."""
    match = _SIZE.fullmatch(text)
    if match is None:
        return None
    unit = _DOCKER.get(match.group(2).lower())
    return None if unit is None else int(float(match.group(1)) * unit)


def kubernetes_bytes(text: str) -> int | None:
    """A Kubernetes quantity of bytes (``sizeLimit: 1Gi``, ``512M``, ``1000000``)."""
    match = _SIZE.fullmatch(text)
    if match is None:
        return None
    unit = _QUANTITY.get(match.group(2))
    return None if unit is None else int(float(match.group(1)) * unit)


def gpu_count(text: str) -> GpuCount | None:
    """A GPU count as written: a whole number, or ``all`` (``-1`` in a compose reservation)."""
    stripped = text.strip()
    if stripped.lower() == "all" or stripped == "-1":
        return "all"
    return whole_number(stripped)


def short_port(token: Token) -> Port:
    """A port written the short way, ``[IP:][HOST:]CONTAINER[/PROTO]`` (compose ``ports:``,
    ``docker run -p``, kubectl's ``--port N``): the container side, and the host side as
    written."""
    text = token.text
    end = text.find("/") if "/" in text else len(text)
    start = text.rfind(":", 0, end) + 1
    number = port_number(text[start:end]) if token.literal else None
    container = Located(number, token.sub_span(start, end))
    published = None
    if start > 0:
        host = text[: start - 1]
        published = Located(host if token.literal else None, token.sub_span(0, start - 1))
    return Port(container, None, published)


def port_number(text: str) -> int | None:
    """A port number (1-65535) as written; None for anything else."""
    number = whole_number(text)
    return number if number is not None and 0 < number < 65536 else None


_WHOLE = re.compile(r"\s*([0-9]{1,18})\s*")


def whole_number(text: str) -> int | None:
    """A whole number written in ASCII digits (at most 18); None for anything else."""
    match = _WHOLE.fullmatch(text)
    return None if match is None else int(match.group(1))


@dataclass(frozen=True)
class UrlParts:
    """An HTTP URL's port (the scheme's default when none is written) and path, where each is
    in the URL (``port_at`` is the scheme's end for a default port), and whether its host is
    the container itself (loopback, ``0.0.0.0``)."""

    port: int
    path: str
    port_at: tuple[int, int]
    path_at: tuple[int, int]
    local: bool


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "::"})


def url_parts(url: str) -> UrlParts | None:
    """The parts of a health check's HTTP URL (``curl -f http://localhost:8000/health``); None
    for anything else (another scheme, a ``$VARIABLE``)."""
    if not url.startswith(("http://", "https://")) or "$" in url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    netloc_start = len(parts.scheme) + 3
    netloc_end = netloc_start + len(parts.netloc)
    if port is not None and parts.netloc.endswith(f":{port}"):
        port_at = (netloc_end - len(str(port)), netloc_end)
    else:
        port_at = (netloc_start, netloc_end)  # the default port, or one written as 08000
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    return UrlParts(port, parts.path or "/", port_at,
                    (netloc_end, netloc_end + len(parts.path)),
                    host in _LOCAL_HOSTS or host.endswith(".localhost"))


def at(token: Token, value: T) -> Located[T]:
    """``value``, read from ``token``, at ``token`` (its quotes excluded)."""
    return Located(value, token.sub_span(0))


def mounted(volumes: Sequence[Mount], path: str) -> str | None:
    """The host path a container path is at, through bind mounts (the longest mount target
    that holds it); None when no mount says (a named volume, no mount)."""
    best: tuple[int, str] | None = None
    for mount in volumes:
        target, source = mount.target.value, mount.source.value if mount.source else None
        if target is None or source is None or not source.startswith((".", "/", "~")):
            continue
        target = target.rstrip("/") or "/"
        if path == target:
            candidate = source
        elif path.startswith(target.rstrip("/") + "/"):
            candidate = os.path.join(source, path[len(target.rstrip("/")) + 1:])
        else:
            continue
        if best is None or len(target) > best[0]:
            best = (len(target), candidate)
    if best is None or best[1].startswith("~"):
        return None
    return best[1]
