"""Quoting a written value in a message without leaking a secret (VL107, VL109, VL201).

A value is masked as VL503 masks it: the whole value of an option that holds a secret
(``--api-key``, ``--hf-token``) unless it is a placeholder, and every recognised secret (an
``hf_`` token, an ``sk-`` key, an AWS key id) inside any other value.  The finding also lists
the same characters in ``redact``, so a code frame masks them even when VL503 is not selected.
"""

from __future__ import annotations

from vlint.checks.security import is_placeholder, secret_kinds
from vlint.model import Span, Token
from vlint.normalise.resolution import OptionUse, ValueUse
from vlint.model.redaction import mask_secret

SECRET_DESTS = frozenset({"api_key", "hf_token"})


def holds_secret(use: OptionUse) -> bool:
    """Whether ``use`` is an option whose value is a secret whatever it looks like."""
    return use.option is not None and use.option.dest in SECRET_DESTS


def _secret_ranges(text: str, whole: bool) -> list[tuple[int, int]]:
    if whole:
        return [(0, len(text))] if text and not is_placeholder(text) else []
    ranges: list[tuple[int, int]] = []
    for _what, start, end in sorted(secret_kinds(text), key=lambda found: found[1]):
        if not ranges or start >= ranges[-1][1]:
            ranges.append((start, end))
    return ranges


# The most characters of a written value a message quotes; the rest is elided (a value can be
# as long as the file, and a message is printed in every format).
QUOTED_MAX = 80


def mask_secrets(text: str, whole: bool = False) -> str:
    """``text`` with each secret in the masked form (``sk-p…(masked)``), nothing elided."""
    shown: list[str] = []
    last = 0
    for start, end in _secret_ranges(text, whole):
        shown += [text[last:start], mask_secret(text[start:end])]
        last = end
    return "".join(shown) + text[last:]


def masked(text: str, whole: bool = False) -> str:
    """``text`` as a message may quote it (:func:`mask_secrets`), elided past
    :data:`QUOTED_MAX` characters."""
    quoted = mask_secrets(text, whole)
    return quoted if len(quoted) <= QUOTED_MAX else quoted[: QUOTED_MAX - 1] + "…"


def redactions(token: Token, offset: int = 0, whole: bool = False) -> tuple[Span, ...]:
    """The spans of the secrets in ``token.text[offset:]``, for ``Finding.redact``."""
    return tuple(
        token.sub_span(offset + start, offset + end)
        for start, end in _secret_ranges(token.text[offset:], whole)
    )


def value_redactions(value: ValueUse, whole: bool = False) -> tuple[Span, ...]:
    """:func:`redactions` of the value an option received."""
    return redactions(value.token, value.start, whole)
