"""supervisord configuration files: sections and options at file offsets, values split as
supervisord splits them.

supervisord reads its configuration with ``UnhosedConfigParser``, a ``RawConfigParser`` with
``inline_comment_prefixes=(';', '#')`` and ``strict=False`` (Supervisor/supervisor
``supervisor/options.py``).  Its lines are read here as CPython's ``RawConfigParser._read``
reads them (``Lib/configparser.py``), since the standard reader keeps no positions:

- a line whose stripped text starts with ``#`` or ``;`` is a comment; elsewhere ``;`` or ``#``
  after white space (or first on the line) starts one;
- ``[name]`` starts a section; ``key = value`` (or ``key: value``) an option, its key folded to
  lower case and stripped, its value stripped; a later option of the same name wins;
- a line indented more than the option's line continues its value (a line break in between);
  blank lines do not end it, and trailing ones are dropped;
- a line that is none of these, or an option before any section, makes the file unreadable.

An option's value is then expanded with Python's ``%`` operator (``expand`` in ``options.py``):
``%%`` is ``%``, ``%(name)s`` a value supervisord knows when it starts (``%(ENV_HOME)s``,
``%(program_name)s``, ``%(here)s``, ``%(process_num)02d``), left unresolved here.

``split`` splits a ``command=`` as ``supervisor/process.py`` does (``shlex.split``: POSIX
quoting, no shell); ``key_value_pairs`` reads ``environment=KEY="val",KEY2="val"`` as
``supervisor/datatypes.py`` does (``dict_of_key_value_pairs``, a POSIX ``shlex.shlex``).

Knows nothing of vLLM.  Linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vlint.errors import Unparsable
from vlint.model import Locator, Token
from vlint.syntax.lines import Chars

__all__ = ["Option", "Section", "expanded", "key_value_pairs", "read", "split"]

_SECTION = re.compile(r"\[(.+)\]")
_OPTION = re.compile(r"(.*?)\s*[=:]\s*(.*)")
_COMMENTS = (";", "#")
_WHITESPACE = " \t\r\n"  # shlex's
_FORMAT = re.compile(r"%\([^)]*\)[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa]")
# ``dict_of_key_value_pairs``: shlex's word characters, plus those it adds.
_WORD_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
    "\u00df\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e6\u00e7\u00e8\u00e9\u00ea\u00eb\u00ec\u00ed"
    "\u00ee\u00ef\u00f0\u00f1\u00f2\u00f3\u00f4\u00f5\u00f6\u00f8\u00f9\u00fa\u00fb\u00fc\u00fd"
    "\u00fe\u00ff\u00c0\u00c1\u00c2\u00c3\u00c4\u00c5\u00c6\u00c7\u00c8\u00c9\u00ca\u00cb\u00cc"
    "\u00cd\u00ce\u00cf\u00d0\u00d1\u00d2\u00d3\u00d4\u00d5\u00d6\u00d8\u00d9\u00da\u00db\u00dc"
    "\u00dd\u00de/.+-():"
)


@dataclass(frozen=True)
class Option:
    name: Chars
    value: Chars  # as the parser gives it, before ``%`` expansion


@dataclass(frozen=True)
class Section:
    name: str
    options: dict[str, Option]


def read(text: str, locate: Locator) -> list[Section]:
    """The sections of the configuration ``text``, in order (a repeated one merged into the
    first, as ``strict=False`` has it); raises Unparsable where supervisord's parser fails."""
    sections: dict[str, Section] = {}
    current: Section | None = None
    # The option being read: its name, and the (start, end) offsets of each line of its value.
    name: Chars | None = None
    pieces: list[tuple[int, int]] = []
    indent = -1

    def close() -> None:
        if current is not None and name is not None:
            current.options[name.text.lower()] = Option(name, _joined(text, pieces, locate))

    start = 0
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        offset, start = start, start + len(raw) + 1
        first, last = _content(line)
        if first == last:
            if name is not None and first == len(line):  # a blank line, no comment
                pieces.append((offset + first, offset + first))
            continue
        if name is not None and first > indent:
            pieces.append((offset + first, offset + last))
            continue
        close()
        name, pieces, indent = None, [], first
        content = line[first:last]
        header = _SECTION.match(content)
        if header is not None:
            title = header.group(1)
            current = sections.setdefault(title, Section(title, {}))
            continue
        option = _OPTION.fullmatch(content)
        if current is None or option is None or not option.group(1):
            where = locate(offset + first)
            problem = "no section header before it" if current is None else "not an option"
            raise Unparsable(f"invalid supervisord configuration line: {problem}", where)
        key_end = offset + first + len(option.group(1))
        name = Chars.at(option.group(1), range(offset + first, key_end + 1), locate)
        value_at = offset + first + option.start(2)
        pieces = [(value_at, value_at + len(option.group(2)))]
    close()
    return list(sections.values())


def _content(line: str) -> tuple[int, int]:
    """Where the line's text starts and ends once comments and white space are cut (equal
    for a blank or comment line; the end of the line for a blank one)."""
    stripped = line.strip()
    if not stripped:
        return len(line), len(line)
    if stripped.startswith(_COMMENTS):
        return 0, 0
    cut = len(line)
    for prefix in _COMMENTS:
        at = line.find(prefix)
        while at > 0 and not line[at - 1].isspace():
            at = line.find(prefix, at + 1)
        if at >= 0:
            cut = min(cut, at)
    kept = line[:cut]
    first = len(kept) - len(kept.lstrip())
    return first, max(first, len(kept.rstrip()))


