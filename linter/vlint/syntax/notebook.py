"""Jupyter notebooks: cells whose every character keeps its offset in the ``.ipynb`` file.

A notebook is JSON (nbformat 4: https://nbformat.readthedocs.io/en/latest/format_description.html;
nbformat 3 keeps its cells under ``worksheets`` and a code cell's text under ``input``).  A
cell's ``source`` is one string or a list of strings (its lines), and JSON escapes make one
character of the text several characters of the file (``\\n``, ``\\"``, ``\\u00e9``, a surrogate
pair ``\\ud83d\\ude00``).  ``json.loads`` loses positions, so the way to each cell's text is
read by a small iterative parser that records where each string starts (the rest, outputs and
metadata, is decoded by the standard library's scanner), and each source string's offset map is
built by scanning its raw literal, as ruff's notebook index maps cells back to the file
(ruff ``crates/ruff_notebook/src/index.rs``).

``ipython`` then reads a code cell the way IPython's input transformers do
(``IPython/core/inputtransformer2.py``): a ``%%bash``/``%%sh``/``%%script bash`` cell is shell;
``!cmd`` lines (and ``x = !cmd``, ``%sx``/``%system``) are shell commands; ``%env`` and
``%set_env`` set environment variables; every other magic line is masked so that the rest of
the cell still parses as Python, with every offset kept.

Knows nothing of vLLM.  Bounded: one pass over the file, nesting capped at ``MAX_DEPTH``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from json import JSONDecodeError, JSONDecoder
from json.scanner import make_scanner
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, not in typeshed

from vlint.errors import Unparsable
from vlint.model import LineIndex, Locator
from vlint.syntax.lines import Chars

__all__ = ["Cell", "CodeCell", "Notebook", "ipython", "parse"]

MAX_DEPTH = 200  # JSON nesting; a notebook nests about six deep
_BLANK = re.compile(r"[ \t\n\r]*")
# The members read with positions (the way to each cell's text).
_POSITIONAL = frozenset({"cells", "worksheets", "source", "input"})
# The standard library's scanner (its C one where there is one): ``_SCAN(text, offset)`` is the
# value at ``offset`` and the offset after it.  (typeshed types its argument as the scanner.)
_SCAN: Callable[[str, int], tuple[object, int]] = make_scanner(
    JSONDecoder(strict=True)  # type: ignore[arg-type]
)
_SHELL_MAGICS = frozenset({"bash", "sh"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SCRIPT_OPTIONS_WITH_VALUE = frozenset({"--out", "--err", "--proc"})
# Cell magics whose body IPython runs as Python.
_PYTHON_BODY_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
_ENV_MAGICS = frozenset({"env", "set_env"})
_SYSTEM_MAGICS = frozenset({"sx", "system"})
# ``name = !cmd`` / ``name = %magic``: IPython's assignment forms.
_ASSIGNED = re.compile(r"[ \t]*[A-Za-z_][\w.]*[ \t]*=[ \t]*(?=[!%])")
_HELP = re.compile(r"[ \t]*(\?{1,2}[\w.]*|[\w.]+\?{1,2})[ \t]*$")
_MAGIC_NAME = re.compile(r"%%?([A-Za-z_]\w*)")


class JsonString(str):
    """A JSON string value, with the offsets of its opening quote and past its closing one."""

    start: int
    end: int


@dataclass(frozen=True)
class Cell:
    """One cell: its number (1-based, in file order), type, and text at its file offsets."""

    number: int
    cell_type: str
    source: Chars


@dataclass(frozen=True)
class Notebook:
    """The cells, and the kernel's language (None when the notebook does not say)."""

    language: str | None
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class CodeCell:
    """A code cell as IPython reads it.

    ``python`` is the cell with its IPython lines masked (same length, same offsets), or None
    when its body is not Python; ``shell`` the shell texts it runs, in order; ``env`` the
    ``%env NAME=VALUE`` assignments (name, value, whether the value is literal), in order.
    """

    python: Chars | None
    shell: tuple[Chars, ...]
    env: tuple[tuple[Chars, Chars, bool], ...]


