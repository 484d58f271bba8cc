"""Python code: ``LLM(...)``/``EngineArgs(...)``/``AsyncEngineArgs(...)`` calls and argv lists.

The code is parsed with :mod:`ast` and never imported or run.  Only names bound by imports from
``vllm`` count as vLLM's classes, whatever alias they are imported under.  Argv lists
(``["vllm", "serve", model, "--max-num-seqs", "8"]``) and shell strings (``shlex.split(...)``,
``subprocess.run(..., shell=True)``, ``os.system(...)``) are handed to the argv recogniser and
the shell extractor.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from vlint.errors import Unparsable
from vlint.extract import deployment, shell
from vlint.extract.argv import recognise_all
from vlint.extract.nested import ExtractContext
from vlint.model import Invocation, Keyword, Pos, Span, Token

KIND = "python"
_CALLEES = frozenset({"LLM", "EngineArgs", "AsyncEngineArgs"})
_SHELL_FUNCTIONS = frozenset(
    {
        "os.system",
        "os.popen",
        "shlex.split",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
    }
)
_SUBPROCESS = frozenset(
    {
        "subprocess.run",
        "subprocess.Popen",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
    }
)
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class Source:
    """Positions in Python source: ast's UTF-8 byte columns become 1-based character columns."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")

    def pos(self, line: int, byte_column: int) -> Pos:
        if not 1 <= line <= len(self.lines):
            return Pos(line, byte_column + 1)
        encoded = self.lines[line - 1].encode("utf-8")
        return Pos(line, len(encoded[:byte_column].decode("utf-8", errors="replace")) + 1)

    def start(self, node: ast.expr | ast.keyword) -> Pos:
        return self.pos(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.keyword) -> Pos:
        line = node.end_lineno if node.end_lineno is not None else node.lineno
        column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return self.pos(line, column)

    def span(self, node: ast.expr | ast.keyword) -> Span:
        return Span(self.start(node), self.end(node))

    def segment(self, start: Pos, end: Pos) -> str:
        if start.line == end.line:
            return self.lines[start.line - 1][start.column - 1 : end.column - 1]
        parts = [self.lines[start.line - 1][start.column - 1 :]]
        parts.extend(self.lines[start.line : end.line - 1])
        parts.append(self.lines[end.line - 1][: end.column - 1])
        return "\n".join(parts)


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in Python source; raises Unparsable when it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = Pos(error.lineno or 1, max(error.offset or 1, 1))
        raise Unparsable(f"invalid Python: {error.msg}", where) from None
    except (ValueError, RecursionError, MemoryError) as error:
        # CPython's parser raises MemoryError when its stack overflows on deep nesting.
        raise Unparsable(f"invalid Python: {type(error).__name__}") from None
    source = Source(text)
    names = _import_bindings(tree)
    found: list[Invocation] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found.extend(_call(path, source, names, node))
        elif isinstance(node, (ast.List, ast.Tuple)):
            found.extend(_argv_list(path, source, node))
    found.sort(key=lambda invocation: invocation.anchor.start)
    return found


def _import_bindings(tree: ast.Module) -> dict[str, str]:
    """Local name → the dotted name it was imported as (``L`` → ``vllm.LLM``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    names[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def qualified_name(node: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name a call target refers to, resolved through the imports."""
    attributes: list[str] = []
    while isinstance(node, ast.Attribute):  # a loop: attribute chains can be very deep
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([names.get(node.id, node.id), *reversed(attributes)])


def _vllm_callee(node: ast.expr, names: dict[str, str]) -> str | None:
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in names:
        return None
    qualified = qualified_name(node, names)
    if qualified is None or not qualified.startswith("vllm."):
        return None
    last = qualified.rsplit(".", 1)[1]
    return last if last in _CALLEES else None


def _call(path: str, source: Source, names: dict[str, str], node: ast.Call) -> list[Invocation]:
    callee = _vllm_callee(node.func, names)
    if callee is not None:
        return [_keywords_invocation(path, source, node, callee)]
    qualified = qualified_name(node.func, names)
    if qualified is None or not node.args:
        return []
    command = node.args[0]
    if qualified in _SHELL_FUNCTIONS or (qualified in _SUBPROCESS and _shell_true(node)):
        if isinstance(command, ast.Constant) and isinstance(command.value, str):
            return _shell_string(path, source, command)
    return []


def _shell_true(node: ast.Call) -> bool:
    return any(
        keyword.arg == "shell"
        and isinstance(keyword.value, ast.Constant)
        and bool(keyword.value.value)
        for keyword in node.keywords
    )


def _keywords_invocation(path: str, source: Source, node: ast.Call, callee: str) -> Invocation:
    keywords: list[Keyword] = []
    unpacked = False
    if node.args and not isinstance(node.args[0], ast.Starred):
        keywords.append(_positional_model(source, node.args[0]))
    for keyword in node.keywords:
        if keyword.arg is not None:
            start = source.start(keyword)
            columns = range(start.column, start.column + len(keyword.arg) + 1)
            name = Token(keyword.arg, tuple(Pos(start.line, column) for column in columns))
            keywords.append(_keyword(source, name, keyword.value))
        elif isinstance(keyword.value, ast.Dict):
            expanded, rest = _dict_keywords(source, keyword.value)
            keywords.extend(expanded)
            unpacked = unpacked or rest
        else:
            unpacked = True
    return Invocation(
        path=path,
        origin=(KIND,),
        style="python",
        anchor=source.span(node.func),
        callee=callee,
        keywords=tuple(keywords),
        has_unpacked_kwargs=unpacked,
    )