def _joined(text: str, pieces: list[tuple[int, int]], locate: Locator) -> Chars:
    """The value's lines joined by line breaks (each at the end of the line before), trailing
    blank lines dropped, as ``_join_multiline_values`` does."""
    while len(pieces) > 1 and pieces[-1][0] == pieces[-1][1]:
        pieces.pop()
    chars: list[str] = []
    offsets: list[int] = []
    for index, (start, end) in enumerate(pieces):
        if index:
            chars.append("\n")
            offsets.append(pieces[index - 1][1])
        chars.append(text[start:end])
        offsets.extend(range(start, end))
    offsets.append(pieces[-1][1])
    return Chars.at("".join(chars), offsets, locate)


def expanded(value: Chars) -> Chars:
    """``value`` after supervisord's ``%`` expansion: ``%%`` is ``%``; each ``%(name)s`` is a
    value known when supervisord starts, kept as written and flagged not literal."""
    text = value.text
    if "%" not in text:
        return value
    kept: list[int] = []
    literal: list[bool] = []
    index = 0
    while index < len(text):
        if text.startswith("%%", index):
            kept.append(index)
            literal.append(True)
            index += 2
            continue
        reference = _FORMAT.match(text, index) if text[index] == "%" else None
        end = reference.end() if reference is not None else index + 1
        kept.extend(range(index, end))
        literal.extend([reference is None] * (end - index))
        index = end
    return Chars.at(
        "".join(text[at] for at in kept),
        [*(value.offset(at) for at in kept), value.offset(len(text))],
        value.locator,
        [flag and value.literal[at] for flag, at in zip(literal, kept)],
    )


def split(chars: Chars) -> list[Token]:
    """``shlex.split(chars.text)``: words split on white space, POSIX quotes and backslashes
    removed, nothing else special; raises Unparsable where shlex raises (an unclosed quote, a
    backslash at the end), which supervisord reports as a bad command."""
    text = chars.text
    words: list[Token] = []
    index = 0
    while index < len(text):
        if text[index] in _WHITESPACE:
            index += 1
            continue
        taken: list[int] = []
        while index < len(text) and text[index] not in _WHITESPACE:
            char = text[index]
            if char == "'":
                close = text.find("'", index + 1)
                if close < 0:
                    raise Unparsable("command=: no closing quotation", chars.pos(index))
                taken.extend(range(index + 1, close))
                index = close + 1
            elif char == '"':
                index = _double_quoted(chars, index, taken)
            elif char == "\\":
                if index + 1 >= len(text):
                    raise Unparsable("command=: no escaped character", chars.pos(index))
                taken.append(index + 1)
                index += 2
            else:
                taken.append(index)
                index += 1
        words.append(_token(chars, taken, index))
    return words


def _double_quoted(chars: Chars, index: int, taken: list[int]) -> int:
    """Takes the characters of the double-quoted string at ``index``; returns the index after
    it.  A backslash escapes only ``"`` and itself there (shlex's ``escapedquotes``)."""
    text = chars.text
    index += 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return index + 1
        if char == "\\" and text[index + 1:index + 2] in ('"', "\\"):
            index += 1
        taken.append(index)
        index += 1
    raise Unparsable("command=: no closing quotation", chars.pos(len(text)))


def _token(chars: Chars, taken: list[int], end: int) -> Token:
    return Token.at(
        "".join(chars.text[at] for at in taken),
        [*(chars.offset(at) for at in taken), chars.offset(end)],
        chars.locator,
        all(chars.literal[at] for at in taken),
    )


def key_value_pairs(chars: Chars) -> list[tuple[Token, Token]]:
    """``KEY=val,KEY2="v a l"`` as ``dict_of_key_value_pairs`` reads it: shlex tokens (words of
    its word characters, quoted strings, any other character alone; ``#`` ends the text) taken
    three at a time, ``KEY`` ``=`` ``value``, a comma between; raises Unparsable where it
    raises.  An unresolved ``%(...)s`` counts as word characters: supervisord expands it
    before it splits."""
    tokens = _pair_tokens(chars)
    pairs: list[tuple[Token, Token]] = []
    for at in range(0, len(tokens), 4):
        triple = tokens[at:at + 3]
        if len(triple) != 3 or triple[1].text != "=":
            where = triple[0].span.start if triple else chars.pos(0)
            raise Unparsable("environment=: unexpected end of key/value pairs", where)
        pairs.append((triple[0], triple[2]))
    return pairs


def _pair_tokens(chars: Chars) -> list[Token]:
    text = chars.text
    tokens: list[Token] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char in _WHITESPACE:
            index += 1
            continue
        if char == "#":
            break
        if not _in_word(chars, index) and char not in "'\"":
            tokens.append(_token(chars, [index], index + 1))
            index += 1
            continue
        taken: list[int] = []
        while index < len(text) and (_in_word(chars, index) or text[index] in "'\""):
            if _in_word(chars, index):
                taken.append(index)
                index += 1
                continue
            if text[index] == '"':
                index = _double_quoted(chars, index, taken)
                continue
            close = text.find("'", index + 1)
            if close < 0:
                raise Unparsable("environment=: no closing quotation", chars.pos(index))
            taken.extend(range(index + 1, close))
            index = close + 1
        tokens.append(_token(chars, taken, index))
    return tokens



def _in_word(chars: Chars, index: int) -> bool:
    """A word character; an expansion (``%(ENV_PORT)s``) stands for a word's characters."""
    return chars.text[index] in _WORD_CHARS or not chars.literal[index]
