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


_HF_TOKEN = re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}")
_AWS_KEY_ID = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])")
_KEY_WORD = re.compile(r"[A-Za-z0-9_-]+")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_KEY_TAIL = 20


def secret_kinds(text: str) -> list[tuple[str, int, int]]:
    """Every recognised secret in ``text`` that is not a placeholder: (what, start, end)."""
    spans = [
        *(("a Hugging Face token", m.start(), m.end()) for m in _HF_TOKEN.finditer(text)),
        *(("an OpenAI-style API key", start, end) for start, end in _openai_keys(text)),
        *(("an AWS access key id", m.start(), m.end()) for m in _AWS_KEY_ID.finditer(text)),
    ]
    return [found for found in spans if not is_placeholder(text[found[1] : found[2]])]


def _openai_keys(text: str) -> list[tuple[int, int]]:
    """Where ``(?<![A-Za-z0-9])sk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9]{20,}`` matches, in linear time.

    The regular expression itself backtracks over the rest of the word from every ``sk-``
    (quadratic on ``sk-sk-sk-...``); here each word of key characters is read twice.
    """
    found: list[tuple[int, int]] = []
    for word in _KEY_WORD.finditer(text):
        if "sk-" in word.group():
            found.extend((word.start() + a, word.start() + b) for a, b in _keys_in(word.group()))
    return found


def _keys_in(word: str) -> list[tuple[int, int]]:
    # alnum[k]: how many letters and digits start at k; the greedy group ends at the last '-'
    # that such a run of 20 follows.
    alnum = [0] * (len(word) + 1)
    last_dash = -1
    for k in range(len(word) - 1, -1, -1):
        alnum[k] = alnum[k + 1] + 1 if word[k] in _ALNUM else 0
        if last_dash < 0 and word[k] == "-" and alnum[k + 1] >= _KEY_TAIL:
            last_dash = k
    found: list[tuple[int, int]] = []
    start = word.find("sk-")
    while start >= 0:
        body = start + 3
        tail = last_dash + 1 if last_dash >= body else body
        if (start == 0 or word[start - 1] not in _ALNUM) and alnum[tail] >= _KEY_TAIL:
            found.append((start, tail + alnum[tail]))
            start = word.find("sk-", tail + alnum[tail])
        else:
            start = word.find("sk-", start + 1)
    return found


def secrets_in(token: Token) -> list[tuple[str, int, int]]:
    """Every recognised secret written literally in ``token``: (what, start, end)."""
    return [found for found in secret_kinds(token.text) if written_here(token, *found[1:])]
