"""Dockerfile instructions with the file position of every character; nothing of vLLM.

The instructions are read line by line: parser directives (``# escape=``), comments, line
continuations (a comment line inside a continuation is dropped, as Docker drops it) and heredocs
(``RUN <<EOF``).  Every character of a joined instruction keeps its offset in the text, and the
text's locator gives its file position.  White space is what Docker splits on (spaces and tabs),
never the other characters Python calls white space (``\\x1c``, ``\\x85``, ``\\u2028``).
``exec_form`` reads the JSON array of ``CMD``/``ENTRYPOINT``/``RUN``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from vlint.errors import Unparsable
from vlint.model import LineIndex, Locator, Pos, Token
from vlint.syntax.lines import Chars, strip_blanks

__all__ = ["BLANKS", "Instruction", "exec_form", "parse", "strip"]

BLANKS = " \t"
_DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z]+)[ \t]*=[ \t]*([^ \t]*)[ \t]*$")
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)([\"']?)([A-Za-z0-9_.-]+)\2")
_HEREDOC_KEYWORDS = frozenset({"RUN", "COPY", "ADD"})
_INSTRUCTION = re.compile(r"[ \t]*([A-Za-z]+)")
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                 "t": "\t"}


@dataclass(frozen=True)
class Instruction:
    """One instruction: its keyword (upper case), its arguments, and its heredoc bodies."""

    keyword: str
    args: Chars
    heredocs: tuple[Chars, ...]
    start: Pos


class _Lines:
    """The text's lines (without their ``\\n``), the offset where each starts, its locator."""

    def __init__(self, text: str, locate: Locator | None) -> None:
        index = LineIndex.of(text)
        self.lines = text.split("\n")
        self.starts = index.starts
        self.locate = locate or index.locate

    def chars(self, text: list[str], offsets: list[int]) -> Chars:
        return Chars.at("".join(text), offsets, self.locate)


def parse(text: str, locate: Locator | None = None) -> list[Instruction]:
    """The instructions of a Dockerfile, continuations joined, with per-character positions.

    ``locate`` maps an offset of ``text`` to the file (by default ``text`` is the file).
    """
    source = _Lines(text, locate)
    lines = source.lines
    escape = _escape_directive(lines)
    instructions: list[Instruction] = []
    index = 0
    while index < len(lines):
        line = _content(lines[index])
        if not line.strip(BLANKS) or line.lstrip(BLANKS).startswith("#"):
            index += 1
            continue
        chars, index = _logical_line(source, index, escape)
        match = _INSTRUCTION.match(chars.text)
        if match is None:
            continue
        rest = len(match.group(0))
        while rest < len(chars.text) and chars.text[rest] in BLANKS:
            rest += 1
        args = chars.slice(rest)
        bodies: list[Chars] = []
        keyword = match.group(1).upper()
        heredocs = _HEREDOC.finditer(args.text) if keyword in _HEREDOC_KEYWORDS else ()
        for heredoc in heredocs:
            body, index = _heredoc(source, index, heredoc.group(3), heredoc.group(1) == "-")
            bodies.append(body)
        instructions.append(Instruction(keyword, args, tuple(bodies), chars.pos(0)))
    return instructions


def strip(chars: Chars) -> Chars:
    """``chars`` without Docker's blanks at either end."""
    return strip_blanks(chars, BLANKS)


