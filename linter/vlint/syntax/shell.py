"""Shell text → simple commands whose every word keeps the file position of each character.

A parser that knows nothing of vLLM: ``vlint.extract.shell`` recognises the launches among the
commands it yields.

The text is parsed once with tree-sitter-bash and the tree is walked iteratively, so scripts of
any nesting depth are safe.  Every simple command is yielded in source order, wherever it sits:
pipelines, ``&&``/``||`` lists, ``;``, background ``&``, subshells, ``{ }`` groups, ``if``/
``while``/``for``/``case`` bodies and function bodies.  Commands inside ``$(...)``, backticks
and ``<(...)`` are not yielded: the substitution is part of a word, kept as written (and
yielding them would cost time quadratic in the nesting depth).  ``export``/``local``/``declare``
commands are yielded with the keyword as the first word.  Heredoc bodies and comments are
never commands.  A command made only of assignments (``A=1``) yields nothing.

Words are what the program receives: quotes are removed, backslash escapes and ``\\<newline>``
line continuations are resolved, and ``$'...'`` escapes are decoded.  Expansions (``$VAR``,
``${VAR:-x}``, ``$(...)``, backticks, ``$((...))``, process substitution) stay as written and
make the token non-literal.  Globs, brace expansion and ``~`` are kept as written and literal.
Unparsable input never raises: the commands tree-sitter could recover are still yielded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Callable

from vlint.model import LineBreak, Locator, Pos, Span, Token, line_locator

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["ShellCommand", "iter_commands", "line_break", "parse_words"]


@dataclass(frozen=True)
class ShellCommand:
    """One simple command: its words (name first), its ``VAR=x`` prefix, and its whole span."""

    words: tuple[Token, ...]
    env: Mapping[str, Token]
    span: Span
    env_names: Mapping[str, Span] = field(default_factory=dict)
    end: int = -1  # offset in the text where the command (with its redirections) ends


_EXPANSIONS = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "process_substitution",
    }
)
_OPAQUE = frozenset({"heredoc_body", "comment", "command_substitution", "process_substitution"})
_CONTAINERS = frozenset({"concatenation", "command_name", "variable_assignment"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
# tree-sitter-bash treats ``\<newline>`` as whitespace, so one word split by a continuation
# arrives as two sibling nodes; a gap made only of continuations joins them again.
_CONTINUATIONS = re.compile(r"(?:\\\n)*")
_DOUBLE_QUOTE_ESCAPES = frozenset('$`"\\\n')
_ANSI_C_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_C_NUMERIC = {"x": (16, 2), "u": (16, 4), "U": (16, 8)}
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Language, Parser  # lazy: a native parser, only for shell text
    import tree_sitter_bash  # lazy: as above

    return Parser(Language(tree_sitter_bash.language()))


def _char_offsets(data: bytes, text: str) -> Callable[[int], int]:
    """Maps a UTF-8 byte offset of ``data`` (the encoded ``text``) to a ``str`` offset."""
    if len(data) == len(text):
        return lambda offset: offset
    # The character index at a byte is the number of UTF-8 lead bytes before it.
    table = list(accumulate((int(byte & 0xC0 != 0x80) for byte in data), initial=0))
    return table.__getitem__


class _Word:
    """Accumulates the characters of one word with the text offset each came from."""

    def __init__(self, text: str) -> None:
        self.source = text
        self.chars: list[str] = []
        self.offsets: list[int] = []
        self.literal = True

    def emit(self, char: str, offset: int) -> None:
        self.chars.append(char)
        self.offsets.append(offset)

    def verbatim(self, start: int, end: int, literal: bool = True) -> None:
        for offset in range(start, end):
            self.emit(self.source[offset], offset)
        self.literal = self.literal and literal

    def bare(self, start: int, end: int) -> None:
        self._backslashed(start, end, None)

    def double_quoted(self, start: int, end: int) -> None:
        self._backslashed(start, end, _DOUBLE_QUOTE_ESCAPES)

    def _backslashed(self, start: int, end: int, escapable: frozenset[str] | None) -> None:
        source, offset = self.source, start
        while offset < end:
            char = source[offset]
            if char == "\\" and offset + 1 < end:
                following = source[offset + 1]
                if following == "\n":
                    offset += 2
                    continue
                if escapable is None or following in escapable:
                    self.emit(following, offset)
                    offset += 2
                    continue
            self.emit(char, offset)
            offset += 1

    def ansi_c(self, start: int, end: int) -> None:
        source, offset = self.source, start
        while offset < end:
            char = source[offset]
            if char != "\\" or offset + 1 >= end:
                self.emit(char, offset)
                offset += 1
                continue
            decoded, length = _ansi_c_escape(source, offset + 1, end)
            if decoded is None:  # not an escape: the backslash stays
                self.emit(char, offset)
                offset += 1
            else:
                self.emit(decoded, offset)
                offset += 1 + length

    def token(self, end: int, locate: Locator) -> Token:
        offsets = self.offsets
        text = "".join(self.chars)
        first = offsets[0] if offsets else end
        if end - first == len(offsets) and offsets == list(range(first, end)):
            return Token.located(text, first, locate, self.literal)
        return Token.at(text, (*offsets, end), locate, self.literal)


def _ansi_c_escape(source: str, offset: int, end: int) -> tuple[str | None, int]:
    """Decodes the escape after a backslash: its one character and how many characters it used."""
    char = source[offset]
    if char in _ANSI_C_SIMPLE:
        return _ANSI_C_SIMPLE[char], 1
    if char == "c" and offset + 1 < end:
        return chr(ord(source[offset + 1]) & 0x1F), 2
    if char in _OCTAL:
        digits = _run(source, offset, min(end, offset + 3), _OCTAL)
        return chr(int(digits, 8) & 0xFF), len(digits)
    if char in _ANSI_C_NUMERIC:
        base, most = _ANSI_C_NUMERIC[char]
        digits = _run(source, offset + 1, min(end, offset + 1 + most), _HEX)
        if not digits:
            return None, 0
        value = int(digits, base)
        return (chr(value) if value <= 0x10FFFF else "\ufffd"), 1 + len(digits)
    return None, 0


def _run(source: str, start: int, end: int, allowed: frozenset[str]) -> str:
    stop = start
    while stop < end and source[stop] in allowed:
        stop += 1
    return source[start:stop]


class _Builder:
    """Turns tree-sitter nodes into tokens for one parsed text."""

    def __init__(self, text: str, char_at: Callable[[int], int], locate: Locator) -> None:
        self.text = text
        self.char_at = char_at
        self.locate = locate

    def range(self, node: Node) -> tuple[int, int]:
        return self.char_at(node.start_byte), self.char_at(node.end_byte)

    def words(self, nodes: Sequence[Node]) -> list[Token]:
        """Tokens for argument nodes in source order, joining those split by continuations."""
        tokens: list[Token] = []
        group: list[Node] = []
        previous_end = -1
        for node in nodes:
            start, end = self.range(node)
            if group and not _CONTINUATIONS.fullmatch(self.text, previous_end, start):
                tokens.append(self.word(group))
                group = []
            group.append(node)
            previous_end = end
        if group:
            tokens.append(self.word(group))
        return tokens

    def word(self, nodes: Sequence[Node]) -> Token:
        word = _Word(self.text)
        for index, node in enumerate(nodes):
            is_last = index + 1 == len(nodes)
            # ``$"..."`` (a translated string) comes as a lone ``$`` node followed by the string.
            if node.type == "$" and not is_last and nodes[index + 1].type == "string":
                continue
            self.add(word, node)
        return word.token(self.range(nodes[-1])[1], self.locate)

    def value(self, nodes: Sequence[Node], end: int) -> Token:
        word = _Word(self.text)
        for node in nodes:
            self.add(word, node)
        return word.token(end, self.locate)

    def add(self, word: _Word, root: Node) -> None:
        stack: list[Node | tuple[int, int]] = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, tuple):
                word.bare(*node)
                continue
            start, end = self.range(node)
            kind = node.type
            if kind in _EXPANSIONS:
                word.verbatim(start, end, literal=False)
            elif kind == "raw_string":
                word.verbatim(*self._inside(start, end, "'", 1))
            elif kind == "ansi_c_string":
                word.ansi_c(*self._inside(start, end, "'", 2))
            elif kind == "string":
                self._double_quoted(word, node, start, end)
            elif kind in _CONTAINERS:
                self._container(word, node, start, end, stack)
            elif node.child_count == 0:
                word.bare(start, end)
            else:
                word.verbatim(start, end, literal=False)

    def _inside(self, start: int, end: int, quote: str, opening: int) -> tuple[int, int]:
        closed = end - start > opening and self.text[end - 1] == quote
        return min(start + opening, end), end - 1 if closed else end

    def _double_quoted(self, word: _Word, node: Node, start: int, end: int) -> None:
        inner_start, inner_end = self._inside(start, end, '"', 1)
        cursor = inner_start
        for child in node.children:
            child_start, child_end = self.range(child)
            if child.type == '"' or child_start < cursor:
                continue
            word.double_quoted(cursor, child_start)
            if child.type == "string_content":
                word.double_quoted(child_start, child_end)
            else:
                word.verbatim(child_start, child_end, literal=child.type == "$")
            cursor = child_end
        word.double_quoted(cursor, max(cursor, inner_end))

    def _container(
        self, word: _Word, node: Node, start: int, end: int, stack: list[Node | tuple[int, int]]
    ) -> None:
        if node.child_count == 0:
            word.bare(start, end)
            return
        # Parts and the plain text between them, pushed so that they pop in source order.
        items: list[Node | tuple[int, int]] = []
        cursor = start
        for child in node.children:
            child_start, child_end = self.range(child)
            if child_start > cursor:
                items.append((cursor, child_start))
            items.append(child)
            cursor = max(cursor, child_end)
        if end > cursor:
            items.append((cursor, end))
        stack.extend(reversed(items))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def iter_commands(text: str, locate: Locator) -> Iterator[ShellCommand]:
    """Every simple command in ``text``, in source order, with positions through ``locate``."""
    data = text.encode("utf-8", "surrogatepass")
    # tree-sitter-bash 0.25 can read past the end of its input (a segmentation fault) after a
    # "{" and some characters beyond U+FFFF; it parses a stand-in of the same UTF-8 length
    # instead (to bash both are word characters), so every byte offset stays the same.
    parsed = _ASTRAL.sub("\U00010000", text).encode("utf-8", "surrogatepass")
    tree = _parser().parse(parsed)
    builder = _Builder(text, _char_offsets(data, text), locate)
    cursor = tree.walk()
    while True:
        node = cursor.node
        descend = True
        if node is not None:
            if node.type in ("command", "declaration_command"):
                command = _command(builder, node)
                if command is not None:
                    yield command
            elif node.type in _OPAQUE:
                descend = False
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def parse_words(text: str, locate: Locator | None = None) -> list[ShellCommand]:
    """All commands of ``text``; positions default to the text's own lines."""
    return list(iter_commands(text, locate or line_locator(text)))


