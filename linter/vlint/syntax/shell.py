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
line continuations are resolved, and ``$'...'`` escapes are decoded.  Globs, brace expansion
and ``~`` are kept as written and literal.  Unparsable input never raises: the commands
tree-sitter could recover are still yielded.

Variables assigned in the same script are expanded the way bash expands them (the bash manual,
"Shell Parameter Expansion", "Arrays", "Word Splitting"; https://www.gnu.org/software/bash/
manual/bash.html): ``CMD="vllm serve m"; CMD="$CMD --x 1"`` then ``$CMD`` (split into words),
``"$CMD"`` (one word, as ``bash -c "$CMD"`` receives it) and ``eval $CMD`` (the words joined and
read again as shell); arrays (``ARGS=(...)``, ``ARGS+=(...)``, ``"${ARGS[@]}"``,
``${ARGS[*]}``, ``${ARGS[N]}``); ``${VAR:-x}``/``${VAR-x}``/``${VAR:=x}`` of a known ``VAR``;
and ``${VAR:+words}``/``${VAR+words}``.  Each character of an expanded word keeps the position
where it was written, inside the assignment.  Only what is certain is expanded: the value is
the last literal assignment before the use in straight-line code.  After an ``if``, a
``case`` or an ``&&``/``||`` list whose every assignment to a variable appends to its value
before it (``V="$V x"``, ``V="${V} x"``, ``V+=" x"``, ``V+=(x)``), the value is the one
before followed by what each branch appended, in source order, each appended character
depending on the branch's test as written (``'[ -n "$X" ]' succeeds``, ``... fails`` for an
``else`` or after ``||``, ``'"$X"' matches 'a|b'`` for a ``case`` item; shortened to
``_MAX_CONDITION`` characters); each branch starts from the value before the construct.  Any
other assignment inside an ``if``/``case``/loop/list/pipeline/subshell makes the variable
unknown after it, one inside a loop makes it unknown in the whole loop, a function body sees
none of the script's variables (its own ``local``/``declare`` assignments it does), and a call
of a function forgets the variables any function assigns; ``read``/``unset``/``getopts``/
``mapfile``/``printf -v``/``let`` forget the variables they name, ``source`` and an ``eval``
of unknown text forget all.  An unknown variable stays as written and makes its word
non-literal (never a guess), except inside ``${VAR:+words}``: those words are kept, each token
with ``condition`` set to ``VAR`` (they are passed only when ``VAR`` is set), and except a
variable that held one literal word before a construct that may replace it, when every value
the script gives it inside any construct is one literal word (``IMAGE=a`` then ``-c)
IMAGE=b ;;`` in an option loop): after the construct it expands to the word it held, every
character unknown and with the condition ``$IMAGE keeps its earlier value``, so that its word
is not literal (no rule reads its value as written, and a finding on it says when it holds)
while a recogniser may read the script's default (``docker run $IMAGE ...``).  A token's
``condition`` is that of its first conditional character.  The work is bounded: a value
longer than ``_MAX_VALUE`` characters makes its variable unknown, a script expands (and
joins after branches) at most ``_EXPANSION_BUDGET`` characters in all, and ``eval`` nests
``_MAX_EVAL`` deep.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Callable, Union

from vlint.model import LineBreak, Locator, Pos, Span, Token, line_locator

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

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

# Bounds on the work variable expansion may do, whatever the script.
_MAX_VALUE = 16_384  # characters in one variable's value (all elements of an array)
_EXPANSION_BUDGET = 262_144  # characters copied out of variables in one script
_MAX_EVAL = 4  # ``eval`` inside ``eval`` ...
# Exported names followed into the commands after them: a script exports a few dozen at most.
MAX_EXPORTED = 128
_EVAL_COST = 256  # what reading an ``eval``'s text again costs from the budget, beyond its size
_MAX_NESTED_EXPANSION = 8  # ``${A:+${B:+...}}``
_MAX_LOOP_DEPTH = 16  # loops inside loops whose assignments are looked for
_MAX_CLOBBERED = 1_024  # names assigned by function bodies that a call forgets one by one

