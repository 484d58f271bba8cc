"""Exact file positions for YAML scalars, and YAML mappings with merge keys applied.

The YAML extractors (compose, Kubernetes, vLLM config files, CI files) work on ruamel.yaml's
composed node graph rather than on loaded objects: nodes keep their start and end marks and
their scalar style, aliases are the anchored node itself, and nothing is ever constructed, so
loading is safe whatever tags the file uses.  ``scalar_positions`` then re-reads the scalar's
source to give every character of its value the position it came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeAlias, TypeGuard

from vlint.errors import Unparsable
from vlint.model import LineIndex, Pos, Token
from vlint.syntax.fastyaml import compose

if TYPE_CHECKING:
    from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

_MERGE_TAG = "tag:yaml.org,2002:merge"
_NULL_TAG = "tag:yaml.org,2002:null"
_BREAKS = "\r\n"
_BLANKS = " \t"
# Folded scalars in ruamel's round-trip mode carry this marker where a line break was folded.
_FOLD_MARK = "\x07"
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


_Emit = Callable[[str, int, int], None]


class SourceIndex:
    """Converts character offsets of a text into 1-based line and column positions.

    The text's one line table (``LineIndex.of``), shared with every other reader of the file.
    """

    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # The offset (clamped to the text) as a position: the table's own method, no wrapper.
        self.pos: Callable[[int], Pos] = LineIndex.of(text).pos


def compose_documents(text: str) -> list[Node] | None:
    """The node graph of every document in ``text``; None when it is not valid YAML."""
    try:
        return parse_documents(text)
    except Exception:  # noqa: BLE001 - parse_documents raises only Unparsable
        return None


def parse_documents(text: str) -> list[Node]:
    """The node graph of every document in ``text``; raises Unparsable with the error's place."""
    _check_flow_depth(text)
    fast = compose(text)
    if fast is not None:
        return fast
    from ruamel.yaml import YAML  # lazy: ruamel is heavy; libyaml parses most files
    from ruamel.yaml.error import MarkedYAMLError, YAMLError  # lazy: as above

    # Only nodes are needed, so the plain scanner does: the round-trip one also gathers every
    # comment, which costs a quarter of the parse.  (Same nodes, marks, styles and tags.)
    yaml = YAML(typ="safe", pure=True)
    yaml.allow_duplicate_keys = True
    try:
        return [node for node in yaml.compose_all(text) if node is not None]
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Pos(mark.line + 1, mark.column + 1) if mark is not None else Pos(1, 1)
        raise Unparsable(f"invalid YAML: {error.problem or error.context}", where) from None
    except (YAMLError, ValueError, RecursionError) as error:
        raise Unparsable(f"invalid YAML: {type(error).__name__}") from None


# ruamel's scanner takes time quadratic in the nesting of flow collections (10,000 ``[`` take
# seconds, 100,000 hours), and its composer recurses once per level.
MAX_FLOW_DEPTH = 1000


def _check_flow_depth(text: str) -> None:
    """Raise Unparsable where brackets nest deeper than ``MAX_FLOW_DEPTH``.

    The count ignores quoting, so it can only overestimate; no real file nears the limit.
    """
    if text.count("[") + text.count("{") <= MAX_FLOW_DEPTH:
        return
    depth = 0
    for match in re.finditer(r"[\[\]{}]", text):
        depth = depth + 1 if match.group() in "[{" else max(depth - 1, 0)
        if depth > MAX_FLOW_DEPTH:
            where = LineIndex.of(text).pos(match.start())
            raise Unparsable(f"invalid YAML: nested deeper than {MAX_FLOW_DEPTH} levels", where)


def is_scalar(node: object) -> TypeGuard[ScalarNode]:
    from ruamel.yaml.nodes import ScalarNode  # lazy: ruamel is heavy

    return isinstance(node, ScalarNode)


def is_null(node: Node) -> bool:
    return is_scalar(node) and str(node.tag) == _NULL_TAG


def mapping_items(node: Node) -> list[tuple[ScalarNode, Node]]:
    """The scalar-keyed entries of a mapping, merge keys applied; the last duplicate wins."""
    return list(_merged(node, 0, {}).values())


def mapping_get(node: Node, name: str) -> Node | None:
    for key, value in mapping_items(node):
        if key.value == name:
            return value
    return None


_Entries: TypeAlias = "dict[str, tuple[ScalarNode, Node]]"


