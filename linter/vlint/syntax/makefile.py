"""Makefiles: each rule's recipe as the shell text Make hands to the shell, at file offsets.

Read as GNU Make reads a makefile (the GNU Make manual, "Writing Recipes in Rules":
https://www.gnu.org/software/make/manual/html_node/Recipes.html, and ``src/read.c``):

- a rule line is ``targets : prerequisites`` (``::`` too), its ``:`` outside ``$(...)`` and
  before any ``=`` (``VAR := x`` is an assignment; ``target: VAR = x`` a target-specific
  variable, not a rule with a recipe); ``; command`` on it starts the recipe;
- recipe lines start with the recipe prefix (a tab, or ``.RECIPEPREFIX``'s first character) and
  follow a rule line; blank lines, comment lines and conditionals (``ifeq``... ``endif``) between
  them do not end the recipe, any other line does;
- a backslash-newline inside a recipe line is kept for the shell, and the recipe prefix at the
  start of the continued line is removed; outside recipes it joins lines with one space;
- the blanks and ``@``, ``-``, ``+`` prefixes at the start of a recipe line are Make's, not the
  shell's; ``$$`` reaches the shell as ``$``;
- every other ``$`` reference (``$(VAR)``, ``${VAR}``, ``$(shell ...)``, ``$@``, ``$<``) is
  expanded by Make: its characters are flagged not literal, except that ``expanded`` puts the
  value of a variable assigned once with a plain value (``IMAGE = vllm/vllm-openai``) in its
  place;
- ``define ... endef`` blocks are variable values, never recipes;
- ``export NAME = value`` puts the variable in every recipe's environment.

A rule's recipe lines become one text, one line each, so a command that ends its line before a
line of flags is seen as such.  Make runs each line in its own shell (all lines in one with
``.ONESHELL:``, where it also removes the prefixes of the inner lines: the same text).

Knows nothing of vLLM.  One pass over the lines; a ``$(`` reference is scanned once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from vlint.model import LineIndex, Locator
from vlint.syntax.lines import Chars

__all__ = ["Makefile", "Recipe", "expanded", "read", "recipes"]

_CONDITIONAL = re.compile(r"[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DEFINE = re.compile(r"[ \t]*((override|export|private)[ \t]+)*define\b")
_ENDEF = re.compile(r"[ \t]*endef\b")
_RECIPE_PREFIX_VAR = re.compile(r"[ \t]*\.RECIPEPREFIX[ \t]*[:?+!]*=[ \t]*")
_MAKE_PREFIXES = " \t@-+"
_EXPORT = re.compile(r"[ \t]*export[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(:{0,3}=|[?+!]=)[ \t]*")
_ASSIGNMENT = re.compile(
    r"[ \t]*(?:(?:override|export|private)[ \t]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*"
    r"(:{0,3}=|[?+!]=)[ \t]*"
)
# ``target: NAME := value``: a target-specific variable (the GNU Make manual, "Target-specific
# Variable Values"); ``include``/``-include``/``sinclude`` read another makefile ("Including
# Other Makefiles").
_TARGET_VARIABLE = re.compile(
    r"[^:=#]*[^:=#\s][^:=#]*:(?!=)[ \t]*(?:(?:override|export|private)[ \t]+)*"
    r"([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(?::{1,3}=|[?+!]?=)"
)
_INCLUDE = re.compile(r"[ \t]*(?:-|s)?include[ \t]")
_REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_OPENERS = {"(": ")", "{": "}"}
_MAX_EXPANSIONS = 8  # variables defined by variables, in a chain
_MAX_VALUE = 1 << 16


@dataclass(frozen=True)
class Recipe:
    """One rule's recipe: the shell text, with Make's own references flagged not literal."""

    script: Chars


@dataclass(frozen=True)
class _Line:
    start: int  # offset of the line in the text
    text: str  # without the line break (and a ``\\r`` before it)


@dataclass(frozen=True)
class Makefile:
    """The recipes, in order, and the variables ``export NAME = value`` puts in the environment
    of every recipe (name, value; the last one of a name wins, as Make reads the whole file
    before it runs a recipe)."""

    recipes: tuple[Recipe, ...]
    exports: tuple[tuple[Chars, Chars], ...]
    # The variables assigned once, outside rules, a value with no reference (``IMAGE =
    # vllm/vllm-openai``, ``TAG := v0.9.2``, ``PORT ?= 8000``) or references only to such
    # variables (``VLLM := $(VENV)/bin/vllm``, ``_referring``): what ``$(NAME)`` expands to
    # when the command line and the environment do not set it; none when the makefile
    # includes another, and none of a name some target gives its own value.
    variables: Mapping[str, Chars] = field(default_factory=dict)


def recipes(text: str, locate: Locator | None = None) -> list[Recipe]:
    """Every recipe of the makefile ``text``, in order."""
    return list(read(text, locate).recipes)


def read(text: str, locate: Locator | None = None) -> Makefile:
    """The recipes and exported variables of the makefile ``text``."""
    locate = locate or LineIndex.of(text).locate
    lines = list(_lines(text))
    found: list[Recipe] = []
    exports: list[tuple[Chars, Chars]] = []
    variables: dict[str, Chars | None] = {}
    included = False
    prefix = "\t"
    in_rule = False
    defines = 0
    current: list[tuple[str, list[int], list[bool]]] = []

    def close() -> None:
        if current:
            found.append(Recipe(_script(current, locate)))
            current.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        if defines:
            if _ENDEF.match(line.text):
                defines -= 1
            elif _DEFINE.match(line.text):
                defines += 1
            index += 1
            continue
        if in_rule and line.text.startswith(prefix):
            index = _recipe_line(lines, index, prefix, current)
            continue
        if not line.text.strip() or line.text.lstrip(" \t").startswith("#"):
            index += 1
            continue
        logical, index = _logical(lines, index)
        if _CONDITIONAL.match(logical.text):
            continue
        in_rule = False
        close()
        if _DEFINE.match(logical.text):
            defines = 1
            continue
        assigned = _assignment(logical, locate)
        if assigned is not None:
            variables[assigned[0]] = None if assigned[0] in variables else assigned[1]
        target_specific = _TARGET_VARIABLE.match(logical.text)
        if target_specific is not None:
            variables[target_specific.group(1)] = None  # another value for some targets
        if _INCLUDE.match(logical.text):
            included = True  # an included makefile may assign any variable
        exported = _export(logical, locate)
        if exported is not None:
            exports.append(exported)
            continue
        prefix_var = _RECIPE_PREFIX_VAR.match(logical.text)
        if prefix_var is not None:
            value = _uncommented(logical.text)[prefix_var.end() :]
            prefix = value[0] if value else "\t"
            continue
        if assigned is not None:
            continue
        recipe_at = _rule(logical.text)
        if recipe_at is None:
            continue
        in_rule = True
        if recipe_at >= 0:
            command = _without_prefixes(logical.text[recipe_at:], logical.offsets[recipe_at:])
            if command is not None:
                current.append(command)
    close()
    known = {} if included else _referring(
        {name: value for name, value in variables.items() if value is not None})
    return Makefile(tuple(found), tuple(exports), known)


def _assignment(logical: _Logical, locate: Locator) -> tuple[str, Chars | None] | None:
    """A variable assignment line: the name and, when it is a plain one (``=``, ``:=``,
    ``::=``, ``:::=``, ``?=``), the value, its references not literal; ``+=``/``!=`` give None
    (not known statically).  None for any other line (a
    rule, whose ``:`` comes before any ``=``)."""
    if _rule(logical.text) is not None:
        return None
    match = _ASSIGNMENT.match(logical.text)
    if match is None:
        return None
    end = len(_uncommented(logical.text).rstrip(" \t"))
    start = min(match.end(), end)
    raw = logical.text[start:end]
    if match.group(2) in ("+=", "!="):
        return match.group(1), None
    # A reference (``$(VENV)/bin/vllm``) is not literal: ``_referring`` expands it when it
    # names a variable known in turn.
    literal = [True] * len(raw)
    for reference in re.finditer(r"\$.", raw):
        literal[reference.start()] = False
    return match.group(1), Chars.at(raw, logical.offsets[start:end + 1], locate, literal)


def _referring(variables: Mapping[str, Chars]) -> dict[str, Chars]:
    """The variables whose value is known: those with no reference, and those whose every
    reference names one known in turn (``VLLM := $(VENV)/bin/vllm`` after ``VENV ?= .venv``),
    expanded, at most ``_MAX_EXPANSIONS`` deep; a value holding another ``$`` (``$(shell
    ...)``, ``$$``, a reference to a variable not known) is not known."""
    known = {name: value for name, value in variables.items() if "$" not in value.text}
    waiting = {name: value for name, value in variables.items() if name not in known}
    for _ in range(_MAX_EXPANSIONS):
        ready = {name: value for name, value in waiting.items()
                 if all((m.group(1) or m.group(2)) in known
                        for m in _REFERENCE.finditer(value.text))}
        if not ready:
            break
        for name, value in ready.items():
            del waiting[name]
            size = len(value.text) + sum(len(known[m.group(1) or m.group(2)].text)
                                         for m in _REFERENCE.finditer(value.text))
            if size > _MAX_VALUE:
                continue  # (sized before it is built: references to large values multiply)
            done = expanded(value, known)
            if "$" not in done.text:
                known[name] = done
    return known


def expanded(script: Chars, variables: Mapping[str, Chars]) -> Chars:
    """A recipe with each ``$(NAME)``/``${NAME}`` of a known variable replaced by its value,
    every character at its place in the assignment (as the shell's literal variables are);
    other references stay as they are (not literal)."""
    if not variables or "$" not in script.text:
        return script
    text: list[str] = []
    offsets: list[int] = []
    literal: list[bool] = []
    index = 0
    for match in _REFERENCE.finditer(script.text):
        name = match.group(1) or match.group(2)
        value = variables.get(name)
        if value is None or script.literal[match.start()]:
            continue
        text.append(script.text[index:match.start()])
        offsets.extend(script.offset(i) for i in range(index, match.start()))
        literal.extend(script.literal[index:match.start()])
        text.append(value.text)
        offsets.extend(value.offset(i) for i in range(len(value.text)))
        literal.extend(value.literal)
        index = match.end()
    if index == 0:
        return script
    text.append(script.text[index:])
    offsets.extend(script.offset(i) for i in range(index, len(script.text) + 1))
    literal.extend(script.literal[index:])
    return Chars.at("".join(text), offsets, script.locator, literal)


def _export(logical: _Logical, locate: Locator) -> tuple[Chars, Chars] | None:
    """``export NAME = value`` (``:=``, ``::=``, ``?=`` too): the name and the value as the
    environment gets it (``$$`` as ``$``; Make's references, and values Make appends to or
    computes, ``+=`` and ``!=``, not literal)."""
    match = _EXPORT.match(logical.text)
    if match is None:
        return None
    end = len(_uncommented(logical.text).rstrip(" \t"))
    start = min(match.end(), end)
    value, offsets, literal = _command(logical.text[start:end], logical.offsets[start : end + 1])
    if match.group(2) in ("+=", "!="):
        literal = [False] * len(literal)
    name = Chars.at(match.group(1), logical.offsets[match.start(1) : match.end(1) + 1], locate)
    return name, Chars.at(value, offsets, locate, literal)


def _lines(text: str) -> Iterator[_Line]:
    start = 0
    for raw in text.split("\n"):
        yield _Line(start, raw.removesuffix("\r"))
        start += len(raw) + 1


@dataclass(frozen=True)
class _Logical:
    text: str
    offsets: list[int]  # one per character, plus the end


def _logical(lines: list[_Line], index: int) -> tuple[_Logical, int]:
    """A makefile line with its continuations joined (backslash-newline and the blanks around
    it become one space), and the index of the line after it."""
    chars: list[str] = []
    offsets: list[int] = []
    while True:
        line = lines[index]
        index += 1
        body = line.text
        continued = _ends_with_backslash(body) and index < len(lines)
        if continued:
            body = body[:-1].rstrip(" \t")
        lead = len(body) - len(body.lstrip(" \t")) if chars else 0
        chars.append(body[lead:])
        offsets.extend(range(line.start + lead, line.start + len(body)))
        if not continued:
            offsets.append(line.start + len(line.text))
            return _Logical("".join(chars), offsets), index
        chars.append(" ")
        offsets.append(line.start + len(body))


def _recipe_line(
    lines: list[_Line],
    index: int,
    prefix: str,
    current: list[tuple[str, list[int], list[bool]]],
) -> int:
    """Add the recipe line at ``index`` (with the lines it continues onto) to ``current``;
    returns the index of the line after it."""
    chars: list[str] = []
    offsets: list[int] = []
    first = True
    while True:
        line = lines[index]
        index += 1
        cut = len(prefix) if first or line.text.startswith(prefix) else 0
        first = False
        chars.append(line.text[cut:])
        offsets.extend(range(line.start + cut, line.start + len(line.text)))
        if not _ends_with_backslash(line.text) or index >= len(lines):
            offsets.append(line.start + len(line.text))
            break
        chars.append("\n")  # kept: the shell reads the backslash-newline
        offsets.append(line.start + len(line.text))
    command = _without_prefixes("".join(chars), offsets)
    if command is not None:
        current.append(command)
    return index


def _without_prefixes(
    chars: str, offsets: list[int]
) -> tuple[str, list[int], list[bool]] | None:
    """A recipe line without Make's leading blanks and ``@``/``-``/``+`` prefixes, as a shell
    command (None for an empty line).

    Make also strips the dashes of a line that starts with a flag (a ``--max-num-seqs 8`` line
    whose backslash was forgotten on the line before); vlint keeps those two, so that the line
    still reads as the flags it was meant to be.
    """
    lead = len(chars) - len(chars.lstrip(_MAKE_PREFIXES))
    if chars[:lead].endswith("--") and chars[lead : lead + 1].isalpha():
        lead -= 2
    if not chars[lead:].strip():
        return None
    return _command(chars[lead:], offsets[lead:])


def _command(chars: str, offsets: list[int]) -> tuple[str, list[int], list[bool]]:
    """A recipe command as the shell receives it: ``$$`` is ``$``, other references are
    Make's (flagged not literal)."""
    out: list[str] = []
    kept: list[int] = []
    literal: list[bool] = []
    index = 0
    while index < len(chars):
        char = chars[index]
        if char != "$":
            out.append(char)
            kept.append(offsets[index])
            literal.append(True)
            index += 1
            continue
        if chars.startswith("$$", index):
            out.append("$")
            kept.append(offsets[index])
            literal.append(True)
            index += 2
            continue
        end = _reference_end(chars, index)
        out.extend(chars[index:end])
        kept.extend(offsets[index:end])
        literal.extend([False] * (end - index))
        index = end
    kept.append(offsets[len(chars)])
    return "".join(out), kept, literal


def _reference_end(chars: str, index: int) -> int:
    """The end of the Make reference at ``index`` (``$X``, or ``$(...)``/``${...}`` with its
    nested references; an unterminated one runs to the end, where Make stops with an error)."""
    opener = chars[index + 1 : index + 2]
    if opener not in _OPENERS:
        return min(index + 2, len(chars))
    closer = _OPENERS[opener]
    depth = 0
    for at in range(index + 1, len(chars)):
        if chars[at] == opener:
            depth += 1
        elif chars[at] == closer:
            depth -= 1
            if depth == 0:
                return at + 1
    return len(chars)


def _script(commands: list[tuple[str, list[int], list[bool]]], locate: Locator) -> Chars:
    """A rule's recipe lines as one text, each line ended where its file line ends."""
    text: list[str] = []
    offsets: list[int] = []
    literal: list[bool] = []
    for chars, kept, flags in commands:
        text.append(chars + "\n")
        offsets.extend(kept)  # the end of the command: where its line break is
        literal.extend([*flags, True])
    offsets.append(offsets[-1])
    return Chars.at("".join(text), offsets, locate, literal)


def _rule(line: str) -> int | None:
    """For a rule line, where its recipe starts (-1 for none); None for any other line."""
    colon = -1
    index = 0
    while index < len(line):
        char = line[index]
        if char == "$" and line[index + 1 : index + 2] in _OPENERS:
            index = _reference_end(line, index)
            continue
        if char == "\\" and index + 1 < len(line):
            index += 2
            continue
        if char == "#":
            break
        if colon < 0:
            if char == "=":
                return None  # an assignment (``=``, ``?=``, ``+=``, ``!=``) comes first
            if char == ":":
                after = line[index:]
                if re.match(r":+=", after):
                    return None  # ``:=``, ``::=``, ``:::=``
                colon = index
                index += 2 if after.startswith("::") else 1
                continue
        else:
            if char == ";":
                return index + 1
            if char == "=":
                return None  # a target-specific variable
        index += 1
    return -1 if colon >= 0 and line[:colon].strip() else None


def _uncommented(line: str) -> str:
    match = re.search(r"(?<!\\)#", line)
    return line[: match.start()] if match else line


def _ends_with_backslash(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1
