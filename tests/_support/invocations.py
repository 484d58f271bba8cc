"""Small readers of extracted invocations, shared by the extractor tests."""

from __future__ import annotations

from vlint.extract.shell import extract
from vlint.model import Invocation, Pos, Span, Token


def args(invocation: Invocation) -> list[str]:
    """The texts of an invocation's arguments."""
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    """The first argument written as ``text``."""
    return next(token for token in invocation.args if token.text == text)


def at(line: int, start: int, end: int) -> Span:
    """The span of columns ``start`` to ``end`` (exclusive) on ``line``."""
    return Span(Pos(line, start), Pos(line, end))


def only(line: str) -> Invocation:
    """The one launch of a one-line shell script."""
    found = extract("run.sh", line + "\n")
    assert len(found) == 1, found
    return found[0]


def columns(line: str, text: str) -> Span:
    """Where ``text`` (unique in ``line``) is written on line 1."""
    assert line.count(text) == 1, (line, text)
    start = line.index(text) + 1
    return Span(Pos(1, start), Pos(1, start + len(text)))