def _merged(node: Node, depth: int, done: dict[int, _Entries]) -> _Entries:
    """``node``'s entries with its merge keys applied.  Each merged mapping is resolved once
    (``done``): ``<<: [*a, *a]`` at every level of a chain would otherwise double the work per
    level."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode  # lazy: ruamel is heavy

    if not isinstance(node, MappingNode) or depth > 32:
        return {}
    if id(node) in done:
        return done[id(node)]
    own: list[tuple[ScalarNode, Node]] = []
    merged: list[Node] = []
    for key, value in node.value:
        if not is_scalar(key):
            continue
        if str(key.tag) == _MERGE_TAG:
            merged.extend(value.value if isinstance(value, SequenceNode) else [value])
        else:
            own.append((key, value))
    # Explicit keys override merged ones; earlier merged mappings override later ones.
    found: _Entries = {}
    for source in reversed(merged):
        found.update(_merged(source, depth + 1, done))
    for key, value in own:
        found[str(key.value)] = (key, value)
    done[id(node)] = found
    return found


def sequence_items(node: Node) -> list[Node]:
    from ruamel.yaml.nodes import SequenceNode  # lazy: ruamel is heavy

    return list(node.value) if isinstance(node, SequenceNode) else []


def mappings_in(node: Node | None) -> list[MappingNode]:
    """The entries of a sequence that are mappings (a list of ports, of mounts); none for a
    missing node or one that is not a sequence."""
    if node is None:
        return []
    return [item for item in map(mapping_node, sequence_items(node)) if item is not None]


def mapping_node(node: Node | None) -> MappingNode | None:
    from ruamel.yaml.nodes import MappingNode  # lazy: ruamel is heavy

    return node if isinstance(node, MappingNode) else None


class _Char(NamedTuple):
    char: str
    at: int
    width: int


def scalar_value(node: ScalarNode) -> str:
    """The scalar's value as YAML defines it (without ruamel's round-trip fold markers)."""
    value = str(node.value)
    return value.replace(_FOLD_MARK, "") if node.style == ">" else value


def scalar_positions(source: SourceIndex, node: ScalarNode) -> tuple[Pos, ...]:
    """The file position of every character of the scalar's value, plus one for its end.

    Exact for plain, quoted and block scalars, folding and escapes included; when the source
    cannot be matched to the value (an unusual construct), characters are aligned greedily.
    """
    return tuple(source.pos(offset) for offset in scalar_offsets(source, node))


def scalar_token(source: SourceIndex, node: ScalarNode, literal: bool = True) -> Token:
    """The scalar's value as a token positioned by offsets (no ``Pos`` made until asked); its
    end is its last character's (before a closing quote), even when that is an escape."""
    return Token.at(
        scalar_value(node), scalar_offsets(source, node), source.pos, literal, exact_end=True
    )


def scalar_offsets(source: SourceIndex, node: ScalarNode) -> list[int]:
    """The offset in the text of every character of the scalar's value, plus one for its end."""
    value = scalar_value(node)
    start, end = node.start_mark.index, node.end_mark.index
    for chars in _scan(source.text, start, end, node.style):
        if "".join(char.char for char in chars) != value:
            continue
        offsets = [char.at for char in chars]
        if chars:
            offsets.append(chars[-1].at + chars[-1].width)
        else:
            offsets.append(_content_start(source.text, start, node.style))
        return offsets
    return _align(source.text, start, end, value)


def _content_start(text: str, start: int, style: str | None) -> int:
    return start + 1 if style in ('"', "'") and start < len(text) else start


def _align(text: str, start: int, end: int, value: str) -> list[int]:
    """Greedy best-effort alignment of ``value``'s characters with ``text[start:end]``."""
    offsets: list[int] = []
    cursor = start
    for char in value:
        found = text.find(char, cursor, end)
        if found >= 0 and found - cursor <= 16:
            offsets.append(found)
            cursor = found + 1
        else:
            offsets.append(min(cursor, max(start, end - 1)))
    offsets.append(max(cursor, start) if value else start)
    if offsets[-1] > end:
        offsets[-1] = end
    return offsets


def _scan(text: str, start: int, end: int, style: str | None) -> list[list[_Char]]:
    """Candidate character maps of the scalar's source (block indentation can be ambiguous)."""
    try:
        if style in ("|", ">"):
            return _block(text, start, end, style)
        if style in ('"', "'"):
            return [_flow(text, start + 1, end - 1, style)]
        return [_flow(text, start, end, None)]
    except (IndexError, ValueError):
        return []


def _skip_break(text: str, index: int) -> int:
    if text.startswith("\r\n", index):
        return index + 2
    return index + 1


