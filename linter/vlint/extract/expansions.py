"""Expansions a host language makes in a shell text before any shell reads it.

Make expands ``$(MODEL)`` in a recipe, and IPython ``{model}`` in a ``!`` command line, before
the shell runs; vlint resolves neither.  ``hold`` puts a shell parameter expansion of the same
length (``$____``) in each one's place, so the shell reads an unresolved word part there and
every offset stays; ``unresolving`` then marks every token holding one of those characters as not
literal (even where the shell's quotes would have kept it literal, as in ``'$(MODEL)'``) and
gives it back the characters written in the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from vlint.extract.nested import rebuilt
from vlint.model import Invocation, Token
from vlint.syntax.lines import Chars

_T = TypeVar("_T")


def hold(chars: Chars, ranges: Iterable[tuple[int, int]]) -> Chars:
    """``chars`` with each ``(start, end)`` range replaced by one shell variable of its length,
    flagged not literal: ``$`` and the range's letters, digits and ``_`` with ``_`` for every
    other character (``$(VLLM)`` as ``$_VLLM_``), so that the name a reader may go by
    (``knowledge.images``: a variable naming vLLM) stays."""
    text = list(chars.text)
    literal = list(chars.literal)
    for start, end in ranges:
        for index in range(start, end):
            char = text[index]
            text[index] = "$" if index == start else char if char.isascii() and (
                char.isalnum() or char == "_") else "_"
            literal[index] = False
    offsets = [chars.offset(index) for index in range(len(text) + 1)]
    return Chars.at("".join(text), offsets, chars.locator, literal)


def unresolving(held: Chars, written: str) -> Callable[[Invocation], Invocation]:
    """A function giving an invocation found in ``held.text`` (through any nesting) with every
    token that holds a held character unresolved and written as in ``written`` (the text
    before ``hold``).  The held places are looked up once, for every invocation of the text."""
    by_position = {
        held.pos(index): written[index]
        for index, literal in enumerate(held.literal)
        if not literal
    }

    def restore(token: Token) -> Token:
        positions = token.positions[:-1]
        if not any(position in by_position for position in positions):
            return token
        text = "".join(by_position.get(p, char) for p, char in zip(positions, token.text))
        return token.with_text(text, False)

    def unresolved(invocation: Invocation) -> Invocation:
        return map_tokens(invocation, restore) if by_position else invocation

    return unresolved


def map_tokens(value: _T, change: Callable[[Token], Token]) -> _T:
    """``value`` with every token in it replaced by ``change(token)`` (positions unchanged)."""
    return rebuilt(value, lambda item: change(item) if isinstance(item, Token) else item)
