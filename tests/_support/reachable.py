"""What a value holds, however deeply: tokens, spans and positions inside invocations."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from vlint.model import Pos, Span, Token

T = TypeVar("T")


def reachable(value: Any, kind: type[T]) -> list[T]:
    """Every ``kind`` inside ``value`` (through tuples, lists, mappings and dataclass fields),
    in order; a ``kind`` found is not looked into."""
    return list(_walk(value, kind))


def _walk(value: Any, kind: type | tuple[type, ...]) -> Iterator[Any]:
    if isinstance(value, kind):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _walk(item, kind)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _walk(item, kind)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _walk(getattr(value, field.name), kind)


def positions(value: Any) -> list[Pos]:
    """Every position inside ``value``: a span's two ends, every character of a token."""
    found: list[Pos] = []
    for item in _walk(value, (Pos, Span, Token)):
        if isinstance(item, Pos):
            found.append(item)
        elif isinstance(item, Span):
            found.extend((item.start, item.end))
        else:
            found.extend(item.positions)
    return found
