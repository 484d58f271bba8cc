"""Texts whose characters keep their file positions: joined lines, continuations, slices.

A ``Chars`` is what a line reader makes of a file (a Dockerfile instruction with its
continuations joined, a systemd line, a compose string): its text, a literal flag per
character, and where each character (plus the end) came from, as offsets into a located text.
``Pos`` values are made only when asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlint.model import Locator, Pos, Token


class Chars:
    """A text whose every character has a file position (plus the end) and a literal flag.

    ``Chars(text, positions, literal)`` takes explicit positions; ``Chars.at`` takes offsets
    into a text and that text's locator.
    """

    __slots__ = ("_locate", "_offsets", "_positions", "literal", "text")

    text: str
    literal: tuple[bool, ...]
    _locate: Locator
    _offsets: Sequence[int]
    _positions: tuple[Pos, ...] | None

    def __init__(
        self, text: str, positions: Sequence[Pos], literal: Sequence[bool] | None = None
    ) -> None:
        explicit = tuple(positions)
        self._init(text, range(len(explicit)), explicit.__getitem__, literal)
        self._positions = explicit

    def _init(
        self, text: str, offsets: Sequence[int], locate: Locator, literal: Sequence[bool] | None
    ) -> None:
        if len(offsets) != len(text) + 1:
            raise ValueError(f"{text!r} needs {len(text) + 1} positions")
        self.text = text
        self.literal = (True,) * len(text) if literal is None else tuple(literal)
        self._offsets = offsets
        self._locate = locate
        self._positions = None

    @classmethod
    def at(
        cls,
        text: str,
        offsets: Sequence[int],
        locate: Locator,
        literal: Sequence[bool] | None = None,
    ) -> Chars:
        """Character ``i`` of ``text`` at ``offsets[i]`` of a located text (the end last)."""
        chars = cls.__new__(cls)
        chars._init(text, offsets, locate, literal)
        return chars

    @classmethod
    def of(cls, token: Token) -> Chars:
        """A token's characters, each flagged with the token's ``literal``."""
        return cls.at(token.text, token.offsets, token.locator, (token.literal,) * len(token.text))

    @property
    def positions(self) -> tuple[Pos, ...]:
        """Every character's position plus the end's (made on first use)."""
        positions = self._positions
        if positions is None:
            locate = self._locate
            positions = self._positions = tuple(locate(offset) for offset in self._offsets)
        return positions

    def pos(self, index: int) -> Pos:
        return self._locate(self._offsets[index])

    def offset(self, index: int) -> int:
        """Where character ``index`` sits in the located text."""
        return self._offsets[index]

    @property
    def locator(self) -> Locator:
        """The locator of the text the offsets point into."""
        return self._locate

    def locate(self, offset: int) -> Pos:
        """The position of character ``offset`` (clamped to the text and its end)."""
        return self.pos(max(0, min(offset, len(self.text))))

    def slice(self, start: int, end: int | None = None) -> Chars:
        """``text[start:end]`` with its positions (the end included) and flags."""
        stop = len(self.text) if end is None else end
        return Chars.at(
            self.text[start:stop],
            self._offsets[start : stop + 1],
            self._locate,
            self.literal[start:stop],
        )

    def token(self, start: int = 0, end: int | None = None) -> Token:
        stop = len(self.text) if end is None else end
        return Token.at(
            self.text[start:stop],
            self._offsets[start : stop + 1],
            self._locate,
            all(self.literal[start:stop]),
        )

    def __repr__(self) -> str:
        return f"Chars(text={self.text!r}, positions={self.positions!r})"

    def __reduce__(self) -> tuple[type[Chars], tuple[str, tuple[Pos, ...], tuple[bool, ...]]]:
        # A locator may be a closure (nesting composes them): a copy keeps the positions.
        return Chars, (self.text, self.positions, self.literal)


def strip_blanks(chars: Chars, blanks: str) -> Chars:
    """``chars`` without the leading and trailing characters of ``blanks``."""
    text = chars.text
    start = len(text) - len(text.lstrip(blanks))
    return chars.slice(start, max(start, len(text.rstrip(blanks))))
