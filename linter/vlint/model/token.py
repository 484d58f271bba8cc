"""Tokens: arguments and keywords with the file position of every character."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vlint.model.positions import Locator, Pos, Span


@dataclass(frozen=True)
class Token:
    """One argument as the launched program receives it, with where each character came from.

    ``text`` is the value after quote removal; parts that cannot be known statically (shell
    expansions, templates) are kept as written and make ``literal`` false.  ``positions`` holds
    the file position of every character of ``text`` plus one for the end, so any sub-range
    of the token (the value after ``=``) has an exact span even through quotes and nesting.
    """

    text: str
    positions: tuple[Pos, ...]
    literal: bool = True

    def __post_init__(self) -> None:
        if len(self.positions) != len(self.text) + 1:
            raise ValueError(f"token {self.text!r} needs {len(self.text) + 1} positions")

    @property
    def span(self) -> Span:
        return Span(self.positions[0], self.positions[-1])

    def sub_span(self, start: int, end: int | None = None) -> Span:
        """The span of ``text[start:end]``.

        A token's end position is where its source ends, after any closing quote; a value that
        ends the token stops before that one quote character.  (A value that came from a longer
        expression, such as a resolved ``${VAR:-8}``, keeps the whole expression.)
        """
        stop = len(self.text) if end is None else end
        finish = self.positions[stop]
        if stop > start and stop == len(self.text):
            last = self.positions[stop - 1]
            # (A made-up word maps all its characters to one place: nothing to trim there.)
            distinct = stop == 1 or self.positions[stop - 2] != last
            if distinct and finish == Pos(last.line, last.column + 2):
                finish = Pos(last.line, last.column + 1)
        return Span(self.positions[start], finish)

    @classmethod
    def located(cls, text: str, start: int, locate: Locator, literal: bool = True) -> Token:
        """A token whose characters are contiguous in the located text from ``start``."""
        return cls(text, tuple(locate(start + i) for i in range(len(text) + 1)), literal)


Entry = Literal["serve", "api_server"]


@dataclass(frozen=True)
class Keyword:
    """A Python keyword argument: its name token and the literal value, if it has one."""

    name: Token
    value_span: Span
    value: object = None
    literal: bool = True