def parse(text: str, locate: Locator | None = None) -> Notebook:
    """The notebook in ``text``; raises Unparsable (with the position) for what is not one."""
    locate = locate or LineIndex.of(text).locate
    if not text.strip():
        return Notebook(None, ())  # an empty file: nothing to read, nothing wrong to report
    document = _json(text, locate)
    if not isinstance(document, dict):
        raise Unparsable("not a Jupyter notebook: the top level is not a JSON object")
    cells = document.get("cells")
    if cells is None and isinstance(document.get("worksheets"), list):
        cells = []  # nbformat 3
        for sheet in document["worksheets"]:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                cells.extend(sheet["cells"])
    if not isinstance(cells, list):
        raise Unparsable("not a Jupyter notebook: it has no list of cells")
    found: list[Cell] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            continue
        source = cell.get("source", cell.get("input"))
        chars = _source(text, source, locate)
        if chars is not None:
            found.append(Cell(number, str(cell["cell_type"]), chars))
    return Notebook(_language(document), tuple(found))


def _language(document: dict[str, object]) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field), str):
            return str(section[field]).lower()
    return None


# -- JSON with string positions ---------------------------------------------------------------


def _json(text: str, locate: Locator) -> object:
    """The JSON value of ``text``; the strings on the way to each cell's text are
    ``JsonString``s that know their offsets.

    Iterative (an explicit stack) along that way; every other value (outputs, metadata, the
    bulk of a notebook) is decoded whole by the standard library's scanner, at its own speed.
    """
    stack: list[tuple[list[object] | dict[str, object], str | None]] = []

    def fail(message: str, offset: int) -> Unparsable:
        return Unparsable(f"invalid JSON: {message}", locate(min(offset, len(text))))

    def blank(offset: int) -> int:
        match = _BLANK.match(text, offset)
        return match.end() if match else offset

    def whole(offset: int) -> tuple[object, int]:
        try:
            value, end = _SCAN(text, offset)
        except StopIteration as stop:
            raise fail("expected a value", int(stop.value)) from None
        except JSONDecodeError as error:
            raise fail(_message(error), error.pos) from None
        except RecursionError:
            raise fail("nested too deeply", offset) from None
        except ValueError:  # a number of more digits than the interpreter converts
            raise fail("a value that cannot be decoded", offset) from None
        return value, end

    def string(offset: int) -> tuple[JsonString, int]:
        try:
            value, end = scanstring(text, offset + 1, True)
        except JSONDecodeError as error:
            raise fail(_message(error), error.pos) from None
        located = JsonString(value)
        located.start, located.end = offset, end
        return located, end

    def key(offset: int) -> tuple[str, int]:
        offset = blank(offset)
        if text.startswith('"', offset):
            name, offset = string(offset)
            offset = blank(offset)
            if text.startswith(":", offset):
                return str(name), offset + 1
            raise fail("expected ':'", offset)
        raise fail("expected a property name in double quotes", offset)

    offset = 0
    positional = True  # the value at ``offset`` is on the way to a cell's text
    while True:
        offset = blank(offset)
        char = text[offset : offset + 1]
        value: object
        if not positional or char not in ("{", "[", '"'):
            value, offset = whole(offset)
        elif char == '"':
            value, offset = string(offset)
        else:
            if len(stack) >= MAX_DEPTH:
                raise fail("nested too deeply", offset)
            after = blank(offset + 1)
            if text.startswith("}" if char == "{" else "]", after):
                value, offset = ({} if char == "{" else []), after + 1
            elif char == "{":
                name, offset = key(offset + 1)
                stack.append(({}, name))
                positional = name in _POSITIONAL
                continue
            else:
                stack.append(([], None))
                offset += 1
                continue
        # A complete value: put it in its container, closing every container it completes.
        while True:
            if not stack:
                offset = blank(offset)
                if offset != len(text):
                    raise fail("extra data after the value", offset)
                return value
            container, member = stack[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[member or ""] = value
            offset = blank(offset)
            separator = text[offset : offset + 1]
            if separator == ",":
                if isinstance(container, dict):
                    name, offset = key(offset + 1)
                    stack[-1] = (container, name)
                    positional = name in _POSITIONAL
                else:
                    offset += 1
                    positional = True
                break
            if separator != ("]" if isinstance(container, list) else "}"):
                raise fail("expected ',' or a closing bracket", offset)
            stack.pop()
            value, offset = container, offset + 1


def _message(error: JSONDecodeError) -> str:
    return error.msg.lower().removesuffix(" at").removesuffix(":")


def _source(text: str, source: object, locate: Locator) -> Chars | None:
    """A cell's source (a string or a list of strings) as one text at its file offsets."""
    parts = [source] if isinstance(source, str) else source if isinstance(source, list) else []
    strings = [part for part in parts if isinstance(part, JsonString)]
    if not strings or len(strings) != len(parts):
        return None
    offsets: list[int] = []
    for part in strings:
        offsets.extend(_string_offsets(text, part))
    offsets.append(strings[-1].end - 1)  # the text ends at the last closing quote
    return Chars.at("".join(strings), offsets, locate)


def _string_offsets(text: str, value: JsonString) -> list[int]:
    """The file offset of each character of a JSON string, scanned from its raw literal."""
    offsets: list[int] = []
    index, stop = value.start + 1, value.end - 1
    while index < stop:
        offsets.append(index)
        if text[index] != "\\":
            index += 1
        elif text[index + 1] != "u":
            index += 2
        elif _surrogate_pair(text, index):
            index += 12  # one character written as two \\u escapes
        else:
            index += 6
    if len(offsets) != len(value):  # never for what scanstring accepted; a guard all the same
        return [value.start + 1] * len(value)
    return offsets


def _surrogate_pair(text: str, index: int) -> bool:
    try:
        high = int(text[index + 2 : index + 6], 16)
        if not 0xD800 <= high < 0xDC00 or not text.startswith("\\u", index + 6):
            return False
        return 0xDC00 <= int(text[index + 8 : index + 12], 16) < 0xE000
    except ValueError:
        return False


# -- IPython -----------------------------------------------------------------------------------


def ipython(cell: Chars) -> CodeCell:
    """A code cell read as IPython reads it (see the module docstring)."""
    text = cell.text
    first_end = _line_end(text, 0)
    first = text[:first_end].strip()
    if first.startswith("%%"):
        magic = _MAGIC_NAME.match(first)
        name = magic.group(1) if magic else ""
        words = first.split()
        body = cell.slice(min(first_end + 1, len(text)))
        if name in _SHELL_MAGICS or (name == "script" and _script_program(words) in _SHELLS):
            return CodeCell(None, (body,), ())
        if name in ("writefile", "file") and len(words) > 1:
            target = words[-1].lower()
            if target.endswith((".sh", ".bash")):
                return CodeCell(None, (body,), ())
            if not target.endswith(".py"):
                return CodeCell(None, (), ())
            return CodeCell(_masked(cell, [(0, first_end)]), (), ())
        if name not in _PYTHON_BODY_MAGICS:
            return CodeCell(None, (), ())
        masks, shell, env = _escapes(cell, first_end + 1)
        return CodeCell(_masked(cell, [(0, first_end), *masks]), tuple(shell), tuple(env))
    masks, shell, env = _escapes(cell, 0)
    return CodeCell(_masked(cell, masks), tuple(shell), tuple(env))


def _script_program(words: Sequence[str]) -> str:
    """The program of ``%%script [--bg] [--out OUT] [--err ERR] [--proc PROC] PROGRAM ...``."""
    index = 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in _SCRIPT_OPTIONS_WITH_VALUE else 1
    return words[index].rsplit("/", 1)[-1] if index < len(words) else ""


def _escapes(
    cell: Chars, start: int
) -> tuple[list[tuple[int, int]], list[Chars], list[tuple[Chars, Chars, bool]]]:
    """The IPython lines from ``start``: the ranges to mask, the shell texts, the variables."""
    text = cell.text
    masks: list[tuple[int, int]] = []
    shell: list[Chars] = []
    env: list[tuple[Chars, Chars, bool]] = []
    in_string = _starts_in_string(text)
    offset = start
    while offset < len(text):
        end = _line_end(text, offset)
        line = text[offset:end]
        if in_string(offset):
            offset = end + 1
            continue
        assigned = _ASSIGNED.match(line)
        at = offset + (assigned.end() if assigned else len(line) - len(line.lstrip(" \t")))
        escape = text[at : at + 1]
        if escape in ("!", "%"):
            end = _continued_end(text, offset)
            masks.append((at, end))
            if escape == "!":
                skip = 2 if text.startswith("!!", at) else 1
                shell.append(cell.slice(at + skip, end))
            else:
                magic = _MAGIC_NAME.match(text, at)
                name = magic.group(1) if magic else ""
                rest = magic.end() if magic else at + 1
                if name in _SYSTEM_MAGICS:
                    shell.append(cell.slice(rest, end))
                elif name in _ENV_MAGICS and not assigned:
                    variable = _assignment(cell, rest, end)
                    if variable is not None:
                        env.append(variable)
        elif _HELP.match(line):
            masks.append((at, end))
        offset = end + 1
    return masks, shell, env


def _assignment(cell: Chars, start: int, end: int) -> tuple[Chars, Chars, bool] | None:
    """``%env NAME=VALUE`` or ``%env NAME VALUE`` (IPython's ``%set_env``): name and value."""
    text = cell.text[start:end]
    body = text.lstrip()
    lead = start + len(text) - len(body)
    split = "=" if "=" in body else " "
    name, separator, value = body.partition(split)
    name = name.rstrip()
    if not separator or not name or any(char.isspace() for char in name):
        return None
    value_start = lead + body.index(separator) + 1
    stripped = value.strip()
    value_start += len(value) - len(value.lstrip())
    value_end = value_start + len(stripped)
    if len(stripped) >= 2 and stripped[0] in "'\"" and stripped[-1] == stripped[0]:
        value_start, value_end = value_start + 1, value_end - 1
    literal = "$" not in stripped and "{" not in stripped  # IPython expands both in magics
    return cell.slice(lead, lead + len(name)), cell.slice(value_start, value_end), literal


def _masked(cell: Chars, masks: Sequence[tuple[int, int]]) -> Chars:
    """The cell with each masked range made valid Python of the same length: ``0#...`` on its
    first line (a statement, so an ``if`` body of only a magic still parses), ``#...`` on the
    lines it continues onto."""
    chars = list(cell.text)
    for start, end in masks:
        for offset in _line_starts(cell.text, start, end):
            if offset == start:
                for index, char in zip(range(offset, min(offset + 2, end)), "0#"):
                    chars[index] = char
            elif offset < end and chars[offset] != "\n":
                chars[offset] = "#"
    offsets = [cell.offset(index) for index in range(len(chars) + 1)]
    return Chars.at("".join(chars), offsets, cell.locator)


def _line_starts(text: str, start: int, end: int) -> Iterator[int]:
    yield start
    index = text.find("\n", start, end)
    while index != -1:
        yield index + 1
        index = text.find("\n", index + 1, end)


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end == -1 else end


def _continued_end(text: str, offset: int) -> int:
    """The end of the line at ``offset`` and of the lines its trailing backslashes continue
    onto (IPython joins them for an escaped command or a magic)."""
    end = _line_end(text, offset)
    while end < len(text) and _ends_with_backslash(text, offset, end):
        offset = end + 1
        end = _line_end(text, offset)
    return end


def _ends_with_backslash(text: str, start: int, end: int) -> bool:
    trailing = len(text[start:end]) - len(text[start:end].rstrip("\\"))
    return trailing % 2 == 1


def _starts_in_string(text: str) -> Callable[[int], bool]:
    """Whether the line starting at an offset begins inside a triple-quoted Python string (a
    ``!`` or ``%`` there is text, not an IPython escape).  One scan of the cell."""
    inside: set[int] = set()
    index, quote = 0, ""
    size = len(text)
    while index < size:
        char = text[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
            if char == "\n":
                if len(quote) == 3:
                    inside.add(index + 1)
                else:
                    quote = ""  # an unterminated one-line string ends with its line
            index += 1
        elif char == "#":
            index = _line_end(text, index)
        elif char in "'\"":
            quote = char * 3 if text.startswith(char * 3, index) else char
            index += len(quote)
        else:
            index += 1
    return inside.__contains__
