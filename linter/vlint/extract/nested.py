"""Texts embedded in other files: a locator for a block cut out of its file, line by line.

An embedded block (a Markdown fence, a YAML block scalar) is handed to another extractor as a
text of its own.  ``Embedded`` records, for every line of that text, the file line it came from
and how many characters were cut from the front of it (a list's indentation, a blockquote's
``>``), so an offset in the text, or a position an extractor computed for the text alone, maps
back to the exact file position.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from vlint.model import Invocation, Keyword, Pos, Span, Token


@dataclass(frozen=True)
class Embedded:
    """A text whose line ``i`` is file line ``lines[i]`` with ``shifts[i]`` characters cut."""

    text: str
    lines: tuple[int, ...]
    shifts: tuple[int, ...]

    def locate(self, offset: int) -> Pos:
        """The file position of the character at ``offset`` in the text."""
        starts = self._starts
        index = bisect_right(starts, offset) - 1
        return self.move(Pos(index + 1, offset - starts[index] + 1))

    def move(self, pos: Pos) -> Pos:
        """A position in the text alone (1-based line and column) as a file position."""
        index = min(max(pos.line - 1, 0), len(self.lines) - 1)
        if pos.line - 1 > index:  # past the last line: the end of the text
            return Pos(self.lines[index] + pos.line - 1 - index, pos.column)
        return Pos(self.lines[index], pos.column + self.shifts[index])

    @cached_property
    def _starts(self) -> list[int]:
        # Built once per text: an extractor looks up a position for every character it keeps.
        return line_starts(self.text)


def line_starts(text: str) -> list[int]:
    """The offset of every line of ``text`` (lines end at ``\\n`` only)."""
    starts = [0]
    index = text.find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def embedded(file_lines: Sequence[tuple[int, int, str]]) -> Embedded:
    """An embedded text from ``(file line, characters cut, kept text)`` for each line."""
    return Embedded(
        "".join(text + "\n" for _, _, text in file_lines),
        tuple(line for line, _, _ in file_lines) or (1,),
        tuple(shift for _, shift, _ in file_lines) or (0,),
    )


def _token(token: Token, block: Embedded) -> Token:
    return replace(token, positions=tuple(block.move(p) for p in token.positions))


def _span(span: Span, block: Embedded) -> Span:
    return Span(block.move(span.start), block.move(span.end))


def relocate(invocation: Invocation, block: Embedded) -> Invocation:
    """An invocation an extractor found in ``block.text`` alone, with file positions."""
    return replace(
        invocation,
        anchor=_span(invocation.anchor, block),
        args=tuple(_token(t, block) for t in invocation.args),
        keywords=tuple(
            Keyword(_token(k.name, block), _span(k.value_span, block), k.value, k.literal)
            for k in invocation.keywords
        ),
        env={name: _token(t, block) for name, t in invocation.env.items()},
        image_span=None if invocation.image_span is None else _span(invocation.image_span, block),
        config_false=tuple(_token(t, block) for t in invocation.config_false),
    )