def _command(builder: _Builder, node: Node) -> ShellCommand | None:
    env: dict[str, Token] = {}
    names: dict[str, Span] = {}
    arguments: list[Node] = []
    seen_name = node.type == "declaration_command"
    for index, child in enumerate(node.children):
        field = node.field_name_for_child(index)
        if field == "name":
            seen_name = True
            arguments.append(child)
        elif not seen_name and child.type == "variable_assignment":
            name, value = _assignment(builder, child)
            env[name] = value
            first = builder.range(child)[0]
            names[name] = Span(builder.locate(first), builder.locate(first + len(name)))
        elif seen_name and (field == "argument" or node.type == "declaration_command"):
            if child.type not in _REDIRECTS and child.type != "comment":
                arguments.append(child)
    stray, end_byte = _stray_arguments(node)
    words = builder.words(arguments + stray)
    if not words:
        return None
    start = builder.char_at(node.start_byte)
    end = builder.char_at(end_byte)
    span = Span(builder.locate(start), builder.locate(end))
    return ShellCommand(tuple(words), env, span, names, end)


def _assignment(builder: _Builder, node: Node) -> tuple[str, Token]:
    start, end = builder.range(node)
    children = node.children
    for index, child in enumerate(children):
        if child.type in ("=", "+="):
            name = builder.text[start : builder.char_at(child.start_byte)]
            return name, builder.value(children[index + 1 :], end)
    return builder.text[start:end], builder.value((), end)


