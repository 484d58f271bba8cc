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

from vlint.extract.deployment import mounted
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
            host = mounted(invocation.deployment.volumes, name)
            if host is not None:
                name = os.path.normpath(host)  # (``./config.yaml`` as ``config.yaml``)
            if os.path.isabs(name):
                return name
            return os.path.join(os.path.dirname(referrer), name)
    return None


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
