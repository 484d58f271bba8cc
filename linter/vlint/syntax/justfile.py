"""justfiles: each recipe's body as the text just hands to its shell, at file offsets.

Read as just reads a justfile (https://just.systems/man/en/, and casey/just ``src/lexer.rs``,
``src/line.rs``, ``src/recipe.rs``, ``src/evaluator.rs``):

- a recipe is a line in column 0, ``[@]name [params]: [dependencies]`` (its ``:`` outside
  quotes, parentheses and backticks, and not ``:=``), with attribute lines (``[script("bash")]``)
  above it; its body is the indented lines after it, the first one's indentation removed from
  every line (``lex_line_start``); blank lines do not end it, a line in column 0 does;
- ``{{ expr }}`` is an interpolation just evaluates (flagged not literal here: vlint evaluates
  no expression), ``{{{{`` the text ``{{`` (``Lexer::INTERPOLATION_ESCAPE``);
- a linewise recipe runs each line in its own shell (``Recipe::run_shell``): a line ending in a
  backslash goes on, the backslash dropped and the next line's leading blanks trimmed
  (``Evaluator::evaluate_line``); the ``@``, ``-`` sigils at the start of a line are just's
  (``Line::sigils``; ``?`` only with ``set guards``);
- a recipe whose body starts with ``#!``, or with the ``[script]`` attribute, runs its whole
  body as one script, with that interpreter (``Recipe::run_script``);
- ``set shell := ["bash", "-uc"]`` names the linewise shell (``sh -cu`` without it),
  ``set script-interpreter`` the ``[script]`` one (``sh -eu``); ``set export`` puts every
  variable in the recipes' environment, ``export NAME := value`` one.

Knows nothing of vLLM.  One pass over the lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vlint.model import LineIndex, Locator
from vlint.syntax.lines import Chars

__all__ = ["Justfile", "Recipe", "read"]

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_SET = re.compile(rf"set[ \t]+({_NAME})[ \t]*(?::=[ \t]*(.*))?$")
_ASSIGNMENT = re.compile(rf"(export[ \t]+)?({_NAME})[ \t]*:=[ \t]*")
_RECIPE = re.compile(rf"@?({_NAME})")
_OTHER = re.compile(r"(alias|import|mod|unexport)\b")
_SCRIPT_ATTRIBUTE = re.compile(r"(?:^\[|,)[ \t]*script[ \t]*(?:\(([^)]*)\))?[ \t]*[,\]]")
_STRING = re.compile(r"'([^']*)'|\"((?:[^\"\\]|\\.)*)\"")
_DEFAULT_SHELL = ("sh", "-cu")
_DEFAULT_SCRIPT = ("sh", "-eu")
_SIGILS = "@-"
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Recipe:
    """One recipe: its name, and its body as one text (``interpolations`` held not literal).

    For a linewise recipe (``script`` None) the text has one line per command, continuations
    joined and sigils removed; for a script recipe it is the whole body, line for line, and
    ``script`` is the interpreter's words (the shebang's, or the ``[script]`` attribute's)."""

    name: str
    body: Chars
    script: tuple[str, ...] | None


@dataclass(frozen=True)
class Justfile:
    recipes: tuple[Recipe, ...]
    shell: tuple[str, ...]  # ``set shell``'s words
    # Variables in the recipes' environment: name, value (not literal unless a plain string).
    exports: tuple[tuple[Chars, Chars], ...]


@dataclass
class _Body:
    name: str
    script: tuple[str, ...] | None  # the ``[script]`` attribute's interpreter, if any
    lines: list[tuple[int, str]]  # (offset of the text after the indentation, that text)