def _positional_model(source: Source, value: ast.expr) -> Keyword:
    """The first positional argument is the model; its name token sits on the value."""
    start, end = source.start(value), source.end(value)
    name = Token("model", (start,) * 5 + (end,))
    return _keyword(source, name, value)


def _keyword(source: Source, name: Token, value: ast.expr) -> Keyword:
    try:
        literal_value = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Keyword(name=name, value_span=source.span(value), value=None, literal=False)
    return Keyword(name=name, value_span=source.span(value), value=literal_value, literal=True)


def _dict_keywords(source: Source, node: ast.Dict) -> tuple[list[Keyword], bool]:
    """Keywords from ``**{"name": value}``; True when some entry cannot be expanded."""
    keywords: list[Keyword] = []
    rest = False
    for key, value in zip(node.keys, node.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            keywords.append(_keyword(source, string_token(source, key), value))
        else:
            rest = True
    return keywords, rest


def string_token(source: Source, node: ast.Constant) -> Token:
    """A string constant as a token whose positions are those of its content in the file."""
    value = str(node.value)
    positions = _string_positions(source, node, value)
    if positions is None:
        start, end = source.start(node), source.end(node)
        positions = (start,) * len(value) + (end,)
    return Token(value, positions)


def _string_positions(source: Source, node: ast.Constant, value: str) -> tuple[Pos, ...] | None:
    start, end = source.start(node), source.end(node)
    written = source.segment(start, end)
    prefix = 0
    while prefix < len(written) and written[prefix] not in "'\"":
        prefix += 1
    if prefix >= len(written):
        return None
    flags = written[:prefix].lower()
    quote = written[prefix]
    if written.startswith(quote * 3, prefix):
        quote *= 3
    body_start = prefix + len(quote)
    if not written.endswith(quote) or len(written) - len(quote) < body_start:
        return None  # implicit concatenation or an unusual form
    body = written[body_start : len(written) - len(quote)]
    mapped = _decode(body, raw="r" in flags)
    if mapped is None or "".join(char for char, _ in mapped) != value:
        return None
    line, column = start.line, start.column
    offsets: list[Pos] = []
    for char in written[: body_start + len(body) + 1]:
        offsets.append(Pos(line, column))
        if char == "\n":
            line, column = line + 1, 1
        else:
            column += 1
    positions = [offsets[body_start + at] for _, at in mapped]
    positions.append(offsets[body_start + len(body)])
    return tuple(positions)


def _decode(body: str, raw: bool) -> list[tuple[str, int]] | None:
    """The characters of a string literal's body, each with the offset it was written at."""
    out: list[tuple[str, int]] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\" or raw:
            out.append((char, index))
            index += 1
            continue
        code = body[index + 1 : index + 2]
        if code in _SIMPLE_ESCAPES:
            out.append((_SIMPLE_ESCAPES[code], index))
            index += 2
        elif code == "\n":
            index += 2
        elif code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            try:
                out.append((chr(int(body[index + 2 : index + 2 + width], 16)), index))
            except ValueError:
                return None
            index += 2 + width
        else:
            return None
    return out


def _argv_list(path: str, source: Source, node: ast.List | ast.Tuple) -> list[Invocation]:
    elements = node.elts
    if len(elements) < 2 or any(isinstance(element, ast.Starred) for element in elements):
        return []
    first = elements[0]
    is_string = isinstance(first, ast.Constant) and isinstance(first.value, str)
    if not is_string and not _is_executable(first):
        return []
    return recognise_all(list(_argv_tokens(source, elements)), path=path, kind=KIND)


def _is_executable(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "executable"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _argv_tokens(source: Source, elements: Sequence[ast.expr]) -> Iterator[Token]:
    for element in elements:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            yield string_token(source, element)
        elif _is_executable(element):
            # ``[sys.executable, "-m", ...]`` runs the current Python interpreter.
            start, end = source.start(element), source.end(element)
            yield Token("python", (start,) * 6 + (end,), literal=False)
        else:
            start, end = source.start(element), source.end(element)
            text = source.segment(start, end)
            yield Token(text, _segment_positions(source, start, text), literal=False)


def _segment_positions(source: Source, start: Pos, text: str) -> tuple[Pos, ...]:
    positions = [start]
    for char in text:
        previous = positions[-1]
        if char == "\n":
            positions.append(Pos(previous.line + 1, 1))
        else:
            positions.append(Pos(previous.line, previous.column + 1))
    return tuple(positions)


def _shell_string(path: str, source: Source, node: ast.Constant) -> list[Invocation]:
    token = string_token(source, node)
    last = len(token.text)

    def locate(offset: int) -> Pos:
        return token.pos(max(0, min(offset, last)))

    found = shell.extract(path, token.text, locate)
    return [deployment.enclosed(invocation, KIND) for invocation in found]
