"""Masking what a finding marks as secret (``Finding.redact``) in any source text shown."""

from __future__ import annotations

from collections.abc import Iterable

from vlint.model import Span

MASK = "*"


def masked_line(text: str, line: int, spans: Iterable[Span]) -> str:
    """``text``, the file's line ``line``, with every character a span covers replaced."""
    chars = list(text)
    for span in spans:
        if not span.start.line <= line <= span.end.line:
            continue
        first = span.start.column if span.start.line == line else 1
        stop = span.end.column if span.end.line == line else len(chars) + 1
        for column in range(max(first, 1), min(stop, len(chars) + 1)):
            chars[column - 1] = MASK
    return "".join(chars)


def mask_secret(value: str) -> str:
    """The form a message may quote: a short prefix of a long value, never the value."""
    shown = value[:4] if len(value) >= 20 else ""
    return f"{shown}…(masked)"
