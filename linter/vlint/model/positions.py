"""Positions in the original file: a 1-based line and column, spans, line tables and locators."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache


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


class LineIndex:
    """The line table of one text: character offsets to 1-based positions (lines end at ``\\n``).

    Build it with ``LineIndex.of(text)``, which keeps the tables of the last texts it was asked
    for: every reader of a file (extractor, suppressions, nested blocks) shares one.
    """

    __slots__ = ("_size", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._size = len(text)
        starts = [0]
        find = text.find
        index = find("\n")
        while index != -1:
            starts.append(index + 1)
            index = find("\n", index + 1)
        self.starts = starts

    @staticmethod
    def of(text: str) -> LineIndex:
        return _line_index(text)

    def pos(self, offset: int) -> Pos:
        """The position of the character at ``offset`` (clamped to the text and its end)."""
        if offset < 0:
            offset = 0
        elif offset > self._size:
            offset = self._size
        starts = self.starts
        line = bisect_right(starts, offset) - 1
        return Pos(line + 1, offset - starts[line] + 1)

    def locate(self, offset: int) -> Pos:
        """The position of ``offset``; past the end it runs on along the last line."""
        starts = self.starts
        line = bisect_right(starts, offset) - 1
        return Pos(line + 1, offset - starts[line] + 1)

    def offset(self, pos: Pos) -> int:
        """The offset of a position in this text (the inverse of ``pos`` inside the text)."""
        line = min(max(pos.line, 1), len(self.starts)) - 1
        return self.starts[line] + pos.column - 1

    def line_of(self, offset: int) -> int:
        """The 0-based line that holds ``offset``."""
        return bisect_right(self.starts, offset) - 1


@lru_cache(maxsize=8)
def _line_index(text: str) -> LineIndex:
    return LineIndex(text)


def clear_line_tables() -> None:
    """Forget the cached line tables (the texts they hold stay alive until then)."""
    _line_index.cache_clear()


def line_locator(text: str, base: Pos = Pos(1, 1)) -> Locator:
    """A locator for ``text`` that starts at ``base`` and keeps the original line structure."""
    index = LineIndex.of(text)
    if base == Pos(1, 1):
        return index.locate
    starts = index.starts

    def locate(offset: int) -> Pos:
        line = bisect_right(starts, offset) - 1
        column = offset - starts[line] + 1
        if line == 0:
            return Pos(base.line, base.column + column - 1)
        return Pos(base.line + line, column)

    return locate
