"""Tokens: arguments and keywords that can give the file position of every character."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from vlint.model.positions import Locator, Pos, Span


# How a token's last character is told from its end (``Token._closing``): ``quote``, the end
# may follow one closing quote of the located text; ``columns``, the same measured in file
# columns (explicit positions: no located text); ``exact``, the end is the last character's.
EndRule = Literal["quote", "columns", "exact"]


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

    ``unwritten`` counts the leading characters of ``text`` that no file holds: a producer
    writes them from what the file says.  A chart's template writes ``--max-model-len`` for a
    values key ``maxModelLen:`` (all of it unwritten, every character at the key), vLLM's
    ``--config`` loader writes ``--`` before a key (two unwritten, the rest at the key).  An
    edit meant for the flag's text would put a flag into the key (``vlint.checks.base``).
    """

    __slots__ = (
        "_end_rule", "_locate", "_offsets", "_positions", "condition", "gathered", "literal",
        "text", "unwritten",
    )

    text: str
    literal: bool
    condition: str | None
    gathered: bool
    unwritten: int
    _end_rule: EndRule
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
        unwritten: int = 0,
    ) -> None:
        explicit = tuple(positions)
        self._init(
            text, range(len(explicit)), explicit.__getitem__, literal, condition, gathered,
            unwritten, "columns",
        )
        object.__setattr__(self, "_positions", explicit)

    def _init(
        self,
        text: str,
        offsets: Sequence[int],
        locate: Locator,
        literal: bool,
        condition: str | None = None,
        gathered: bool = False,
        unwritten: int = 0,
        end_rule: EndRule = "quote",
    ) -> None:
        if len(offsets) != len(text) + 1:
            raise ValueError(f"token {text!r} needs {len(text) + 1} positions")
        if not 0 <= unwritten <= len(text):
            raise ValueError(f"token {text!r} cannot have {unwritten} unwritten characters")
        put = object.__setattr__
        put(self, "text", text)
        put(self, "literal", literal)
        put(self, "condition", condition)
        put(self, "gathered", gathered)
        put(self, "unwritten", unwritten)
        put(self, "_end_rule", end_rule)
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
        unwritten: int = 0,
        exact_end: bool = False,
    ) -> Token:
        """A token whose character ``i`` sits at ``offsets[i]`` of a located text (and its end at
        ``offsets[-1]``).  ``exact_end``: the end is where the last character ends, never after a
        closing quote (a YAML scalar's value, whose characters may be escapes)."""
        token = cls.__new__(cls)
        token._init(
            text, offsets, locate, literal, condition, gathered, unwritten,
            "exact" if exact_end else "quote",
        )
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
        ends the token stops before that one quote character (``_closing``).  (A value that
        came from a longer expression, such as a resolved ``${VAR:-8}``, keeps the whole
        expression.)
        """
        stop = len(self.text) if end is None else end
        finish = self.pos(stop)
        if stop > start and stop == len(self.text):
            finish = self._closing(stop, finish)
        begin = self.pos(start)
        if finish < begin:
            return self._bounds(start, stop)
        return Span(begin, finish)

    def _closing(self, stop: int, finish: Pos) -> Pos:
        """Where the last character ends when a closing quote follows it before ``finish``.

        The quote is one character of the text the token was read from, so it is measured
        there: in the file it may take more (``\\"`` in a Python or JSON string, a YAML
        double-quoted scalar), and the file position of that located offset is where the
        quote's own text starts.  A token built from explicit positions has no such text: its
        quote is taken to be one column.  A token whose end is exact has none to trim.
        """
        if self._end_rule == "exact":
            return finish
        last = self.pos(stop - 1)
        # (A made-up word maps all its characters to one place: nothing to trim there.)
        if stop > 1 and self.pos(stop - 2) == last:
            return finish
        if self._end_rule == "columns":
            after = Pos(last.line, last.column + 1)
            return after if finish == Pos(last.line, last.column + 2) else finish
        after_last = self._offsets[stop - 1] + 1
        if self._offsets[stop] != after_last + 1:
            return finish
        closing = self._locate(after_last)
        return closing if last < closing < finish else finish

    def slice(self, start: int, end: int | None = None) -> Token:
        """The token of ``text[start:end]``, its characters where they were (the end included)."""
        stop = len(self.text) if end is None else end
        token = Token.at(
            self.text[start:stop],
            self._offsets[start : stop + 1],
            self._locate,
            self.literal,
            self.condition,
            self.gathered,
            max(0, min(self.unwritten, stop) - start),
        )
        object.__setattr__(token, "_end_rule", self._end_rule)
        return token

    def with_text(self, text: str, literal: bool) -> Token:
        """The same positions for another text of the same length (a masked or restored one)."""
        token = Token.at(
            text, self._offsets, self._locate, literal, self.condition, self.gathered,
            self.unwritten,
        )
        object.__setattr__(token, "_end_rule", self._end_rule)
        return token

    def with_condition(self, condition: str | None) -> Token:
        """The same token, passed only when ``condition`` holds (None: always)."""
        token = Token.at(
            self.text, self._offsets, self._locate, self.literal, condition, self.gathered,
            self.unwritten,
        )
        object.__setattr__(token, "_end_rule", self._end_rule)
        return token

    def moved(self, move: Callable[[Pos], Pos]) -> Token:
        """This token with every position mapped through ``move`` (into an enclosing file)."""
        locate = self._locate

        def moved_locate(offset: int) -> Pos:
            return move(locate(offset))

        token = Token.at(
            self.text, self._offsets, moved_locate, self.literal, self.condition, self.gathered,
            self.unwritten,
        )
        object.__setattr__(token, "_end_rule", self._end_rule)
        return token

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
    ) -> tuple[type[Token], tuple[str, tuple[Pos, ...], bool, str | None, bool, int]]:
        # A locator may be a closure (nesting composes them): a copy keeps the positions.
        return Token, (
            self.text, self.positions, self.literal, self.condition, self.gathered,
            self.unwritten,
        )


Entry = Literal["serve", "api_server", "demo_server"]


@dataclass(frozen=True)
class Keyword:
    """A Python keyword argument: its name token and the literal value, if it has one."""

    name: Token
    value_span: Span
    value: object = None
    literal: bool = True
