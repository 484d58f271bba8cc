"""The vLLM ``--config`` files a launch names, and reading one as that launch's config.

Apart from the config reader itself (``vllm_config``), so that the engine can follow the
references of every run without importing the YAML machinery a run without config files never
needs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from vlint.model import Invocation

KIND = "vllm-config"


def referenced(invocation: Invocation, referrer: str) -> str | None:
    """The file an invocation's ``--config FILE`` names, relative to the referencing file; a
    path inside the container that a mount of the launch maps to a host path
    (``./config.yaml:/app/config.yaml`` and ``--config /app/config.yaml``) is that host file."""
    args = invocation.args
    for index, token in enumerate(args[:-1]):
        if token.text == "--config" and args[index + 1].literal:
            name = args[index + 1].text
            if not name.endswith((".yaml", ".yml")):
                return None
            mounted = _mounted(invocation, name)
            if mounted is not None:
                name = os.path.normpath(mounted)  # (``./config.yaml`` as ``config.yaml``)
            if os.path.isabs(name):
                return name
            return os.path.join(os.path.dirname(referrer), name)
    return None


def _mounted(invocation: Invocation, path: str) -> str | None:
    """The host path a container path is at, through the launch's bind mounts (the longest
    mount target that holds it); None when no mount says (a named volume, no mount)."""
    best: tuple[int, str] | None = None
    for mount in invocation.deployment.volumes:
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




_REFERRER: ContextVar[Invocation | None] = ContextVar("vlint_config_referrer", default=None)


def referrer() -> Invocation | None:
    """The invocation whose ``--config`` names the file being read, inside ``referenced_by``."""
    return _REFERRER.get()


@contextmanager
def referenced_by(invocation: Invocation) -> Iterator[None]:
    """While active, ``extract`` reads a file as the config of ``invocation`` (its entry point
    and target release), whatever its name and keys."""
    token = _REFERRER.set(invocation)
    try:
        yield
    finally:
        _REFERRER.reset(token)