def _flow(text: str, index: int, end: int, style: str | None) -> list[_Char]:
    out: list[_Char] = []
    trimmable: list[bool] = []

    def emit(char: str, at: int, width: int, raw_blank: bool = False) -> None:
        out.append(_Char(char, at, width))
        trimmable.append(raw_blank)

    while index < end:
        char = text[index]
        if char in _BREAKS:
            while out and trimmable[-1]:
                out.pop()
                trimmable.pop()
            at = index
            index, blank_lines = _fold_breaks(text, index, end)
            if blank_lines:
                for _ in range(blank_lines):
                    emit("\n", at, 1)
            else:
                emit(" ", at, 1)
        elif style == '"' and char == "\\":
            index = _escape(text, index, end, emit)
        elif style == "'" and char == "'" and text.startswith("''", index):
            emit("'", index, 2)
            index += 2
        else:
            emit(char, index, 1, char in _BLANKS)
            index += 1
    return out


def _fold_breaks(text: str, index: int, end: int) -> tuple[int, int]:
    """Skip a line break and the blank lines after it; return the next index and their count."""
    index = _skip_break(text, index)
    blank_lines = 0
    while True:
        probe = index
        while probe < end and text[probe] in _BLANKS:
            probe += 1
        if probe < end and text[probe] in _BREAKS:
            blank_lines += 1
            index = _skip_break(text, probe)
            continue
        return probe, blank_lines


def _escape(text: str, index: int, end: int, emit: _Emit) -> int:
    code = text[index + 1]
    if code in _BREAKS:
        at = index
        index, blank_lines = _fold_breaks(text, index + 1, end)
        for _ in range(blank_lines):
            emit("\n", at, 1)
        return index
    if code in _ESCAPES:
        emit(_ESCAPES[code], index, 2)
        return index + 2
    if code in _HEX_ESCAPES:
        width = 2 + _HEX_ESCAPES[code]
        emit(chr(int(text[index + 2 : index + width], 16)), index, width)
        return index + width
    raise ValueError(f"unknown escape \\{code}")


class _Line(NamedTuple):
    start: int
    text: str
    brk: int


def _block(text: str, start: int, end: int, style: str) -> list[list[_Char]]:
    index = start + 1
    chomp = ""
    explicit = 0
    while index < len(text) and text[index] in "+-0123456789":
        if text[index] in "+-":
            chomp = text[index]
        else:
            explicit = int(text[index])
        index += 1
    line_end = text.find("\n", index)
    if line_end < 0:
        return [[]]
    lines = _block_lines(text, line_end + 1, end)
    header_line = text.rfind("\n", 0, start) + 1
    header_indent = len(text[header_line:start]) - len(text[header_line:start].lstrip(" "))
    candidates = [_detect_indent(lines)]
    if explicit:
        candidates.insert(0, header_indent + explicit)
    return [_block_body(lines, indent, style, chomp) for indent in candidates]


def _block_lines(text: str, index: int, end: int) -> list[_Line]:
    lines: list[_Line] = []
    while index < end and index < len(text):
        brk = text.find("\n", index)
        if brk < 0:
            brk = len(text)
        content_end = brk - 1 if brk > index and text[brk - 1] == "\r" else brk
        lines.append(_Line(index, text[index:content_end], content_end))
        index = brk + 1
    return lines


def _detect_indent(lines: list[_Line]) -> int:
    for line in lines:
        if line.text.strip(" "):
            return len(line.text) - len(line.text.lstrip(" "))
    return max((len(line.text) for line in lines), default=0)


def _block_body(lines: list[_Line], indent: int, style: str, chomp: str) -> list[_Char]:
    out: list[_Char] = []
    previous: str | None = None  # "normal" or "more" for the last text line
    pending: list[int] = []  # line breaks since the last text line
    for line in lines:
        leading = len(line.text) - len(line.text.lstrip(" "))
        if not line.text.strip(" \t") and (style == ">" or len(line.text) <= indent):
            pending.append(line.brk)
            continue
        if leading < indent:
            break
        body = line.text[indent:]
        kind = "more" if body[:1] in (" ", "\t") else "normal"
        if previous is not None:
            breaks = pending
            if style == ">" and previous == "normal" and kind == "normal":
                breaks = pending[:-1]
                if len(pending) == 1:
                    out.append(_Char(" ", pending[0], 1))
            out.extend(_Char("\n", brk, 1) for brk in breaks)
        else:
            out.extend(_Char("\n", brk, 1) for brk in pending)
        out.extend(_Char(char, line.start + indent + k, 1) for k, char in enumerate(body))
        pending = [line.brk]
        previous = kind
    if previous is None:
        return [] if chomp != "+" else [_Char("\n", brk, 1) for brk in pending]
    if chomp == "+":
        out.extend(_Char("\n", brk, 1) for brk in pending)
    elif chomp == "":
        out.append(_Char("\n", pending[0], 1))
    return out
