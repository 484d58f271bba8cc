"""Positions in the original file: a 1-based line and column, spans, and locators."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Pos:
    """A 1-based line and column in the original file (columns count characters)."""

    line: int
    column: int


@dataclass(frozen=True)
class Span:
    """A range in the original file; the end is exclusive, as in SARIF and ruff."""

    start: Pos
    end: Pos


# Maps an offset in an (embedded) text to its position in the original file.  An extractor that
# hands a nested text to another extractor composes locators, so spans stay exact through nesting.
Locator = Callable[[int], Pos]


def line_locator(text: str, base: Pos = Pos(1, 1)) -> Locator:
    """A locator for ``text`` that starts at ``base`` and keeps the original line structure."""
    starts = [0]
    find = text.find
    index = find("\n")
    while index != -1:
        starts.append(index + 1)
        index = find("\n", index + 1)

    def locate(offset: int) -> Pos:
        line = bisect_right(starts, offset) - 1
        column = offset - starts[line] + 1
        if line == 0:
            return Pos(base.line, base.column + column - 1)
        return Pos(base.line + line, column)

    return locate
