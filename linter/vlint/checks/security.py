"""What the security rules (VL5xx) share: an API key's presence, secrets and placeholders."""

from __future__ import annotations

import re

from vlint.checks.base import Context
from vlint.model import Token

API_KEY_VARIABLE = "VLLM_API_KEY"

# Words people write where a real value belongs; a value that is one of them, contains one, is
# bracketed or is one repeated character is a placeholder, not a secret.
_PLACEHOLDER_WORDS = ("your", "changeme", "change_me", "change-me", "placeholder", "example",
                      "dummy", "redacted", "xxx", "...", "<", ">", "fake")
_PLACEHOLDER_VALUES = frozenset({"", "empty", "none", "null", "token", "secret", "key", "apikey",
                                 "api_key", "api-key", "test", "password"})


def api_key_set(context: Context) -> bool:
    """Whether the invocation sets an API key: ``--api-key`` written (any value, even a
    variable) or ``VLLM_API_KEY`` in its environment, or an environment vlint cannot see."""
    invocation = context.resolution.invocation
    if context.resolution.written("api_key") is not None:
        return True
    return API_KEY_VARIABLE in invocation.env or invocation.env_unknown


_REFERENCE = re.compile(r"\$[{(A-Za-z_]")


def is_placeholder(value: str) -> bool:
    """A placeholder or a variable reference (``$HF_TOKEN``, ``${X}``, ``$(X)``) left as text."""
    if _REFERENCE.search(value):
        return True
    lowered = value.strip().lower()
    if lowered in _PLACEHOLDER_VALUES or len(set(lowered)) == 1:
        return True
    return any(word in lowered for word in _PLACEHOLDER_WORDS)


def written_here(token: Token, start: int, end: int) -> bool:
    """Whether ``token.text[start:end]`` is written character by character in this file (a value
    interpolated from a ``.env`` file or a variable maps all its characters to one place)."""
    if not token.literal or end <= start:
        return False
    positions = token.positions[start:end]
    return all(a < b for a, b in zip(positions, positions[1:]))


_SECRET_PATTERNS = (
    ("a Hugging Face token", re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}")),
    ("an OpenAI-style API key", re.compile(r"(?<![A-Za-z0-9])sk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9]{20,}")),
    ("an AWS access key id", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])")),
)


def secret_kinds(text: str) -> list[tuple[str, int, int]]:
    """Every recognised secret in ``text`` that is not a placeholder: (what, start, end)."""
    found = []
    for what, pattern in _SECRET_PATTERNS:
        for match in pattern.finditer(text):
            if not is_placeholder(match.group()):
                found.append((what, match.start(), match.end()))
    return found


def secrets_in(token: Token) -> list[tuple[str, int, int]]:
    """Every recognised secret written literally in ``token``: (what, start, end)."""
    return [found for found in secret_kinds(token.text) if written_here(token, *found[1:])]