def _content(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _escape_directive(lines: Sequence[str]) -> str:
    escape = "\\"
    for line in lines:
        match = _DIRECTIVE.match(_content(line))
        if match is None:
            break
        if match.group(1).lower() == "escape" and match.group(2) in ("\\", "`"):
            escape = match.group(2)
    return escape


def _logical_line(source: _Lines, index: int, escape: str) -> tuple[Chars, int]:
    """One instruction from line ``index``: continuation lines joined, comment lines dropped."""
    lines, starts = source.lines, source.starts
    text: list[str] = []
    offsets: list[int] = []
    end = starts[index]
    while index < len(lines):
        line = _content(lines[index])
        start = starts[index]
        index += 1
        stripped = line.rstrip(BLANKS)
        continued = stripped.endswith(escape)
        stop = len(stripped) - 1 if continued else len(line)
        text.append(line[:stop])
        offsets.extend(range(start, start + stop))
        end = start + stop
        if not continued:
            break
        # Comment and empty lines inside a continuation are skipped.
        while index < len(lines) and (
            not _content(lines[index]).strip(BLANKS)
            or lines[index].lstrip(BLANKS).startswith("#")
        ):
            index += 1
    offsets.append(end)
    return source.chars(text, offsets), index


def _heredoc(source: _Lines, index: int, word: str, strip_tabs: bool) -> tuple[Chars, int]:
    lines, starts = source.lines, source.starts
    text: list[str] = []
    offsets: list[int] = []
    while index < len(lines):
        line = _content(lines[index])
        start = starts[index]
        index += 1
        skip = len(line) - len(line.lstrip("\t")) if strip_tabs else 0
        if line[skip:] == word:
            offsets.append(start)
            return source.chars(text, offsets), index
        text.append(line[skip:] + "\n")
        offsets.extend(range(start + skip, start + len(line) + 1))
    offsets.append(starts[-1] + len(_content(lines[-1])))
    return source.chars(text, offsets), index


def exec_form(chars: Chars) -> tuple[Token, ...] | None:
    """The words of a JSON exec form, or None for a shell form.

    Text that starts like a JSON array of strings but is not one raises Unparsable.
    """
    text = chars.text
    if not re.match(r"\[[ \t\r\n]*[\"'\]]", text):
        return None
    words: list[Token] = []
    index = _skip_space(text, 1)
    if text[index] == "]":
        return _after_array(chars, index)
    while True:
        if index >= len(text):
            raise Unparsable("unterminated exec form: missing ']'", chars.pos(0))
        if text[index] != '"':
            raise Unparsable(
                "exec form is not a JSON array of double-quoted strings; Docker would run it "
                "with /bin/sh as written", chars.locate(index)
            )
        word, index = _json_string(chars, index)
        words.append(word)
        index = _skip_space(text, index)
        if index < len(text) and text[index] == ",":
            index = _skip_space(text, index + 1)
        elif index < len(text) and text[index] == "]":
            _after_array(chars, index)
            return tuple(words)
        elif index >= len(text):
            raise Unparsable("unterminated exec form: missing ']'", chars.pos(0))
        else:
            raise Unparsable("exec form: expected ',' or ']'", chars.locate(index))


def _after_array(chars: Chars, index: int) -> tuple[Token, ...]:
    if chars.text[index + 1 :].strip(" \t\r\n"):
        raise Unparsable("exec form: text after ']'", chars.locate(index + 1))
    return ()


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _json_string(chars: Chars, start: int) -> tuple[Token, int]:
    """The JSON string opening at ``start``: its token and the index after its closing quote."""
    text = chars.text
    out: list[str] = []
    offsets: list[int] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            offsets.append(chars.offset(index))
            return Token.at("".join(out), offsets, chars.locator), index + 1
        if char != "\\":
            out.append(char)
            offsets.append(chars.offset(index))
            index += 1
            continue
        escape = text[index + 1 : index + 2]
        if escape in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[escape])
            offsets.append(chars.offset(index))
            index += 2
        elif escape == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[index + 2 : index + 6]):
            code = int(text[index + 2 : index + 6], 16)
            width = 6
            low = re.fullmatch(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})", text[index + 6 : index + 12])
            if 0xD800 <= code < 0xDC00 and low:
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                width = 12
            out.append(chr(code))
            offsets.append(chars.offset(index))
            index += width
        else:
            raise Unparsable("exec form: invalid JSON escape", chars.locate(index))
    raise Unparsable("unterminated exec form: missing '\"'", chars.locate(start))