def _stray_arguments(node: Node) -> tuple[list[Node], int]:
    """Words tree-sitter-bash attaches to a trailing redirection although they are arguments.

    In ``cmd >log --port 8000`` the grammar gives the ``file_redirect`` three destinations and
    in ``cmd <<EOF x`` the heredoc redirect an argument; the shell passes those words to ``cmd``.
    Returns them with the byte where the command, redirections included, ends.
    """
    end = node.end_byte
    parent = node.parent
    if parent is None or parent.type != "redirected_statement":
        return [], end
    body = parent.child_by_field_name("body")
    if body is None or body.start_byte != node.start_byte or body.end_byte != node.end_byte:
        return [], end
    stray: list[Node] = []
    for redirect in parent.children_by_field_name("redirect"):
        if redirect.type == "heredoc_redirect":
            extra = redirect.children_by_field_name("argument")
            opening = [child for child in redirect.children if child.type == "heredoc_start"]
            end = max([end] + [child.end_byte for child in opening + extra])
        else:
            extra = redirect.children_by_field_name("destination")[1:]
            end = max(end, redirect.end_byte)
        stray.extend(extra)
    return stray, end



_BLANKS_AFTER_BACKSLASH = re.compile(r"\\[ \t]+$")
_FLAG_LINE = re.compile(r"[ \t]*(-{1,2}[A-Za-z][^\s]*)")


