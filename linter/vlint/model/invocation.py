"""One launch of vLLM, as every extractor hands it to the normaliser."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from vlint.model.positions import Span
from vlint.model.token import Entry, Keyword, Token


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
