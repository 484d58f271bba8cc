"""Here-documents of a shell text: what the command reads, every character at its offset.

A parser that knows nothing of vLLM or of what the body holds: ``vlint.extract.heredocs``
decides which bodies are manifests.  The ``<<`` operators are found by tree-sitter-bash (so a
``<<`` inside quotes, a comment or ``$((1 << 2))`` is not one); the body is then read as bash
reads it (the bash manual, "Here Documents", https://www.gnu.org/software/bash/manual/
bash.html#Here-Documents):

- ``<<-`` strips the leading tabs of every body line (and of the delimiter line);
- a delimiter word with any quoting (``'EOF'``, ``"EOF"``, ``\\EOF``) leaves the body as
  written;
- an unquoted delimiter subjects the body to parameter expansion, command substitution and
  arithmetic expansion: ``\\<newline>`` is removed, ``\\$``, ``\\``` and ``\\\\`` are the
  character after the backslash, and each ``$NAME``, ``${...}``, ``$(...)``, ``$((...))`` and
  ```...``` is an expansion whose value is not known here: it stays as written and is listed
  in ``Heredoc.expanded``.

The work is bounded: at most ``MAX_HEREDOCS`` bodies per text, each read in one pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["MAX_HEREDOCS", "Heredoc", "heredocs"]

MAX_HEREDOCS = 256
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMETERS = frozenset("0123456789@*#?$!-")
# tree-sitter-bash 0.25 can read past the end of its input after some characters beyond
# U+FFFF (the workaround ``vlint.syntax.shell`` documents): a stand-in of the same UTF-8
# length is parsed instead, so every byte offset stays the same.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Heredoc:
    """One here-document: ``text`` is what the command reads on its standard input.

    ``redirect`` is the offset of its ``<<`` in the shell text; ``offsets[i]`` the offset in
    the shell text of ``text[i]`` (one more entry for the end); ``expanded`` the ``(start,
    end)`` ranges of ``text`` the shell replaces with values not known here.
    """

    redirect: int
    delimiter: str
    quoted: bool
    text: str
    offsets: tuple[int, ...]
    expanded: tuple[tuple[int, int], ...]


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Language, Parser  # lazy: a native parser, only for shell text
    import tree_sitter_bash  # lazy: as above

    return Parser(Language(tree_sitter_bash.language()))


def heredocs(text: str) -> list[Heredoc]:
    """Every here-document of ``text``, in source order (at most ``MAX_HEREDOCS``)."""
    if "<<" not in text:
        return []
    data = text.encode("utf-8", "surrogatepass")
    tree = _parser().parse(_ASTRAL.sub("\U00010000", text).encode("utf-8", "surrogatepass"))
    char_at = _char_offsets(data, text)
    found: list[Heredoc] = []
    cursor = tree.walk()
    while len(found) < MAX_HEREDOCS:
        node = cursor.node
        if node is not None and node.type == "heredoc_redirect":
            heredoc = _heredoc(text, node, char_at)
            if heredoc is not None:
                found.append(heredoc)
        # (A redirect can hold the rest of its line: ``cat <<A <<B``, ``cat <<EOF | cmd``.)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found
    return found


def _char_offsets(data: bytes, text: str) -> Callable[[int], int]:
    """Maps a UTF-8 byte offset of ``data`` (the encoded ``text``) to a ``str`` offset."""
    if len(data) == len(text):
        return lambda offset: offset
    table = list(accumulate((int(byte & 0xC0 != 0x80) for byte in data), initial=0))
    return table.__getitem__


def _heredoc(text: str, node: Node, char_at: Callable[[int], int]) -> Heredoc | None:
    operator = start = body = end = None
    for child in node.children:
        if child.type in ("<<", "<<-") and operator is None:
            operator = child
        elif child.type == "heredoc_start":
            start = child
        elif child.type == "heredoc_body":
            body = child
        elif child.type == "heredoc_end":
            end = child
    if operator is None or start is None:
        return None
    word = text[char_at(start.start_byte):char_at(start.end_byte)]
    quoted = any(c in word for c in "'\"\\")
    delimiter = word.replace("'", "").replace('"', "").replace("\\", "")
    if body is None:
        first = last = char_at(end.start_byte) if end is not None else len(text)
    else:
        # The body starts at the start of its line: tree-sitter's start is past ``<<-``'s tabs.
        first = text.rfind("\n", 0, char_at(body.start_byte)) + 1
        last = char_at(end.start_byte) if end is not None else len(text)
    last = text.rfind("\n", first, last) + 1 if "\n" in text[first:last] else first
    return _read(
        text, first, last, char_at(operator.start_byte), delimiter, quoted,
        strip_tabs=operator.type == "<<-",
    )


def _read(
    text: str, first: int, last: int, redirect: int, delimiter: str, quoted: bool,
    *, strip_tabs: bool,
) -> Heredoc:
    """The body written at ``text[first:last]`` (whole lines) as the command reads it."""
    chars: list[str] = []
    offsets: list[int] = []
    expanded: list[tuple[int, int]] = []
    at = first
    line_start = True
    while at < last:
        char = text[at]
        if line_start and strip_tabs and char == "\t":
            at += 1
            continue
        line_start = char == "\n"
        if not quoted and char == "\\" and at + 1 < last and text[at + 1] in "$`\\\n":
            if text[at + 1] == "\n":
                at += 2
                line_start = True  # ``<<-`` strips the tabs of every line read
                continue
            chars.append(text[at + 1])
            offsets.append(at + 1)
            at += 2
            continue
        if not quoted and char in "$`":
            end = _expansion_end(text, at, last)
            if end > at + 1:
                expanded.append((len(chars), len(chars) + end - at))
                chars.extend(text[at:end])
                offsets.extend(range(at, end))
                at = end
                continue
        chars.append(char)
        offsets.append(at)
        at += 1
    offsets.append(last)
    return Heredoc(redirect, delimiter, quoted, "".join(chars), tuple(offsets), tuple(expanded))


def _expansion_end(text: str, at: int, last: int) -> int:
    """Where the expansion that starts at ``text[at]`` (a ``$`` or a backtick) ends; ``at +
    1`` when it is a literal character.  An unclosed one runs to the end of the body."""
    if text[at] == "`":
        return _closing(text, at + 1, last, "`", "`")
    following = text[at + 1 : at + 2]
    if following == "{":
        return _closing(text, at + 2, last, "{", "}")
    if following == "(":
        return _closing(text, at + 2, last, "(", ")")
    if following in _SPECIAL_PARAMETERS and following:
        return at + 2
    name = _NAME.match(text, at + 1, last)
    return name.end() if name is not None else at + 1


def _closing(text: str, at: int, last: int, opening: str, closing: str) -> int:
    """The offset after the ``closing`` that balances an ``opening`` before ``at`` (nested
    pairs counted, backslash escapes skipped); ``last`` when there is none (bash would not
    read the text; running to the end keeps the scan linear)."""
    depth = 1
    while at < last:
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == closing:
            depth -= 1
            if depth == 0:
                return at + 1
        elif char == opening:
            depth += 1
        at += 1
    return last