def line_break(text: str, end: int, locate: Locator) -> LineBreak | None:
    """The line where a command ends although the next non-blank line holds flags for it.

    The command must end its line (only blanks or a comment after it); the line ends either
    without ``\\`` or with ``\\`` followed by blanks (an escaped blank: the newline then ends the
    command).
    """
    if end < 0:
        return None
    line_start = text.rfind("\n", 0, end) + 1
    line_end = text.find("\n", end)
    if line_end == -1:
        return None
    rest = text[end:line_end].strip()
    line = text[line_start:line_end]
    blanks = _BLANKS_AFTER_BACKSLASH.search(line)
    if rest and not rest.startswith("#") and blanks is None:
        return None
    if blanks is None and line.rstrip().endswith("\\"):
        return None
    following = line_end + 1
    while following < len(text):
        next_end = text.find("\n", following)
        next_end = len(text) if next_end == -1 else next_end
        if text[following:next_end].strip():
            break
        following = next_end + 1
    flag = _FLAG_LINE.match(text, following)
    if flag is None:
        return None
    if blanks is not None:
        start, stop = line_start + blanks.start(), line_end
        span = Span(locate(start), locate(stop))
    else:
        # (After a comment the backslash would be part of it: the place is the command's end.)
        stop = end if rest else line_start + len(line.rstrip())
        at = locate(stop)
        span = Span(at, Pos(at.line, at.column + 1))
    return LineBreak(span, flag.group(1), blanks is not None)

