"""Compose-style interpolation and word splitting, every character keeping its file position;
nothing of vLLM.

``interpolate`` resolves ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:+x}``,
``$VAR`` and ``$$`` as docker compose does (and as Dockerfile ``ARG``/``ENV`` substitution
does); ``split_words`` splits a string as compose splits a string ``command:`` (shell-like
quoting, no shell).  Moved unchanged from ``vlint.extract.compose`` so that the Dockerfile
extractor, which compose now reads for services built from a Dockerfile, shares them without
an import cycle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from vlint.model import Pos, Token
from vlint.syntax.lines import Chars

__all__ = ["interpolate", "plain_chars", "split_words"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BREAKS = " \t\r\n"


def plain_chars(text: str) -> Chars:
    """``text`` as literal characters with no file position of their own (a value from a
    variable, placed later at the expression it replaces)."""
    return Chars(text, tuple(Pos(1, 1) for _ in range(len(text) + 1)), (True,) * len(text))


class _Builder:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.positions: list[Pos] = []
        self.literal: list[bool] = []

    def add(self, chars: Chars, start: int, end: int, at: Pos | None = None) -> None:
        for index in range(start, end):
            self.text.append(chars.text[index])
            self.positions.append(chars.positions[index] if at is None else at)
            self.literal.append(chars.literal[index])

    def done(self, end: Pos) -> Chars:
        return Chars("".join(self.text), (*self.positions, end), tuple(self.literal))


# Defaults nested deeper than this (``${A:-${B:-...}}``) are left unresolved: no real file
# comes near it, and each level copies the text inside it.
MAX_NESTED_DEFAULTS = 32


def interpolate(chars: Chars, variables: Mapping[str, str], depth: int = 0) -> Chars:
    """Compose interpolation: ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``$VAR``, ``$$``.

    A resolved expression's characters all sit at the start of the expression; an unresolved
    one stays as written and is not literal.
    """
    text = chars.text
    out = _Builder()
    index = 0
    while index < len(text):
        dollar = text.find("$", index)
        if dollar < 0:
            out.add(chars, index, len(text))
            break
        out.add(chars, index, dollar)
        index = _expression(chars, dollar, variables, out, depth)
    return out.done(chars.positions[-1])


def _expression(
    chars: Chars, dollar: int, variables: Mapping[str, str], out: _Builder, depth: int
) -> int:
    """Interpolate the expression at ``dollar`` into ``out``; return the index after it."""
    text = chars.text
    after = text[dollar + 1 : dollar + 2]
    if after == "$":
        out.add(chars, dollar, dollar + 1)
        return dollar + 2
    if after == "{":
        close = _closing_brace(text, dollar + 2)
        if close < 0:
            out.add(chars, dollar, len(text))
            out.literal[-(len(text) - dollar) :] = [False] * (len(text) - dollar)
            return len(text)
        end = close + 1
        inner = Chars(
            text[dollar + 2 : close],
            chars.positions[dollar + 2 : close + 1],
            chars.literal[dollar + 2 : close],
        )
        resolved = _braced(inner, variables, depth) if depth < MAX_NESTED_DEFAULTS else None
    else:
        name = _NAME.match(text, dollar + 1)
        if name is None:
            out.add(chars, dollar, dollar + 1)
            return dollar + 1
        end = name.end()
        value = variables.get(name.group())
        resolved = None if value is None else plain_chars(value)
    if resolved is None:
        out.add(chars, dollar, end)
        out.literal[-(end - dollar) :] = [False] * (end - dollar)
    else:
        out.add(resolved, 0, len(resolved.text), at=chars.positions[dollar])
    return end


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{" and text[index - 1] == "$":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _braced(inner: Chars, variables: Mapping[str, str], depth: int) -> Chars | None:
    """The value of ``${inner}``, or None when it cannot be resolved statically."""
    name = _NAME.match(inner.text)
    if name is None:
        return None
    value = variables.get(name.group())
    rest = inner.text[name.end() :]
    operator = next((op for op in (":-", ":?", ":+", "-", "?", "+") if rest.startswith(op)), "")
    if rest and not operator:
        return None
    word_start = name.end() + len(operator)
    word = Chars(inner.text[word_start:], inner.positions[word_start:], inner.literal[word_start:])
    is_set = value is not None
    is_nonempty = bool(value)
    if operator in (":-", "-"):
        use_value = is_nonempty if operator == ":-" else is_set
        return plain_chars(value or "") if use_value else interpolate(word, variables, depth + 1)
    if operator in (":+", "+"):
        use_word = is_nonempty if operator == ":+" else is_set
        return interpolate(word, variables, depth + 1) if use_word else plain_chars("")
    return plain_chars(value) if value is not None else None


def split_words(chars: Chars) -> list[Token]:
    """Split a string into words as compose does for a string ``command:``/``entrypoint:``.

    Compose does not run a shell: it splits with shell-like quoting (single quotes, double
    quotes with backslash escapes, backslash outside quotes) and nothing else.
    """
    text = chars.text
    words: list[Token] = []
    index = 0
    while index < len(text):
        if text[index] in _WORD_BREAKS:
            index += 1
            continue
        # The indexes in ``chars`` of the word's characters: the token keeps their offsets in the
        # text ``chars`` was located in, where a closing quote is one character (``Token``).
        taken: list[int] = []
        quote = ""
        while index < len(text):
            char = text[index]
            if quote == "'":
                if char == "'":
                    quote = ""
                else:
                    taken.append(index)
            elif quote == '"':
                if char == '"':
                    quote = ""
                elif char == "\\" and text[index + 1 : index + 2] in ('"', "\\", "$", "`"):
                    index += 1
                    taken.append(index)
                else:
                    taken.append(index)
            elif char in _WORD_BREAKS:
                break
            elif char in "'\"":
                quote = char
            elif char == "\\" and index + 1 < len(text):
                index += 1
                taken.append(index)
            else:
                taken.append(index)
            index += 1
        words.append(Token.at(
            "".join(text[at] for at in taken),
            [*(chars.offset(at) for at in taken), chars.offset(index)],
            chars.locator,
            all(chars.literal[at] for at in taken),
        ))
    return words