# The marks of a character of a word being built.
_UNKNOWN = 1  # part of an expansion vlint cannot resolve, kept as written
_SPLIT = 2  # white space from an unquoted expansion: it separates words
_BREAK = 4  # no character: the boundary between two elements of ``"${ARRAY[@]}"``
_KEEP = 8  # no character: a quoted part, which makes a word even when it is empty
_EXPANDED = 16  # copied out of a variable's value
_FLAGS = 31  # the bits above say where the character was written: a number for each word
_PLACE_SHIFT = 5
_KEPT = ~(_SPLIT | _BREAK | _KEEP | _EXPANDED)  # what a word keeps of its characters' marks
_IFS_WHITE = frozenset(" \t\n")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Statement-level places where ``NAME=value`` assigns a shell variable.
_STATEMENT_PARENTS = frozenset(
    {
        "program",
        "compound_statement",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "case_item",
        "subshell",
        "list",
        "negated_command",
        "redirected_statement",
        "pipeline",
        "variable_assignments",
    }
)
# Constructs after which a variable they assign is unknown (run conditionally, repeatedly, or in
# a subshell).
_REGIONS = frozenset(
    {
        "if_statement",
        "case_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "subshell",
        "pipeline",
        "list",
        "negated_command",
        "function_definition",
    }
)
_LOOPS = frozenset({"while_statement", "for_statement", "c_style_for_statement"})
# Regions whose branches run at most once each: a variable every assignment of which appends to
# its value before the region is known after it, the appended words marked conditional.
_BRANCHING = frozenset({"if_statement", "case_statement", "list"})
_BRANCH_STARTS = frozenset({"elif_clause", "else_clause", "case_item"})
_MAX_CONDITION = 48  # characters of a branch's test quoted in a condition
# Builtins that assign the variables named among their arguments.
_ASSIGNING = frozenset(
    {"read", "unset", "getopts", "mapfile", "readarray", "printf", "let", "wait", "declare",
     "typeset", "local"}
)
_SOURCING = frozenset({"source", "."})
_ARITHMETIC_ASSIGN = frozenset(
    {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--"}
)
# ``declare``/``local``/``typeset`` options that change what an assignment stores.
_TRANSFORMING_OPTIONS = frozenset("iAnluc")


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


@dataclass(frozen=True)
class _Field:
    """One word (or a variable's value): its characters, where each was written in the script,
    their marks (``_UNKNOWN``) and conditions, and the offset where the word ends."""

    chars: str
    offsets: tuple[int, ...]
    marks: tuple[int, ...]
    conditions: tuple[str | None, ...] | None
    end: int

    @property
    def literal(self) -> bool:
        return not any(mark & _UNKNOWN for mark in self.marks)

    @property
    def gathered(self) -> bool:
        """Whether the characters were written in more than one place."""
        return len({mark >> _PLACE_SHIFT for mark in self.marks}) > 1

    @property
    def known(self) -> bool:
        """Whether some character other than white space is known."""
        return any(
            not mark & _UNKNOWN and char not in _IFS_WHITE
            for char, mark in zip(self.chars, self.marks)
        )

    def condition(self) -> str | None:
        if self.conditions is None:
            return None
        return next((name for name in self.conditions if name is not None), None)

    def token(self, locate: Locator) -> Token:
        offsets, text, end = self.offsets, self.chars, self.end
        literal, condition, gathered = self.literal, self.condition(), self.gathered
        first = offsets[0] if offsets else end
        if end - first == len(offsets) and offsets == tuple(range(first, end)):
            return Token.located(text, first, locate, literal, condition, gathered)
        return Token.at(text, (*offsets, end), locate, literal, condition, gathered)

    def __add__(self, other: _Field) -> _Field:
        conditions = None
        if self.conditions is not None or other.conditions is not None:
            conditions = (self.conditions or (None,) * len(self.chars)) + (
                other.conditions or (None,) * len(other.chars)
            )
        return _Field(
            self.chars + other.chars,
            self.offsets + other.offsets,
            self.marks + other.marks,
            conditions,
            other.end,
        )


# A variable's value: a string, or an array's elements.
_Value = Union[_Field, tuple[_Field, ...]]


def _size(value: _Value) -> int:
    if isinstance(value, _Field):
        return len(value.chars)
    return sum(len(element.chars) for element in value)


@dataclass
class _Variables:
    """The variables known at a point of the script (a name absent from ``values`` is
    unknown), and the expansion work left."""

    values: dict[str, _Value] = field(default_factory=dict)
    budget: int = _EXPANSION_BUDGET
    ifs_assigned: bool = False
    places: int = 0

    def place(self) -> int:
        """The marks of the characters of a new word, written in a new place."""
        self.places += 1
        return self.places << _PLACE_SHIFT


@dataclass(frozen=True)
class _Origin:
    """For a text assembled from a script's words (``eval``'s arguments): where each of its
    characters (and its end) sits in the script, and their marks and conditions."""

    offsets: Sequence[int]
    marks: Sequence[int]
    conditions: Sequence[str | None] | None


class _Word:
    """Accumulates the characters of one word with the script offset and marks of each."""

    def __init__(self, text: str, origin: _Origin | None = None, place: int = 0) -> None:
        self.source = text
        self.origin = origin
        self.place = place
        self.chars: list[str] = []
        self.offsets: list[int] = []
        self.marks: list[int] = []
        self.conditions: list[str | None] | None = None
        # Inside the words of an unquoted ``${VAR:+...}``: white space separates words, and
        # each character depends on ``condition``.
        self.split_blanks = False
        self.condition: str | None = None
        self.extra = 0  # marks every character gets (``_EXPANDED`` inside ``${VAR:+...}``)

    def emit(self, char: str, offset: int, mark: int = 0) -> None:
        mark |= self.extra
        origin = self.origin
        if origin is None:
            mark |= self.place
            if self.condition is None and self.conditions is None:
                self.chars.append(char)
                self.offsets.append(offset)
                self.marks.append(mark)
                return
        condition = None
        if origin is not None:
            mark |= origin.marks[offset] if offset < len(origin.marks) else 0
            if origin.conditions is not None and offset < len(origin.conditions):
                condition = origin.conditions[offset]
            offset = origin.offsets[offset]
        self.put(char, offset, mark, condition)

    def put(self, char: str, offset: int, mark: int, condition: str | None = None) -> None:
        condition = condition or self.condition
        if condition is not None and self.conditions is None:
            self.conditions = [None] * len(self.chars)
        self.chars.append(char)
        self.offsets.append(offset)
        self.marks.append(mark)
        if self.conditions is not None:
            self.conditions.append(condition)

    def mark(self, mark: int, offset: int) -> None:
        """A sentinel (``_BREAK`` or ``_KEEP``) at a text offset."""
        origin = self.origin
        self.put("", origin.offsets[offset] if origin is not None else offset, mark)

    def verbatim(self, start: int, end: int, literal: bool = True) -> None:
        mark = 0 if literal else _UNKNOWN
        for offset in range(start, end):
            self.emit(self.source[offset], offset, mark)

    def bare(self, start: int, end: int) -> None:
        self._backslashed(start, end, None)

    def double_quoted(self, start: int, end: int) -> None:
        self._backslashed(start, end, _DOUBLE_QUOTE_ESCAPES)

    def _backslashed(self, start: int, end: int, escapable: frozenset[str] | None) -> None:
        source, offset = self.source, start
        split = self.split_blanks and escapable is None
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
            self.emit(char, offset, _SPLIT if split and char in _IFS_WHITE else 0)
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

    def fields(self, end: int, split: bool = True) -> list[_Field]:
        """The words this one becomes after word splitting (``split``), or the one value of an
        assignment (where elements of ``"${A[@]}"`` are joined by a space and nothing splits).
        ``end`` is the script offset where the written word ends."""
        chars, offsets, marks, conditions = self.chars, self.offsets, self.marks, self.conditions
        combined = 0
        for mark in marks:
            combined |= mark
        if not combined & _FLAGS and conditions is None:
            if split and not chars:  # expansions that made nothing make no word
                return []
            return [_Field("".join(chars), tuple(offsets), tuple(marks), None, end)]
        if combined & _FLAGS == _KEEP and conditions is None:
            # Quoted, nothing expanded: one word, without the sentinels.
            kept = [index for index, mark in enumerate(marks) if not mark & _KEEP]
            return [
                _Field(
                    "".join(chars),
                    tuple(offsets[index] for index in kept),
                    tuple(marks[index] for index in kept),
                    None,
                    end,
                )
            ]
        found: list[_Field] = []
        collected: list[int] = []
        present = False  # a quoted part: the word exists even if it is empty
        anchor = end

        def close(final: bool) -> None:
            if collected:
                last = collected[-1]
                expanded = marks[last] & _EXPANDED
                finish = end if final and not expanded else offsets[last] + 1
            else:
                finish = end if final else anchor
            found.append(
                _Field(
                    "".join(chars[index] for index in collected),
                    tuple(offsets[index] for index in collected),
                    tuple(marks[index] & _KEPT for index in collected),
                    None
                    if conditions is None
                    else tuple(conditions[index] for index in collected),
                    finish,
                )
            )

        for index, mark in enumerate(marks):
            if mark & _KEEP:
                if not present and not collected:
                    anchor = offsets[index]
                present = True
            elif mark & _BREAK and not split:  # an assignment joins elements with a space
                chars[index] = " "
                collected.append(index)
            elif mark & _BREAK or (split and mark & _SPLIT):
                if present or collected:
                    close(False)
                collected, present = [], False
            else:
                collected.append(index)
        if present or collected or not split:
            close(True)
        return found


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


@dataclass(frozen=True)
class _Reference:
    """What a ``$NAME`` / ``${NAME[INDEX]OPERATOR WORD}`` expansion asks for."""

    name: str
    index: str | int | None  # "@", "*", a number, or None for the plain name
    operator: str | None
    words: tuple[Node, ...]  # the nodes of WORD, after the operator


_OPERATORS = frozenset({":+", "+", ":-", "-", ":=", "="})


def _reference(node: Node) -> _Reference | None:
    """The variable an expansion reads, or None for one vlint does not expand."""
    children = node.children
    if node.type == "simple_expansion":
        if len(children) == 2 and children[1].type == "variable_name":
            return _Reference(_node_text(children[1]), None, None, ())
        return None
    if len(children) < 3 or children[0].type != "${" or children[-1].type != "}":
        return None
    target = children[1]
    index: str | int | None = None
    if target.type == "subscript":
        name_node = target.child_by_field_name("name")
        index_node = target.child_by_field_name("index")
        if name_node is None or index_node is None:
            return None
        written = _node_text(index_node)
        if written in ("@", "*"):
            index = written
        elif written.isdigit() and len(written) < 8:
            index = int(written)
        else:
            return None
        name = _node_text(name_node)
    elif target.type == "variable_name":
        name = _node_text(target)
    else:
        return None
    if len(children) == 3:
        return _Reference(name, index, None, ())
    operator = children[2].type
    if operator not in _OPERATORS or node.field_name_for_child(2) != "operator":
        return None
    return _Reference(name, index, operator, tuple(children[3:-1]))


def _node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _selected(value: _Value, index: str | int | None) -> tuple[tuple[_Field, ...], bool]:
    """The elements an expansion reads, and whether they stay separate words (``[@]``)."""
    if isinstance(value, _Field):
        return ((value,) if index in (None, 0, "@", "*") else ()), False
    if index == "@":
        return value, True
    if index == "*":
        return value, False
    position = 0 if index is None else index
    assert isinstance(position, int)
    return ((value[position],) if position < len(value) else ()), False


class _Builder:
    """Turns tree-sitter nodes into words for one parsed text, expanding known variables."""

    def __init__(
        self,
        text: str,
        char_at: Callable[[int], int],
        locate: Locator,
        variables: _Variables,
        origin: _Origin | None = None,
    ) -> None:
        self.text = text
        self.char_at = char_at
        self.locate = locate
        self.variables = variables
        self.origin = origin
        self.nesting = 0

    def range(self, node: Node) -> tuple[int, int]:
        return self.char_at(node.start_byte), self.char_at(node.end_byte)

    def out(self, offset: int) -> int:
        """The script offset of an offset in this text."""
        return self.origin.offsets[offset] if self.origin is not None else offset

    def out_end(self, offset: int) -> int:
        """The script offset just after the character before ``offset`` of this text (where a
        word that ends there ends: the next character may come from elsewhere)."""
        if self.origin is None or offset == 0:
            return self.out(offset)
        offsets = self.origin.offsets
        before, after = offsets[offset - 1], offsets[offset]
        # Within a few characters (a closing quote, an escape): the same place.
        return after if before < after <= before + 3 else before + 1

    def fields(self, nodes: Sequence[Node]) -> list[_Field]:
        """The words of argument nodes in source order, joining those split by continuations."""
        found: list[_Field] = []
        group: list[Node] = []
        previous_end = -1
        for node in nodes:
            start, end = self.range(node)
            if group and not _CONTINUATIONS.fullmatch(self.text, previous_end, start):
                found.extend(self.word(group))
                group = []
            group.append(node)
            previous_end = end
        if group:
            found.extend(self.word(group))
        return found

    def words(self, nodes: Sequence[Node]) -> list[Token]:
        return [found.token(self.locate) for found in self.fields(nodes)]

    def word(self, nodes: Sequence[Node]) -> list[_Field]:
        word = _Word(self.text, self.origin, self.variables.place())
        for index, node in enumerate(nodes):
            is_last = index + 1 == len(nodes)
            # ``$"..."`` (a translated string) comes as a lone ``$`` node followed by the string.
            if node.type == "$" and not is_last and nodes[index + 1].type == "string":
                continue
            self.add(word, node)
        return word.fields(self.out_end(self.range(nodes[-1])[1]))

    def value(self, nodes: Sequence[Node], end: int) -> _Field:
        """An assignment's value: expanded, never split."""
        word = _Word(self.text, self.origin, self.variables.place())
        for node in nodes:
            self.add(word, node)
        return word.fields(self.out_end(end), split=False)[0]

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
                self.expand(word, node, start, end, quoted=False)
            elif kind == "raw_string":
                word.mark(_KEEP, start)
                word.verbatim(*self._inside(start, end, "'", 1))
            elif kind == "ansi_c_string":
                word.mark(_KEEP, start)
                word.ansi_c(*self._inside(start, end, "'", 2))
            elif kind == "string":
                self._double_quoted(word, node, start, end)
            elif kind in _CONTAINERS:
                self._container(word, node, start, end, stack)
            elif node.child_count == 0:
                word.bare(start, end)
            else:
                word.verbatim(start, end, literal=False)

    def expand(self, word: _Word, node: Node, start: int, end: int, quoted: bool) -> None:
        """A ``$NAME``/``${...}`` expansion: the variable's known value, or the text as written."""
        # tree-sitter-bash starts a ``${...}`` node at the blanks before it inside quotes.
        dollar = self.text.find("$", start, end)
        if dollar > start:
            if quoted:
                word.double_quoted(start, dollar)
            else:
                word.bare(start, dollar)
            start = dollar
        reference = _reference(node) if node.type in ("simple_expansion", "expansion") else None
        origin = self.origin
        if (
            reference is None
            or (origin is not None and origin.marks[start] & _UNKNOWN)
            or (self.variables.ifs_assigned and not quoted)
            or self.nesting >= _MAX_NESTED_EXPANSION
        ):
            word.verbatim(start, end, literal=False)
            return
        value = self.variables.values.get(reference.name)
        operator = reference.operator
        if operator is None:
            if value is None or not self._copy(word, value, reference.index, quoted):
                word.verbatim(start, end, literal=False)
            return
        if operator in (":+", "+"):
            if value is None:
                self._alternative(word, reference, start, quoted, reference.name)
            elif operator == "+" or _size(value):
                self._alternative(word, reference, start, quoted, None)
            return
        if value is None:
            word.verbatim(start, end, literal=False)
        elif operator.startswith(":") and not _size(value):
            self._alternative(word, reference, start, quoted, None)
        elif not self._copy(word, value, reference.index, quoted):
            word.verbatim(start, end, literal=False)

    def _copy(self, word: _Word, value: _Value, index: str | int | None, quoted: bool) -> bool:
        """Puts a variable's characters into ``word``; False when the budget is spent."""
        elements, separate = _selected(value, index)
        size = sum(len(element.chars) + 1 for element in elements)
        if size > self.variables.budget:
            return False
        self.variables.budget -= size
        split = 0 if quoted else _SPLIT
        for number, element in enumerate(elements):
            if number:
                if separate:
                    word.put("", element.offsets[0] if element.offsets else element.end, _BREAK)
                else:  # ``"${A[*]}"`` joins the elements with a space (the first of IFS)
                    word.put(" ", elements[number - 1].end, _EXPANDED | split)
            if separate and quoted:
                word.put("", element.offsets[0] if element.offsets else element.end, _KEEP)
            conditions = element.conditions
            for at, char in enumerate(element.chars):
                mark = element.marks[at] | _EXPANDED
                if split and char in _IFS_WHITE and not mark & _UNKNOWN:
                    mark |= _SPLIT
                condition = conditions[at] if conditions is not None else None
                word.put(char, element.offsets[at], mark, condition)
        return True

    def _alternative(
        self, word: _Word, reference: _Reference, start: int, quoted: bool, condition: str | None
    ) -> None:
        """The words of ``${NAME:+WORDS}`` (or a default), depending on ``condition``."""
        nodes = reference.words
        if not nodes:
            return
        saved = word.split_blanks, word.condition, word.extra
        word.split_blanks = not quoted
        word.condition = condition or word.condition
        word.extra = _EXPANDED
        self.nesting += 1
        try:
            cursor = self.range(nodes[0])[0]
            for node in nodes:
                node_start, node_end = self.range(node)
                if node_start > cursor:
                    word.bare(cursor, node_start)
                if quoted and node.type == "word":
                    word.double_quoted(node_start, node_end)
                else:
                    self.add(word, node)
                cursor = max(cursor, node_end)
        finally:
            self.nesting -= 1
            word.split_blanks, word.condition, word.extra = saved

    def _inside(self, start: int, end: int, quote: str, opening: int) -> tuple[int, int]:
        closed = end - start > opening and self.text[end - 1] == quote
        return min(start + opening, end), end - 1 if closed else end

    def _double_quoted(self, word: _Word, node: Node, start: int, end: int) -> None:
        inner_start, inner_end = self._inside(start, end, '"', 1)
        parts = [child for child in node.children if child.type != '"']
        # ``"${A[@]}"`` alone makes no word for an empty array (as ``"$@"``).
        if not (len(parts) == 1 and _is_all_elements(parts[0])):
            word.mark(_KEEP, start)
        cursor = inner_start
        for child in node.children:
            child_start, child_end = self.range(child)
            if child.type == '"' or child_start < cursor:
                continue
            word.double_quoted(cursor, child_start)
            if child.type == "string_content":
                word.double_quoted(child_start, child_end)
            elif child.type in ("simple_expansion", "expansion"):
                self.expand(word, child, child_start, child_end, quoted=True)
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


def _is_all_elements(node: Node) -> bool:
    if node.type != "expansion":
        return False
    reference = _reference(node)
    return reference is not None and reference.index == "@" and reference.operator is None


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _parse(text: str) -> tuple[Tree, Callable[[int], int]]:
    data = text.encode("utf-8", "surrogatepass")
    # tree-sitter-bash 0.25 can read past the end of its input (a segmentation fault) after a
    # "{" and some characters beyond U+FFFF; it parses a stand-in of the same UTF-8 length
    # instead (to bash both are word characters), so every byte offset stays the same.
    parsed = _ASTRAL.sub("\U00010000", text).encode("utf-8", "surrogatepass")
    return _parser().parse(parsed), _char_offsets(data, text)


def iter_commands(text: str, locate: Locator) -> Iterator[ShellCommand]:
    """Every simple command in ``text``, in source order, with positions through ``locate``."""
    tree, char_at = _parse(text)
    builder = _Builder(text, char_at, locate, _Variables())
    yield from _Walker(builder, 0).walk(tree)


def parse_words(text: str, locate: Locator | None = None) -> list[ShellCommand]:
    """All commands of ``text``; positions default to the text's own lines."""
    return list(iter_commands(text, locate or line_locator(text)))


@dataclass
class _Region:
    """A construct being walked whose assignments are forgotten when it ends, except, in an
    ``if``/``case``/``&&``/``||`` (``node`` set), those that only append: ``before`` holds
    each assigned variable's value at the region's start, ``parts`` what its branches
    appended (marked conditional), ``spoiled`` the variables assigned otherwise."""

    depth: int
    loop: bool = False
    assigned: set[str] = field(default_factory=set)
    saved: dict[str, _Value] | None = None  # a function body: the script's variables
    function: str | None = None
    node: Node | None = None
    before: dict[str, _Value | None] = field(default_factory=dict)
    parts: dict[str, list[_Value]] = field(default_factory=dict)
    spoiled: set[str] = field(default_factory=set)
    cleared: bool = False  # every variable was forgotten inside (``source``, ``eval``)


class _Walker:
    """Walks one parsed text in source order, yielding its commands and following its
    variables."""

    def __init__(self, builder: _Builder, evals: int) -> None:
        self.builder = builder
        self.variables = builder.variables
        self.evals = evals
        self.regions: list[_Region] = []
        self.bodies: list[_Region] = []  # the function bodies being walked
        self.loops = 0  # the loops being walked
        self.functions: set[str] = set()
        self.clobbered: set[str] = set()
        # The names given, inside a construct, a value other than one literal word, or
        # forgotten there (``read``, ``unset``, ...); all of them after ``source``/``eval``.
        self.varied: set[str] = set()
        self.all_varied = False
        # The nodes from the root to the current one (``Node.parent`` costs the depth).
        self.path: list[Node | None] = []
        # The variables ``export`` put in the environment of the commands after it, with
        # where each name is written (the first ``MAX_EXPORTED``), and each one's token for the
        # value it had when last asked (a command reuses it while the value is the same object).
        self.exported: dict[str, Span] = {}
        self.export_tokens: dict[str, tuple[object, Token]] = {}
        # Bumped whenever a variable may change: the exported environment is built again only
        # then (``environment``), not for every command.
        self.generation = 0
        self.export_env: tuple[int, dict[str, Token], dict[str, Span]] | None = None

    def walk(self, tree: Tree) -> Iterator[ShellCommand]:
        cursor = tree.walk()
        depth = 0
        path = self.path
        while True:
            node = cursor.node
            del path[depth:]
            path.append(node)
            descend = True
            if node is not None:
                kind = node.type
                parent = path[depth - 1] if depth else None
                if kind in ("command", "declaration_command"):
                    yield from self.command(node, parent)
                elif kind == "variable_assignment":
                    parent_kind = parent.type if parent is not None else "program"
                    if parent_kind in _STATEMENT_PARENTS:
                        self.assign(node)
                        descend = False
                    elif parent_kind not in ("command", "declaration_command"):
                        self.forget(_assigned_name(node))  # arithmetic: ``for ((i=0; ...))``
                elif kind in _OPAQUE:
                    descend = False
                elif kind in _REGIONS:
                    self.enter(node, depth)
                elif kind in _BRANCH_STARTS:
                    self.branch(depth)
                elif kind == "unset_command":  # (not a ``command`` in tree-sitter-bash)
                    for name in _unset_names(node):
                        self.forget(name)
                elif kind in ("binary_expression", "postfix_expression", "unary_expression"):
                    self.arithmetic(node)
            if descend and cursor.goto_first_child():
                depth += 1
                continue
            while True:
                self.leave(depth)
                if cursor.goto_next_sibling():
                    break
                if not cursor.goto_parent():
                    return
                depth -= 1

    # Control flow.

    def enter(self, node: Node, depth: int) -> None:
        region = _Region(depth, loop=node.type in _LOOPS)
        if node.type in _BRANCHING:
            region.node = node
        values = self.variables.values
        self.regions.append(region)
        if node.type == "function_definition":
            function = node.child_by_field_name("name")
            region.function = _node_text(function) if function is not None else ""
            region.saved = values
            self.variables.values = {}
            self.generation += 1
            self.bodies.append(region)
        elif node.type in _LOOPS:
            self.loops += 1
            if self.loops > _MAX_LOOP_DEPTH:
                self.clear()
            else:
                names, everything = self.assigned_within(node)
                if everything:
                    self.clear()
                for name in names:
                    self.forget(name, varied=False)

    def leave(self, depth: int) -> None:
        regions = self.regions
        while regions and regions[-1].depth >= depth:
            region = regions.pop()
            if region.saved is not None or region.assigned:
                self.generation += 1
            self.loops -= region.loop
            if region.saved is not None:
                self.bodies.pop()
                # A function body runs when it is called: a call forgets what it assigns.
                self.variables.values = region.saved
                if region.function:
                    self.functions.add(region.function)
                self.clobbered |= region.assigned
                if len(self.clobbered) > _MAX_CLOBBERED:
                    self.clobbered.clear()
                    self.clear()
                continue
            values = self.variables.values
            parent = regions[-1] if regions else None
            for name in region.assigned:
                after = self.after_region(region, name)
                if parent is not None:
                    parent.before.setdefault(name, region.before.get(name))
                    parent.assigned.add(name)
                if after is None:
                    uncertain = self.uncertain(region, name)
                    if uncertain is None:
                        values.pop(name, None)
                    else:
                        values[name] = uncertain
                    if parent is not None:
                        parent.spoiled.add(name)
                    continue
                values[name] = after
                if parent is not None:
                    # (``after`` extends the value before the region by construction.)
                    self.appended(parent, name, after, region.before.get(name), True)
            if parent is not None and region.cleared:
                parent.cleared = True
            if self.bodies:
                # A function body's assignments are forgotten after any call of a function.
                self.bodies[-1].assigned |= region.assigned

    def branch(self, depth: int) -> None:
        """An ``elif``/``else``/``case`` item starts: it sees the values before the region."""
        if not self.regions or self.regions[-1].depth != depth - 1:
            return
        region = self.regions[-1]
        if region.node is None:
            return
        values = self.variables.values
        if region.before:
            self.generation += 1
        for name, value in region.before.items():
            if value is None:
                values.pop(name, None)
            else:
                values[name] = value

    def after_region(self, region: _Region, name: str) -> _Value | None:
        """A variable's value after a region that assigned it: its value before followed by
        what the branches appended, or None (unknown)."""
        before = region.before.get(name)
        parts = region.parts.get(name)
        if (
            region.node is None
            or region.cleared
            or before is None
            or not parts
            or name in region.spoiled
        ):
            return None
        value = before
        size = _size(before) + sum(_size(part) for part in parts)
        if size > _MAX_VALUE or size > self.variables.budget:
            return None
        self.variables.budget -= size
        for part in parts:
            if isinstance(value, _Field) and isinstance(part, _Field):
                value = value + part
            elif isinstance(value, tuple) and isinstance(part, tuple):
                value = value + part
            else:
                return None
        return value

    def uncertain(self, region: _Region, name: str) -> _Field | None:
        """A variable's value after a region that may have replaced it, when it held one
        literal word before and the script gave it only literal words (``IMAGE=a`` then
        ``-c) IMAGE=b ;;`` in an option loop): its value before, every character unknown and
        conditional (``$IMAGE keeps its earlier value``).  The word is not literal (any rule
        needing the value stays silent; one that reads a flag's name says when it is passed),
        but a recogniser may read what the script writes by default (``docker run $IMAGE
        ...`` of a vLLM image); None where the variable is unknown."""
        before = region.before.get(name)
        if (
            self.all_varied
            or region.cleared
            or name in self.varied
            or not isinstance(before, _Field)
            or len(before.chars) > self.variables.budget
        ):
            return None
        # Charged as an expansion: nested constructs each make the value again.
        self.variables.budget -= len(before.chars)
        if not _one_literal_word(before):
            return None
        condition = _shortened(f"${name} keeps its earlier value")
        return replace(
            before,
            marks=tuple(mark | _UNKNOWN for mark in before.marks),
            conditions=(condition,) * len(before.chars),
        )

    def appended(
        self, region: _Region, name: str, value: _Value, old: _Value | None, appending: bool
    ) -> None:
        """Notes in ``region`` what an assignment of ``value`` (``old`` before it; with
        ``+=`` when ``appending``) appended, or that it did not only append."""
        if region.node is None:
            return
        part = _appended_part(old, value, appending)
        condition = self.branch_condition(region)
        if part is None or condition is None:
            region.spoiled.add(name)
            return
        region.parts.setdefault(name, []).append(_conditional(part, condition))

    def branch_condition(self, region: _Region) -> str | None:
        """What must hold for the statement being walked inside ``region`` to run: the test
        of its branch as written (shortened); "" where it always runs (the first operand of
        ``&&``); None where vlint does not say (an ``if``'s test)."""
        node, path = region.node, self.path
        if node is None or len(path) <= region.depth + 1:
            return None
        child = path[region.depth + 1]
        inner = path[region.depth + 2] if len(path) > region.depth + 2 else None
        if child is None:
            return None
        text = self.builder.text
        if node.type == "list":
            operator = node.children[1] if node.child_count == 3 else None
            if operator is None or operator.type not in ("&&", "||"):
                return None
            if child.start_byte < operator.start_byte:
                return ""
            outcome = "succeeds" if operator.type == "&&" else "fails"
            return f"{_quoted_test(text, self.builder, node.children[0])} {outcome}"
        if node.type == "if_statement":
            if child.type in ("elif_clause", "else_clause"):
                if child.type == "else_clause":
                    test = _branch_test(text, self.builder, node)
                    return None if test is None else f"{test} fails"
                if inner is None or not _in_body(child, inner):
                    return None
                test = _branch_test(text, self.builder, child)
                return None if test is None else f"{test} succeeds"
            if not _in_body(node, child):
                return None
            test = _branch_test(text, self.builder, node)
            return None if test is None else f"{test} succeeds"
        if node.type == "case_statement" and child.type == "case_item" and inner is not None:
            value = node.child_by_field_name("value")
            close = next((c for c in child.children if c.type == ")"), None)
            if value is None or close is None or inner.start_byte < close.end_byte:
                return None
            patterns = _shortened(text[self.builder.range(child)[0]:
                                       self.builder.range(close)[0]].lstrip("( \t"))
            return f"{_quoted_test(text, self.builder, value)} matches '{patterns}'"
        return None

    def assigned_within(self, node: Node) -> tuple[set[str], bool]:
        """The names a loop may assign (it runs again, so they are unknown in the whole loop),
        and whether it may assign any (``source``, ``eval``, a call of a function)."""
        names: set[str] = set()
        everything = False
        cursor = node.walk()
        while True:
            current = cursor.node
            descend = True
            if current is not None:
                kind = current.type
                if kind == "variable_assignment":
                    names.add(_assigned_name(current))
                    descend = False
                elif kind == "declaration_command":
                    names.update(
                        _node_text(child)
                        for child in current.children
                        if child.type in ("word", "variable_name")
                    )
                elif kind == "for_statement":
                    variable = current.child_by_field_name("variable")
                    if variable is not None:
                        names.add(_node_text(variable))
                elif kind == "command":
                    command_name = current.child_by_field_name("name")
                    program = _node_text(command_name) if command_name is not None else ""
                    if program in _SOURCING or program == "eval" or program in self.functions:
                        everything = True
                    elif program in _ASSIGNING:
                        names.update(
                            _node_text(argument)
                            for argument in current.children_by_field_name("argument")
                        )
                elif kind in ("binary_expression", "postfix_expression", "unary_expression"):
                    names.update(_arithmetic_names(current))
                elif kind == "unset_command":
                    names.update(_unset_names(current))
                elif kind in ("heredoc_body", "comment"):
                    descend = False
            if descend and cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return names, everything

    # Variables.

    def set(self, name: str, value: _Value, appending: bool = False) -> None:
        self.generation += 1
        old = self.touch(name)
        self.variables.values[name] = value
        if self.regions and not (isinstance(value, _Field) and _one_literal_word(value)):
            self.varied.add(name)
        self.note(name)
        if self.regions:
            self.appended(self.regions[-1], name, value, old, appending)

    def forget(self, name: str, varied: bool = True) -> None:
        """``name`` is unknown from here; ``varied`` false for a loop's names, forgotten
        before the loop runs (their values in it are still the script's own)."""
        self.generation += 1
        self.touch(name)
        self.variables.values.pop(name, None)
        self.note(name)
        if varied:
            self.varied.add(name)
        if self.regions:
            self.regions[-1].spoiled.add(name)
        if name == "IFS":
            self.variables.ifs_assigned = True

    def clear(self) -> None:
        """Every variable is forgotten (``source``, an ``eval`` of unknown text)."""
        self.generation += 1
        self.variables.values.clear()
        self.all_varied = True
        for region in self.regions:
            region.cleared = True

    def touch(self, name: str) -> _Value | None:
        """A variable's value before an assignment, kept by the region on its first one."""
        old = self.variables.values.get(name)
        if self.regions:
            self.regions[-1].before.setdefault(name, old)
        return old

    def note(self, name: str) -> None:
        if self.regions:
            self.regions[-1].assigned.add(name)

    def arithmetic(self, node: Node) -> None:
        for name in _arithmetic_names(node):
            self.forget(name)

    def assign(self, node: Node, transforming: bool = False) -> None:
        """``NAME=value``, ``NAME+=value``, ``NAME=(...)``, ``NAME+=(...)``."""
        children = node.children
        name = _assigned_name(node)
        if (
            transforming
            or name == "IFS"
            or children[0].type != "variable_name"
            or len(children) < 2
            or children[1].type not in ("=", "+=")
        ):
            self.forget(name)
            return
        appending = children[1].type == "+="
        values = children[2:]
        builder = self.builder
        new: _Value
        if values and values[0].type == "array":
            elements = [
                child for child in values[0].children if child.type not in ("(", ")", "comment")
            ]
            new = tuple(builder.fields(elements))
        else:
            new = builder.value(values, builder.range(node)[1])
            if new.chars and not new.known:
                self.forget(name)  # ``CMD=$(make_cmd)``: nothing of it is known
                return
        if appending:
            old = self.variables.values.get(name)
            if old is None or isinstance(old, _Field) != isinstance(new, _Field):
                self.forget(name)
                return
            if isinstance(old, _Field) and isinstance(new, _Field):
                new = old + new
            elif isinstance(old, tuple) and isinstance(new, tuple):
                new = old + new
        if _size(new) > _MAX_VALUE:
            self.forget(name)
            return
        self.set(name, new, appending or _starts_with_itself(builder, values, name))

    # Commands.

    def command(self, node: Node, parent: Node | None) -> Iterator[ShellCommand]:
        builder = self.builder
        env: dict[str, Token] = {}
        names: dict[str, Span] = {}
        arguments: list[Node] = []
        declaration = node.type == "declaration_command"
        seen_name = declaration
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            if field_name == "name":
                seen_name = True
                arguments.append(child)
            elif not seen_name and child.type == "variable_assignment":
                name, value = _prefix_assignment(builder, child)
                env[name] = value
                first = builder.out(builder.range(child)[0])
                names[name] = Span(builder.locate(first), builder.locate(first + len(name)))
            elif seen_name and (field_name == "argument" or declaration):
                if child.type not in _REDIRECTS and child.type != "comment":
                    arguments.append(child)
        stray, end_byte = _stray_arguments(node, parent)
        fields = builder.fields(arguments + stray)
        start = builder.out(builder.char_at(node.start_byte))
        end = builder.out_end(builder.char_at(end_byte))
        if declaration:
            self.declare(node)
        if not fields:
            return
        program = fields[0].chars if fields[0].literal else None
        if program == "eval" and len(fields) > 1 and self.evals < _MAX_EVAL:
            yield from self.evaluate(fields[1:], env, names, end)
            return
        words = tuple(found.token(builder.locate) for found in fields)
        span = Span(builder.locate(start), builder.locate(end))
        if self.exported and not declaration:
            env, names = self.environment(env, names)
        yield ShellCommand(words, env, span, names, end)
        if not declaration:  # (``declare`` has assigned its variables)
            self.after(program, fields)

    def environment(
        self, env: dict[str, Token], names: dict[str, Span]
    ) -> tuple[dict[str, Token], dict[str, Span]]:
        """A command's environment: the exported variables under its own ``VAR=x`` prefix; one
        whose value is not known is there as ``$NAME``, not literal, at its name."""
        cached_env = self.export_env
        if cached_env is not None and cached_env[0] == self.generation:
            exported, at_names = cached_env[1], cached_env[2]
            if not env and not names:
                return exported, at_names  # shared: the readers copy what they keep
            return {**exported, **env}, {**at_names, **names}
        exported = {}
        for name, at in self.exported.items():
            value = self.variables.values.get(name)
            cached = self.export_tokens.get(name)
            if cached is not None and cached[0] is value:
                exported[name] = cached[1]
                continue
            if isinstance(value, _Field) and value.known:
                token = value.token(self.builder.locate)
            elif value is None or isinstance(value, _Field):
                text = f"${name}"
                token = Token(text, (at.start,) * len(text) + (at.end,), literal=False)
            else:
                continue  # an array: not an environment variable
            self.export_tokens[name] = (value, token)
            exported[name] = token
        at_names = {name: self.exported[name] for name in exported}
        self.export_env = (self.generation, exported, at_names)
        if not exported:
            return env, names
        return {**exported, **env}, {**at_names, **names}

    def declare(self, node: Node) -> None:
        keyword = node.children[0].type if node.children else ""
        if keyword == "export":
            self.export(node)
        options = "".join(
            _node_text(child)[1:]
            for child in node.children
            if child.type == "word" and _node_text(child).startswith(("-", "+"))
        )
        transforming = bool(_TRANSFORMING_OPTIONS & set(options))
        for child in node.children:
            if child.type == "variable_assignment":
                self.assign(child, transforming)
            elif child.type in ("word", "variable_name") and keyword not in ("export", "readonly"):
                written = _node_text(child)
                if _IDENTIFIER.fullmatch(written):
                    self.forget(written)

    def export(self, node: Node) -> None:
        """``export NAME[=value] ...``: each name is in the environment from here on (``export
        -n`` takes it out)."""
        self.generation += 1
        builder = self.builder
        removing = any(child.type == "word" and _node_text(child).startswith("-")
                       and "n" in _node_text(child) for child in node.children)
        for child in node.children:
            if child.type == "variable_assignment" and child.children:
                named = child.children[0]
            elif child.type in ("word", "variable_name"):
                named = child
            else:
                continue
            name = _node_text(named)
            if not _IDENTIFIER.fullmatch(name):
                continue
            if removing:
                self.exported.pop(name, None)
                continue
            if name not in self.exported and len(self.exported) >= MAX_EXPORTED:
                continue
            first = builder.out(builder.range(named)[0])
            self.exported[name] = Span(builder.locate(first), builder.locate(first + len(name)))

    def after(self, program: str | None, fields: Sequence[_Field]) -> None:
        """What a command does to the variables."""
        if program is None:
            return
        if program in _SOURCING:
            self.clear()
        elif program in _ASSIGNING:
            for argument in fields[1:]:
                named = _IDENTIFIER.match(argument.chars)  # ``read X``, ``let X=1``
                if named is not None:
                    self.forget(named.group())
        elif program in self.functions:
            for name in self.clobbered:
                self.forget(name)

    def evaluate(
        self, arguments: Sequence[_Field], env: dict[str, Token], names: dict[str, Span], end: int
    ) -> Iterator[ShellCommand]:
        """``eval ARGS``: the arguments joined by spaces, read again as shell in this script."""
        chars: list[str] = []
        offsets: list[int] = []
        marks: list[int] = []
        conditions: list[str | None] | None = None
        for number, argument in enumerate(arguments):
            if number:
                chars.append(" ")
                offsets.append(arguments[number - 1].end)
                marks.append(0)
                if conditions is not None:
                    conditions.append(None)
            if argument.conditions is not None and conditions is None:
                conditions = [None] * len(chars)
            chars.extend(argument.chars)
            offsets.extend(argument.offsets)
            marks.extend(argument.marks)
            if conditions is not None:
                conditions.extend(argument.conditions or (None,) * len(argument.chars))
        offsets.append(arguments[-1].end)
        text = "".join(chars)
        cost = len(text) + _EVAL_COST
        if cost > self.variables.budget:
            self.clear()  # not read: it may assign anything
            return
        self.variables.budget -= cost
        tree, char_at = _parse(text)
        outer = self.builder
        builder = _Builder(
            text, char_at, outer.locate, self.variables, _Origin(offsets, marks, conditions)
        )
        inner = _Walker(builder, self.evals + 1)
        inner.functions, inner.clobbered = self.functions, self.clobbered
        inner.regions = [_Region(-1)] if self.regions else []
        for command in inner.walk(tree):
            yield replace(
                command,
                env={**env, **command.env},
                env_names={**names, **command.env_names},
                end=end,
            )
        if self.regions and inner.regions:
            self.regions[-1].assigned |= inner.regions[0].assigned
            self.regions[-1].spoiled |= inner.regions[0].assigned
            self.varied |= inner.regions[0].assigned
        if any(mark & _UNKNOWN for mark in marks):
            self.clear()  # unknown text may assign anything


def _one_literal_word(value: _Field) -> bool:
    """Whether ``value`` is one known word: no unknown or conditional character, no blank."""
    return (
        bool(value.chars)
        and value.literal
        and value.condition() is None
        and not any(char in _IFS_WHITE for char in value.chars)
    )


def _starts_with_itself(builder: _Builder, values: Sequence[Node], name: str) -> bool:
    """Whether an assignment's value is written starting with the variable's own expansion
    (``ARGS="$ARGS --x"``, ``ARGS=${ARGS}" --x"``): it appends, even to an empty value."""
    if not values or values[0].type == "array":
        return False
    start, end = builder.range(values[0])
    written = builder.text[start:end].lstrip('"')
    return written.startswith((f"${name}", f"${{{name}}}")) and not (
        written.startswith(f"${name}") and written[len(name) + 1:len(name) + 2].isalnum())


def _appended_part(old: _Value | None, new: _Value, appending: bool = False) -> _Value | None:
    """What ``new`` adds after ``old`` when it starts with ``old``'s characters, written where
    ``old``'s were (``V="$V x"``, ``V+=" x"``, ``V+=(x)``), else None.  An empty ``old`` shows
    nothing of that: only ``+=`` or a value written from ``$V`` appends to it (``V=""`` then ``V="--x"`` in each branch of
    an ``if``/``elif`` replaces it, and read as appends the exclusive branches would add up)."""
    if old is None:
        return None
    if not appending and not (old.chars if isinstance(old, _Field) else old):
        return None
    if isinstance(old, _Field) and isinstance(new, _Field):
        count = len(old.chars)
        if new.chars[:count] != old.chars or new.offsets[:count] != old.offsets:
            return None
        conditions = None if new.conditions is None else new.conditions[count:]
        return _Field(
            new.chars[count:], new.offsets[count:], new.marks[count:], conditions, new.end
        )
    if isinstance(old, tuple) and isinstance(new, tuple):
        count = len(old)
        if len(new) < count or any(
            a.chars != b.chars or a.offsets != b.offsets for a, b in zip(old, new)
        ):
            return None
        return new[count:]
    return None


def _conditional(value: _Value, condition: str) -> _Value:
    """``value`` whose characters not yet conditional depend on ``condition``."""
    if not condition:
        return value
    if isinstance(value, tuple):
        return tuple(_conditional_field(element, condition) for element in value)
    return _conditional_field(value, condition)


def _conditional_field(value: _Field, condition: str) -> _Field:
    conditions = value.conditions or (None,) * len(value.chars)
    marked = tuple(condition if old is None else old for old in conditions)
    return replace(value, conditions=marked)


def _in_body(clause: Node, child: Node) -> bool:
    """Whether ``child`` of an ``if``/``elif`` sits after its ``then`` (not in its test)."""
    then = next((c for c in clause.children if c.type == "then"), None)
    return then is not None and child.start_byte >= then.end_byte


def _branch_test(text: str, builder: _Builder, clause: Node) -> str | None:
    """The test of an ``if``/``elif`` as written, quoted and shortened."""
    children = clause.children
    then = next((c for c in children if c.type == "then"), None)
    if then is None or len(children) < 2:
        return None
    start = builder.range(children[1])[0]
    end = builder.range(then)[0]
    return f"'{_shortened(text[start:end].rstrip().rstrip(';'))}'"


def _quoted_test(text: str, builder: _Builder, node: Node) -> str:
    start, end = builder.range(node)
    return f"'{_shortened(text[start:end])}'"


def _shortened(written: str) -> str:
    """A test as written on one line, at most ``_MAX_CONDITION`` characters."""
    line = " ".join(written[: _MAX_CONDITION * 4].split())
    return line if len(line) <= _MAX_CONDITION else line[: _MAX_CONDITION - 3] + "..."


def _unset_names(node: Node) -> list[str]:
    """The variables an ``unset`` names (its options aside)."""
    names = (_node_text(c) for c in node.children if c.type in ("word", "variable_name"))
    return [name for name in names if _IDENTIFIER.fullmatch(name)]


def _assigned_name(node: Node) -> str:
    target = node.children[0] if node.children else node
    if target.type == "subscript":
        name = target.child_by_field_name("name")
        return _node_text(name) if name is not None else ""
    return _node_text(target)


def _arithmetic_names(node: Node) -> list[str]:
    children = node.children
    if not any(child.type in _ARITHMETIC_ASSIGN for child in children):
        return []
    return [_node_text(child) for child in children if child.type == "variable_name"]


def _prefix_assignment(builder: _Builder, node: Node) -> tuple[str, Token]:
    """``NAME=value`` before a command: the environment of that one command."""
    start, end = builder.range(node)
    children = node.children
    for index, child in enumerate(children):
        if child.type in ("=", "+="):
            name = builder.text[start : builder.char_at(child.start_byte)]
            value = builder.value(children[index + 1 :], end)
            return name, value.token(builder.locate)
    return builder.text[start:end], builder.value((), end).token(builder.locate)


def _stray_arguments(node: Node, parent: Node | None) -> tuple[list[Node], int]:
    """Words tree-sitter-bash attaches to a trailing redirection although they are arguments.

    In ``cmd >log --port 8000`` the grammar gives the ``file_redirect`` three destinations and
    in ``cmd <<EOF x`` the heredoc redirect an argument; the shell passes those words to ``cmd``.
    Returns them with the byte where the command, redirections included, ends.
    """
    end = node.end_byte
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

