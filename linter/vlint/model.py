"""The values every stage shares: positions, tokens with spans, invocations, findings."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: Mapping[str, int] = {"info": 0, "warning": 1, "error": 2}


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


@dataclass(frozen=True)
class Invocation:
    """One launch of vLLM found in a file, in the shape the normaliser reads.

    ``style`` is ``cli`` for an argv (``args`` are the tokens after ``vllm serve`` or after the
    API server module) and ``python`` for keyword arguments (``keywords``) of ``LLM(...)``,
    ``EngineArgs(...)`` or ``AsyncEngineArgs(...)``.
    """

    path: str
    kind: str
    style: Literal["cli", "python"]
    anchor: Span
    entry: Entry = "serve"
    callee: str = ""
    args: tuple[Token, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    has_unpacked_kwargs: bool = False
    env: Mapping[str, Token] = field(default_factory=dict)
    image: str | None = None
    target: str | None = None
    # Where each name of ``env`` is written (absent for names an extractor cannot place).
    env_names: Mapping[str, Span] = field(default_factory=dict)
    # Words given to a server image that repeat its entrypoint (``vllm serve`` or ``serve``);
    # ``args`` are the words after them.
    repeated_entry: tuple[Token, ...] = ()
    # Lines of the command that end without a working ``\`` before a line of flags.
    line_breaks: tuple[LineBreak, ...] = ()
    # Where ``image`` is written (the compose ``image:`` scalar); None when an extractor does not
    # know it (extractors for other kinds fill it in when they read an image reference).
    image_span: Span | None = None
    # True when part of the environment comes from a source vlint does not read (compose
    # ``env_file``, Kubernetes ``envFrom``): a variable absent from ``env`` may still be set.
    env_unknown: bool = False
    # Keys a vLLM ``--config`` file sets to ``false``: each release decides whether they are
    # dropped or become ``--no-KEY`` (VL405), so they are not in ``args``.
    config_false: tuple[Token, ...] = ()


@dataclass(frozen=True)
class LineBreak:
    """A shell line that ends the command although the next line holds its flags.

    ``span`` is where the continuation should be: the ``\\`` and the blanks after it, or the
    column just past the line's end; ``orphan`` is the first word of the next line.
    """

    span: Span
    orphan: str
    trailing_blanks: bool


@dataclass(frozen=True)
class Edit:
    span: Span
    replacement: str


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    safe: bool


ConfirmationState = Literal["confirmed", "refuted", "unverified"]


@dataclass(frozen=True)
class Confirmation:
    """What a real vLLM said about a finding (``vlint confirm``): ``state`` is ``confirmed`` (vLLM
    rejects or warns as predicted), ``refuted`` (vLLM accepts: a false positive) or
    ``unverified`` (``message`` says why); ``level`` is parse, config or start."""

    state: ConfirmationState
    level: str
    vllm_release: str | None
    message: str


@dataclass(frozen=True)
class Finding:
    """A problem at ``span``.

    ``fix`` is the preferred fix (the one the output shows); ``alternative`` is an unsafe fix
    that ``--unsafe-fixes`` applies instead (``16k`` -> ``16384`` where ``fix`` writes 16000).
    """

    code: str
    name: str
    severity: Severity
    message: str
    help: str
    path: str
    span: Span
    vllm_versions: tuple[str, ...] = ()
    fix: Fix | None = None
    alternative: Fix | None = None
    # Source ranges no output may print (a secret's value): renderers that show source text
    # mask these characters.
    redact: tuple[Span, ...] = ()
    # Set by ``vlint confirm``; None when no vLLM was asked.
    confirmation: Confirmation | None = None