def read(text: str, locate: Locator | None = None) -> Justfile:
    """The recipes, the shell, and the exported variables of the justfile ``text``."""
    locate = locate or LineIndex.of(text).locate
    bodies: list[_Body] = []
    current: _Body | None = None
    indent: str | None = None
    attribute_script: tuple[str, ...] | None = None
    settings: dict[str, str] = {}
    assignments: list[tuple[bool, Chars, Chars]] = []
    triple: str | None = None  # the quotes of a multi-line string being skipped
    start = 0
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        offset, start = start, start + len(raw) + 1
        if triple is not None:
            triple = None if triple in line else triple
            continue
        if current is not None and (not line.strip() or line[:1] in " \t"):
            if not line.strip():
                current.lines.append((offset + len(line), ""))
                continue
            if indent is None:
                indent = line[: len(line) - len(line.lstrip(" \t"))]
            cut = len(indent) if line.startswith(indent) else len(line) - len(line.lstrip(" \t"))
            current.lines.append((offset + cut, line[cut:]))
            continue
        if not line.strip() or line[:1] in " \t":
            continue
        current, indent = None, None  # a line in column 0 ends a body, a comment too
        if line.startswith("#"):
            continue
        if line.startswith("["):
            attribute_script = _script_attribute(line, settings) or attribute_script
            continue
        setting = _SET.match(line.rstrip())
        if setting is not None:
            settings[setting.group(1)] = (setting.group(2) or "true").strip()
            continue
        assignment = _ASSIGNMENT.match(line)
        if assignment is not None:
            value_at = assignment.end()
            triple = _opened_triple(line[value_at:])
            name = Chars.at(assignment.group(2),
                            range(offset + assignment.start(2), offset + assignment.end(2) + 1),
                            locate)
            assignments.append((bool(assignment.group(1)), name,
                                _value(line[value_at:], offset + value_at, locate, triple)))
            continue
        if _OTHER.match(line):
            continue
        header = _RECIPE.match(line)
        if header is not None and _recipe_colon(line, header.end()):
            current = _Body(header.group(1), attribute_script, [])
            bodies.append(current)
        attribute_script = None
    shell = _words(settings.get("shell", "")) or _DEFAULT_SHELL
    export_all = settings.get("export", "false") == "true"
    exports = tuple((name, value) for exported, name, value in assignments
                    if exported or export_all)
    recipes = tuple(_recipe(body, locate) for body in bodies if body.lines)
    return Justfile(recipes, shell, exports)


def _script_attribute(line: str, settings: dict[str, str]) -> tuple[str, ...] | None:
    match = _SCRIPT_ATTRIBUTE.search(line)
    if match is None:
        return None
    if match.group(1) is not None:
        return _words(match.group(1)) or _DEFAULT_SCRIPT
    return _words(settings.get("script-interpreter", "")) or _DEFAULT_SCRIPT


def _words(written: str) -> tuple[str, ...]:
    """The strings of a list setting (``["bash", "-uc"]``) or attribute arguments."""
    return tuple(m.group(1) if m.group(1) is not None else m.group(2)
                 for m in _STRING.finditer(written))


def _opened_triple(value: str) -> str | None:
    """The quotes of a ``'''``/``\"\"\"`` string that opens in ``value`` and goes on."""
    for quotes in ("'''", '"""'):
        if value.startswith((quotes, "x" + quotes)) and value.count(quotes) < 2:
            return quotes
    return None


def _value(written: str, at: int, locate: Locator, triple: str | None) -> Chars:
    """An assignment's value: a plain string's contents, literal; any other expression as
    written (comment cut), not literal."""
    string = _STRING.match(written)
    rest = written[string.end():].strip() if string is not None else ""
    if triple is None and string is not None and (not rest or rest.startswith("#")):
        if string.group(1) is not None:
            return Chars.at(string.group(1), range(at + 1, at + string.end()), locate)
        decoded = _decoded(string.group(2), at + 1, locate)
        if decoded is not None:
            return decoded
    expression = written.split(" #", 1)[0].rstrip()
    return Chars.at(expression, range(at, at + len(expression) + 1), locate,
                    (False,) * len(expression))


