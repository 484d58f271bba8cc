"""Tokens: arguments and keywords that can give the file position of every character."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from vlint.model.positions import Locator, Pos, Span


class Token:
    """One argument as the launched program receives it, with where each character came from.

    ``text`` is the value after quote removal; parts that cannot be known statically (shell
    expansions, templates) are kept as written and make ``literal`` false.  Every character of
    ``text``, plus one for the end, has a file position, so any sub-range of the token (the
    value after ``=``) has an exact span even through quotes and nesting.

    The positions are stored as offsets into the text the token was read from plus that text's
    locator (which maps through any nesting to the file): a token whose characters are
    contiguous there keeps a ``range``, one whose characters are scattered (quotes removed,
    escapes, joined continuations) keeps its offsets.  ``Pos`` values are made only when asked
    for (``span``, ``sub_span``, ``pos``, ``positions``).  ``Token(text, positions)`` builds one
    from explicit positions.

    ``condition`` names the shell variable a word depends on when it was written inside
    ``${VAR:+...}`` and ``VAR`` is not known: the word is passed only when ``VAR`` is set
    (None for every other token).  ``gathered`` is true for a token whose characters were
    written in more than one place (``--port=$PORT``, with ``PORT`` assigned above): no one
    stretch of the file holds it, so no edit may replace it whole.
    """

    __slots__ = ("_locate", "_offsets", "_positions", "condition", "gathered", "literal", "text")

    text: str
    literal: bool
    condition: str | None
    gathered: bool
    _locate: Locator
    _offsets: Sequence[int]
    _positions: tuple[Pos, ...] | None

    def __init__(
        self,
        text: str,
        positions: Sequence[Pos],
        literal: bool = True,
        condition: str | None = None,
        gathered: bool = False,
    ) -> None:
        explicit = tuple(positions)
        self._init(text, range(len(explicit)), explicit.__getitem__, literal, condition, gathered)
        object.__setattr__(self, "_positions", explicit)

    def _init(
        self,
        text: str,
        offsets: Sequence[int],
        locate: Locator,
        literal: bool,
        condition: str | None = None,
        gathered: bool = False,
    ) -> None:
        if len(offsets) != len(text) + 1:
            raise ValueError(f"token {text!r} needs {len(text) + 1} positions")
        put = object.__setattr__
        put(self, "text", text)
        put(self, "literal", literal)
        put(self, "condition", condition)
        put(self, "gathered", gathered)
        put(self, "_locate", locate)
        put(self, "_offsets", offsets)
        put(self, "_positions", None)

    @classmethod
    def at(
        cls,
        text: str,
        offsets: Sequence[int],
        locate: Locator,
        literal: bool = True,
        condition: str | None = None,
        gathered: bool = False,
    ) -> Token:
        """A token whose character ``i`` sits at ``offsets[i]`` of a located text (and its end at
        ``offsets[-1]``)."""
        token = cls.__new__(cls)
        token._init(text, offsets, locate, literal, condition, gathered)
        return token

    @classmethod
    def located(
        cls,
        text: str,
        start: int,
        locate: Locator,
        literal: bool = True,
        condition: str | None = None,
        gathered: bool = False,
    ) -> Token:
        """A token whose characters are contiguous in the located text from ``start``."""
        return cls.at(
            text, range(start, start + len(text) + 1), locate, literal, condition, gathered
        )

    @property
    def offsets(self) -> Sequence[int]:
        """Where each character (and the end) sits in the located text: a ``range`` for a
        contiguous token."""
        return self._offsets

    @property
    def locator(self) -> Locator:
        """The locator of the text the offsets point into."""
        return self._locate

    def pos(self, index: int) -> Pos:
        """The position of character ``index`` (``len(text)``: the end)."""
        return self._locate(self._offsets[index])

    @property
    def positions(self) -> tuple[Pos, ...]:
        """Every character's position plus the end's (made on first use)."""
        positions = self._positions
        if positions is None:
            locate = self._locate
            positions = tuple(locate(offset) for offset in self._offsets)
            object.__setattr__(self, "_positions", positions)
        return positions

    @property
    def span(self) -> Span:
        start, end = self.pos(0), self.pos(-1)
        if end < start:  # characters gathered from several places (a shell variable's value)
            return self._bounds(0, len(self.text))
        return Span(start, end)

    def _bounds(self, start: int, stop: int) -> Span:
        """The smallest span holding characters ``start`` to ``stop`` of a token whose characters
        are not in file order."""
        chars = [self.pos(index) for index in range(start, stop)] or [self.pos(start)]
        last = max(chars)
        return Span(min(chars), max(self.pos(stop), Pos(last.line, last.column + 1)))

    def sub_span(self, start: int, end: int | None = None) -> Span:
        """The span of ``text[start:end]``.

        A token's end position is where its source ends, after any closing quote; a value that
        ends the token stops before that one quote character.  (A value that came from a longer
        expression, such as a resolved ``${VAR:-8}``, keeps the whole expression.)
        """
        stop = len(self.text) if end is None else end
        finish = self.pos(stop)
        if stop > start and stop == len(self.text):
            last = self.pos(stop - 1)
            # (A made-up word maps all its characters to one place: nothing to trim there.)
            distinct = stop == 1 or self.pos(stop - 2) != last
            if distinct and finish == Pos(last.line, last.column + 2):
                finish = Pos(last.line, last.column + 1)
        begin = self.pos(start)
        if finish < begin:
            return self._bounds(start, stop)
        return Span(begin, finish)

    def slice(self, start: int, end: int | None = None) -> Token:
        """The token of ``text[start:end]``, its characters where they were (the end included)."""
        stop = len(self.text) if end is None else end
        return Token.at(
            self.text[start:stop],
            self._offsets[start : stop + 1],
            self._locate,
            self.literal,
            self.condition,
            self.gathered,
        )

    def with_text(self, text: str, literal: bool) -> Token:
        """The same positions for another text of the same length (a masked or restored one)."""
        return Token.at(text, self._offsets, self._locate, literal, self.condition, self.gathered)

    def moved(self, move: Callable[[Pos], Pos]) -> Token:
        """This token with every position mapped through ``move`` (into an enclosing file)."""
        locate = self._locate

        def moved_locate(offset: int) -> Pos:
            return move(locate(offset))

        return Token.at(
            self.text, self._offsets, moved_locate, self.literal, self.condition, self.gathered
        )

    def _key(self) -> tuple[str, bool, tuple[Pos, ...], str | None]:
        return self.text, self.literal, self.positions, self.condition

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Token):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        condition = "" if self.condition is None else f", condition={self.condition!r}"
        return (
            f"Token(text={self.text!r}, positions={self.positions!r}, "
            f"literal={self.literal!r}{condition})"
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Token is immutable: cannot set {name!r}")

    def __reduce__(
        self,
    ) -> tuple[type[Token], tuple[str, tuple[Pos, ...], bool, str | None, bool]]:
        # A locator may be a closure (nesting composes them): a copy keeps the positions.
        return Token, (self.text, self.positions, self.literal, self.condition, self.gathered)


Entry = Literal["serve", "api_server", "demo_server"]


@dataclass(frozen=True)
class Keyword:
    """A Python keyword argument: its name token and the literal value, if it has one."""

    name: Token
    value_span: Span
    value: object = None
    literal: bool = True
