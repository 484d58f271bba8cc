"""Nesting: the context every extractor is called with, embedded texts, and relocation.

Every extractor is called as ``extract(path, text, context)``.  The ``ExtractContext`` says what
the text was found through (``origin``: ``("markdown", "compose")`` for a compose file in a
Markdown fence; the file kind is ``origin[0]``) and how an offset of the text maps to the file
(``locate``).  For a file read on its own, the default context is the file itself.

An embedded block (a Markdown fence, a YAML block scalar) is handed to another extractor as a
text of its own.  ``Embedded`` records, for every line of that text, the file line it came from
and how many characters were cut from the front of it (a list's indentation, a blockquote's
``>``), so an offset in the text, or a position an extractor computed for the text alone, maps
back to the exact file position.  An extractor that positions through ``context.locate`` needs
nothing more; for one that positions in the text alone, ``relocate`` moves every position of
what it found, whatever field holds it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol, TypeVar

from vlint.model import Invocation, LineIndex, Locator, Pos, Span, Token

_T = TypeVar("_T")
Move = Callable[[Pos], Pos]


@dataclass(frozen=True)
class ExtractContext:
    """What an extractor is given besides its text: where the text was found, and its locator.

    ``locate`` is None for a text that is the file itself (its own line table positions it).
    """

    origin: tuple[str, ...] = ()
    locate: Locator | None = None

    def locator(self, text: str) -> Locator:
        """The locator for ``text``: the context's, or the text's own line table."""
        return self.locate if self.locate is not None else LineIndex.of(text).locate

    def inner(self, kind: str, locate: Locator | None = None) -> ExtractContext:
        """The context for a text of ``kind`` found inside this one."""
        return ExtractContext((*self.origin, kind), locate)


class Extractor(Protocol):
    """An extractor module: the vLLM launches in a text of its kind."""

    def extract(
        self, path: str, text: str, context: ExtractContext | None = None
    ) -> list[Invocation]: ...


@dataclass(frozen=True)
class Embedded:
    """A text whose line ``i`` is file line ``lines[i]`` with ``shifts[i]`` characters cut."""

    text: str
    lines: tuple[int, ...]
    shifts: tuple[int, ...]

    def locate(self, offset: int) -> Pos:
        """The file position of the character at ``offset`` in the text."""
        index = self._index
        line = index.line_of(offset)
        return self.move(Pos(line + 1, offset - index.starts[line] + 1))

    def move(self, pos: Pos) -> Pos:
        """A position in the text alone (1-based line and column) as a file position."""
        index = min(max(pos.line - 1, 0), len(self.lines) - 1)
        if pos.line - 1 > index:  # past the last line: the end of the text
            return Pos(self.lines[index] + pos.line - 1 - index, pos.column)
        return Pos(self.lines[index], pos.column + self.shifts[index])

    @cached_property
    def _index(self) -> LineIndex:
        # Built once per text: an extractor looks up a position for every character it keeps.
        return LineIndex.of(self.text)


def embedded(file_lines: Sequence[tuple[int, int, str]]) -> Embedded:
    """An embedded text from ``(file line, characters cut, kept text)`` for each line."""
    return Embedded(
        "".join(text + "\n" for _, _, text in file_lines),
        tuple(line for line, _, _ in file_lines) or (1,),
        tuple(shift for _, shift, _ in file_lines) or (0,),
    )


def relocate(invocation: Invocation, block: Embedded) -> Invocation:
    """An invocation an extractor found in ``block.text`` alone, with file positions."""
    return moved(invocation, block.move)


def moved(value: _T, move: Move) -> _T:
    """``value`` with every position in it mapped through ``move``.

    Generic over the model: a ``Pos``, a ``Span``, a ``Token``, and any dataclass, tuple, list or
    mapping that holds them, however deep, so no field of an invocation can be forgotten.
    """

    def leaf(item: Any) -> Any:
        if isinstance(item, Pos):
            return move(item)
        if isinstance(item, Span):
            return Span(move(item.start), move(item.end))
        return item.moved(move)

    return rebuilt(value, leaf)


def rebuilt(value: _T, leaf: Callable[[Any], Any]) -> _T:
    """``value`` with each ``Pos``, ``Span`` and ``Token`` in it replaced by ``leaf(item)``,
    however deep it sits in dataclasses, tuples, lists and mappings (the one walk over the model
    that relocation and token rewrites share)."""
    result: _T = _rebuilt(value, leaf)
    return result


def _rebuilt(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(value, (Pos, Span, Token)):
        return leaf(value)
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, tuple):
        items = tuple(_rebuilt(item, leaf) for item in value)
        return type(value)(*items) if hasattr(value, "_fields") else items
    if isinstance(value, list):
        return [_rebuilt(item, leaf) for item in value]
    if isinstance(value, Mapping):
        return {key: _rebuilt(item, leaf) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _rebuilt(getattr(value, f.name), leaf)
            for f in dataclasses.fields(value)
            if f.init
        }
        return dataclasses.replace(value, **changes)
    return value