def _decoded(content: str, at: int, locate: Locator) -> Chars | None:
    """A double-quoted string's contents with its escapes decoded (None for one vlint does not
    decode, ``\\u{...}``)."""
    chars: list[str] = []
    offsets: list[int] = []
    index = 0
    while index < len(content):
        char = content[index]
        if char == "\\":
            decoded = _ESCAPES.get(content[index + 1:index + 2])
            if decoded is None:
                return None
            chars.append(decoded)
            offsets.append(at + index)
            index += 2
            continue
        chars.append(char)
        offsets.append(at + index)
        index += 1
    offsets.append(at + len(content))
    return Chars.at("".join(chars), offsets, locate)


def _recipe_colon(line: str, start: int) -> bool:
    """Whether the rest of a line after a name is a recipe's parameters and ``:``."""
    depth = 0
    quote = ""
    index = start
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "#" and not depth:
            return False
        elif char == ":" and not depth:
            return not line.startswith("=", index + 1)
        index += 1
    return False


def _recipe(body: _Body, locate: Locator) -> Recipe:
    lines = body.lines
    while lines and not lines[-1][1]:
        lines.pop()
    first = next((index for index, (_, line) in enumerate(lines) if line), len(lines))
    lines = lines[first:]
    script = body.script
    if lines and lines[0][1].startswith("#!"):
        script = tuple(lines[0][1][2:].split())
    if script is not None:
        chars = _escaped([(at, line, "\n") for at, line in lines])
    else:
        chars = _escaped(_logical(lines))
    return Recipe(body.name, chars.finish(locate), script)


def _logical(lines: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
    """The linewise commands: a line ending in a backslash joined to the next (the backslash
    dropped, the next line's leading blanks trimmed), just's sigils cut from each command."""
    pieces: list[tuple[int, str, str]] = []
    continued = False
    for at, line in lines:
        if continued:
            trimmed = len(line) - len(line.lstrip(" \t"))
            at, line = at + trimmed, line[trimmed:]
        else:
            cut = _sigils(line)
            at, line = at + cut, line[cut:]
        continued = line.endswith("\\")
        pieces.append((at, line[:-1] if continued else line, "" if continued else "\n"))
    return pieces


def _sigils(line: str) -> int:
    """How many of just's sigils (each once) start a line."""
    seen = ""
    for char in line:
        if char not in _SIGILS or char in seen:
            break
        seen += char
    return len(seen)


class _Text:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.offsets: list[int] = []
        self.literal: list[bool] = []

    def finish(self, locate: Locator) -> Chars:
        end = self.offsets[-1] + 1 if self.offsets else 0
        return Chars.at("".join(self.chars), [*self.offsets, end], locate, self.literal)


def _escaped(pieces: list[tuple[int, str, str]]) -> _Text:
    """The pieces (offset, text, what ends it) as one text: ``{{{{`` as ``{{``, each ``{{ ... }}``
    interpolation flagged not literal (one may run over lines, as the lexer reads it)."""
    joined = _Text()
    inside = False
    for at, piece, ending in pieces:
        index = 0
        while index < len(piece):
            if not inside and piece.startswith("{{{{", index):
                joined.chars.extend("{{")
                joined.offsets.extend((at + index, at + index + 1))
                joined.literal.extend((True, True))
                index += 4
                continue
            width = 1
            if not inside and piece.startswith("{{", index):
                inside, width = True, 2
            elif inside and piece.startswith("}}", index):
                width = 2
            joined.chars.extend(piece[index:index + width])
            joined.offsets.extend(range(at + index, at + index + width))
            joined.literal.extend([not inside] * width)
            if width == 2 and piece.startswith("}}", index):
                inside = False
            index += width
        if ending:
            joined.chars.append(ending)
            joined.offsets.append(at + len(piece))
            joined.literal.append(not inside)
    return joined
